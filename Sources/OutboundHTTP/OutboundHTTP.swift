import AsyncHTTPClient
import NIOPosix

/// The HTTP client for lockr's outgoing calls (the CLI to the daemon, the adapters to backends).
///
/// Unlike `HTTPClient.shared` it does not retry a refused connection until the deadline: a daemon
/// or backend that is not listening is reported at once, and the caller decides about retrying
/// (the adapters' outbox has its own backoff).
public enum OutboundHTTP {
    /// One client per process, never shut down (it lives as long as the process).
    public static let client: HTTPClient = {
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
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
