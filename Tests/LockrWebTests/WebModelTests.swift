import CivilTime
import Foundation
import LockrAPI
import LockrControl
import LockrPuzzles
import Testing

@testable import LockrPolicy
@testable import LockrWeb

/// The page models that are pure: the charts' geometry, the chess board's orientation, the form
/// token's comparison.
@Suite struct WebModelTests {
    /// A day as `GET stats` gives it.
    func day(_ key: String, used minutes: Int64, budget: Int64?) throws -> Components.Schemas.DayStatsBody {
        let json = """
            {"day": "\(key)", \(budget.map { "\"budget_seconds\": \($0 * 60)," } ?? "") "used_seconds": \(minutes * 60),
             "charged_seconds": \(minutes * 60), "apps": [], "gates": [], "snoozes": 0, "extensions": 0,
             "emergencies": 0, "held_limits": true, "queries": {}}
            """
        return try ControlJSON.decoder().decode(Components.Schemas.DayStatsBody.self, from: Data(json.utf8))
    }

    @Test func barsScaleToTheHighestAndAreMarkedOverTheirBudget() throws {
        let chart = BarChart.days(
            [try day("2026-11-22", used: 45, budget: 30), try day("2026-11-24", used: 15, budget: 30)],
            keys: ["2026-11-22", "2026-11-23", "2026-11-24"])
        #expect(chart.bars.map(\.label) == ["11-22", "11-23", "11-24"], "a day without a record shows none")
        #expect(chart.bars.map(\.height) == [BarChart.plotHeight, 0, BarChart.plotHeight / 3])
        #expect(chart.bars.map(\.tone) == ["over", "within", "within"])
        #expect(chart.bars[0].value == "45 min of 30")
        // The budget line sits at 30 of 45 from the bottom.
        #expect(chart.limit?.y == BarChart.top + BarChart.plotHeight - BarChart.plotHeight * 30 / 45)
        #expect(chart.title.contains("the dashed line is the budget, 30 min"))
        // Bars never leave the drawing.
        #expect(chart.bars.allSatisfy { $0.x + $0.width <= chart.width && $0.y >= BarChart.top })
    }

    @Test func daysWithDifferentBudgetsDrawNoSingleLine() throws {
        let chart = BarChart.days(
            [try day("2026-11-23", used: 10, budget: 30), try day("2026-11-24", used: 10, budget: 45)],
            keys: ["2026-11-23", "2026-11-24"])
        #expect(chart.limit == nil && chart.bars.map(\.value) == ["10 min of 30", "10 min of 45"])
    }

