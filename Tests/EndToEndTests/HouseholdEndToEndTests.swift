import DNSTestSupport
import Foundation
import Testing

/// People on one lockr, told apart by their source addresses on loopback (127.0.0.2 is Alice's,
/// 127.0.0.3 Bob's, 127.0.0.1 nobody's): each gets their own answers and their own gates. Alice
/// has a block list of her own.
@Suite(.serialized) struct HouseholdEndToEndTests {
    /// One fixed path, written whole each run, so that runs leave no file behind them.
    static let aliceList: String = {
        let path = NSTemporaryDirectory() + "lockr-e2e-alice-list.txt"
        try! "# Alice's own list\n||news.example^\n".write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }()

    static let people = """

        [people.alice]
        devices = ["127.0.0.2"]
        blocklists = ["\(aliceList)"]

        [people.bob]
        devices = ["127.0.0.3/32"]
        guard = ["youtube"]

        [people.bob.policy]
        mode = "time"

        """

    /// The A record dig gets for `name` when asking from `source`.
    func address(_ name: String, from source: String, _ lockr: LockrProcess) async throws -> String? {
        try await dig(lockr.port, "-b", source, name, "A", "+short").split(separator: "\n").last.map(String.init)
    }

    /// Policy time runs at the pace of the wall clock here: on a loaded machine this test may take
    /// half a minute, which at a faster pace would close Alice's window and make every device idle.
    @Test func eachPersonGetsTheirOwnAnswersAndGates() async throws {
        try await PolicyEndToEndTests().withLockr(mode: "hourly", sections: Self.people, timeScale: 1) { lockr, _ in
            for source in ["127.0.0.1", "127.0.0.2"] {
                #expect(try await address("tiktok.com.", from: source, lockr) == "0.0.0.0")
            }
            // Alice's own list blocks news.example for her alone, and says so.
            #expect(try await address("news.example.", from: "127.0.0.2", lockr) == "0.0.0.0")
            #expect(
                try await dig(lockr.port, "-b", "127.0.0.2", "news.example", "A").contains(
                    "blocked by ||news.example^ (lockr-e2e-alice-"))
            #expect(try await address("news.example.", from: "127.0.0.3", lockr) == "192.0.2.24")
            #expect(try await address("news.example.", from: "127.0.0.1", lockr) == "192.0.2.24")
            // Bob guards only youtube, and has time left.
            #expect(try await address("tiktok.com.", from: "127.0.0.3", lockr) == "192.0.2.21")
            #expect(try await address("www.youtube.com.", from: "127.0.0.3", lockr) == "192.0.2.22")

            // From 127.0.0.1, nobody's address, a verb must name its person.
            let unnamed = try await lockr.cli("unlock", "tiktok")
            #expect(unnamed.status == 1)
            #expect(unnamed.output.contains("say whom this is for") && unnamed.output.contains("default, alice, bob"))
            let unknown = try await lockr.cli("unlock", "tiktok", "--person", "carol")
            #expect(unknown.status == 1 && unknown.output.contains("no person 'carol'"))
            let unlock = try await lockr.cli("unlock", "tiktok", "--person", "alice")
            #expect(unlock.status == 0, "\(unlock.output)")
            #expect(try await address("tiktok.com.", from: "127.0.0.2", lockr) == "192.0.2.21")
            // The default person's tiktok stays locked, whatever Alice's cached answer.
            #expect(try await address("tiktok.com.", from: "127.0.0.1", lockr) == "0.0.0.0")
            let reason = try await dig(lockr.port, "-b", "127.0.0.1", "tiktok.com", "A")
            #expect(reason.contains("tiktok: locked; `lockr unlock tiktok` opens 10 min"))

            let people = try await lockr.cli("status").output
            #expect(people.contains("== default ==") && people.contains("== alice ==") && people.contains("== bob =="))
            #expect(try await lockr.status(of: "bob")["mode"] as? String == "time")
            let alice = try await lockr.status(of: "alice")["apps"] as? [[String: Any]] ?? []
            #expect(alice.first { $0["id"] as? String == "tiktok" }?["open"] as? Bool == true)
            let aliceState = alice.first { $0["id"] as? String == "tiktok" }?["state"] as? [String: Any]
            #expect(aliceState?["code"] as? String == "window" && aliceState?["window"] as? String == "hourly")
            #expect((aliceState?["until"] as? [String: Any])?["in_seconds"] as? Int ?? 0 > 0)
            let defaultApps = try await lockr.status()["apps"] as? [[String: Any]] ?? []
            let locked = defaultApps.first { $0["id"] as? String == "tiktok" }?["state"] as? [String: Any]
            #expect(
                locked?["code"] as? String == "locked" && locked?["opens_by"] as? String == "unlock", "\(locked ?? [:])"
            )
            let onlyBob = try await lockr.cli("status", "--person", "bob").output
            #expect(!onlyBob.contains("alice") && onlyBob.contains("Mode: time"))
            let log = try await lockr.cli("log", "--person", "alice").output
            #expect(log.contains("alice") && log.contains("unlock"), "\(log)")
            // Every device that asked, with its person and how lockr knew it.
            let devices = try await lockr.cli("devices").output
            #expect(devices.contains("alice    127.0.0.2  by source-address  · last asked"), "\(devices)")
            #expect(devices.contains("bob      127.0.0.3") && devices.contains("default  127.0.0.1"), "\(devices)")
            #expect(
                try await lockr.cli("status", "--person", "alice").output.contains(
                    "Devices:\n  127.0.0.2  · last asked"))
        }
    }

    @Test func everyVerbActsOnThePersonItNames() async throws {
        try await PolicyEndToEndTests().withLockr(mode: "hourly", sections: Self.people) { lockr, _ in
            // Bob (time mode): guard, extend, snooze, apps, emergency.
            #expect(try await lockr.cli("guard", "add", "reddit", "--person", "bob").status == 0)
            let extend = try await lockr.cli("extend", "--person", "bob")
            #expect(extend.status == 0 && extend.output.contains("Today's budget is now 40 min"), "\(extend.output)")
            let snooze = try await lockr.cli("snooze", "--person", "bob")
            #expect(snooze.output.contains("nothing to snooze"), "\(snooze.output)")
            let apps = try await lockr.cli("apps", "reddit", "--person", "bob").output
            #expect(apps.contains("guarded"), "\(apps)")
            #expect(!(try await lockr.cli("apps", "reddit", "--person", "alice").output.contains("guarded")))
            #expect(try await lockr.cli("emergency", "--person", "bob").status == 0)
            // Alice (hourly): a stricter mode at once, a looser one pending, then cancelled.
            #expect(try await lockr.cli("mode", "extreme", "--person", "alice").status == 0)
            #expect(try await lockr.status(of: "alice")["mode"] as? String == "extreme")
            #expect(try await lockr.cli("mode", "hourly", "--person", "alice").status != 0)  // needs the sentence
            #expect(try await lockr.cli("pending", "--person", "alice").output.contains("No change is pending"))
            #expect(try await lockr.cli("settings", "reset", "--person", "bob").status == 0)
            // Nobody else was touched.
            let nobody = try await lockr.status()
            #expect(nobody["mode"] as? String == "hourly")
            #expect((nobody["emergencies"] as? [String: Any])?["used"] as? Int == 0)
            #expect((try await lockr.status(of: "bob")["emergencies"] as? [String: Any])?["used"] as? Int == 1)
            #expect((try await lockr.status(of: "bob")["extensions"] as? [String: Any])?["used"] as? Int == 1)
        }
    }

    /// Alice's school schedule (her own) and the household's "work" profile, through the CLI, the
    /// API and real DNS answers.
    @Test func schedulesAndProfilesBlockWhateverTheModeSays() async throws {
        let sections =
            Self.people + """

                [profiles.work]
                block = ["social", "video"]

                [people.alice.schedules.school]
                days = "daily"
                from = "09:00"
                to = "12:00"
                block = ["tiktok"]

                """
        try await PolicyEndToEndTests().withLockr(mode: "hourly", sections: sections) { lockr, _ in
            // Policy time starts at 10:00 UTC: school is on for Alice, and nobody else.
            let unlock = try await lockr.cli("unlock", "tiktok", "--person", "alice")
            #expect(unlock.status == 1 && unlock.output.contains("school until 12:00"), "\(unlock.output)")
            #expect(try await address("tiktok.com.", from: "127.0.0.2", lockr) == "0.0.0.0")
            #expect(try await dig(lockr.port, "-b", "127.0.0.2", "tiktok.com", "A").contains("school until 12:00"))
            #expect(try await lockr.cli("unlock", "tiktok", "--person", "default").status == 0)
            #expect(try await address("tiktok.com.", from: "127.0.0.1", lockr) == "192.0.2.21")
            let schedules = try await lockr.cli("schedule", "list", "--person", "alice").output
            #expect(schedules.hasPrefix("Schedules of alice:\n"), "a list says whose it is: \(schedules)")
            #expect(schedules.contains("school  daily 09:00-12:00  blocks tiktok  · in force until 12:00"))

            // Bob's work profile blocks youtube (guarded) and instagram (social, not guarded by him).
            #expect(try await address("instagram.com.", from: "127.0.0.3", lockr) == "192.0.2.23")
            let on = try await lockr.cli("profile", "activate", "work", "--for", "1h", "--person", "bob")
            #expect(
                on.status == 0 && on.output.contains("work  blocks social, video  · on until 2026-06-01 11:"),
                "\(on.output)")
            // A list says whose it is.
            let listed = try await lockr.cli("profile", "list", "--person", "bob").output
            #expect(listed.hasPrefix("Profiles of bob:\n") && listed.contains("· on until"), "\(listed)")
            #expect(try await address("www.youtube.com.", from: "127.0.0.3", lockr) == "0.0.0.0")
            #expect(try await address("instagram.com.", from: "127.0.0.3", lockr) == "0.0.0.0")
            #expect(try await address("www.youtube.com.", from: "127.0.0.2", lockr) == "0.0.0.0")  // Alice's hourly lock
            let status = try await lockr.cli("status", "--person", "bob").output
            #expect(status.contains("profile work on until") && status.contains("not guarded"), "\(status)")
            let bob = try await lockr.status(of: "bob")
            let youtube = (bob["apps"] as? [[String: Any]])?.first { $0["id"] as? String == "youtube" }
            let state = youtube?["state"] as? [String: Any]
            #expect(state?["code"] as? String == "profile", "\(youtube ?? [:])")
            #expect((state?["text"] as? String)?.hasPrefix("profile work on until") == true)
            let profiles = bob["profiles"] as? [[String: Any]] ?? []
            #expect(profiles.first?["active"] as? Bool == true && profiles.first?["from_config"] as? Bool == true)
            // Off again: exactly what was there.
            #expect(try await lockr.cli("profile", "toggle", "work", "--person", "bob").output.contains("· off"))
            #expect(try await address("www.youtube.com.", from: "127.0.0.3", lockr) == "192.0.2.22")
            #expect(try await address("instagram.com.", from: "127.0.0.3", lockr) == "192.0.2.23")
            let unknown = try await lockr.cli("profile", "activate", "play", "--person", "bob")
            #expect(
                unknown.status == 1 && unknown.output.contains("no profile play; profiles: work"), "\(unknown.output)")

            // A schedule added at run time applies at once; removing it waits (Bob is in time mode).
            let add = try await lockr.cli(
                "schedule", "add", "quiet", "--from", "10:00", "--to", "23:00", "--block", "video", "--person", "bob")
            #expect(add.status == 0 && add.output.contains("Now: schedule quiet"), "\(add.output)")
            #expect(try await address("www.youtube.com.", from: "127.0.0.3", lockr) == "0.0.0.0")
            let badBlock = try await lockr.cli(
                "schedule", "add", "x", "--from", "10:00", "--to", "11:00", "--block", "vidoe", "--person", "bob")
            #expect(badBlock.status == 1 && badBlock.output.contains("no app or group 'vidoe'"), "\(badBlock.output)")
            let remove = try await lockr.cli("schedule", "remove", "quiet", "--person", "bob")
            #expect(remove.output.contains("pending, applies at"), "\(remove.output)")
            #expect(try await address("www.youtube.com.", from: "127.0.0.3", lockr) == "0.0.0.0")
        }
    }
}
