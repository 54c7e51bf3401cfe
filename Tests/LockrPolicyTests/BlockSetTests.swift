import CivilTime
import Foundation
import Testing

@testable import LockrPolicy

/// What the adapters push: the blocked apps, and usage metered from another blocker's query log.
@Suite struct BlockSetTests {
    let utc = DayCalendar(zone: try! ZoneDatabase().zone("UTC"))
    let start = Instant(milliseconds: 1_780_308_000_000)  // 2026-06-01 10:00 UTC

    func engine(_ mode: Mode, openOnFirstQuery: Bool = false) -> PolicyEngine {
        var settings = PolicySettings(mode: mode, calendar: utc)
        settings.hourly.openOnFirstQuery = openOnFirstQuery
        settings.time.budget = .seconds(300)
        return PolicyEngine(
            settings: settings, guarded: ["tiktok", "youtube"], apps: ["tiktok": "TikTok", "youtube": "YouTube"],
            state: nil, now: start)
    }

    @Test func blockedAppsFollowWindows() throws {
        var engine = engine(.hourly)
        #expect(engine.readout.blockedApps(at: start) == ["tiktok", "youtube"])
        _ = try engine.unlock("tiktok", phrase: nil, at: start)
        #expect(engine.readout.blockedApps(at: start) == ["youtube"])
        #expect(engine.readout.blockedApps(at: start + .seconds(599)) == ["youtube"])
        #expect(engine.readout.blockedApps(at: start + .seconds(600)) == ["tiktok", "youtube"])
        // Unguarding loosens: it waits for the next clock hour.
        _ = try engine.unguardApp("youtube", at: start + .seconds(600))
        #expect(engine.readout.blockedApps(at: start + .seconds(600)) == ["tiktok", "youtube"])
        engine.tick(at: start + .seconds(3600))
        #expect(engine.readout.blockedApps(at: start + .seconds(3600)) == ["tiktok"])
    }

    @Test func timeModeBlocksOnceTheLoggedUseSpendsTheBudget() {
        var engine = engine(.time)
        #expect(engine.readout.blockedApps(at: start).isEmpty)
        // A dense trace read from a query log 10 s late, in batches: one query every 5 s.
        var now = start
        var logged = start
        while now < start + .seconds(400) {
            now = now + .seconds(10)
            while logged + .seconds(5) <= now - .seconds(10) {
                logged = logged + .seconds(5)
                engine.observe("tiktok", queriedAt: logged, now: now)
            }
            engine.tick(at: now)
        }
        let status = engine.readout.status(at: now)
        #expect(engine.readout.blockedApps(at: now) == ["tiktok", "youtube"])
        #expect(status.apps[0].used >= .seconds(290) && status.apps[0].used <= .seconds(320))
    }

    @Test func loggedQueriesAreMeteredAtTheirOwnTime() {
        var late = engine(.time)
        var live = engine(.time)
        // Three queries within one slice, two minutes apart from three more: the log's timestamps,
        // not the time they are read, decide what counts.
        for offset in [0, 2, 4, 120, 122, 124] {
            late.observe("tiktok", queriedAt: start + .seconds(Int64(offset)), now: start + .seconds(200))
            _ = live.admit("tiktok", at: start + .seconds(Int64(offset)))
        }
        #expect(
            late.readout.status(at: start + .seconds(200)).apps[0].used
                == live.readout.status(at: start + .seconds(200)).apps[0].used)
        #expect(late.readout.status(at: start + .seconds(200)).apps[0].used == .seconds(20))
        // An entry older than what was already metered is taken at the newest metered slice.
        late.observe("tiktok", queriedAt: start, now: start + .seconds(201))
        #expect(late.readout.status(at: start + .seconds(201)).apps[0].used == .seconds(20))
    }

    @Test func aLoggedQueryOpensTheHourWhenFirstQueryOpens() {
        var engine = engine(.hourly, openOnFirstQuery: true)
        engine.observe("tiktok", queriedAt: start - .seconds(5), now: start)
        #expect(engine.readout.blockedApps(at: start) == ["youtube"])
    }

    @Test func admitWithoutMeteringDecidesButDoesNotCount() {
        var engine = engine(.time)
        for second in stride(from: 0, to: 120, by: 2) {
            _ = engine.admit("tiktok", at: start + .seconds(Int64(second)), metering: false)
        }
        #expect(engine.readout.status(at: start + .seconds(120)).apps[0].used == .zero)
    }
}
