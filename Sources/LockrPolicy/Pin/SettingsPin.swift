/// The household's settings PIN, as stored: never the PIN itself, only a slow salted hash
/// (scrypt; see `PinHash` in LockrControl) and the wrong entries counted against guessing.
public struct PinRecord: Sendable, Equatable, Codable {
    public let salt: [UInt8]
    public let hash: [UInt8]
    /// scrypt's cost parameters, kept with the hash so that a later lockr can raise them.
    public let rounds: Int
    public let blockSize: Int
    public let parallelism: Int
    /// Wrong entries, per entrant and household-wide, and the lockouts they started.
    public var lockouts = PinLockouts()

    public init(salt: [UInt8], hash: [UInt8], rounds: Int, blockSize: Int, parallelism: Int) {
        self.salt = salt
        self.hash = hash
        self.rounds = rounds
        self.blockSize = blockSize
        self.parallelism = parallelism
    }

    private enum CodingKeys: String, CodingKey {
        case salt, hash, rounds, blockSize, parallelism, lockouts
        /// What a lockr that counted household-wide only kept instead of `lockouts`.
        case failures, lockedUntil
    }

    public init(from decoder: any Decoder) throws {
        let values = try decoder.container(keyedBy: CodingKeys.self)
        salt = try values.decode([UInt8].self, forKey: .salt)
        hash = try values.decode([UInt8].self, forKey: .hash)
        rounds = try values.decode(Int.self, forKey: .rounds)
        blockSize = try values.decode(Int.self, forKey: .blockSize)
        parallelism = try values.decode(Int.self, forKey: .parallelism)
        lockouts =
            try values.decodeIfPresent(PinLockouts.self, forKey: .lockouts)
            ?? PinLockouts(
                householdFailures: try values.decodeIfPresent(Int.self, forKey: .failures) ?? 0,
                until: try values.decodeIfPresent(Instant.self, forKey: .lockedUntil))
    }

    public func encode(to encoder: any Encoder) throws {
        var values = encoder.container(keyedBy: CodingKeys.self)
        try values.encode(salt, forKey: .salt)
        try values.encode(hash, forKey: .hash)
        try values.encode(rounds, forKey: .rounds)
        try values.encode(blockSize, forKey: .blockSize)
        try values.encode(parallelism, forKey: .parallelism)
        try values.encode(lockouts, forKey: .lockouts)
    }
}

/// What a loosening change brings of the settings PIN.
public enum PinCheck: Sendable, Equatable {
    /// Nothing: the PIN this engine keeps (the household's, with the default person) decides.
    case none
    /// The household's PIN, checked right.
    case verified
    /// Nothing, while the household has a PIN (kept by another person's engine).
    case missing
}

extension PinCheck {
    /// Whether a loosening change that brings this must be refused for want of the PIN, where the
    /// household's PIN is `household` (nil: none kept here).
    func isMissing(household: PinRecord?) -> Bool {
        switch self {
        case .verified: false
        case .missing: true
        case .none: household != nil
        }
    }
}

extension PinRecord {
    /// Starts checking a PIN entry of `entrant` (`PinLockouts.begin`), or refuses it while a
    /// lockout lasts (its own, or the household's) or another of its entries being checked could
    /// reach one. `noteEntry` ends it.
    mutating func beginEntry(by entrant: String, at now: Instant) throws(PolicyRefusal) {
        if let wait = lockouts.begin(entrant, at: now) {
            throw .pinLocked(remaining: wait.remaining, failures: wait.failures)
        }
    }

    /// Counts a PIN entry of `entrant`: a right one clears its count, a wrong one adds to it and to
    /// the household's (logged), and may start a lockout. Returns how long the entrant now waits.
    mutating func noteEntry(
        correct: Bool, by entrant: String, journal: inout PolicyJournal, at now: Instant
    ) -> Duration? {
        let lockout = lockouts.note(correct: correct, by: entrant, at: now)
        if !correct {
            journal.log(
                .pinFail, nil,
                "wrong PIN from \(entrant) (#\(lockouts.failures(of: entrant)) from it, #\(lockouts.failures) in a row "
                    + "in the home)" + (lockout.map { ", it is locked for \($0.spoken)" } ?? ""), at: now)
        }
        return lockout
    }
}

extension PolicyEngine {
    /// Whether a loosening change that brings `pin` must be refused for want of the PIN.
    func needsPin(_ pin: PinCheck) -> Bool { pin.isMissing(household: state.pin) }

    /// Starts checking a PIN entry of `entrant` (see `PinRecord.beginEntry`); `notePinEntry` ends it.
    public mutating func beginPinEntry(by entrant: String, at now: Instant) throws(PolicyRefusal) {
        try state.pin?.beginEntry(by: entrant, at: now)
    }

    /// Counts a PIN entry of `entrant` (see `PinRecord.noteEntry`).
    @discardableResult
    public mutating func notePinEntry(correct: Bool, by entrant: String, at now: Instant) -> Duration? {
        let now = advance(to: now)
        return state.pin?.noteEntry(correct: correct, by: entrant, journal: &journal, at: now) ?? nil
    }
}

extension PolicyState {
    /// Sets or changes (a record) or clears (nil) the household's settings PIN, logged.
    mutating func setPin(_ record: PinRecord?, journal: inout PolicyJournal, at now: Instant) {
        journal.log(.pinChange, nil, record == nil ? "PIN cleared" : pin == nil ? "PIN set" : "PIN changed", at: now)
        pin = record
    }
}
