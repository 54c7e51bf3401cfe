import DNSProxy
import DNSWire
import Foundation
import LockrPolicy
import Testing

@testable import LockrDaemon

/// `[people.NAME]`: devices, and policy keys of their own on top of the top level's.
@Suite struct PeopleConfigTests {
    @Test func eachPersonTakesTheTopLevelForWhatTheyLeaveOut() throws {
        let config = try ConfigFile.parse(
            """
            guard = ["tiktok"]
            always-allow = ["x"]
            trusted-forwarders = ["127.0.0.1", "192.168.1.1"]

            [policy]
            mode = "hourly"
            time-zone = "Europe/Berlin"

            [time]
            budget-minutes = 30

            [people.alice]
            devices = ["02:42:AC:11:00:0F", "192.168.1.0/24", "fd00:1::5"]
            guard = ["instagram", "youtube"]

            [people.alice.time]
            budget-minutes = 45

            [people.alice.policy]
            mode = "time"

            [people.bob]
            devices = ["192.168.1.20"]
            always-allow = []
            blocklists = ["adult.txt"]
            allowlists = ["school.txt"]

            [people.bob.extreme]
            window-minutes = 5
            """, path: "people.toml")
        #expect(config.trustedForwarders.map(\.description) == ["127.0.0.1/32", "192.168.1.1/32"])
        #expect(config.people.map(\.name) == ["alice", "bob"])
        let household = config.household
        #expect(household.map(\.name) == ["default", "alice", "bob"])
        let (top, alice, bob) = (household[0], household[1], household[2])
        #expect(top.guarded == ["tiktok"] && top.policy.mode == .hourly && top.devices.isEmpty)
        #expect(alice.devices.map(\.description) == ["02:42:ac:11:00:0f", "192.168.1.0/24", "fd00:1::5/128"])
        #expect(alice.guarded == ["instagram", "youtube"] && alice.alwaysAllow == ["x"])
        #expect(alice.policy.mode == .time && alice.policy.time.budget == .seconds(45 * 60))
        #expect(alice.policy.calendar.zone.identifier == "Europe/Berlin")
        #expect(bob.guarded == ["tiktok"] && bob.alwaysAllow == [] && bob.policy.mode == .hourly)
        #expect(bob.policy.extreme.window == .seconds(300) && bob.policy.time.budget == .seconds(30 * 60))
        #expect(bob.blocklists == ["adult.txt"] && bob.allowlists == ["school.txt"] && alice.blocklists.isEmpty)
        #expect(config.warnings.isEmpty)
    }

    @Test func mistakesNameThePersonAndKey() {
        let text = """
            trusted-forwarders = ["router"]

            [people.default]
            devices = []

            [people."a b"]
            devices = []

            [people.alice]
            devices = ["192.168.1.20", "not-a-device"]
            colour = "blue"

            [people.alice.time]
            budget-minutes = 500
            listen = 3

            [people.bob]
            devices = ["192.168.1.20/32"]

            [people.bob.cache]
            size = 1
            """
        do {
            _ = try ConfigFile.parse(text, path: "people.toml")
            Issue.record("a bad file must not parse")
        } catch {
            let found = Set(error.issues.map { "\($0.line ?? 0) \($0.key ?? "")" })
            #expect(
                found == [
                    "1 trusted-forwarders", "3 people.default", "6 people.a b", "10 people.alice.devices",
                    "11 people.alice.colour", "14 people.alice.time.budget-minutes", "15 people.alice.time.listen",
                    "18 people.bob.devices", "20 people.bob.cache",
                ], "\(error)")
            #expect(error.description.contains("192.168.1.20/32 is already a device of alice"))
            #expect(error.description.contains("key 'people.alice.time.budget-minutes': must be between 5 and 180"))
        }
    }

    @Test func schedulesFallBackToTheTopLevelAndProfilesAddUp() throws {
        let config = try ConfigFile.parse(
            """
            [schedules.bedtime]
            days = "mon-fri"
            from = "22:00"
            to = "07:00"
            block = ["social", "tiktok"]

            [profiles.work]
            block = ["social", "video"]

            [profiles.homework]
            block = ["games"]

            [people.alice]
            devices = ["192.168.1.20"]

            [people.alice.schedules.school]
            days = "weekdays"
            from = "08:00"
            to = "13:00"
            block = ["guarded"]

            [people.alice.profiles.homework]
            block = ["games", "video"]

            [people.bob]
            devices = ["192.168.1.21"]
            """, path: "schedules.toml")
        let household = config.household
        #expect(household[0].schedules?.map(\.timesText) == ["mon-fri 22:00-07:00"])
        #expect(household[1].schedules?.map(\.name) == ["school"])
        #expect(household[2].schedules?.map(\.name) == ["bedtime"])
        #expect(household[1].profiles.map(\.name) == ["work", "homework"])
        #expect(household[1].profiles.last?.block == ["games", "video"])
        #expect(household[2].profiles.map(\.block) == [["social", "video"], ["games"]])
    }

    @Test func badSchedulesNameTheirKey() {
        let text = """
            [schedules.bedtime]
            days = "funday"
            from = "22:00"
            to = "07:00"

            [schedules.nap]
            from = "25:00"
            to = "14:00"
            block = ["tiktok"]

            [schedules.none]
            from = "10:00"
            to = "10:00"
            block = ["tiktok"]
            colour = "red"

            [profiles.work]
            """
        do {
            _ = try ConfigFile.parse(text, path: "schedules.toml")
            Issue.record("a bad file must not parse")
        } catch {
            let found = Set(error.issues.map { "\($0.line ?? 0) \($0.key ?? "")" })
            #expect(
                found == [
                    "2 schedules.bedtime.days", "7 schedules.nap.from", "11 schedules.none", "15 schedules.none.colour",
                    "17 profiles.work",
                ], "\(error)")
            #expect(error.description.contains("a range must not be empty"))
        }
    }

    @Test func aPersonWithoutDevicesIsWarnedAbout() throws {
        let config = try ConfigFile.parse("[people.carol]\nguard = []\n", path: "p.toml")
        #expect(config.warnings == ["person carol has no devices: no query is theirs until `devices` lists some"])
    }
}
