import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import LockrAPI
import LockrPolicy
import NIOCore
import OpenAPIRuntime
import PolicyFakes
import Testing

@testable import LockrControl

/// The CLI's way to ask for an action and the routes' way to take it are one description: each
/// action sent as `PolicyAction.request` makes, through the routes, exactly the change that
/// applying it to the engine makes.
@Suite struct ActionRequestTests {
    let token = String(repeating: "cd", count: 32)
    let start = Instant(Date(timeIntervalSince1970: 1_780_308_000))  // 2026-06-01 10:00 UTC

    /// Actions in an order each can be carried out in (the time mode's first, then the hourly's).
    static let timeActions: [PolicyAction] = [
        .setMode(.time, budget: .seconds(45 * 60)), .cancelPending(id: 1), .guardApp("reddit"),
        .unguardApp("reddit"), .snooze(app: nil), .extend(app: nil), .beginEmergency,
        .addSchedule(
            Schedule(name: "school", days: Weekdays("mon-fri")!, from: 8 * 60, to: 15 * 60, block: ["tiktok"])),
        .removeSchedule(name: "school"), .defineProfile(Profile(name: "homework", block: ["youtube"])),
        .switchProfile(name: "homework", .activate, duration: .seconds(3600)),
        .switchProfile(name: "homework", .toggle), .removeProfile(name: "homework"), .resetSettings,
    ]
    static let hourlyActions: [PolicyAction] = [
        .unlock(app: "tiktok"), .unlock(app: nil), .setMode(.hourly, window: .seconds(5 * 60)),
    ]

    /// Sends each of `actions` through the generated client and the routes, and applies it to a twin
    /// engine: each is taken or refused alike, and the two policies are the same after each.
    func compare(_ mode: Mode, _ actions: [PolicyAction]) async throws {
        let policy = MemoryPolicy(mode: mode, now: start)
        let start = self.start
        let app = Application(router: ControlRouter.build(policy: policy, token: token))
        try await app.test(.router) { client in
            let api = Client(
                serverURL: URL(string: "/")!, configuration: ControlJSON.configuration,
                transport: RouterTransport(client: client),
                middlewares: [ControlClientMiddleware(baseURL: "in process", token: token)])
            var twin = policy.engine
            var taken = 0
            for action in actions {
                let request = try #require(action.request, "\(action)")
                let sent: Result<any Encodable & Sendable, any Error>
                do { sent = .success(try await request.send(api, nil, nil, nil)) } catch { sent = .failure(error) }
                let applied = Result { () throws(PolicyRefusal) in try twin.apply(action, at: start) }
                switch (applied, sent) {
                case (.success, .success):
                    taken += 1
                case (.failure(let refused), .failure(let error)):
                    guard case ControlClientError.refused(_, let body)? = (error as? ClientError)?.underlyingError
                    else {
                        Issue.record("\(action): \(error)")
                        continue
                    }
                    #expect(body.code == ControlFailure.refused(refused).response.body.code, "\(action)")
                case (let applied, let sent):
                    Issue.record("\(action): applied \(applied), sent \(sent)")
                }
                #expect(policy.engine.state == twin.state, "\(action)")
            }
            #expect(taken >= actions.count - 1, "most of them are taken, so that the states say something")
        }
    }

    @Test func eachActionSentIsTheActionApplied() async throws {
        try await compare(.time, Self.timeActions)
        try await compare(.hourly, Self.hourlyActions)
    }

    @Test func theGatesStepsAndTheClearPinAreNoActionsTheCLISendsAsSuch() {
        for action: PolicyAction in [
            .issueChallenges(app: nil, seed: 1), .answerChallenge(id: "c", answer: "1"), .beginTypedFallback,
            .passSpokenSentence(Spoken(transcript: "x", length: .seconds(1))), .setPin(nil),
        ] {
            #expect(action.request == nil, "\(action)")
        }
    }
}

/// Takes the generated client's requests to a router in this process.
struct RouterTransport: ClientTransport {
    let client: any TestClientProtocol

    func send(
        _ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String
    ) async throws -> (HTTPResponse, HTTPBody?) {
        var bytes: [UInt8]?
        if let body { bytes = try await [UInt8](collecting: body, upTo: 1 << 20) }
        let answer = try await client.execute(
            uri: request.path ?? "/", method: request.method, headers: request.headerFields,
            body: bytes.map { ByteBuffer(bytes: $0) })
        return (
            HTTPResponse(status: answer.status, headerFields: answer.headers),
            HTTPBody(Array(answer.body.readableBytesView))
        )
    }
}
