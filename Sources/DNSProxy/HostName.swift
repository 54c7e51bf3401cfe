/// Host names as the config writes them: an upstream's server name, lockr's own `[tls] name`.
public enum HostName {
    /// Whether `name` is a host name: labels of 1 to 63 letters, digits, hyphens and underscores.
    public static func isValid(_ name: String) -> Bool {
        let labels = name.split(separator: ".", omittingEmptySubsequences: false)
        return !name.isEmpty && name.utf8.count <= 253
            && labels.allSatisfy { label in
                (1...63).contains(label.utf8.count)
                    && label.utf8.allSatisfy {
                        ClientID.isLetterOrDigit($0) || $0 == UInt8(ascii: "-") || $0 == UInt8(ascii: "_")
                    }
            }
    }
}
