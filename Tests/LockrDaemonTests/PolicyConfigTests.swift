import CivilTime
import DNSFilter
import DNSProxy
import Foundation
import Testing

@testable import LockrDaemon
@testable import LockrPolicy

@Suite struct PolicyConfigTests {
    @Test func everyPolicyKey() throws {
        let text = """
            guard = ["instagram", "news"]
            always-allow = ["whatsapp", "static.example.net"]
            control = "127.0.0.1:5999"

            [apps]
            news = ["news.ycombinator.com", "lobste.rs"]

            [policy]
            mode = "extreme"
            time-zone = "Europe/Berlin"
            day-start = "05:30"
            max-ttl = 20
            block-ttl = 2

            [time]
            budget-minutes = 45
            per-app = true
            slice-seconds = 15
            min-queries = 4
            neighbourhood = 3
            grace-seconds = 45

            [hourly]
            window-minutes = 15
            open-on-first-query = true

            [extreme]
            phrase = "Let me waste time."
            strictness = "lenient"
            window-minutes = 5

            [snooze]
            minutes = 3
            per-day = 1

            [extend]
            minutes = 20
            per-day = 2

            [emergency]
            minutes = 10
            per-day = 1
            hold-seconds = 5
            """
        let config = try ConfigFile.parse(text, path: "policy.toml")
        #expect(config.guarded == ["instagram", "news"])
        #expect(config.names.alwaysAllow == ["whatsapp", "static.example.net"])
        #expect(config.names.customApps == ["news": ["news.ycombinator.com", "lobste.rs"]])
        #expect(AddressText.format(config.control) == "127.0.0.1:5999")
        #expect(config.guardBlockTTL == 2)
        let policy = config.policy
        #expect(policy.mode == .extreme)
        #expect(policy.calendar == DayCalendar(zone: try! ZoneDatabase().zone("Europe/Berlin"), dayStartMinutes: 330))
        #expect(policy.maximumTTL == .seconds(20))
        #expect(policy.time.budget == .seconds(45 * 60))
        #expect(policy.time.perApp)
        #expect(
            policy.time.metering
                == MeteringSettings(slice: .seconds(15), minimumQueries: 4, neighbourhood: 3, grace: .seconds(45)))
        #expect(policy.hourly == HourlySettings(window: .seconds(900), openOnFirstQuery: true))
        #expect(
            policy.extreme == ExtremeSettings(phrase: "Let me waste time.", strictness: .lenient, window: .seconds(300))
        )
        #expect(policy.snooze == Allowance(length: .seconds(180), perDay: 1))
        #expect(policy.extend == Allowance(length: .seconds(1200), perDay: 2))
        #expect(policy.emergency == Allowance(length: .seconds(600), perDay: 1))
        #expect(policy.emergencyHold == .seconds(5))
    }

    @Test func badPolicyValuesNameTheirKey() {
        let text = """
            guard = "instagram"
            control = "0.0.0.0:5380"
            [apps]
            Bad_Id = ["x.com"]
            [policy]
            mode = "strict"
            time-zone = "Mars/Olympus"
            day-start = "25:00"
            [time]
            budget-minutes = 200
            slice-seconds = 7
            [hourly]
            window-minutes = 12
            [extreme]
            strictness = "harsh"
            """
        do {
            _ = try ConfigFile.parse(text, path: "bad.toml")
            Issue.record("a bad file must not parse")
        } catch {
            let keys = error.issues.compactMap(\.key)
            #expect(
                Set(keys) == [
                    "guard", "control", "apps.Bad_Id", "policy.mode", "policy.time-zone", "policy.day-start",
                    "time.budget-minutes",
                    "time.slice-seconds", "hourly.window-minutes", "extreme.strictness",
                ])
            #expect(error.description.contains("line 7: key 'policy.time-zone': unknown time zone 'Mars/Olympus'"))
            #expect(error.description.contains("key 'control': must be a loopback address"))
        }
    }

    func catalogue() throws -> AppCatalogue {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("blocklists").path
        return try AppCatalogue.load(
            directory: directory, fileNames: try FileManager.default.contentsOfDirectory(atPath: directory))
    }

    @Test func guardedAppsMustExistAndExtraAppsJoinTheCatalogue() throws {
        var config = LockrConfiguration()
        config.guarded = ["tiktok", "news"]
        config.names.customApps = ["news": ["news.ycombinator.com"]]
        let naming = try AppNaming(catalogue: try catalogue(), rules: config.names)
        #expect(naming.names["news"] != nil && naming.groups["news"] == "custom")
        #expect(naming.guardSet.app(forName: "news.ycombinator.com") == "news")
        #expect(
            try PolicyLoader.guarded(config.guarded, naming.names, catalogue: try catalogue()) == ["tiktok", "news"])
        config.guarded = ["myspace"]
        #expect(throws: LoadError.self) {
            try PolicyLoader.guarded(config.guarded, naming.names, catalogue: try catalogue())
        }
        config.names.customApps = ["tiktok": ["tiktok.example"]]
        #expect(throws: LoadError.self) { try AppNaming(catalogue: try catalogue(), rules: config.names) }
    }

    @Test func alwaysAllowTakesAppsAndDomainsAndFreesTheirNames() throws {
        var config = LockrConfiguration()
        config.names.alwaysAllow = ["whatsapp", "scontent.cdninstagram.com"]
        let catalogue = try catalogue()
        let naming = try AppNaming(catalogue: catalogue, rules: config.names)
        #expect(naming.guardSet.app(forName: "www.instagram.com") == "instagram")
        #expect(naming.guardSet.app(forName: "scontent.cdninstagram.com") == nil)
        #expect(naming.guardSet.app(forName: "web.whatsapp.com") == nil)
        #expect(naming.blockRules["whatsapp"]?.isEmpty == true && naming.blockRules["instagram"]?.isEmpty == false)
        config.names.alwaysAllow = ["not a domain!"]
        #expect(throws: LoadError.self) { try AppNaming(catalogue: catalogue, rules: config.names) }
    }
}
