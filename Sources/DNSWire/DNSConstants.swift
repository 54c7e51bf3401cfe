/// Record types lockr treats specially. Values from the IANA DNS parameters registry.
public enum RecordType {
    public static let a: UInt16 = 1
    public static let ns: UInt16 = 2
    public static let cname: UInt16 = 5
    public static let soa: UInt16 = 6
    public static let ptr: UInt16 = 12
    public static let hinfo: UInt16 = 13
    public static let txt: UInt16 = 16
    public static let aaaa: UInt16 = 28
    public static let opt: UInt16 = 41
    public static let svcb: UInt16 = 64
    public static let https: UInt16 = 65
    public static let tsig: UInt16 = 250
    public static let ixfr: UInt16 = 251
    public static let axfr: UInt16 = 252
    public static let any: UInt16 = 255
}

/// The only class lockr answers or forwards.
public enum RecordClass {
    public static let internet: UInt16 = 1
}

/// Response codes (RFC 1035 4.1.1, RFC 6891 for BADVERS which lives partly in the OPT record).
public enum ResponseCode: UInt16, Sendable {
    case noError = 0
    case formatError = 1
    case serverFailure = 2
    case nameError = 3
    case notImplemented = 4
    case refused = 5
    /// NOTAUTH: a transaction signature that does not verify (RFC 8945).
    case notAuthorized = 9
    case badVersion = 16
}

/// Extended DNS Error info codes (RFC 8914) that lockr emits.
public enum ExtendedErrorCode: UInt16, Sendable {
    case staleAnswer = 3
    case blocked = 15
    case prohibited = 18
    case notSupported = 21
    case noReachableAuthority = 22
}

/// Header flag bits of the second 16-bit header word.
enum HeaderFlag {
    static let response: UInt16 = 0x8000
    static let opcodeMask: UInt16 = 0x7800
    static let authoritative: UInt16 = 0x0400
    static let truncated: UInt16 = 0x0200
    static let recursionDesired: UInt16 = 0x0100
    static let recursionAvailable: UInt16 = 0x0080
    static let authenticData: UInt16 = 0x0020
    static let checkingDisabled: UInt16 = 0x0010
    static let rcodeMask: UInt16 = 0x000F
}

/// Sizes fixed by the protocol.
public enum DNSLimits {
    public static let headerSize = 12
    /// The UDP payload size lockr advertises and honours by default (DNS flag day 2020).
    public static let ednsPayloadSize: UInt16 = 1232
    /// A client without EDNS can receive this much over UDP.
    public static let classicUDPSize = 512
    public static let maxNameLength = 255
    public static let maxLabelLength = 63
}
