import DNSProxy
import Foundation
import LockrAPI
import LockrDnstap
import Logging
import NIOPosix
import Synchronization

/// The dnstap listener as a part of the daemon: it listens from start to stop, tries again every
/// 30 seconds while its socket cannot be had, meters what it reads, and shows its figures in
/// `lockr status`.
final class DnstapIntake: Sendable {
    let settings: DnstapSettings
    private let state = Mutex<(listener: DnstapListener?, problem: String?)>((nil, nil))
    private static let retryEvery: Duration = .seconds(30)

    init(_ settings: DnstapSettings) { self.settings = settings }

    /// Listens and meters through `meter` until cancelled.
    func run(meter: UseMeter, logger: Logger) async {
        var failing = false
        while !Task.isCancelled {
            do throws(ListenError) {
                let listener = try await DnstapListener.start(
                    settings, group: MultiThreadedEventLoopGroup.singleton, logger: logger,
                    sink: { meter.observe($0) })
                state.withLock { $0 = (listener, nil) }
                logger.info("dnstap listening", metadata: ["on": "\(places(listener).joined(separator: ", "))"])
                while !Task.isCancelled { try? await Task.sleep(for: .seconds(3600)) }
                await listener.stop()
                return
            } catch {
                state.withLock { $0.problem = error.description }
                if !failing {
                    logger.error("dnstap not taken; trying again every 30 s", metadata: ["error": "\(error)"])
                }
                failing = true
                try? await Task.sleep(for: Self.retryEvery)
            }
        }
    }

    private func places(_ listener: DnstapListener?) -> [String] {
        (settings.socket.isEmpty ? [] : ["unix:" + settings.socket])
            + (listener?.tcpAddresses ?? settings.listen).map(AddressText.format)
    }

    /// The listener's figures; nil while it does not listen.
    var figures: DnstapCounters.Snapshot? { state.withLock { $0.listener }?.counters.snapshot }

    /// What `lockr status` shows.
    func body() -> Components.Schemas.DnstapBody {
        let (listener, problem) = state.withLock { $0 }
        let figures = listener?.counters.snapshot
        return Components.Schemas.DnstapBody(
            listening: listener == nil ? [] : places(listener), problem: problem,
            connected: figures?.connected ?? 0, messages: Int64(figures?.messages ?? 0),
            metered: Int64(figures?.metered ?? 0), malformed: Int64(figures?.malformed ?? 0),
            broken: Int64(figures?.broken ?? 0), refused: Int64(figures?.refused ?? 0),
            lastMessage: figures?.lastMessage.map { $0.formatted(.iso8601) })
    }
}
