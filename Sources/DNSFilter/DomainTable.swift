import DNSWire

/// Which names a domain rule covers.
public struct Coverage: OptionSet, Sendable, Hashable {
    public let rawValue: UInt8
    public init(rawValue: UInt8) { self.rawValue = rawValue }

    /// The name itself.
    public static let name = Coverage(rawValue: 1)
    /// Every name below it.
    public static let subdomains = Coverage(rawValue: 2)
    /// A plain domain rule: the name and all its subdomains.
    public static let nameAndSubdomains: Coverage = [.name, .subdomains]
}

/// A compact set of domain names with suffix matching, built once and then only read.
///
/// Names live back to back in one byte array as `[coverage][source: 2 bytes][length][wire labels]`;
/// an open-addressing index of 64-bit slots (32-bit fingerprint, 32-bit offset) finds them. A lookup
/// hashes every suffix of the query name in one right-to-left pass and probes the index once per
/// label, so its cost grows with the labels of the query, not with the size of the list.
/// One million names take about 38 MB.
public struct DomainTable: Sendable {
    private var storage: [UInt8] = []
    private var slots: [UInt64] = []
    public private(set) var count = 0

    static let maxLoad = 0.7
    static let entryHeader = 4

    /// The table filled with every name added to `builder`; a name added twice gets the union of
    /// the coverages and keeps its first source.
    init(_ builder: consuming DomainTableBuilder) {
        storage = builder.storage
        let entries = builder.entryCount
        let capacity = max(8, Int((Double(entries) / Self.maxLoad).rounded(.up)))
        slots = [UInt64](repeating: 0, count: capacity)
        var offset = 0
        while offset < storage.count {
            let length = Int(storage[offset + 3])
            insertIntoIndex(entryAt: offset, length: length)
            offset += Self.entryHeader + length
        }
    }

    private mutating func insertIntoIndex(entryAt offset: Int, length: Int) {
        let hash = storage.withUnsafeBufferPointer {
            NameHash.name($0, start: offset + Self.entryHeader, length: length)
        }
        let fingerprint = UInt64(UInt32(truncatingIfNeeded: hash))
        var index = Int(hash.multipliedFullWidth(by: UInt64(slots.count)).high)
        while slots[index] != 0 {
            let slot = slots[index]
            if slot >> 32 == fingerprint {
                let other = Int(slot & 0xFFFF_FFFF) - 1
                if Int(storage[other + 3]) == length,
                    storage[other + Self.entryHeader..<other + Self.entryHeader + length]
                        == storage[offset + Self.entryHeader..<offset + Self.entryHeader + length]
                {
                    storage[other] |= storage[offset]
                    return
                }
            }
            index = index + 1 == slots.count ? 0 : index + 1
        }
        slots[index] = fingerprint << 32 | UInt64(offset + 1)
        count += 1
    }

