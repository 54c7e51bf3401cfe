import Foundation
import Logging
import NIOCore
import Synchronization

/// Pings the service manager's watchdog (`WATCHDOG=1`) only while the daemon works: every DNS
/// event loop ran a heartbeat since the last check, and the policy clock ticked lately. A stuck
/// loop or clock stops the pings, and systemd restarts the daemon (`WatchdogSec=`).
struct Watchdog: Sendable {
    let notifier: ServiceManagerNotifier
    /// Half the service manager's interval: two chances before it gives up.
    let interval: Duration
    let loops: [any EventLoop]
    let lastTick: @Sendable () -> ContinuousClock.Instant
    let logger: Logger

    init?(
        notifier: ServiceManagerNotifier?, loops: [any EventLoop],
        lastTick: @escaping @Sendable () -> ContinuousClock.Instant,
        logger: Logger
    ) {
        guard let notifier, let wanted = notifier.watchdogInterval else { return nil }
        self.notifier = notifier
        interval = max(wanted / 2, .milliseconds(50))
        self.loops = loops
        self.lastTick = lastTick
        self.logger = logger
    }

    /// Checks and pings until cancelled.
    func run() async {
        let beats = loops.map { _ in Heartbeat() }
        var healthy = true
        while !Task.isCancelled {
            let asked = ContinuousClock.now
            for (loop, beat) in zip(loops, beats) { loop.execute { beat.last.withLock { $0 = .now } } }
            try? await Task.sleep(for: interval)
            let stuck = beats.filter { $0.last.withLock { $0 } < asked }.count
            let clockAge = ContinuousClock.now - lastTick()
            let clockStuck = clockAge > max(interval * 2, .seconds(5))
            if stuck == 0, !clockStuck {
                notifier.send("WATCHDOG=1")
                if !healthy { logger.notice("healthy again: the watchdog is pinged") }
                healthy = true
            } else if healthy {
                logger.error(
                    "not pinging the service manager's watchdog",
                    metadata: [
                        "stuck-dns-loops": "\(stuck) of \(loops.count)", "policy-clock-last-tick": "\(clockAge) ago",
                    ])
                healthy = false
            }
        }
    }
}

extension Watchdog {
    /// Tests only (`--test-stall-dns-after`): blocks every one of `loops` `after` the start, so
    /// that the watchdog's silence can be seen.
    static func stalling(_ loops: [any EventLoop], after delay: Duration, logger: Logger) -> RepeatingService {
        RepeatingService(description: "test: DNS loops stalled") {
            guard (try? await Task.sleep(for: delay)) != nil else { return }
            logger.warning("stalling every DNS event loop, as --test-stall-dns-after asks")
            for loop in loops { loop.execute { sleep(3600) } }
            // A service that returns ends the daemon: this one stays until then.
            try? await Task.sleep(for: .seconds(3600))
        }
    }
}

/// When an event loop last ran the watchdog's heartbeat.
private final class Heartbeat: Sendable {
    let last = Mutex(ContinuousClock.now)
}
