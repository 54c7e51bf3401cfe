import ConfigKit
import NIOCore

/// Parses "ADDR:PORT", "[V6]:PORT", "ADDR" (with a default port) into a socket address.
public enum AddressText {
    public static func parse(_ text: String, defaultPort: Int?) -> SocketAddress? {
        var host = text
        var port = defaultPort
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":"), let value = Int(rest.dropFirst()) else { return nil }
                port = value
            }
        } else if text.filter({ $0 == ":" }).count == 1, let colon = text.firstIndex(of: ":") {
            host = String(text[..<colon])
            guard let value = Int(text[text.index(after: colon)...]) else { return nil }
            port = value
        }
        guard let port, (0...65_535).contains(port) else { return nil }
        return try? SocketAddress(ipAddress: host, port: port)
    }

    /// Whether `address` is on 127.0.0.0/8 or ::1.
    public static func isLoopback(_ address: SocketAddress) -> Bool {
        guard let host = address.ipAddress else { return false }
        return address.protocol == .inet ? host.hasPrefix("127.") : host == "::1"
    }

    /// "127.0.0.1:5335" or "[::1]:5335".
    public static func format(_ address: SocketAddress) -> String {
        let host = address.ipAddress ?? "?"
        let port = address.port ?? 0
        return address.protocol == .inet6 ? "[\(host)]:\(port)" : "\(host):\(port)"
    }
}

extension Setting {
    /// `key`: a list of addresses, "ADDR:PORT" or "[V6]:PORT", or "ADDR" on `defaultPort` when
    /// there is one (then the list may be empty).
    public static func addresses(
        _ key: String, _ path: WritableKeyPath<Section, [SocketAddress]> & Sendable, defaultPort: Int?,
        restartOnly: Bool = false, _ summary: String
    ) -> Setting {
        Setting(
            key, path, restartOnly: restartOnly, summary,
            read: { reader, key in
                guard let list = reader.strings(key) else { return nil }
                if defaultPort == nil, list.isEmpty { reader.problem(key, "needs at least one address") }
                return list.compactMap { text in
                    if let address = AddressText.parse(text, defaultPort: defaultPort) { return address }
                    reader.problem(
                        key,
                        "'\(text)' is not an address (\(defaultPort == nil ? "ADDR:PORT or [V6]:PORT" : "ADDR[:PORT]"))"
                    )
                    return nil
                }
            },
            write: { "[" + $0.map { quotedConfigString(AddressText.format($0)) }.joined(separator: ", ") + "]" })
    }
}

extension Setting {
    /// `key`: a list of networks in CIDR form; an empty list means `whenEmpty`.
    public static func networks(
        _ key: String, _ path: WritableKeyPath<Section, AccessControl> & Sendable, whenEmpty: AccessControl,
        restartOnly: Bool = false, _ summary: String
    ) -> Setting {
        Setting(
            key, path, restartOnly: restartOnly, summary,
            read: { reader, key in
                guard let list = reader.strings(key) else { return nil }
                let networks = list.compactMap { entry in
                    if let network = IPNetwork(entry) { return network }
                    reader.problem(key, "'\(entry)' is not a network (CIDR such as 192.168.0.0/16)")
                    return nil
                }
                return list.isEmpty ? whenEmpty : AccessControl(networks: networks)
            },
            write: {
                $0 == whenEmpty
                    ? "[]" : "[" + $0.networks.map { quotedConfigString("\($0)") }.joined(separator: ", ") + "]"
            })
    }
}
