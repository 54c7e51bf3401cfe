import CLdns

/// One record of the home's own, as `[local] records` writes it: `"nas.home.arpa A 192.168.1.5"`,
/// `"printer.lan CNAME nas.home.arpa"`, `"5.1.168.192.in-addr.arpa PTR nas.home.arpa"`, `"home.arpa
/// TXT \"hello\""` (a TTL may come after the name). Read by ldns; names are taken as written, from
/// the root (a final dot or none).
public struct LocalRecord: Sendable, Equatable {
    /// The owner's wire name, in lower case.
    public let owner: [UInt8]
    public let type: UInt16
    /// The TTL written, if any.
    public let ttl: UInt32?
    /// The record's data in wire form (names uncompressed).
    public let rdata: [UInt8]

    /// The types a local record may have.
    public static let types: [UInt16: String] = [
        RecordType.a: "A", RecordType.aaaa: "AAAA", RecordType.cname: "CNAME", RecordType.ptr: "PTR",
        RecordType.txt: "TXT",
    ]

    public init(owner: [UInt8], type: UInt16, ttl: UInt32?, rdata: [UInt8]) {
        self.owner = owner.map(asciiLower)
        self.type = type
        self.ttl = ttl
        self.rdata = rdata
    }

    /// Reads `text`; throws what is wrong, in words.
    public init(_ text: String) throws(LocalRecordError) {
        let fields = text.split(whereSeparator: { $0 == " " || $0 == "\t" })
        guard fields.count >= 3 else { throw LocalRecordError("expected NAME TYPE DATA, as \"nas.lan A 192.168.1.5\"") }
        let hasTTL = fields[1].allSatisfy(\.isNumber)
        let typeText = fields[hasTTL ? 2 : 1].uppercased()
        guard let type = Self.types.first(where: { $0.value == typeText })?.key else {
            throw LocalRecordError("type '\(fields[hasTTL ? 2 : 1])' is not one of A, AAAA, CNAME, PTR, TXT")
        }
        guard !text.contains("\n"), !text.contains(";"), !text.contains("$") else {
            throw LocalRecordError("one record per entry, without ';' comments or '$' directives")
        }
        var owner = String(fields[0])
        if !owner.hasSuffix(".") { owner += "." }
        let data = text[fields[hasTTL ? 2 : 1].endIndex...]
        // Class IN between the TTL and the type, as ldns wants it; every name from the root.
        let written =
            owner + " " + (hasTTL ? fields[1] : "3600") + " IN " + typeText + " " + Self.absolute(data, type: type)
        var parsed: UnsafeMutablePointer<ldns_rr>?
        let status = ldns_rr_new_frm_str(&parsed, written, 3600, nil, nil)
        guard status == LDNS_STATUS_OK, let record = parsed else {
            throw LocalRecordError("'\(text)' is not a record: \(LdnsError(status).description)")
        }
        defer { ldns_rr_free(record) }
        guard ldns_rr_get_type(record).rawValue == UInt32(type), let ownerName = ldns_rr_owner(record) else {
            throw LocalRecordError("'\(text)' is not a record")
        }
        var rdata: [UInt8] = []
        for index in 0..<ldns_rr_rd_count(record) {
            guard let field = ldns_rr_rdf(record, index) else { continue }
            rdata.append(contentsOf: UnsafeBufferPointer(start: ldns_rdf_data(field), count: ldns_rdf_size(field)))
        }
        guard !rdata.isEmpty else { throw LocalRecordError("'\(text)' has no data") }
        let ownerWire = Array(UnsafeBufferPointer(start: ldns_rdf_data(ownerName), count: ldns_rdf_size(ownerName)))
        self.init(
            owner: ownerWire, type: type, ttl: hasTTL ? UInt32(fields[1]) : nil,
            rdata: type == RecordType.cname || type == RecordType.ptr ? rdata.map(asciiLower) : rdata)
    }

    /// The data with a final dot on the name of a CNAME or PTR, so that ldns takes it from the root.
    private static func absolute(_ data: Substring, type: UInt16) -> String {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" }
        let trimmed = String(data.drop(while: blank).reversed().drop(while: blank).reversed())
        guard type == RecordType.cname || type == RecordType.ptr, !trimmed.hasSuffix(".") else { return trimmed }
        return trimmed + "."
    }
}

/// What is wrong with a local record or a hosts file's line.
public struct LocalRecordError: Error, Sendable, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
