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
/// The table keeps no names. Each listed name is one 64-bit word: 40 bits of its fingerprint (a
/// 64-bit hash of the name) and 24 of what the rule says (its coverage and its source). The words
/// are filed in buckets by the fingerprint's top bits, which the word need not repeat, and sorted
/// within each; a directory gives each bucket's first word. A lookup hashes every suffix of the
/// query name in one right-to-left pass and looks up each suffix's fingerprint, so its cost grows
/// with the labels of the query, not with the size of the list. The name behind a match is the
/// suffix of the query that matched (`DomainMatch.wireLength` says how long it is).
///
/// One million names take about 10 MB (8 bytes a name and 1 to 2 of directory). The price of
/// keeping no names: an unlisted name whose fingerprint agrees with a listed one's in every bit the
/// table keeps (the bucket's and the 40 stored, about 60 for a million names) is taken for it. Each
/// word compared agrees by chance once in 2^40 (about 10^12) comparisons, and a lookup compares a
/// few per label: a home's resolver asking 100,000 names a day would meet one in thousands of years.
public struct DomainTable: Sendable {
    /// Each bucket's words, sorted: bucket `b` holds `words[directory[b]..<directory[b + 1]]`.
    private let words: [UInt64]
    private let directory: [UInt32]
    /// How many top bits of a fingerprint pick its bucket.
    private let bucketBits: Int

    public var count: Int { words.count }

    /// Bits of a word that hold the rule: coverage (8) and source (16).
    static let ruleBits = 24
    /// A bucket holds 2 to 4 names on average.
    static let namesPerBucket = 4
    /// Longer than this, a bucket is sorted by the standard library and searched by halves.
    static let longBucket = 16

    /// The table of every name added to `builder`; a name added twice gets the union of the
    /// coverages and keeps its first source.
    init(_ builder: consuming DomainTableBuilder) {
        let fingerprints = builder.fingerprints
        let rules = builder.rules
        var bits = 1
        while 1 << bits < fingerprints.count / Self.namesPerBucket { bits += 1 }
        bucketBits = bits
        // A counting sort by bucket keeps the order names were added in, so that the first of two
        // equal fingerprints is the first added; each bucket is then sorted by what it stores.
        var starts = [UInt32](repeating: 0, count: (1 << bits) + 1)
        for fingerprint in fingerprints { starts[Int(fingerprint >> (64 - bits)) + 1] += 1 }
        for bucket in 0..<1 << bits { starts[bucket + 1] += starts[bucket] }
        var filed = [UInt64](repeating: 0, count: fingerprints.count)
        var next = starts
        for (index, fingerprint) in fingerprints.enumerated() {
            let bucket = Int(fingerprint >> (64 - bits))
            filed[Int(next[bucket])] = Self.key(fingerprint, bucketBits: bits) << Self.ruleBits | UInt64(rules[index])
            next[bucket] += 1
        }
        // Within each bucket: an insertion sort by key (stable; buckets are short), equal keys
        // merged. A long bucket, which only a list made to collide has, is put in order first (by
        // key, then as added), so that each insertion is at its end.
        var kept = 0
        for bucket in 0..<1 << bits {
            let first = Int(starts[bucket])
            let end = Int(starts[bucket + 1])
            starts[bucket] = UInt32(kept)
            let bucketStart = kept
            func file(_ word: UInt64) {
                var place = kept
                while place > bucketStart, filed[place - 1] >> Self.ruleBits > word >> Self.ruleBits { place -= 1 }
                if place > bucketStart, filed[place - 1] >> Self.ruleBits == word >> Self.ruleBits {
                    filed[place - 1] |= word & Self.coverageMask
                    return
                }
                var move = kept
                while move > place {
                    filed[move] = filed[move - 1]
                    move -= 1
                }
                filed[place] = word
                kept += 1
            }
            if end - first > Self.longBucket {
                let added = Array(filed[first..<end])
                let order = added.indices.sorted { (added[$0] >> Self.ruleBits, $0) < (added[$1] >> Self.ruleBits, $1) }
                for index in order { file(added[index]) }
            } else {
                for index in first..<end { file(filed[index]) }
            }
        }
        starts[1 << bits] = UInt32(kept)
        filed.removeLast(filed.count - kept)
        words = filed
        directory = starts
    }

    /// The bits of `fingerprint` a word stores: the 40 below the bucket's.
    @inline(__always)
    private static func key(_ fingerprint: UInt64, bucketBits: Int) -> UInt64 {
        (fingerprint << bucketBits) >> ruleBits
    }

    private static let coverageMask: UInt64 = 0xFF << 16

