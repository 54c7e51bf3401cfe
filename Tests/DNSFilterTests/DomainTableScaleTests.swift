import DNSTestSupport
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
        #expect(set.memoryFootprint < listed.count * 64)
    }
}
