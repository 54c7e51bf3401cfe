import BackendFakes
import Foundation
import Logging
import Testing

@testable import LockrAdapters

@Suite struct WebhookNotifierTests {
    private let lock = WebhookNotice(
        json: Data(#"{"event":"live","live":{"type":"locked"}}"#.utf8),
        push: WebhookNotice.Push(
            title: "TikTök locked", message: "Daily budget spent (5/5 min).\nMeanwhile: Go for a walk.",
            priority: "default", tags: ["lock"]))
    private let opened = WebhookNotice(json: Data(#"{"event":"live","live":{"type":"window_opened"}}"#.utf8), push: nil)

    private func notifier(_ settings: WebhookSettings) -> WebhookNotifier {
        WebhookNotifier(name: "webhook", settings: settings, timeout: Fixtures.timeout)
    }

    /// Runs a notifier for `notices`, until each was delivered or dropped.
    private func deliver(_ notices: [WebhookNotice], with notifier: WebhookNotifier) async {
        let (stream, sink) = AsyncStream.makeStream(of: WebhookNotice.self)
        for notice in notices { sink.yield(notice) }
        sink.finish()
        await notifier.run(stream, logger: Logger(label: "test"))
    }

    @Test func everyEventGoesAsJSON() async throws {
        let fake = FakeWebhook(token: "hook-token")
        try await serving(fake) { server in
            let settings = WebhookSettings(url: server.url + "/lockr", token: Fixtures.secret("hook-token"))
            #expect(settings.events == .json, "the default")
            await deliver([opened, lock], with: notifier(settings))
            #expect(
                fake.bodies.map { ($0["live"] as? [String: Any])?["type"] as? String } == ["window_opened", "locked"])
        }
    }

    @Test func asTextOnlyNotificationsGoAsNtfyTakesThemWithTheirOwnToken() async throws {
        let fake = FakeNtfy(token: "push-token")
        try await serving(fake) { server in
            var settings = WebhookSettings(url: server.url + "/home", token: Fixtures.secret("home-token"))
            settings.events = .text
            settings.eventsURL = server.url + "/lockr"
            settings.eventsToken = Fixtures.secret("push-token")
            await deliver([opened, lock], with: notifier(settings))
            #expect(
                fake.messages == [
                    FakeNtfy.Message(
                        topic: "lockr", title: "TikT?k locked", priority: "default", tags: "lock",
                        message: "Daily budget spent (5/5 min).\nMeanwhile: Go for a walk.")
                ])
        }
    }

    @Test func aFailingWebhookIsTriedThriceAndAWrongTokenOnce() async throws {
        let fake = FakeWebhook(token: "hook-token")
        try await serving(fake) { server in
            var settings = WebhookSettings(url: server.url, token: Fixtures.secret("hook-token"))
            let notifier = notifier(settings)
            server.inject(.status(500), .status(503))
            await deliver([lock], with: notifier)
            #expect(fake.bodies.count == 1, "the third try")
            server.inject(.status(500), .status(500), .status(500))
            await deliver([lock, opened], with: notifier)
            #expect(fake.bodies.count == 2, "the first dropped after three tries, the next delivered")
            settings.token = Fixtures.secret("wrong")
            let refused = self.notifier(settings)
            let before = server.requests.count
            await deliver([lock], with: refused)
            #expect(server.requests.count == before + 1, "a refused token is not tried again")
        }
    }
}
