import LockrPolicy

// The bodies of the control API's actions (unlock, mode, guard, pending changes, the PIN, emergency) and their answers.

public struct WindowBody: Codable, Sendable, Equatable {
    /// The app, or nil for every guarded app.
    public let app: String?
    public let kind: String
    public let ends: TimeBody
}

public struct AppRequest: Codable, Sendable, Equatable {
    public let app: String?
    /// The sentence as typed, where the gate asks it (`guard remove` loosens; time mode's gate
    /// guards `snooze` and `extend`).
    public var phrase: String? = nil
}

public struct UnlockRequest: Codable, Sendable, Equatable {
    /// The app, or nil with `all` for every guarded app.
    public let app: String?
    public var all: Bool? = nil
    /// Extreme mode: the sentence as typed.
    public var phrase: String? = nil
}

public struct UnlockResponse: Codable, Sendable, Equatable {
    public let opened: [WindowBody]
    public let alreadyOpen: [WindowBody]
}

public struct ModeRequest: Codable, Sendable, Equatable {
    public let mode: String
    public var budgetMinutes: Int? = nil
    public var windowMinutes: Int? = nil
    public var perApp: Bool? = nil
    /// Extreme mode: the sentence, for a change that loosens.
    public var phrase: String? = nil
}

// In an extension, so that Swift still makes the memberwise initialiser.
extension ModeRequest {
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        mode = try container.decode(String.self, forKey: .mode)
        budgetMinutes = try container.decodeWholeNumber(Int.self, forKey: .budgetMinutes)
        windowMinutes = try container.decodeWholeNumber(Int.self, forKey: .windowMinutes)
        perApp = try container.decodeIfPresent(Bool.self, forKey: .perApp)
        phrase = try container.decodeIfPresent(String.self, forKey: .phrase)
    }
}

/// A change that loosens protection, waiting for its time.
public struct PendingBody: Codable, Sendable, Equatable {
    public let id: Int
    /// "time.budget-minutes: 30 min → 45 min".
    public let change: String
    public let source: String
    public let appliesAt: TimeBody
    /// It waits for the sentence too (`lockr pending confirm ID`).
    public let awaitingSentence: Bool
}

/// What a settings change did.
public struct ChangeBody: Codable, Sendable, Equatable {
    /// Changes in force now.
    public let applied: [String]
    /// Loosening changes waiting for their time.
    public let pending: [PendingBody]
    /// Changes that were waiting and are no longer asked for: cancelled by this one.
    public let cancelled: [PendingBody]
}

public struct ModeResponse: Codable, Sendable, Equatable {
    /// The mode in force and its main number (a loosening change may still be pending).
    public let mode: String
    public let summary: String
    public let change: ChangeBody
}

public struct GuardResponse: Codable, Sendable, Equatable {
    public let guarded: [String]
    public let change: ChangeBody
}

public struct PendingResponse: Codable, Sendable, Equatable {
    public let pending: [PendingBody]
}

public struct PinRequest: Codable, Sendable, Equatable {
    /// The new PIN (4-64 characters).
    public let pin: String
    public init(pin: String) { self.pin = pin }
}

public struct PinResponse: Codable, Sendable, Equatable {
    /// Whether a PIN is set now.
    public let set: Bool
}

/// The sentence, for a loosening change in extreme mode.
public struct PhraseRequest: Codable, Sendable, Equatable {
    public let phrase: String?
    public init(phrase: String?) { self.phrase = phrase }
}

public struct ExtendResponse: Codable, Sendable, Equatable {
    public let budgetMinutes: Int64
}

public struct HoldResponse: Codable, Sendable, Equatable {
    public let hold: UInt64
    /// Real time to wait before completing the hold (the policy's hold, divided by the time scale).
    public let waitMilliseconds: Int64
}

public struct EmergencyRequest: Codable, Sendable, Equatable {
    public let hold: UInt64
    public init(hold: UInt64) { self.hold = hold }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard let hold = try container.decodeWholeNumber(UInt64.self, forKey: .hold) else {
            throw DecodingError.keyNotFound(
                CodingKeys.hold, .init(codingPath: container.codingPath, debugDescription: "hold is required"))
        }
        self.hold = hold
    }
}

extension KeyedDecodingContainer {
    /// A JSON number that must be whole and fit `T`. Foundation reports `30.5` or `1e30` for an
    /// integer as "not valid JSON" without naming the key; this names it ("must be a whole number").
    func decodeWholeNumber<T: FixedWidthInteger>(_ type: T.Type, forKey key: Key) throws -> T? {
        guard let value = try decodeIfPresent(Double.self, forKey: key) else { return nil }
        guard value.rounded() == value, let whole = T(exactly: value) else {
            throw DecodingError.typeMismatch(
                T.self, .init(codingPath: codingPath + [key], debugDescription: "not a whole number in range"))
        }
        return whole
    }
}
