#if canImport(Glibc)
import Glibc
#endif

/// IP addresses held as 128-bit numbers, IPv4 mapped into IPv6 (::ffff:a.b.c.d), as text.
public enum IPAddressText {
    /// Canonical text ("192.0.2.7", "fd00::7"): the dotted quad of the last four bytes when
    /// `asIPv4`, else IPv6.
    public static func format(_ number: UInt128, asIPv4: Bool) -> String {
        var bytes = withUnsafeBytes(of: number.bigEndian) { Array($0) }
        if asIPv4 { bytes = Array(bytes[12...]) }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard inet_ntop(asIPv4 ? AF_INET : AF_INET6, bytes, &text, socklen_t(text.count)) != nil else { return "?" }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The dotted quad for an IPv4-mapped address, else IPv6 text.
    public static func format(_ number: UInt128) -> String { format(number, asIPv4: number >> 32 == 0xFFFF) }
}
