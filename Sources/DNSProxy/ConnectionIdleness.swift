import NIOCore

/// When a stream connection (TCP, DNS over TLS, DNS over HTTPS) closes for idleness: `idleTimeout`
/// after its start or its last query or answer, and never while queries wait for the upstreams.
/// The queries waiting are told to the connection table too (`TCPActivity`).
///
/// One timer per connection, set again only when it fires early: a query costs a clock reading,
/// not a timer cancelled and another scheduled. Confined to the connection's loop.
final class ConnectionIdleness {
    private let channel: Channel
    private let idleTimeout: TimeAmount
    private let activity: TCPActivity
    private var waiting = 0
    private var lastActivity: NIODeadline
    private var timer: Scheduled<Void>?

    init(channel: Channel, idleTimeout: TimeAmount, activity: TCPActivity) {
        self.channel = channel
        self.idleTimeout = idleTimeout
        self.activity = activity
        lastActivity = .now()
        arm(at: lastActivity + idleTimeout)
    }

    /// A query or an answer: the idle time starts again.
    func touched() { lastActivity = .now() }

    /// A query now waits for the upstreams.
    func began() {
        waiting += 1
        activity.began()
    }

    /// A waiting query is answered (or given up).
    func ended() {
        waiting -= 1
        activity.ended()
        lastActivity = .now()
    }

    /// The connection has closed: no timer is left behind.
    func stop() {
        timer?.cancel()
        timer = nil
    }

    private func arm(at deadline: NIODeadline) {
        let idleness = NIOLoopBound(self, eventLoop: channel.eventLoop)
        timer = channel.eventLoop.scheduleTask(deadline: deadline) { idleness.value.expired() }
    }

    private func expired() {
        guard channel.isActive else { return }
        let due = lastActivity + idleTimeout
        if waiting > 0 {
            arm(at: .now() + idleTimeout)
        } else if due > .now() {
            arm(at: due)
        } else {
            channel.close(promise: nil)
        }
    }
}
