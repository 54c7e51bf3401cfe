import CLdns

extension RecordType {
    /// The type's mnemonic as ldns knows it ("A", "AAAA", "HTTPS"), or "TYPE<n>" (RFC 3597) for a
    /// type it does not name.
    public static func mnemonic(_ type: UInt16) -> String {
        guard let text = ldns_rr_type2str(ldns_rr_type(rawValue: UInt32(type))) else { return "TYPE\(type)" }
        defer { free(text) }
        return String(cString: text)
    }

    /// The type a mnemonic ("aaaa", "MX", "TYPE65") names, or nil when ldns knows no such type.
    public static func number(_ mnemonic: String) -> UInt16? {
        let upper = mnemonic.uppercased()
        if upper.hasPrefix("TYPE"), let number = UInt16(upper.dropFirst(4)) { return number }
        let type = ldns_get_rr_type_by_name(upper)
        // ldns answers 0 for a name it does not know.
        guard type.rawValue != 0, type.rawValue <= UInt32(UInt16.max) else { return nil }
        return UInt16(type.rawValue)
    }
}
