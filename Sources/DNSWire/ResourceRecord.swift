/// One record of class IN with its names uncompressed: what lockr's own zones hold.
public struct ResourceRecord: Sendable, Hashable {
    /// The owner's wire name, in lower case.
    public let owner: [UInt8]
    public let type: UInt16
    public let ttl: UInt32
    /// The record's data in wire form (names uncompressed).
    public let rdata: [UInt8]

    public init(owner: [UInt8], type: UInt16, ttl: UInt32, rdata: [UInt8]) {
        self.owner = owner.map(asciiLower)
        self.type = type
        self.ttl = ttl
        self.rdata = rdata
    }

    /// Its size in a message.
    public var wireSize: Int { owner.count + 10 + rdata.count }

    /// Its line in a zone file ("tiktok.com.default.rpz.lockr.\t30\tIN\tA\t0.0.0.0"); nil for data
    /// its type cannot hold.
    public var presentation: String? {
        var wire: [UInt8] = []
        write(to: &wire)
        return LdnsPacket.presentation(ofRecord: wire)
    }

    /// Appends it in wire form.
    public func write(to message: inout [UInt8]) {
        message += owner
        message.appendU16(type)
        message.appendU16(RecordClass.internet)
        message.appendU32(ttl)
        message.appendU16(UInt16(rdata.count))
        message += rdata
    }
}

/// The data of a zone's SOA record (RFC 1035 3.3.13): who serves it, its serial, and how long its
/// secondaries wait before they look again, retry, and give it up.
public struct StartOfAuthority: Sendable, Equatable {
    /// The primary server's wire name.
    public var primary: [UInt8]
    /// The responsible mailbox as a wire name.
    public var mailbox: [UInt8]
    public var serial: UInt32
    public var refresh: UInt32
    public var retry: UInt32
    public var expire: UInt32
    /// The TTL of negative answers (RFC 2308).
    public var minimum: UInt32

    public init(
        primary: [UInt8], mailbox: [UInt8], serial: UInt32, refresh: UInt32, retry: UInt32, expire: UInt32,
        minimum: UInt32
    ) {
        self.primary = primary
        self.mailbox = mailbox
        self.serial = serial
        self.refresh = refresh
        self.retry = retry
        self.expire = expire
        self.minimum = minimum
    }

    /// In wire form, as a record's data.
    public var rdata: [UInt8] {
        var data = primary + mailbox
        for value in [serial, refresh, retry, expire, minimum] { data.appendU32(value) }
        return data
    }
}
