import Testing

@testable import DNSFilter

/// The matcher at a size where hashing mistakes show: every listed name matches, unlisted ones do not.
@Suite struct DomainTableScaleTests {
    @Test func twoHundredThousandNames() {
        var generator = SystemRandomNumberGenerator()
        func randomName() -> String {
            let labels = (0..<Int.random(in: 2...4, using: &generator)).map { _ in
                String(
                    (0..<Int.random(in: 3...12, using: &generator)).map { _ in
                        "abcdefghijklmnopqrstuvwxyz0123456789".randomElement(using: &generator)!
                    })
            }
            return labels.joined(separator: ".")
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
