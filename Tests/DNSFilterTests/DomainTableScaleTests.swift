import DNSTestSupport
import DNSWire
import Testing

@testable import DNSFilter

/// The matcher at a size where hashing mistakes show: every listed name matches, unlisted ones do not.
@Suite struct DomainTableScaleTests {
    @Test func twoHundredThousandNames() {
        // A seeded generator: the system one costs a syscall per character, seconds in all.
        var generator = SplitMix64.forTest()
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz0123456789".utf8)
        func randomName() -> String {
            var bytes: [UInt8] = []
            for label in 0..<Int.random(in: 2...4, using: &generator) {
                if label > 0 { bytes.append(UInt8(ascii: ".")) }
                for _ in 0..<Int.random(in: 3...12, using: &generator) {
                    bytes.append(alphabet[Int(generator.next() % UInt64(alphabet.count))])
                }
            }
            return String(decoding: bytes, as: UTF8.self)
        }
        let listed = Set((0..<200_000).map { _ in randomName() })
        var builder = RuleSetBuilder()
        let source = builder.addSource("big")
        let report = RuleListParser.parse(
            Array(listed.joined(separator: "\n").utf8), role: .block, source: source, into: &builder)
        let set = builder.build()
        #expect(report.rules == listed.count)
        #expect(set.blockedDomainCount == listed.count)
        var misses = 0
        for name in listed where set.hit(name: "www." + name)?.isBlock != true { misses += 1 }
        #expect(misses == 0)
        var falseHits = 0
        for _ in 0..<50_000 {
            let name = randomName() + ".unlisted"
            if set.hit(name: name) != nil { falseHits += 1 }
        }
        #expect(falseHits == 0)
        // 8 bytes a name and at most 2 of directory.
        #expect(set.memoryFootprint <= listed.count * 10)
    }

    /// Against a plain search over every suffix, on names made of few labels so that listed names
    /// nest in each other: the match is always the most specific entry whose coverage fits.
    @Test func theMostSpecificCoveringEntryAsAPlainSearchFindsIt() {
        var generator = SplitMix64.forTest()
        let labels = ["a", "b", "c", "Dd"]
        func randomName() -> [String] {
            (0..<Int.random(in: 1...5, using: &generator)).map { _ in labels.randomElement(using: &generator)! }
        }
        let coverages: [Coverage] = [.name, .subdomains, .nameAndSubdomains]
        var listed: [String: Coverage] = [:]
        var builder = DomainTableBuilder()
        for _ in 0..<60 {
            let name = randomName().joined(separator: ".")
            let coverage = coverages.randomElement(using: &generator)!
            listed[name.lowercased(), default: []].formUnion(coverage)
            Array(name.utf8).withUnsafeBufferPointer {
                _ = builder.add(presentation: $0, coverage: coverage, source: 0)
            }
        }
        let table = DomainTable(builder)
        for _ in 0..<2_000 {
            let query = randomName()
            let expected = query.indices.first { start in
                let suffix = query[start...].joined(separator: ".").lowercased()
                return listed[suffix]?.contains(start == 0 ? .name : .subdomains) == true
            }
            let wire: [UInt8] = query.flatMap { [UInt8($0.utf8.count)] + Array($0.utf8) } + [0]
            let match = wire.withUnsafeBufferPointer { table.match(wireName: $0) }
            let name = query.joined(separator: ".")
            let expectedName = expected.map { query[$0...].joined(separator: ".").lowercased() }
            #expect(match.map { $0.listedName(in: wire) } == expectedName, "\(name)")
            #expect(match?.isExact == expected.map { $0 == 0 }, "\(name)")
        }
    }

