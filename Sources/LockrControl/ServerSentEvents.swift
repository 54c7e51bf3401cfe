/// One server-sent event as a client reads it.
public struct ServerSentEvent: Sendable, Equatable {
    public var id: String?
    /// The `event` field; "message" when it has none.
    public var type: String
    /// The `data` lines, joined by line feeds.
    public var data: String
}

/// Reads a `text/event-stream` as its bytes arrive, in pieces of any size: lines end at LF, CR LF
/// or CR; `id`, `event` and `data` fields are kept, comments (`:`) and other fields skipped; a
/// blank line ends an event, and one without data is none.
public struct ServerSentEventReader: Sendable {
    private var line: [UInt8] = []
    private var afterCR = false
    private var id: String?
    private var type: String?
    private var data: [String] = []

    public init() {}

    /// The events `bytes` complete.
    public mutating func read(_ bytes: some Sequence<UInt8>) -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        for byte in bytes {
            if afterCR {
                afterCR = false
                if byte == UInt8(ascii: "\n") { continue }
            }
            switch byte {
            case UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                afterCR = byte == UInt8(ascii: "\r")
                if let event = endLine() { events.append(event) }
            default:
                line.append(byte)
            }
        }
        return events
    }

    private mutating func endLine() -> ServerSentEvent? {
        defer { line.removeAll(keepingCapacity: true) }
        guard !line.isEmpty else {
            defer {
                type = nil
                data = []
            }
            guard !data.isEmpty else { return nil }
            return ServerSentEvent(id: id, type: type ?? "message", data: data.joined(separator: "\n"))
        }
        let text = String(decoding: line, as: UTF8.self)
        guard !text.hasPrefix(":") else { return nil }
        let field = text.prefix { $0 != ":" }
        var value = text.dropFirst(field.count).dropFirst()
        if value.hasPrefix(" ") { value = value.dropFirst() }
        switch field {
        case "id": id = String(value)
        case "event": type = String(value)
        case "data": data.append(String(value))
        default: break
        }
        return nil
    }
}
