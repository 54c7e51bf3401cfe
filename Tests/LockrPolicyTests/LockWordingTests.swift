import CivilTime
import Foundation
import Testing

@testable import LockrPolicy

/// A lock's reason is worded once and kept while the lock stays the same.
@Suite struct LockWordingTests {
    let start = at("2026-06-01T10:00:00Z")

    @Test func aLocksSentenceIsKeptWhileItsAccessIsTheSameAndACooldownCountsDown() {
        var wording = LockWording()
        let text = AccessText(calendar: utc)
        let used = AppAccess.hourUsed(next: at("2026-06-01T11:00:00Z"))
        let first = wording.sentence("tiktok", used, at: start, text: text)
        #expect(first == "tiktok: hourly window used, next at 11:00")
        #expect(wording.sentence("tiktok", used, at: start + .seconds(600), text: text) == first)
        let cooling = AppAccess.coolingDown(until: start + .seconds(45), misses: 3)
        #expect(
            wording.sentence("tiktok", cooling, at: start, text: text) == "tiktok: cooldown 45 s after 3 wrong answers")
        #expect(
            wording.sentence("tiktok", cooling, at: start + .seconds(15), text: text)
                == "tiktok: cooldown 30 s after 3 wrong answers")
        let berlin = AccessText(calendar: DayCalendar(zone: try! ZoneDatabase().zone("Europe/Berlin")))
        wording.forget()
        #expect(
            wording.sentence("tiktok", used, at: start, text: berlin) == "tiktok: hourly window used, next at 13:00")
    }
}
