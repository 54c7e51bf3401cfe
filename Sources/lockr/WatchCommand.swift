import ArgumentParser
import Foundation
import LockrAPI
import LockrControl
import PlainText

struct WatchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "watch",
        abstract: "Follow windows, countdowns and locks as they happen, until Ctrl-C.",
        discussion: """
            On a terminal the screen is redrawn once a second: each person's guarded apps, where they stand and \
            how long a window has left, and below them the latest events. Otherwise (a pipe, a file) each event \
            is one line as it happens; with --json, the API's JSON, one object per line. Events are windows \
            opened, 2 and 1 minutes left, closed; a budget at 5 and 1 minutes; locks and unlocks with their \
            reason; an app opened again; protection off; settings changed. Without --person it follows everyone. \
            When the daemon stops or restarts, watch waits for it and goes on.
            """
    )

    @OptionGroup var options: ClientOptions
    @OptionGroup var person: PersonOption

    func run() async throws {
        let screen = isatty(STDOUT_FILENO) == 1 && !options.json ? WatchScreen() : nil
        let interruption = Interruption { screen?.leave() }
        defer { withExtendedLifetime(interruption) {} }
        let follower = LiveEventFollower(options: options, person: person, leaving: { screen?.leave() })
        var redraw: Task<Void, Never>?
        defer { redraw?.cancel() }
        try await follower.run(
            connected: { client in
                guard let screen else { return }
                try await screen.refresh(from: client, person: person.person)
                redraw?.cancel()
                redraw = Task {
                    await screen.keepDrawing { try await screen.refresh(from: client, person: person.person) }
                }
            },
            say: { message in
                if let screen {
                    await screen.note(message)
                } else if !options.json {
                    print("\(WatchLine.now)  \(message)")
                    fflush(nil)
                }
            },
            receive: { json, body, client in
                if let screen {
                    await screen.add(body)
                    try? await screen.refresh(from: client, person: person.person)
                } else {
                    print(options.json ? json : WatchLine.text(body))
                    fflush(nil)
                }
            })
    }
}

/// Follows the daemon's live events for a CLI verb, until the program is ended: finds the daemon,
/// and when it stops or restarts, waits for it and goes on after the last event seen. A first
/// attempt that fails, or a refusal (an unknown person), ends the program like any other command.
struct LiveEventFollower {
    let options: ClientOptions
    let person: PersonOption
    /// Runs before the program exits on a failure.
    var leaving: () -> Void = {}

    /// - Parameters:
    ///   - connected: on each connection, once subscribed and before its events (a screen fetches
    ///     the status).
    ///   - say: how the connection is doing ("the daemon stopped; waiting"), each message once.
    ///   - receive: each event, as sent (its JSON) and as read.
    func run(
        connected: (ControlClient) async throws -> Void, say: (String) async -> Void,
        receive: (_ json: String, Components.Schemas.LiveEventBody, ControlClient) async -> Void
    ) async throws -> Never {
        var lastID: String?
        var everConnected = false
        var lastSaid: String?
        while true {
            do {
                let endpoint = try ControlFiles.endpoint(in: try options.stateDirectory())
                let client = ControlClient(baseURL: endpoint.url, token: endpoint.token)
                try await client.followEvents(
                    of: person.person, after: lastID, opened: { try await connected(client) }
                ) { event in
                    everConnected = true
                    lastSaid = nil
                    lastID = event.id ?? lastID
                    // An event this CLI does not know (a newer daemon's) is passed over.
                    guard let json = event.data,
                        let body = try? ControlJSON.decoder().decode(
                            Components.Schemas.LiveEventBody.self, from: Data(json.utf8))
                    else { return }
                    await receive(json, body, client)
                }
                everConnected = true
                let message = "the daemon stopped; waiting for it to come back"
                if message != lastSaid { await say(message) }
                lastSaid = message
            } catch ControlClientError.refused(_, let body) {
                leaving()
                options.fail(body.error, body: body)
            } catch {
                // The first attempt fails like any other command; later ones wait for the daemon.
                guard everConnected else {
                    leaving()
                    options.fail(error)
                }
                let message = "\(error); retrying"
                if message != lastSaid { await say(message) }
                lastSaid = message
            }
            try await Task.sleep(for: .seconds(2))
        }
    }
}

