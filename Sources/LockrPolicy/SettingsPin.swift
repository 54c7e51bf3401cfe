/// The household's settings PIN, as stored: never the PIN itself, only a slow salted hash
/// (scrypt; see `PinHash` in LockrControl) and the count of wrong entries in a row.
public struct PinRecord: Sendable, Equatable, Codable {
    public let salt: [UInt8]
    public let hash: [UInt8]
    /// scrypt's cost parameters, kept with the hash so that a later lockr can raise them.
    public let rounds: Int
    public let blockSize: Int
    public let parallelism: Int
    /// Wrong entries in a row.
    public var failures = 0
    /// No entry is checked before this.
    public var lockedUntil: Instant?

    public init(salt: [UInt8], hash: [UInt8], rounds: Int, blockSize: Int, parallelism: Int) {
        self.salt = salt
        self.hash = hash
        self.rounds = rounds
        self.blockSize = blockSize
        self.parallelism = parallelism
    }

    /// Wrong entries allowed before lockouts start.
    public static let freeFailures = 5

    /// The lockout after `failures` wrong entries in a row: none before the 5th, then 30 s doubling
    /// with each further one, up to an hour.
    public static func lockout(afterFailures failures: Int) -> Duration? {
        guard failures >= freeFailures else { return nil }
        let doublings = min(failures - freeFailures, 7)
        return min(.seconds(30 * (1 << doublings)), .seconds(3600))
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

extension PolicyEngine {
    /// Whether a loosening change that brings `pin` must be refused for want of the PIN.
    func needsPin(_ pin: PinCheck) -> Bool {
        switch pin {
        case .verified: false
        case .missing: true
        case .none: state.pin != nil
        }
    }

    /// The PIN that protects settings, if the household set one.
    public var pin: PinRecord? { state.pin }

    /// Refuses a PIN entry while a lockout lasts.
    public func checkPinAllowed(at now: Instant) throws(PolicyRefusal) {
        if let until = state.pin?.lockedUntil, now < until {
            throw .pinLocked(remaining: until - now, failures: state.pin?.failures ?? 0)
        }
    }

    /// Counts a PIN entry: a right one clears the count, a wrong one adds to it and may start a lockout.
    public mutating func notePinEntry(correct: Bool, at now: Instant) {
        let now = advance(to: now)
        guard var record = state.pin else { return }
        if correct {
            record.failures = 0
            record.lockedUntil = nil
        } else {
            record.failures += 1
            let lockout = PinRecord.lockout(afterFailures: record.failures)
            record.lockedUntil = lockout.map { now + $0 }
            log(.pinFail, nil, "wrong PIN #\(record.failures)" + (lockout.map { ", locked for \($0.spoken)" } ?? ""), at: now)
        }
        state.pin = record
    }

    /// Sets, changes or (nil) clears the PIN.
    public mutating func setPin(_ record: PinRecord?, at now: Instant) {
        let now = advance(to: now)
        let detail = record == nil ? "PIN cleared" : state.pin == nil ? "PIN set" : "PIN changed"
        state.pin = record
        log(.pinChange, nil, detail, at: now)
    }
}