    @Test func theBoardIsSeenFromTheSideToMove() throws {
        let white = ChessBoardView(try ChessPosition(fen: "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1"))
        #expect(white.ranks.first?.label == "8" && white.files.first == "a")
        #expect(
            white.ranks.last?.squares.first.map { ($0.name, $0.piece, $0.shade) } ?? ("", nil, "") == (
                "a1", "white rook", "dark"
            ))
        let black = ChessBoardView(try ChessPosition(fen: "r5k1/8/8/8/8/8/5PPP/6K1 b - - 0 1"))
        #expect(black.ranks.first?.label == "1" && black.files.first == "h")
        #expect(black.caption == "Chess position, Black to move")
        #expect(black.ranks.last?.squares.last.map { ($0.name, $0.letter) } ?? ("", "") == ("a8", "r"))
    }

    /// A person who guards nothing, under a schedule that blocks their social apps from 04:00 to
    /// 06:00: their page lists the apps the schedule closes, with why and until when.
    @Test func appsASchedulesBlocksShowOnThePageOfAPersonWhoGuardsNothing() throws {
        let calendar = DayCalendar(zone: try! ZoneDatabase().zone("UTC"), dayStartMinutes: 0)
        let early = Schedule(
            name: "early", days: Weekdays("daily")!, from: Schedule.minutes("04:00")!, to: Schedule.minutes("06:00")!,
            block: ["social"])
        let now = Instant(try Date("2026-06-01T04:30:00Z", strategy: .iso8601))
        let engine = PolicyEngine(
            settings: PolicySettings(mode: .time, calendar: calendar), guarded: [],
            apps: ["instagram": "Instagram", "tiktok": "TikTok", "whatsapp": "WhatsApp"], schedules: [early],
            groups: ["instagram": "social", "tiktok": "video", "whatsapp": "messaging"], state: nil, now: now)
        let status = Components.Schemas.StatusBody(
            person: "default", view: PolicyView(policy: engine.readout, now: now), devices: [])
        let page = StatusPage(status, timeScale: 1)
        #expect(page.apps.map(\.name) == ["Instagram"])
        #expect(page.apps.first?.badge == "schedule")
        #expect(page.apps.first?.text.contains("early until 06:00") == true, "\(page.apps.first?.text ?? "")")
        // Out of the schedule's hours, nothing of theirs is limited: the page says so.
        let later = Instant(try Date("2026-06-01T07:00:00Z", strategy: .iso8601))
        let free = StatusPage(
            Components.Schemas.StatusBody(
                person: "default", view: PolicyView(policy: engine.readout, now: later), devices: []),
            timeScale: 1)
        #expect(free.apps.isEmpty)
    }

    /// The dashboard says the totals and blocked shares in words, draws a bar a span whose title
    /// gives its numbers, and says when its top lists read only the newest queries.
    @Test func theDashboardsNumbersInWordsBarsAndTables() {
        let hours = (0..<24).map { Components.Schemas.TallyBody(label: "\($0):00", total: $0 * 10, blocked: $0) }
        let days = (1...7).map { Components.Schemas.TallyBody(label: "2026-06-0\($0)", total: 1000, blocked: 125) }
        let summary = Components.Schemas.QuerySummaryBody(
            enabled: true, hours: hours, days: days,
            people: [.init(label: "kid", total: 600, blocked: 100)],
            topAsked: [.init(key: "www.example.com.", count: 40)], topBlocked: [.init(key: "ads.example.", count: 9)],
            topClients: [.init(key: "192.168.1.20 (kid)", count: 50)], scanned: 1_000_000, complete: false)
        let page = AdminDashboardPage(summary, csrf: "t")
        #expect(page.dayText == "Last 24 hours: 2760 queries, 276 blocked (10%)")
        #expect(page.weekText == "Last 7 days: 7000 queries, 875 blocked (13%)")
        #expect(page.hours.bars.count == 24 && page.days.bars.count == 7)
        #expect(page.hours.bars[23].value == "230 queries, 23 blocked (10%)" && page.hours.scaleLabel == "230 queries")
        #expect(page.hours.bars[23].label == "23" && page.days.bars[0].label == "06-01")
        #expect(page.people.map(\.blocked) == ["100 blocked (17%)"])
        #expect(page.asked.first?.key == "www.example.com." && page.clients.first?.count == 50)
        #expect(page.note == "The top lists count the newest 1000000 queries of the last 24 hours; it held more.")
        #expect(AdminDashboardPage(summary, csrf: "t").hourRows.first?.blocked == "0 blocked (0%)")
    }

    /// A person with safe search on sees it on their page; one without does not.
    @Test func safeSearchShowsOnThePageWhenItIsOn() throws {
        let calendar = DayCalendar(zone: try! ZoneDatabase().zone("UTC"), dayStartMinutes: 0)
        let now = Instant(try Date("2026-06-01T10:00:00Z", strategy: .iso8601))
        func page(_ safeSearch: SafeSearch) -> StatusPage {
            let engine = PolicyEngine(
                settings: PolicySettings(mode: .hourly, calendar: calendar), guarded: [], apps: [:],
                names: NameRules(safeSearch: safeSearch), state: nil, now: now)
            return StatusPage(
                Components.Schemas.StatusBody(
                    person: "kid", view: PolicyView(policy: engine.readout, now: now), devices: []), timeScale: 1)
        }
        #expect(page(SafeSearch(searchEngines: true)).safeSearch == "Safe search: search engines, YouTube moderate")
        #expect(page(SafeSearch(youtube: .strict)).safeSearch == "Safe search: YouTube strict")
        #expect(page(SafeSearch()).safeSearch == nil)
    }

    /// With the day's budget spent, an app's page offers snooze and extend, each saying how long;
    /// a single user's page is headed for them, not "default".
    @Test func snoozeAndExtendSayHowLongAndASingleUsersPageIsTheirs() throws {
        let calendar = DayCalendar(zone: try! ZoneDatabase().zone("UTC"), dayStartMinutes: 0)
        var settings = PolicySettings(mode: .time, calendar: calendar)
        settings.time.budget = .seconds(300)
        var now = Instant(try Date("2026-06-01T10:00:00Z", strategy: .iso8601))
        var engine = PolicyEngine(
            settings: settings, guarded: ["tiktok"], apps: ["tiktok": "TikTok"], state: nil, now: now)
        for _ in 0..<60 {
            _ = engine.admit("tiktok", at: now)
            now = now + .seconds(10)
        }
        let view = PolicyView(policy: engine.readout, now: now)
        let status = Components.Schemas.StatusBody(person: "default", view: view, devices: [])
        let app = try #require(status.apps.first { $0.id == "tiktok" })
        #expect(app.state.code == .budgetSpent)
        let page = AppPage(app, of: status, view: view, timeScale: 1, suggestion: nil, csrf: "t")
        let labels = page.windows?.buttons.map(\.label) ?? []
        #expect(
            labels == [
                "Snooze for \(settings.snooze.length.spoken) (\(settings.snooze.perDay) of \(settings.snooze.perDay) left today)",
                "Add \(settings.extend.length.spoken) to today's budget (1 of 1 left today)",
            ], "\(labels)")
        #expect(StatusPage(status, timeScale: 1).heading == "Your apps" && page.back == "Back to your apps")
    }

    @Test func formTokensCompareWhole() {
        let token = FormToken.randomHex()
        #expect(token.count == 64 && token.allSatisfy(\.isHexDigit))
        #expect(FormToken.same(token, token))
        #expect(!FormToken.same(token, String(token.dropLast()) + "x"))
        #expect(!FormToken.same(token, String(token.prefix(32))))
        #expect(!FormToken.same("", ""), "an empty token is no token")
    }
}
