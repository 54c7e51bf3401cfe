import DNSWire
import Testing

@testable import DNSFilter

@Suite struct RuleListParserTests {
    private func rules(_ text: String, role: ListRole = .block) -> (RuleSet, ListReport) {
        var builder = RuleSetBuilder()
        let source = builder.addSource("test.txt")
        let report = RuleListParser.parse(Array(text.utf8), role: role, source: source, into: &builder)
        return (builder.build(), report)
    }

    private func blocked(_ set: RuleSet, _ name: String) -> Bool { set.hit(name: name)?.isBlock == true }

    @Test func plainDomainsCoverTheirSubdomains() {
        let (set, report) = rules("example.com\nAds.Tracker.NET.\n")
        #expect(report.rules == 2)
        #expect(blocked(set, "example.com"))
        #expect(blocked(set, "www.example.com"))
        #expect(blocked(set, "a.b.c.EXAMPLE.com"))
        #expect(blocked(set, "ads.tracker.net"))
        #expect(!blocked(set, "tracker.net"))
        #expect(!blocked(set, "badexample.com"))
        #expect(!blocked(set, "example.com.evil"))
        #expect(!blocked(set, "com"))
    }

    @Test func hostsFiles() {
        let text = """
            # comment
            127.0.0.1 localhost
            ::1 ip6-localhost
            0.0.0.0 ads.example.com
            127.0.0.1\tone.test two.test   # inline comment
            0.0.0.0 0.0.0.0
            """
        let (set, report) = rules(text)
        #expect(report.rules == 3)
        #expect(report.issueCount == 0)
        #expect(blocked(set, "ads.example.com"))
        #expect(blocked(set, "one.test"))
        #expect(blocked(set, "x.two.test"))
        #expect(!blocked(set, "localhost"))
    }

    @Test func adblockSyntaxAndExceptions() {
        let text = """
            [Adblock Plus 2.0]
            ! comment
            ||doubleclick.net^
            ||important.test^$important
            ||tracker.test^|
            @@||ok.doubleclick.net^
            ||thirdparty.test^$third-party
            """
        let (set, report) = rules(text)
        #expect(report.rules == 4)
        #expect(report.issueCount == 1)
        #expect(report.issues.first?.line == 7)
        #expect(report.issues.first?.reason.contains("modifier") == true)
        #expect(blocked(set, "ad.doubleclick.net"))
        #expect(blocked(set, "important.test"))
        #expect(blocked(set, "tracker.test"))
        #expect(!blocked(set, "ok.doubleclick.net"))
        #expect(!blocked(set, "deep.ok.doubleclick.net"))
        #expect(set.hit(name: "ok.doubleclick.net")?.isBlock == false)
        #expect(!blocked(set, "thirdparty.test"))
    }

    @Test func anExceptionBeatsAMoreSpecificBlock() {
        let (set, _) = rules("||ads.example.com^\n@@||example.com^\n")
        #expect(!blocked(set, "ads.example.com"))
    }

    @Test func wildcardsCoverOnlySubdomains() {
        let (set, _) = rules("*.example.org\n")
        #expect(blocked(set, "www.example.org"))
        #expect(!blocked(set, "example.org"))
    }

    /// `|name^` (AdGuard's start anchor) blocks the name alone; other blockers get it as a regex.
    @Test func oneBarCoversTheNameOnly() {
        var builder = RuleSetBuilder()
        builder.keepsBlockRules = true
        let report = RuleListParser.parse(
            Array("|video.example^\n@@|ok.example^\n||ok.example^\n".utf8), role: .block,
            source: builder.addSource("test.txt"), into: &builder)
        let kept = builder.keptBlockRules
        let set = builder.build()
        #expect(report.rules == 3 && report.issues.isEmpty)
        #expect(blocked(set, "video.example"))
        #expect(!blocked(set, "www.video.example"))
        #expect(!blocked(set, "ok.example") && blocked(set, "www.ok.example"))
        #expect(described(set, "video.example") == "|video.example^ (test.txt)")
        #expect(kept.contains(.regex("^video\\.example$")))
    }