    /// The most specific entry covering `name`, a wire name (labels and root byte) in any letter case.
    public func match(wireName name: UnsafeBufferPointer<UInt8>) -> DomainMatch? {
        guard count > 0 else { return nil }
        var labelStarts: (Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int, Int) =
            (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
        return withUnsafeMutableBytes(of: &labelStarts) { raw in
            let starts = raw.bindMemory(to: Int.self)
            var labels = 0
            var cursor = 0
            while cursor < name.count, name[cursor] != 0 {
                guard labels < starts.count else { return matchLongName(name) }
                starts[labels] = cursor
                labels += 1
                cursor += 1 + Int(name[cursor])
            }
            return match(name, labelStarts: UnsafeBufferPointer(starts), labels: labels, end: cursor)
        }
    }

    /// Names of more than 16 labels are rare; they take this slower path with a heap array.
    private func matchLongName(_ name: UnsafeBufferPointer<UInt8>) -> DomainMatch? {
        var starts: [Int] = []
        var cursor = 0
        while cursor < name.count, name[cursor] != 0 {
            starts.append(cursor)
            cursor += 1 + Int(name[cursor])
        }
        return starts.withUnsafeBufferPointer { match(name, labelStarts: $0, labels: starts.count, end: cursor) }
    }

    private func match(
        _ name: UnsafeBufferPointer<UInt8>,
        labelStarts: UnsafeBufferPointer<Int>,
        labels: Int,
        end: Int
    ) -> DomainMatch? {
        guard end < name.count else { return nil }
        var hash = NameHash.seed
        var best: DomainMatch?
        var suffix = labels - 1
        while suffix >= 0 {
            let start = labelStarts[suffix]
            hash = NameHash.extend(hash, with: NameHash.label(name, start: start + 1, length: Int(name[start])))
            if let entry = find(hash: hash, name: name, start: start, length: end - start) {
                let needed: Coverage = suffix == 0 ? .name : .subdomains
                if Coverage(rawValue: storage[entry]).contains(needed) {
                    best = DomainMatch(entry: entry, isExact: suffix == 0)
                }
            }
            suffix -= 1
        }
        return best
    }

    @inline(__always)
    private func find(hash: UInt64, name: UnsafeBufferPointer<UInt8>, start: Int, length: Int) -> Int? {
        let fingerprint = UInt64(UInt32(truncatingIfNeeded: hash))
        var index = Int(hash.multipliedFullWidth(by: UInt64(slots.count)).high)
        while true {
            let slot = slots[index]
            if slot == 0 { return nil }
            if slot >> 32 == fingerprint {
                let entry = Int(slot & 0xFFFF_FFFF) - 1
                if Int(storage[entry + 3]) == length, namesEqual(entry: entry, name: name, start: start, length: length)
                {
                    return entry
                }
            }
            index = index + 1 == slots.count ? 0 : index + 1
        }
    }

    @inline(__always)
    private func namesEqual(entry: Int, name: UnsafeBufferPointer<UInt8>, start: Int, length: Int) -> Bool {
        storage.withUnsafeBufferPointer { stored in
            // Length bytes (< 64) are never ASCII letters, so lower-casing the whole wire name is safe.
            let base = entry + Self.entryHeader
            for index in 0..<length where stored[base + index] != asciiLower(name[start + index]) {
                return false
            }
            return true
        }
    }

    /// Length in wire form (labels and root byte) of the listed name behind a match.
    public func wireLength(of match: DomainMatch) -> Int { Int(storage[match.entry + 3]) }

    /// The source index recorded with an entry.
    public func source(of match: DomainMatch) -> Int {
        Int(storage[match.entry + 1]) << 8 | Int(storage[match.entry + 2])
    }

    /// The matched name in presentation form ("example.com").
    public func name(of match: DomainMatch) -> String {
        let length = Int(storage[match.entry + 3])
        let start = match.entry + Self.entryHeader
        return WireNameText.presentation(storage[start..<start + length])
    }

    /// The coverage recorded for the matched name.
    public func coverage(of match: DomainMatch) -> Coverage {
        Coverage(rawValue: storage[match.entry])
    }

    /// Bytes held by the table (names and index).
    public var memoryFootprint: Int { storage.count + slots.count * MemoryLayout<UInt64>.stride }
}

/// A name found in a `DomainTable`.
public struct DomainMatch: Sendable, Equatable {
    let entry: Int
    /// The query name is the listed name itself rather than a subdomain of it.
    public let isExact: Bool
}

/// Why a listed name was not taken.
public enum NameProblem: Error, Equatable, Sendable {
    case empty
    case emptyLabel
    case labelTooLong
    case nameTooLong
    /// A byte that is not a letter, digit, hyphen or underscore (IDNs must be listed in punycode).
    case badCharacter(UInt8)
}

/// Collects names for a `DomainTable`.
public struct DomainTableBuilder: Sendable {
    fileprivate(set) var storage: [UInt8] = []
    fileprivate(set) var entryCount = 0

    public init() {}

    /// Makes room for about `bytes` more bytes of entries.
    mutating func reserve(bytes: Int) { storage.reserveCapacity(storage.count + bytes) }

    /// Validates a presentation name ("Ads.Example.com" or with a final dot), stores it lower-cased in
    /// wire form, or leaves the builder unchanged and returns the problem.
    @discardableResult
    mutating func add(
        presentation text: UnsafeBufferPointer<UInt8>,
        coverage: Coverage,
        source: Int
    ) -> NameProblem? {
        var end = text.count
        if end > 0, text[end - 1] == UInt8(ascii: ".") { end -= 1 }
        guard end > 0 else { return .empty }
        guard end < DNSLimits.maxNameLength - 1 else { return .nameTooLong }
        let mark = storage.count
        storage.append(coverage.rawValue)
        storage.append(UInt8(truncatingIfNeeded: source >> 8))
        storage.append(UInt8(truncatingIfNeeded: source))
        storage.append(UInt8(end + 1))  // wire labels are one byte longer than the text
        var labelLengthAt = storage.count
        storage.append(0)
        var problem: NameProblem?
        for index in 0..<end {
            let byte = text[index]
            if byte == UInt8(ascii: ".") {
                let length = storage.count - labelLengthAt - 1
                if length == 0 { problem = .emptyLabel; break }
                storage[labelLengthAt] = UInt8(length)
                labelLengthAt = storage.count
                storage.append(0)
                continue
            }
            guard Self.isNameByte(byte) else { problem = .badCharacter(byte); break }
            storage.append(asciiLower(byte))
            if storage.count - labelLengthAt - 1 > DNSLimits.maxLabelLength { problem = .labelTooLong; break }
        }
        let lastLength = storage.count - labelLengthAt - 1
        if problem == nil, lastLength == 0 { problem = .emptyLabel }
        if let problem {
            storage.removeSubrange(mark...)
            return problem
        }
        storage[labelLengthAt] = UInt8(lastLength)
        entryCount += 1
        return nil
    }

    @inline(__always)
    private static func isNameByte(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "_"):
            return true
        default:
            return false
        }
    }
}

/// Presentation text of stored wire labels.
enum WireNameText {
    static func presentation(_ labels: ArraySlice<UInt8>) -> String {
        var text: [UInt8] = []
        var cursor = labels.startIndex
        while cursor < labels.endIndex {
            let length = Int(labels[cursor])
            if !text.isEmpty { text.append(UInt8(ascii: ".")) }
            text.append(contentsOf: labels[(cursor + 1)..<(cursor + 1 + length)])
            cursor += 1 + length
        }
        return String(decoding: text, as: UTF8.self)
    }
}
