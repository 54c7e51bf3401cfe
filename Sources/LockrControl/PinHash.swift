import CryptoExtras
import Foundation
import LockrPolicy

/// The settings PIN's slow salted hash: scrypt with N = 2^15, r = 8, p = 1 (32 MiB of memory and
/// about a tenth of a second per try on a small machine, so guessing is slow even with the state
/// database in hand), a 16-byte random salt and a 32-byte result, compared in constant time.
public enum PinHash {
    public static let rounds = 1 << 15
    public static let blockSize = 8
    public static let parallelism = 1

    /// A record for `pin`, with a fresh salt.
    public static func record(for pin: String) throws -> PinRecord {
        var generator = SystemRandomNumberGenerator()
        let salt = (0..<16).map { _ in UInt8.random(in: 0...255, using: &generator) }
        return PinRecord(
            salt: salt, hash: try hash(pin, salt: salt, rounds: rounds, blockSize: blockSize, parallelism: parallelism),
            rounds: rounds, blockSize: blockSize, parallelism: parallelism)
    }

    /// Whether `pin` is the one `record` holds.
    public static func matches(_ pin: String, _ record: PinRecord) throws -> Bool {
        let presented = try hash(
            pin, salt: record.salt, rounds: record.rounds, blockSize: record.blockSize, parallelism: record.parallelism)
        guard presented.count == record.hash.count else { return false }
        return zip(presented, record.hash).reduce(0) { $0 | ($1.0 ^ $1.1) } == 0
    }

    /// What makes `pin` unusable as a PIN, or nil.
    public static func problem(_ pin: String) -> String? {
        guard (4...64).contains(pin.count) else { return "a PIN has 4 to 64 characters" }
        return nil
    }

    private static func hash(
        _ pin: String, salt: [UInt8], rounds: Int, blockSize: Int, parallelism: Int
    ) throws
        -> [UInt8]
    {
        let key = try KDF.Scrypt.deriveKey(
            from: Array(pin.utf8), salt: salt, outputByteCount: 32, rounds: rounds, blockSize: blockSize,
            parallelism: parallelism)
        return key.withUnsafeBytes { Array($0) }
    }
}
