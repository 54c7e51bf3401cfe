import AsyncHTTPClient
import NIOPosix

/// The HTTP client for lockr's outgoing calls (the CLI to the daemon, the adapters to backends).
///
/// Unlike `HTTPClient.shared` it does not retry a refused connection until the deadline: a daemon
/// or backend that is not listening is reported at once, and the caller decides about retrying
/// (the adapters' outbox has its own backoff). No read waits more than `readTimeout` for the next
/// bytes, so that a server that stops answering in the middle of a body cannot hold its caller
/// forever (a request's deadline covers only its head); the daemon's event stream sends a comment
/// every 15 s, well within it.
public enum OutboundHTTP {
    /// The longest wait for the next bytes of an answer.
    public static let readTimeout: Duration = .seconds(30)

    /// One client per process, never shut down (it lives as long as the process).
    public static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        configuration.timeout.read = .seconds(readTimeout.components.seconds)
        return HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
    }()

    /// A transport error in a few words, without any query string (Pi-hole v5 carries its token there).
    public static func describe(_ error: any Error) -> String {
        let text = "\(error)".replacing(/\?[^\s"')]*/, with: "?...")
        if text.contains("connectionRefused") || text.contains("Connection refused") { return "connection refused" }
        if text.contains("connectTimeout") { return "connect timeout" }
        if text.contains("deadlineExceeded") || text.contains("readTimeout") { return "no answer in time" }
        if text.contains("remoteConnectionClosed") { return "connection closed by the other side" }
        return text.count > 160 ? String(text.prefix(160)) + "..." : text
    }
}
