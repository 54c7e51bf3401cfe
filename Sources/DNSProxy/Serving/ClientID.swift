/// A device's own name in the address it asks lockr at, as AdGuard Home and blocky read it: the
/// last segment of the DNS-over-HTTPS path (`/dns-query/alice-phone`) or the first label of the
/// DNS-over-TLS server name (`alice-phone.dns.example.com` under `[tls] name`). A person's
/// `devices` list it as `"id:alice-phone"`; it names the device on any address.
public enum ClientID {
    /// The ClientID `text` spells: 1 to 63 letters, digits and hyphens (a DNS label), lower-cased;
    /// nil when it is not one.
    public static func read(_ text: Substring) -> String? {
        guard (1...63).contains(text.utf8.count),
            text.utf8.allSatisfy({ isLetterOrDigit($0) || $0 == UInt8(ascii: "-") }),
            text.first != "-", text.last != "-"
        else { return nil }
        return text.lowercased()
    }

    /// The ClientID in a DNS-over-TLS server name `serverName`: its first label when the rest is
    /// `name`; nil otherwise (the plain `name`, another name, or none).
    public static func inServerName(_ serverName: String, under name: String?) -> String? {
        guard let name, let dot = serverName.firstIndex(of: "."),
            serverName[serverName.index(after: dot)...].lowercased() == name
        else { return nil }
        return read(serverName[..<dot])
    }

    static func isLetterOrDigit(_ byte: UInt8) -> Bool {
        (byte >= UInt8(ascii: "a") && byte <= UInt8(ascii: "z"))
            || (byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z"))
            || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
    }
}
