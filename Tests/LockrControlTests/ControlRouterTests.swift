import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import LockrAPI
import LockrPolicy
import NIOCore
import PolicyFakes
import Synchronization
import Testing

@testable import LockrControl

@Suite struct ControlRouterTests {
    let token = String(repeating: "ab", count: 32)
    let start = Instant(Date(timeIntervalSince1970: 1_780_308_000))  // 2026-06-01 10:00 UTC

    func withAPI(
        _ mode: Mode = .hourly, _ body: @escaping @Sendable (MemoryPolicy, any TestClientProtocol) async throws -> Void
    ) async throws {
        let policy = MemoryPolicy(mode: mode, now: start)
        let app = Application(router: ControlRouter.build(policy: policy, token: token))
        try await app.test(.router) { client in try await body(policy, client) }
    }

    var auth: HTTPFields { [.authorization: "Bearer \(token)", .contentType: "application/json"] }

    func json(_ text: String) -> ByteBuffer { ByteBuffer(string: text) }

    func decode<T: Decodable>(_ type: T.Type, _ response: TestResponse) throws -> T {
        try ControlJSON.decoder().decode(T.self, from: Data(response.body.readableBytesView))
    }

    @Test func theEventStreamReplaysWhatAReconnectingClientMissedAndEndsWithTheDaemon() async throws {
        let policy = MemoryPolicy(mode: .hourly, now: start, people: ["bob"])
        let hub = policy.liveEvents
        let window = LiveEvent(
            kind: .windowEnding, at: start, app: "tiktok", appName: "TikTok",
            access: .window(.hourly, until: start + .seconds(120)), minutesLeft: 2, until: start + .seconds(120),
            message: "tiktok: 2 min left")
        hub.suggest(["Go for a walk."])
        hub.publish([LiveEvent(kind: .settingsChanged, at: start, message: "mode hourly")], of: People.defaultName)
        hub.publish([window, LiveEvent(kind: .protectionOff, at: start, message: "phone stopped asking")], of: "bob")
        let locked = LiveEvent(
            kind: .locked, at: start, app: "tiktok", appName: "TikTok", access: .hourUsed(next: start + .seconds(3600)),
            message: "tiktok: hourly window used, next at 11:00")
        hub.publish([locked], of: "bob")
        hub.close()
        let app = Application(router: ControlRouter.build(policy: policy, token: token))
        try await app.test(.router) { client in
            var headers = auth
            headers[HTTPField.Name("Last-Event-ID")!] = "0-7"  // from an earlier run: everything kept
            let answer = try await client.execute(uri: "/api/v1/events?person=bob", method: .get, headers: headers)
            #expect(answer.status == .ok)
            #expect(answer.headers[.contentType] == "text/event-stream")
            let frames = String(buffer: answer.body).components(separatedBy: "\n\n").filter { !$0.isEmpty }
            #expect(frames.first == "retry: 3000")
            let events = frames.dropFirst().map { $0.split(separator: "\n").map(String.init) }
            #expect(
                events.map { $0.prefix(2) } == [
                    ["id: 1-2", "event: window_ending"], ["id: 1-3", "event: protection_off"],
                    ["id: 1-4", "event: locked"],
                ])
            let bodies = try events.map { lines in
                try ControlJSON.decoder().decode(
                    Components.Schemas.LiveEventBody.self, from: Data(lines[2].dropFirst("data: ".count).utf8))
            }
            let body = bodies[0]
            #expect(body.person == "bob" && body.app == "tiktok" && body.minutesLeft == 2 && body.suggestion == nil)
            #expect(body.until?.inSeconds == 120 && body.state?.code == .window && body.local == "10:00")
            // A lock suggests something to do instead.
            #expect(bodies[2].suggestion == "Go for a walk." && bodies[2].state?.code == .hourUsed)

            // With the last id it saw, a client gets only what came after it.
            headers[HTTPField.Name("Last-Event-ID")!] = "1-2"
            let rest = try await client.execute(uri: "/api/v1/events", method: .get, headers: headers)
            #expect(String(buffer: rest.body).contains("id: 1-3") && !String(buffer: rest.body).contains("id: 1-2"))

            let unknown = try await client.execute(uri: "/api/v1/events?person=carol", method: .get, headers: auth)
            #expect(unknown.status == .notFound)
            #expect(try decode(Components.Schemas.ErrorBody.self, unknown).code == .unknownPerson)
            let anonymous = try await client.execute(uri: "/api/v1/events", method: .get)
            #expect(anonymous.status == .unauthorized)
        }
    }

    @Test func statsGiveEachDayAndTheStreaks() async throws {
        try await withAPI(.time) { policy, client in
            // Two days before today: the first held its limits, the second had an emergency.
            let calendar = policy.view(of: People.defaultName).calendar
            let today = calendar.day(containing: start)
            let yesterday = calendar.day(containing: today.start - .seconds(1))
            let before = calendar.day(containing: yesterday.start - .seconds(1))
            var first = DayRecord(day: before)
            first.used = ["*": .seconds(1200), "tiktok": .seconds(900), "youtube": .seconds(300)]
            first.charged = ["*": .seconds(1200)]
            first.budgets = ["*": .seconds(1800)]
            first.extraBudget = ["*": .seconds(600)]
            first.sessions = ["tiktok": 3, "youtube": 1]
            first.opens = ["tiktok": 1]
            first.blocked = ["tiktok": 40]
            var tally = GateTally()
            tally.passed = 2
            tally.failed = 1
            first.gates = ["phrase": tally]
            var second = DayRecord(day: yesterday)
            second.emergencies = 1
            policy.closedDays.withLock { $0[People.defaultName] = [first, second] }

            let week = try decode(
                Components.Schemas.StatsResponse.self,
                try await client.execute(uri: "/api/v1/stats?days=7", method: .get, headers: auth))
            let person = try #require(week.people.first)
            #expect(person.days.map(\.day) == [before.key, yesterday.key, today.key])
            let day = person.days[0]
            #expect(
                day.budgetSeconds == 2400 && day.usedSeconds == 1200 && day.chargedSeconds == 1200 && day.heldLimits)
            #expect(
                day.apps == [
                    Components.Schemas.AppDayBody(
                        id: "tiktok", name: "TikTok", usedSeconds: 900, budgetSeconds: nil, opens: 3, windows: 1,
                        blocked: 40),
                    Components.Schemas.AppDayBody(
                        id: "youtube", name: "YouTube", usedSeconds: 300, budgetSeconds: nil, opens: 1, windows: 0,
                        blocked: 0),
                ])
            #expect(day.gates == [Components.Schemas.GateDayBody(kind: "phrase", passed: 2, failed: 1)])
            #expect(day.queries.additionalProperties == ["blocked": 2, "cached": 5])
            #expect(!person.days[1].heldLimits && person.days[1].emergencies == 1)
            #expect(
                person.streaks
                    == Components.Schemas.StreaksBody(
                        heldLimits: Components.Schemas.RunBody(current: 1, best: 1),
                        withoutEmergency: Components.Schemas.RunBody(current: 1, best: 1)))

            let one = try decode(
                Components.Schemas.StatsResponse.self,
                try await client.execute(uri: "/api/v1/stats?day=\(before.key)", method: .get, headers: auth))
            #expect(one.people.first?.days.map(\.day) == [before.key])
            #expect(
                try decode(
                    Components.Schemas.StatsResponse.self,
                    try await client.execute(uri: "/api/v1/stats", method: .get, headers: auth)
                )
                .people.first?.days.map(\.day) == [today.key])
            for bad in ["days=0", "days=400", "day=yesterday", "person=carol"] {
                let answer = try await client.execute(uri: "/api/v1/stats?\(bad)", method: .get, headers: auth)
                #expect(answer.status.code >= 400 && answer.status.code < 500, "\(bad)")
            }
        }
    }

    @Test func everyCallNeedsTheToken() async throws {
        try await withAPI { _, client in
            let missing = try await client.execute(uri: "/api/v1/status", method: .get)
            #expect(missing.status == .unauthorized)
            #expect(try decode(Components.Schemas.ErrorBody.self, missing).code == .unauthorized)
            let wrong = try await client.execute(
                uri: "/api/v1/unlock", method: .post, headers: [.authorization: "Bearer nope"],
                body: json(#"{"app":"tiktok"}"#))
            #expect(wrong.status == .unauthorized)
            let right = try await client.execute(uri: "/api/v1/status", method: .get, headers: auth)
            #expect(right.status == .ok)
        }
    }

    @Test func unlockOpensAWindowThatStatusShows() async throws {
        try await withAPI { _, client in
            let unlock = try await client.execute(
                uri: "/api/v1/unlock", method: .post, headers: auth, body: json(#"{"app":"tiktok"}"#))
            #expect(unlock.status == .ok)
            let opened = try decode(Components.Schemas.UnlockResponse.self, unlock).opened
            #expect(opened.map(\.ends.local) == ["10:10"])
            #expect(opened.first?.ends.inSeconds == 600)
            let household = try decode(
                Components.Schemas.HouseholdStatusBody.self,
                try await client.execute(uri: "/api/v1/status", method: .get, headers: auth))
            let status = try #require(household.people.first)
            #expect(household.people.map(\.person) == ["default"])
            #expect(status.mode == .hourly)
            #expect(status.apps.map(\.open) == [true, false])
            #expect(status.apps.first?.windowEnds?.local == "10:10")
            let again = try await client.execute(
                uri: "/api/v1/unlock", method: .post, headers: auth, body: json(#"{"all":true}"#))
            #expect(try decode(Components.Schemas.UnlockResponse.self, again).alreadyOpen.map(\.app) == ["tiktok"])
        }
    }

    @Test func eachCallIsAboutOnePersonNamedOrTheCallers() async throws {
        let policy = MemoryPolicy(mode: .hourly, now: start, people: ["alice", "bob"])
        let app = Application(router: ControlRouter.build(policy: policy, token: token))
        // Live: the caller's address reaches the routes (from loopback, nobody's device at first).
        try await app.test(.live) { client in
            let unnamed = try await client.execute(
                uri: "/api/v1/unlock", method: .post, headers: auth, body: json(#"{"app":"tiktok"}"#))
            #expect(unnamed.status == .badRequest)
            #expect(
                try decode(Components.Schemas.ErrorBody.self, unnamed)
                    == Components.Schemas.ErrorBody(
                        error: "say whom this is for with --person NAME (in the API, ?person=NAME); "
                            + "people: default, alice, bob", code: .personRequired))
            let stranger = try await client.execute(
                uri: "/api/v1/unlock?person=carol", method: .post, headers: auth, body: json(#"{"app":"tiktok"}"#))
            #expect(stranger.status == .notFound)
            #expect(try decode(Components.Schemas.ErrorBody.self, stranger).code == .unknownPerson)
            let alice = try await client.execute(
                uri: "/api/v1/unlock?person=alice", method: .post, headers: auth, body: json(#"{"app":"tiktok"}"#))
            #expect(alice.status == .ok)
            // Bob's own device asks without naming him.
            policy.callerPerson.withLock { $0 = "bob" }
            let bob = try await client.execute(
                uri: "/api/v1/unlock", method: .post, headers: auth, body: json(#"{"app":"youtube"}"#))
            #expect(try decode(Components.Schemas.UnlockResponse.self, bob).opened.map(\.app) == ["youtube"])
            #expect(policy.callers.withLock { $0 }.allSatisfy { $0 == "127.0.0.1" || $0 == "::1" })
            let household = try decode(
                Components.Schemas.HouseholdStatusBody.self,
                try await client.execute(uri: "/api/v1/status", method: .get, headers: auth))
            #expect(household.people.map(\.person) == ["default", "alice", "bob"])
            #expect(household.people.map { $0.apps.filter(\.open).map(\.id) } == [[], ["tiktok"], ["youtube"]])
            let onlyAlice = try decode(
                Components.Schemas.HouseholdStatusBody.self,
                try await client.execute(uri: "/api/v1/status?person=alice", method: .get, headers: auth))
            #expect(onlyAlice.people.map(\.person) == ["alice"])
            let log = try decode(
                Components.Schemas.LogResponse.self,
                try await client.execute(uri: "/api/v1/log?person=bob", method: .get, headers: auth))
            #expect(log.events.map(\.person) == ["bob"])
        }
    }

    @Test func badRequestsGetClearErrors() async throws {
        try await withAPI { _, client in
            let notJSON = try await client.execute(
                uri: "/api/v1/unlock", method: .post, headers: auth, body: json("{app"))
            #expect(notJSON.status == .badRequest)
            #expect(try decode(Components.Schemas.ErrorBody.self, notJSON).error == "bad JSON: not valid JSON")
            let wrongType = try await client.execute(
                uri: "/api/v1/unlock", method: .post, headers: auth, body: json(#"{"app": 3}"#))
            #expect(
                try decode(Components.Schemas.ErrorBody.self, wrongType).error == "bad JSON: 'app' must be a string")
            let neither = try await client.execute(
                uri: "/api/v1/unlock", method: .post, headers: auth, body: json("{}"))
            #expect(neither.status == .badRequest)
            let unknown = try await client.execute(
                uri: "/api/v1/unlock", method: .post, headers: auth, body: json(#"{"app":"myspace"}"#))
            #expect(unknown.status == .notFound)
            #expect(
                try decode(Components.Schemas.ErrorBody.self, unknown).error
                    == "no app 'myspace' in the catalogue (`lockr apps` lists them)")
            let mode = try await client.execute(
                uri: "/api/v1/mode", method: .put, headers: auth, body: json(#"{"mode":"hourly","window_minutes":7}"#))
            #expect(mode.status == .badRequest)
            #expect(try decode(Components.Schemas.ErrorBody.self, mode).code == .invalidSettings)
            let since = try await client.execute(uri: "/api/v1/log?since=soon", method: .get, headers: auth)
            #expect(since.status == .badRequest)
            let nowhere = try await client.execute(uri: "/api/v1/teleport", method: .post, headers: auth)
            #expect(nowhere.status == .notFound)
            #expect(
                try decode(Components.Schemas.ErrorBody.self, nowhere).error.hasPrefix(
                    "no endpoint POST /api/v1/teleport"))
            let wrongMethod = try await client.execute(uri: "/api/v1/unlock", method: .get, headers: auth)
            #expect(try decode(Components.Schemas.ErrorBody.self, wrongMethod).code == .methodNotAllowed)
        }
    }

    @Test func aPinGuardsLooseningChangesWithGrowingLockouts() async throws {
        try await withAPI(.hourly) { _, client in
            let set = try await client.execute(
                uri: "/api/v1/pin", method: .put, headers: auth, body: json(#"{"pin":"2468"}"#))
            #expect(set.status == .ok)
            let loosen = #"{"mode":"time"}"#
            let missing = try await client.execute(uri: "/api/v1/mode", method: .put, headers: auth, body: json(loosen))
            #expect(missing.status == .forbidden)
            #expect(try decode(Components.Schemas.ErrorBody.self, missing).code == .pinRequired)
            var wrong = auth
            wrong[HTTPField.Name("X-Lockr-PIN")!] = "1111"
            for attempt in 1...5 {
                let refused = try await client.execute(
                    uri: "/api/v1/mode", method: .put, headers: wrong, body: json(loosen))
                #expect(refused.status == .forbidden, "#\(attempt)")
                #expect(try decode(Components.Schemas.ErrorBody.self, refused).code == .wrongPin, "#\(attempt)")
            }
            var right = auth
            right[HTTPField.Name("X-Lockr-PIN")!] = "2468"
            let locked = try await client.execute(uri: "/api/v1/mode", method: .put, headers: right, body: json(loosen))
            #expect(locked.status == .tooManyRequests && locked.headers[.retryAfter] == "30")
        }
        try await withAPI(.hourly) { policy, client in
            _ = try await client.execute(
                uri: "/api/v1/pin", method: .put, headers: auth, body: json(#"{"pin":"2468"}"#))
            var right = auth
            right[HTTPField.Name("X-Lockr-PIN")!] = "2468"
            let accepted = try await client.execute(
                uri: "/api/v1/mode", method: .put, headers: right, body: json(#"{"mode":"time"}"#))
            #expect(try decode(Components.Schemas.ModeResponse.self, accepted).change.pending.count == 1)
            // Tightening needs no PIN; clearing needs it.
            let tighter = try await client.execute(
                uri: "/api/v1/mode", method: .put, headers: auth, body: json(#"{"mode":"hourly","window_minutes":5}"#))
            #expect(tighter.status == .ok)
            let clear = try await client.execute(uri: "/api/v1/pin", method: .delete, headers: auth)
            #expect(clear.status == .forbidden)
            #expect(try await client.execute(uri: "/api/v1/pin", method: .delete, headers: right).status == .ok)
            #expect(policy.view(of: People.defaultName).policy.pin == nil)
            // Only a hash was ever kept.
            #expect(policy.logged.withLock { $0 }.allSatisfy { !$0.event.detail.contains("2468") })
        }
    }

    @Test func wrongPhrasesAreForbiddenThenCooledDown() async throws {
        try await withAPI(.extreme) { policy, client in
            for _ in 1...3 {
                let wrong = try await client.execute(
                    uri: "/api/v1/unlock", method: .post, headers: auth, body: json(#"{"app":"youtube","phrase":"x"}"#))
                #expect(wrong.status == .forbidden)
            }
            let cooling = try await client.execute(
                uri: "/api/v1/unlock", method: .post, headers: auth,
                body: json(
                    #"{"app":"youtube","phrase":"I am stupid enough to waste more time. Please give me another 15 minutes."}"#
                ))
            #expect(cooling.status == .tooManyRequests)
            #expect(cooling.headers[.retryAfter] == "15")
            policy.advance(by: .seconds(15))
            let right = try await client.execute(
                uri: "/api/v1/unlock", method: .post, headers: auth,
                body: json(
                    #"{"app":"youtube","phrase":"i am stupid enough to waste more time please give me another 15 minutes"}"#
                ))
            #expect(right.status == .ok)
            let log = try decode(
                Components.Schemas.LogResponse.self,
                try await client.execute(uri: "/api/v1/log?since=60", method: .get, headers: auth))
            #expect(log.events.map(\._type) == ["gate_fail", "gate_fail", "gate_fail", "gate_pass", "unlock"])
        }
    }

    @Test func guardModeSnoozeExtendAndEmergency() async throws {
        try await withAPI(.time) { policy, client in
            let added = try await client.execute(
                uri: "/api/v1/guard", method: .post, headers: auth, body: json(#"{"app":"reddit"}"#))
            #expect(
                try decode(Components.Schemas.GuardResponse.self, added).guarded == ["tiktok", "youtube", "reddit"])
            // Adding applies at once; removing loosens and waits for the next day in time mode.
            let removed = try await client.execute(uri: "/api/v1/guard/youtube", method: .delete, headers: auth)
            let removal = try decode(Components.Schemas.GuardResponse.self, removed)
            #expect(removal.guarded == ["tiktok", "youtube", "reddit"])
            #expect(removal.change.pending.map(\.change) == ["guard youtube: guarded → not guarded"])
            #expect(removal.change.pending.first.map { ControlJSON.text($0.appliesAt.at) } == "2026-06-02T00:00:00Z")
            let pending = try decode(
                Components.Schemas.PendingResponse.self,
                try await client.execute(uri: "/api/v1/pending", method: .get, headers: auth))
            #expect(pending.pending.map(\.id) == [1])
            let cancelled = try await client.execute(uri: "/api/v1/pending/1", method: .delete, headers: auth)
            #expect(try decode(Components.Schemas.PendingResponse.self, cancelled).pending.isEmpty)
            let snooze = try await client.execute(uri: "/api/v1/snooze", method: .post, headers: auth)
            #expect(snooze.status == .conflict)
            let extend = try await client.execute(uri: "/api/v1/extend", method: .post, headers: auth)
            #expect(try decode(Components.Schemas.ExtendResponse.self, extend).budgetMinutes == 40)
            let hold = try decode(
                Components.Schemas.HoldResponse.self,
                try await client.execute(uri: "/api/v1/emergency/hold", method: .post, headers: auth)
            )
            #expect(hold.waitMilliseconds == 8000)
            let early = try await client.execute(
                uri: "/api/v1/emergency", method: .post, headers: auth, body: json(#"{"hold":\#(hold.hold)}"#))
            #expect(early.status == .conflict)
            policy.advance(by: .seconds(8))
            let letGo = try await client.execute(
                uri: "/api/v1/emergency", method: .post, headers: auth, body: json(#"{"hold":\#(hold.hold)}"#))
            #expect(letGo.status == .conflict, "a hold let go too soon is over")
            let again = try decode(
                Components.Schemas.HoldResponse.self,
                try await client.execute(uri: "/api/v1/emergency/hold", method: .post, headers: auth)
            )
            policy.advance(by: .seconds(8))
            let granted = try await client.execute(
                uri: "/api/v1/emergency", method: .post, headers: auth, body: json(#"{"hold":\#(again.hold)}"#))
            #expect(try decode(Components.Schemas.WindowBody.self, granted).ends.inSeconds == 300)
            let mode = try await client.execute(
                uri: "/api/v1/mode", method: .put, headers: auth, body: json(#"{"mode":"hourly","window_minutes":15}"#))
            let modeChange = try decode(Components.Schemas.ModeResponse.self, mode)
            #expect(modeChange.summary == "time, budget 30 min a day for all apps")
            #expect(
                modeChange.change.pending.map(\.change) == [
                    "policy.mode: time → hourly", "hourly.window-minutes: 10 min → 15 min",
                ])
        }
    }
}