    /// A name listed twice, in any letter case and with or without its final dot, is one entry: the
    /// union of what the rules cover, with the first rule's source.
    @Test func aNameListedTwiceIsOneEntryWithBothCoveragesAndItsFirstSource() {
        var builder = DomainTableBuilder()
        for (text, coverage, source) in [
            ("Ads.Example", Coverage.name, 3), ("other.example", .nameAndSubdomains, 4),
            ("ads.example.", .subdomains, 5),
        ] {
            Array(text.utf8).withUnsafeBufferPointer {
                _ = builder.add(presentation: $0, coverage: coverage, source: source)
            }
        }
        let table = DomainTable(builder)
        #expect(table.count == 2)
        for (name, exact) in [("ads.example", true), ("www.ADS.example", false)] {
            let wire = WireName.wire(fromPresentation: name)!
            let match = wire.withUnsafeBufferPointer { table.match(wireName: $0) }
            #expect(match?.isExact == exact, "\(name)")
            #expect(match.map(table.source(of:)) == 3, "\(name)")
            #expect(match.map(table.coverage(of:)) == .nameAndSubdomains, "\(name)")
            #expect(match?.listedName(in: wire) == "ads.example", "\(name)")
        }
    }

    /// Names the table refuses, each with its first problem from the left.
    @Test func aBadNameIsRefusedWithItsFirstProblem() {
        let long = String(repeating: "a", count: 64)
        let cases: [(String, NameProblem)] = [
            ("", .empty), (".", .empty), ("a..b", .emptyLabel), (".a", .emptyLabel), ("a.b..", .emptyLabel),
            ("a b.c", .badCharacter(UInt8(ascii: " "))), ("\(long).com", .labelTooLong),
            ("x!.\(long)", .badCharacter(UInt8(ascii: "!"))), ("\(long)!.com", .labelTooLong),
            ("..a!", .emptyLabel), (String(repeating: "a.", count: 128), .nameTooLong),
        ]
        for (text, problem) in cases {
            var builder = DomainTableBuilder()
            let found = Array(text.utf8).withUnsafeBufferPointer {
                builder.add(presentation: $0, coverage: .name, source: 0)
            }
            #expect(found == problem, "\(text)")
            #expect(DomainTable(builder).count == 0, "\(text)")
        }
    }

    /// A list made so that hundreds of its names share one bucket (as one crafted to collide
    /// would): the table is still built in order and finds every name, the first source of a name
    /// listed twice kept.
    @Test func aBucketHundredsLongIsSortedAndSearchedByHalves() {
        func fingerprint(_ name: String) -> UInt64 {
            var builder = DomainTableBuilder()
            Array(name.utf8).withUnsafeBufferPointer { _ = builder.add(presentation: $0, coverage: .name, source: 0) }
            return builder.fingerprints[0]
        }
        let ordinary = (0..<2_000).map { "ordinary\($0).example" }
        // 2,300 names make buckets of 10 bits; these all have the top 10 bits of zero.
        var crowded: [String] = []
        var candidate = 0
        while crowded.count < 300 {
            let name = "crowd\(candidate).example"
            if fingerprint(name) >> 54 == 0 { crowded.append(name) }
            candidate += 1
        }
        var builder = DomainTableBuilder()
        for (index, name) in (ordinary + crowded).enumerated() {
            Array(name.utf8).withUnsafeBufferPointer {
                _ = builder.add(presentation: $0, coverage: .name, source: index % 1_000)
            }
        }
        // The first crowded name again, with another coverage and source.
        Array(crowded[0].utf8).withUnsafeBufferPointer {
            _ = builder.add(presentation: $0, coverage: .subdomains, source: 999)
        }
        let table = DomainTable(builder)
        #expect(table.count == 2_300)
        for (index, name) in (ordinary + crowded).enumerated() {
            let wire = WireName.wire(fromPresentation: name)!
            let match = wire.withUnsafeBufferPointer { table.match(wireName: $0) }
            #expect(match.map(table.source(of:)) == index % 1_000, "\(name)")
        }
        let first = WireName.wire(fromPresentation: crowded[0])!
        let merged = first.withUnsafeBufferPointer { table.match(wireName: $0) }
        #expect(merged.map(table.coverage(of:)) == .nameAndSubdomains)
        for name in ["crowd-unlisted.example", "www.crowd1.example", "ordinary.example"] {
            let wire = WireName.wire(fromPresentation: name)!
            #expect(wire.withUnsafeBufferPointer { table.match(wireName: $0) } == nil, "\(name)")
        }
    }
}
