/// Where the records of a DNS message are, found by one bounds-checked walk.
///
/// Names are skipped, not followed, so compression pointers cannot loop. The OPT record is noted
/// separately and is not among `records`; a TSIG record makes the message malformed. A truncated
/// message (TC) is read only up to its question: what follows may be cut anywhere.
struct MessageLayout {
    enum Section { case answer, authority, additional }

    struct Record {
        let section: Section
        let type: UInt16
        let ttlOffset: Int
        let rdataOffset: Int
        let rdataLength: Int
    }

    let flags: UInt16
    let questionRange: Range<Int>
    private(set) var records: [Record] = []
    private(set) var opt: OPTRecord.Location?

    init(reading message: [UInt8]) throws(UpstreamReplyProblem) {
        guard message.count >= DNSLimits.headerSize else { throw .malformed("shorter than a header") }
        flags = message.u16(at: 2)
        guard flags & HeaderFlag.response != 0 else { throw .malformed("not a response") }
        guard message.u16(at: 4) == 1 else { throw .malformed("question count is not 1") }
        guard let nameEnd = WireName.end(in: message, from: DNSLimits.headerSize), nameEnd + 4 <= message.count
        else { throw .malformed("bad question") }
        questionRange = DNSLimits.headerSize..<nameEnd + 4
        guard flags & HeaderFlag.truncated == 0 else { return }
        var cursor = questionRange.upperBound
        let counts: [(Section, UInt16)] = [
            (.answer, message.u16(at: 6)), (.authority, message.u16(at: 8)), (.additional, message.u16(at: 10)),
        ]
        records.reserveCapacity(counts.reduce(0) { $0 + Int($1.1) })
        for (section, count) in counts {
            for _ in 0..<count {
                let start = cursor
                guard let nameEnd = WireName.end(in: message, from: cursor), nameEnd + 10 <= message.count else {
                    throw .malformed("record runs past the end")
                }
                let type = message.u16(at: nameEnd)
                let rdataOffset = nameEnd + 10
                let rdataLength = Int(message.u16(at: nameEnd + 8))
                cursor = rdataOffset + rdataLength
                guard cursor <= message.count else { throw .malformed("record data runs past the end") }
                // ldns keeps only a message's last TSIG record and never frees the others; an
                // answer to an unsigned query is never signed (RFC 8945, 5.3), so none is read.
                guard type != RecordType.tsig else { throw .malformed("a TSIG record, but lockr signs no query") }
                if type == RecordType.opt {
                    guard section == .additional, opt == nil, message[start] == 0 else {
                        throw .malformed("misplaced OPT record")
                    }
                    opt = OPTRecord.Location(record: start..<cursor, options: rdataOffset..<cursor)
                } else {
                    records.append(
                        Record(
                            section: section, type: type, ttlOffset: nameEnd + 4,
                            rdataOffset: rdataOffset, rdataLength: rdataLength))
                }
            }
        }
    }

    /// True when the question at `questionRange` of `message` is the question of `query`
    /// (names compared ignoring case, type and class exactly).
    func questionMatches(_ query: [UInt8], in message: [UInt8]) -> Bool {
        guard let queryNameEnd = WireName.uncompressedEnd(in: query, from: DNSLimits.headerSize),
            queryNameEnd + 4 <= query.count
        else { return false }
        let replyNameEnd = questionRange.upperBound - 4
        return WireName.equalIgnoringCase(
            query[DNSLimits.headerSize..<queryNameEnd], message[DNSLimits.headerSize..<replyNameEnd])
            && query[queryNameEnd..<queryNameEnd + 4].elementsEqual(message[replyNameEnd..<questionRange.upperBound])
    }
}

extension OPTRecord {
    /// Where an OPT record sits in a message.
    struct Location {
        let record: Range<Int>
        let options: Range<Int>
    }
}
