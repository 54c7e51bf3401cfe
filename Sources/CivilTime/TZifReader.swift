/// Why bytes are not a time zone file lockr can use.
public struct TZifError: Error, Equatable, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}

extension ZoneRules {
    /// Transitions further from the epoch than this (about 36 billion years) are refused.
    static let farthestTransition: Int64 = 1 << 60
    /// More transitions or types than any real zone has are refused.
    static let maxTransitions = 100_000
    static let maxTypes = 256

    /// Reads a TZif file (RFC 8536, versions 1 to 4): its 64-bit data and footer when it has them,
    /// else its 32-bit data.
    public init(identifier: String, tzif bytes: [UInt8]) throws(TZifError) {
        var reader = TZifByteReader(bytes)
        let first = try reader.header()
        guard first.version != 0 else {
            let block = try reader.dataBlock(first, timeSize: 4)
            self.init(identifier: identifier, block, footer: nil)
            return
        }
        try reader.skip(first.blockSize(timeSize: 4))
        let second = try reader.header()
        let block = try reader.dataBlock(second, timeSize: 8)
        let footer = try reader.footer()
        self.init(identifier: identifier, block, footer: footer)
    }

    private init(identifier: String, _ block: TZifDataBlock, footer: PosixZoneRule?) {
        self.init(
            identifier: identifier, transitions: block.transitions,
            offsetsAfter: block.typeIndices.map { block.offsets[Int($0)] }, initialOffset: block.offsets[0],
            footer: footer)
    }
}

/// The counts a TZif header gives.
struct TZifHeader {
    let version: UInt8
    let isUTCCount: Int
    let isStandardCount: Int
    let leapCount: Int
    let transitionCount: Int
    let typeCount: Int
    let characterCount: Int

    func blockSize(timeSize: Int) -> Int {
        transitionCount * timeSize + transitionCount + typeCount * 6 + characterCount
            + leapCount * (timeSize + 4) + isStandardCount + isUTCCount
    }
}

/// What lockr takes from a data block: the transitions, the type after each, the types' offsets.
struct TZifDataBlock {
    let transitions: [Int64]
    let typeIndices: [UInt8]
    let offsets: [Int32]
}

/// Reads big-endian fields from the front of a TZif file, checking every length first.
struct TZifByteReader {
    let bytes: [UInt8]
    var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    mutating func header() throws(TZifError) -> TZifHeader {
        guard bytes.count - index >= 44, Array(bytes[index..<index + 4]) == Array("TZif".utf8) else {
            throw TZifError("not a TZif file (no TZif header)")
        }
        let version = bytes[index + 4]
        guard version == 0 || (UInt8(ascii: "2")...UInt8(ascii: "4")).contains(version) else {
            throw TZifError("unknown TZif version \(version)")
        }
        index += 20
        var counts: [Int] = []
        for _ in 0..<6 { counts.append(Int(try uint32())) }
        let header = TZifHeader(
            version: version, isUTCCount: counts[0], isStandardCount: counts[1], leapCount: counts[2],
            transitionCount: counts[3], typeCount: counts[4], characterCount: counts[5])
        guard (1...ZoneRules.maxTypes).contains(header.typeCount) else {
            throw TZifError("\(header.typeCount) local time types (1 to \(ZoneRules.maxTypes) expected)")
        }
        guard header.transitionCount <= ZoneRules.maxTransitions, header.leapCount <= ZoneRules.maxTransitions,
            header.characterCount >= 1, header.characterCount <= 65_536
        else { throw TZifError("a count in the header is out of range") }
        guard [0, header.typeCount].contains(header.isUTCCount), [0, header.typeCount].contains(header.isStandardCount)
        else { throw TZifError("the UT and standard indicators do not match the types") }
        return header
    }

    mutating func skip(_ count: Int) throws(TZifError) {
        guard bytes.count - index >= count else { throw TZifError("the file ends inside its data") }
        index += count
    }

    mutating func dataBlock(_ header: TZifHeader, timeSize: Int) throws(TZifError) -> TZifDataBlock {
        guard bytes.count - index >= header.blockSize(timeSize: timeSize) else {
            throw TZifError("the file ends inside its data")
        }
        var transitions: [Int64] = []
        transitions.reserveCapacity(header.transitionCount)
        for _ in 0..<header.transitionCount {
            let time = timeSize == 4 ? Int64(Int32(bitPattern: try uint32())) : Int64(bitPattern: try uint64())
            guard (-ZoneRules.farthestTransition...ZoneRules.farthestTransition).contains(time) else {
                throw TZifError("a transition out of range")
            }
            guard transitions.last.map({ $0 < time }) ?? true else {
                throw TZifError("transitions out of order")
            }
            transitions.append(time)
        }
        let typeIndices = Array(bytes[index..<index + header.transitionCount])
        index += header.transitionCount
        guard typeIndices.allSatisfy({ Int($0) < header.typeCount }) else {
            throw TZifError("a transition names a type that does not exist")
        }
        var offsets: [Int32] = []
        for _ in 0..<header.typeCount {
            let offset = Int32(bitPattern: try uint32())
            guard offset != Int32.min, abs(offset) <= 25 * 3_600 + 59 * 60 + 59 else {
                throw TZifError("an offset of \(offset) s from UTC")
            }
            offsets.append(offset)
            index += 2  // is-DST flag and abbreviation index: not needed
        }
        index +=
            header.characterCount + header.leapCount * (timeSize + 4) + header.isStandardCount
            + header.isUTCCount
        return TZifDataBlock(transitions: transitions, typeIndices: typeIndices, offsets: offsets)
    }

    /// The `\nTZ string\n` after the 64-bit data; nil when it is empty.
    mutating func footer() throws(TZifError) -> PosixZoneRule? {
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\n") else {
            throw TZifError("no footer after the 64-bit data")
        }
        guard let end = bytes[(index + 1)...].firstIndex(of: UInt8(ascii: "\n")) else {
            throw TZifError("the footer does not end")
        }
        let text = bytes[(index + 1)..<end]
        index = end + 1
        guard !text.isEmpty else { return nil }
        guard let rule = PosixZoneRule(String(decoding: text, as: UTF8.self)) else {
            throw TZifError("the footer '\(String(decoding: text.prefix(60), as: UTF8.self))' is not a TZ rule")
        }
        return rule
    }

    private mutating func uint32() throws(TZifError) -> UInt32 {
        guard bytes.count - index >= 4 else { throw TZifError("the file ends inside its data") }
        defer { index += 4 }
        return bytes[index..<index + 4].reduce(0) { $0 << 8 | UInt32($1) }
    }

    private mutating func uint64() throws(TZifError) -> UInt64 {
        guard bytes.count - index >= 8 else { throw TZifError("the file ends inside its data") }
        defer { index += 8 }
        return bytes[index..<index + 8].reduce(0) { $0 << 8 | UInt64($1) }
    }
}