/// One event as a line: "14:28:01  alice  tiktok: 2 min left (hourly window until 14:30)".
enum WatchLine {
    /// The machine's clock now, "14:28:01".
    static var now: String { LocalClock.reading(Date()).clockText(seconds: true) }

    static func text(_ event: Components.Schemas.LiveEventBody) -> String {
        "\(now)  \(event.person)  \(event.message)"
    }
}

/// The terminal's view: everyone's apps with countdowns, redrawn once a second on the terminal's
/// alternate screen (left as it was on exit), and the latest events below.
actor WatchScreen {
    private var status: Components.Schemas.HouseholdStatusBody?
    /// When `status` was fetched, for counting its times down.
    private var fetched = ContinuousClock.now
    private var latest: [String] = []
    private var notice: String?
    private var entered = false

    init() {}

    /// Reads where everyone (or `person`) stands.
    func refresh(from client: ControlClient, person: String?) async throws {
        status = try await client.call { try await $0.getStatus(query: .init(person: person)).ok.body.json }
        fetched = .now
        notice = nil
        draw()
    }

    func add(_ event: Components.Schemas.LiveEventBody) {
        latest.append(WatchLine.text(event))
        if latest.count > 8 { latest.removeFirst(latest.count - 8) }
        notice = nil
        draw()
    }

    func note(_ message: String) {
        notice = message
        draw()
    }

    /// Redraws once a second (the countdowns move on) and reads the status again every 5 seconds
    /// (use moves budgets on without an event), until cancelled.
    func keepDrawing(refreshing refresh: () async throws -> Void) async {
        var seconds = 0
        while !Task.isCancelled {
            try? await Task.sleep(for: .seconds(1))
            seconds += 1
            if seconds % 5 == 0, (try? await refresh()) != nil { continue }
            draw()
        }
    }

    /// Leaves the alternate screen and shows the cursor again; safe to call from a signal handler's
    /// queue, as it only writes.
    nonisolated func leave() {
        writeOut("\u{1B}[?25h\u{1B}[?1049l")
    }

    private func draw() {
        if !entered {
            entered = true
            writeOut("\u{1B}[?1049h\u{1B}[?25l")
        }
        let elapsed = Int64((ContinuousClock.now - fetched).components.seconds)
        var lines = ["lockr watch · \(WatchLine.now) · Ctrl-C to stop", ""]
        if let notice { lines += [notice, ""] }
        for person in status?.people ?? [] {
            lines.append("\(person.person) · \(person.summary)")
            for app in person.apps {
                let name = app.name.padded(to: max(12, app.name.count))
                let countdown =
                    app.windowEnds.map { Components.Schemas.TimeBody.countdown($0.inSeconds - elapsed) + " left" } ?? ""
                lines.append(
                    "  \(name)  \((app.open ? "open" : "blocked").padded(to: 7))  "
                        + "\(countdown.padded(to: 11))  \(app.state.text)")
            }
            lines.append("")
        }
        if !latest.isEmpty { lines += ["Latest"] + latest.map { "  " + $0 } }
        let text = "\u{1B}[H\u{1B}[2J" + lines.joined(separator: "\r\n") + "\r\n"
        writeOut(text)
    }
}

/// Ends the program cleanly on Ctrl-C (SIGINT) or SIGTERM: `cleanup` runs, then it exits 0.
final class Interruption {
    private let sources: [any DispatchSourceSignal]

    init(cleanup: @escaping @Sendable () -> Void) {
        sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler {
                cleanup()
                exit(0)
            }
            source.resume()
            return source
        }
    }
}
