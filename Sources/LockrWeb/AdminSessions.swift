import Foundation
import Hummingbird
import Synchronization

/// The admin view's sessions: a random id in an HttpOnly, SameSite=Strict cookie, given once the
/// household's PIN was entered right, kept in memory (a restart signs everyone out). A session
/// ends at logout, after `idleLimit` without a request, or `lifetime` after sign-in.
final class AdminSessions: Sendable {
    static let cookieName = "lockr_admin"
    static let idleLimit: Duration = .seconds(15 * 60)
    static let lifetime: Duration = .seconds(8 * 3600)
    /// The most sessions kept; signing in past it ends the oldest.
    static let most = 32

    private struct Session {
        let started: ContinuousClock.Instant
        var lastSeen: ContinuousClock.Instant
    }

    private let sessions = Mutex<[String: Session]>([:])

    /// Starts a session; its cookie.
    func start() -> Cookie {
        let id = FormToken.randomHex()
        let now = ContinuousClock.now
        sessions.withLock { sessions in
            sessions = sessions.filter { Self.live($0.value, at: now) }
            if sessions.count >= Self.most, let oldest = sessions.min(by: { $0.value.started < $1.value.started }) {
                sessions[oldest.key] = nil
            }
            sessions[id] = Session(started: now, lastSeen: now)
        }
        return Cookie(name: Self.cookieName, value: id, path: "/", httpOnly: true, sameSite: .strict)
    }

    /// Whether `request` belongs to a live session; a live one's idle time starts again.
    func isSignedIn(_ request: Request) -> Bool {
        guard let id = request.cookies[Self.cookieName]?.value else { return false }
        let now = ContinuousClock.now
        return sessions.withLock { sessions in
            guard let session = sessions[id], Self.live(session, at: now) else {
                sessions[id] = nil
                return false
            }
            sessions[id]?.lastSeen = now
            return true
        }
    }

    /// Ends the session of `request`; the cookie that clears it in the browser.
    func end(_ request: Request) -> Cookie {
        if let id = request.cookies[Self.cookieName]?.value { _ = sessions.withLock { $0.removeValue(forKey: id) } }
        return Cookie(name: Self.cookieName, value: "", maxAge: 0, path: "/", httpOnly: true, sameSite: .strict)
    }

    private static func live(_ session: Session, at now: ContinuousClock.Instant) -> Bool {
        now - session.lastSeen < idleLimit && now - session.started < lifetime
    }
}