    /// What the admin page and `lockr filters` take as one entry.
    @Test func oneRuleIsCheckedAlone() {
        for rule in ["example.com", "|example.com^", "*.example.com", "/^ads?\\./", "||example.com^"] {
            #expect(RuleListParser.problem(inRule: rule) == nil, "\(rule)")
        }
        #expect(RuleListParser.problem(inRule: "# a comment") != nil)
        #expect(
            RuleListParser.problem(inRule: "@@||example.com^") == "an exception in a list that only blocks, skipped")
        #expect(RuleListParser.problem(inRule: "a.com\nb.com") == "one rule, on one line")
        #expect(RuleListParser.problem(inRule: "bad_name!.com")?.contains("not allowed") == true)
        #expect(RuleListParser.problem(inRule: "/(/")?.contains("regular expression") == true)
    }

    @Test func regularExpressions() {
        let (set, report) = rules("/^ad[0-9]+\\./\n/(/\n@@/^ad7\\./\n")
        #expect(report.rules == 2)
        #expect(report.issues.first?.reason.contains("regular expression") == true)
        #expect(blocked(set, "ad1.example.com"))
        #expect(blocked(set, "AD22.example.com"))
        #expect(!blocked(set, "ad7.example.com"))
        #expect(!blocked(set, "bad1.example.com"))
        #expect(described(set, "ad1.x") == "/^ad[0-9]+\\./ (test.txt)")
    }

    /// glibc's regcomp copies each repetition, so a short line could ask for gigabytes (a 538-byte
    /// list the fuzzer made took 4.4 GB, Fuzz/crashes/rule-list); such patterns, deep nesting and
    /// back-references are refused with a reason, and everyday patterns still compile.
    @Test func costlyRegularExpressionsAreRefused() {
        let costly = [
            "/b" + String(repeating: "+", count: 40) + "r[3-9+/", "/(a{1,200}){1,200}/", "/x{5000}/",
            "/" + String(repeating: "(", count: 40) + "a" + String(repeating: ")", count: 40) + "/",
            "/^(ad)\\1\\./", "/bannkr?{6,929}+/", "/((a?|b?|c?|d?){1,32})+/", "/x(r?){1,150}/", "/(^|a){0,}/",
            // Optional copies nest, and glibc's automaton grows with their number squared: each of
            // these took 1.7 to 14 MB, and a list of them gigabytes (Fuzz/crashes/rule-list).
            "/bannkr{6,929}+/", "/x{1,1000}/", "/(r{1,64}){1,64}/", "/a{1,253}b{1,253}c{1,253}/",
        ]
        let (set, report) = rules(costly.joined(separator: "\n") + "\n")
        #expect(set.regexCount == 0)
        #expect(report.issues.map(\.line) == Array(1...13))
        #expect(report.issues[0].reason.contains("too costly to compile"))
        #expect(report.issues[3].reason.contains("nested"))
        #expect(report.issues[4].reason.contains("back-references"))
        #expect(report.issues[5...8].allSatisfy { $0.reason.contains("can match nothing") })
        #expect(report.issues[9...].allSatisfy { $0.reason.contains("optional copies of a bound") })
        let everyday = [
            "/^[a-z0-9.-]{1,253}$/", "/^(ad){2,200}\\.example$/",
            "/^(.+[_.-])?ad[sxv]?[0-9]*[_.-]/", "/^[a-z0-9-]{1,63}\\.tracker\\.example$/",
            "/(^|\\.)doubleclick\\.net$/", "/^[[:alnum:]]+[]x-]?\\.ads\\.[a-z]{2,}$/",
            "/^([a-z0-9-]{1,63}\\.)+cdn\\.example$/", "/^(www\\.)?(a|b)*c?\\.test$/",
        ]
        let (kept, everydayReport) = rules(everyday.joined(separator: "\n") + "\n")
        #expect(everydayReport.issues.isEmpty)
        #expect(blocked(kept, "abc.tracker.example"))
        #expect(blocked(kept, "ads.doubleclick.net"))
        #expect(blocked(kept, "ab.ads.com"))
        #expect(blocked(kept, "a.b.cdn.example"))
        #expect(blocked(kept, "www.abbac.test"))
    }

    /// Every query is matched against every regular expression, so all lists together get a
    /// budget of states; the expressions past it are left out with a reason, the others kept.
    @Test func regularExpressionsPastTheBudgetOfAllListsAreLeftOut() throws {
        let pattern = { (n: Int) in "/^[a-z]{1,253}\\.x\(n)$/" }
        let states = try PosixRegex(String(pattern(0).dropFirst().dropLast())).states
        let fitting = RuleSetBuilder.regexStateBudget / states
        var builder = RuleSetBuilder()
        let first = builder.addSource("first.txt")
        let firstReport = RuleListParser.parse(
            Array((0..<fitting - 1).map(pattern).joined(separator: "\n").utf8), role: .block, source: first,
            into: &builder)
        let second = builder.addSource("second.txt")
        let secondReport = RuleListParser.parse(
            Array(((fitting - 1)..<(fitting + 2)).map(pattern).joined(separator: "\n").utf8), role: .block,
            source: second, into: &builder)
        #expect(firstReport.rules == fitting - 1 && firstReport.issues.isEmpty)
        #expect(secondReport.rules == 1)
        #expect(secondReport.issues.map(\.line) == [2, 3])
        #expect(secondReport.issues.allSatisfy { $0.reason.contains("left out: the lists' regular expressions") })
        let set = builder.build()
        #expect(set.regexCount == fitting)
        #expect(blocked(set, "abc.x\(fitting - 1)"))
        #expect(!blocked(set, "abc.x\(fitting)"))
    }

    @Test func allowlistFilesOnlyAllow() {
        let (set, _) = rules("example.com\n", role: .allow)
        #expect(set.hit(name: "www.example.com")?.isBlock == false)
        #expect(set.blockedDomainCount == 0)
    }

    @Test func badLinesAreReportedWithTheirNumbers() {
        let text =
            "good.test\r\nbad name here\nbäd.test\n\(String(repeating: "a", count: 64)).test\nsp ace.test\nx..y\n"
        let (set, report) = rules(text)
        #expect(blocked(set, "good.test"))
        #expect(report.rules == 1)
        #expect(report.issues.map(\.line) == [2, 3, 4, 5, 6])
        #expect(report.issues[1].reason.contains("punycode"))
        #expect(report.issues[2].reason.contains("63"))
    }

    @Test func describesTheRuleAndItsList() {
        let (set, _) = rules("example.com\n*.wild.test\n")
        #expect(described(set, "a.example.com") == "||example.com^ (test.txt)")
        #expect(described(set, "a.wild.test") == "*.wild.test (test.txt)")
    }

    @Test func theMostSpecificRuleIsReported() {
        let (set, _) = rules("example.com\nads.example.com\n")
        #expect(described(set, "x.ads.example.com") == "||ads.example.com^ (test.txt)")
    }

    @Test func duplicatesMergeTheirCoverage() {
        let (set, _) = rules("*.dup.test\ndup.test\n*.dup.test\n")
        #expect(set.blockedDomainCount == 1)
        #expect(blocked(set, "dup.test"))
        #expect(blocked(set, "a.dup.test"))
    }

    @Test func namesOfManyLabels() {
        let deep = (0..<40).map { "l\($0)" }.joined(separator: ".") + ".deep.test"
        let (set, _) = rules("deep.test\n\(deep)\n")
        #expect(blocked(set, "x." + deep))
        #expect(described(set, "x." + deep).hasPrefix("||l0.l1."))
    }
}

/// The rule that decides `name` in `set`, described; empty when none does.
private func described(_ set: RuleSet, _ name: String) -> String {
    guard let hit = set.hit(name: name), let wire = WireName.wire(fromPresentation: name) else { return "" }
    return set.describe(hit, wireName: wire)
}