    /// The most specific entry covering `name`, a wire name (labels and root byte) in any letter case.
    public func match(wireName name: UnsafeBufferPointer<UInt8>) -> DomainMatch? {
        guard !words.isEmpty else { return nil }
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
            if let index = find(NameHash.fingerprint(hash)) {
                let needed: Coverage = suffix == 0 ? .name : .subdomains
                if Self.coverage(words[index]).contains(needed) {
                    best = DomainMatch(index: Int32(index), wireLength: UInt8(end - start), isExact: suffix == 0)
                }
            }
            suffix -= 1
        }
        return best
    }

    @inline(__always)
    private func find(_ fingerprint: UInt64) -> Int? {
        let bucket = Int(fingerprint >> (64 - bucketBits))
        let key = Self.key(fingerprint, bucketBits: bucketBits)
        return words.withUnsafeBufferPointer { words in
            directory.withUnsafeBufferPointer { directory in
                var index = Int(directory[bucket])
                var end = Int(directory[bucket + 1])
                while end - index > Self.longBucket {
                    let middle = (index + end) / 2
                    if words[middle] >> Self.ruleBits < key { index = middle + 1 } else { end = middle + 1 }
                }
                while index < end {
                    let stored = words[index] >> Self.ruleBits
                    if stored >= key { return stored == key ? index : nil }
                    index += 1
                }
                return nil
            }
        }
    }

    @inline(__always)
    private static func coverage(_ word: UInt64) -> Coverage {
        Coverage(rawValue: UInt8(truncatingIfNeeded: word >> 16))
    }

    /// The source index recorded with an entry.
    public func source(of match: DomainMatch) -> Int { Int(words[Int(match.index)] & 0xFFFF) }

    /// The coverage recorded for the matched name.
    public func coverage(of match: DomainMatch) -> Coverage { Self.coverage(words[Int(match.index)]) }

    /// Bytes held by the table (words and directory).
    public var memoryFootprint: Int {
        words.count * MemoryLayout<UInt64>.stride + directory.count * MemoryLayout<UInt32>.stride
    }
}

/// A name found in a `DomainTable`: a suffix of the name looked up.
public struct DomainMatch: Sendable, Equatable {
    let index: Int32
    /// Length in wire form (labels, without the root byte) of the listed name: the last
    /// `wireLength + 1` bytes of the wire name looked up.
    public let wireLength: UInt8
    /// The query name is the listed name itself rather than a subdomain of it.
    public let isExact: Bool

    /// The listed name in presentation form ("example.com"), lower-cased, from `wireName`, the wire
    /// name (labels and root byte) that was looked up.
    public func listedName(in wireName: some BidirectionalCollection<UInt8>) -> String {
        WireName.presentation(of: wireName.suffix(Int(wireLength) + 1))
    }
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

/// Collects names for a `DomainTable`: each name's fingerprint and rule, in the order added.
public struct DomainTableBuilder: Sendable {
    fileprivate(set) var fingerprints: [UInt64] = []
    /// Coverage (bits 16-23) and source (bits 0-15) of each name.
    fileprivate(set) var rules: [UInt32] = []

    public init() {}

    /// Makes room for about `names` more names.
    mutating func reserve(names: Int) {
        fingerprints.reserveCapacity(fingerprints.count + names)
        rules.reserveCapacity(rules.count + names)
    }

    /// Validates a presentation name ("Ads.Example.com" or with a final dot) and takes its
    /// fingerprint, or leaves the builder unchanged and returns the problem.
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
        // A name of at most 253 characters has at most 127 labels.
        let hash = withUnsafeTemporaryAllocation(of: UInt64.self, capacity: 128) { labelHashes -> UInt64? in
            var labels = 0
            var labelStart = 0
            for index in 0...end {
                if index < end, text[index] != UInt8(ascii: ".") {
                    guard Self.isNameByte(text[index]) else { return nil }
                    continue
                }
                let length = index - labelStart
                guard length > 0, length <= DNSLimits.maxLabelLength else { return nil }
                labelHashes[labels] = NameHash.label(text, start: labelStart, length: length)
                labels += 1
                labelStart = index + 1
            }
            var hash = NameHash.seed
            for label in stride(from: labels - 1, through: 0, by: -1) {
                hash = NameHash.extend(hash, with: labelHashes[label])
            }
            return hash
        }
        guard let hash else { return Self.problem(text, end: end) }
        fingerprints.append(NameHash.fingerprint(hash))
        rules.append(UInt32(coverage.rawValue) << 16 | UInt32(truncatingIfNeeded: source & 0xFFFF))
        return nil
    }

    /// The first problem, from the left, of a name that was not taken.
    private static func problem(_ text: UnsafeBufferPointer<UInt8>, end: Int) -> NameProblem {
        var labelStart = 0
        for index in 0...end {
            if index < end, text[index] != UInt8(ascii: ".") {
                if !isNameByte(text[index]) { return .badCharacter(text[index]) }
                if index - labelStart >= DNSLimits.maxLabelLength { return .labelTooLong }
                continue
            }
            if index == labelStart { return .emptyLabel }
            labelStart = index + 1
        }
        return .emptyLabel
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
