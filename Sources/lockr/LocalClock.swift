import CivilTime
import Foundation

/// The machine's clock, for the times the CLI prints: its zone read by `CivilTime` from the
/// system's time zone files (as `date` shows it), not through Foundation's calendar and ICU.
enum LocalClock {
    /// What the machine's clock reads at `date`.
    static func reading(_ date: Date) -> CivilDateTime {
        ZoneDatabase.systemZone.wallClock(at: Int64(date.timeIntervalSince1970.rounded(.down)))
    }
}
