import ArgumentParser
import DesktopNotifications
import Foundation
import LockrAPI
import LockrControl

struct NotifyCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notify",
        abstract: "Show desktop notifications for time running out, locks and protection, until Ctrl-C.",
        discussion: """
            Run it in your desktop session (an autostart entry does it at login): it follows the daemon's live \
            events and shows, through the desktop's notification server (freedesktop Notifications over D-Bus), \
            "2 minutes left" and "1 minute left" of a window, 5 and 1 minutes of a budget, each lock with why \
            and what you can do (snooze, extend, unlock, the sentence, the emergency) and a suggestion of \
            something else to do ([notify] suggestions in the daemon's config), protection turned off on a \
            device, and how often an app was opened today. When the daemon stops or restarts, it waits for it.
            """
    )

    @Option(help: "Remind how often an app was opened today at every this many opens (0: never).")
    var remindEvery = Notice.remindEvery
    @OptionGroup var options: ClientOptions
    @OptionGroup var person: PersonOption

    func validate() throws {
        guard (0...100).contains(remindEvery) else { throw ValidationError("--remind-every must be from 0 to 100") }
    }

    func run() async throws {
        let desktop: DesktopNotifications
        do { desktop = try DesktopNotifications() } catch {
            printError("lockr: \(error) (run lockr notify in a desktop session)")
            throw ExitCode(1)
        }
        let interruption = Interruption {}
        defer { withExtendedLifetime(interruption) {} }
        var shown = ShownNotifications()
        try await LiveEventFollower(options: options, person: person).run(
            connected: { _ in },
            say: { message in printError("lockr notify: \(message)") },
            receive: { _, body, _ in
                guard let notice = Notice.make(for: body, remindEvery: remindEvery) else { return }
                let urgency: DesktopNotifications.Urgency =
                    switch notice.urgency {
                    case .low: .low
                    case .normal: .normal
                    case .critical: .critical
                    }
                do {
                    let id = try desktop.show(
                        summary: notice.title, body: notice.body, urgency: urgency, replacing: shown.id(for: body))
                    shown.note(id, for: body)
                } catch {
                    printError("lockr notify: \(error)")
                }
            })
    }
}

/// Which notification an event replaces: a countdown replaces the last one of the same app (or
/// budget), so that "1 minute left" takes the place of "2 minutes left".
struct ShownNotifications {
    private var ids: [String: UInt32] = [:]

    private func key(_ event: Components.Schemas.LiveEventBody) -> String? {
        switch event._type {
        case "window_ending", "budget_low", "locked": "\(event.person)/\(event.app ?? "*")"
        default: nil
        }
    }

    func id(for event: Components.Schemas.LiveEventBody) -> UInt32 { key(event).flatMap { ids[$0] } ?? 0 }

    mutating func note(_ id: UInt32, for event: Components.Schemas.LiveEventBody) {
        if let key = key(event) { ids[key] = id }
    }
}
