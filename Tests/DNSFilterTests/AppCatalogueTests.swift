import Foundation
import Testing

@testable import DNSFilter

@Suite struct AppCatalogueTests {
    static let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().appendingPathComponent("blocklists").path

    static func shipped() throws -> AppCatalogue {
        try AppCatalogue.load(
            directory: directory, fileNames: try FileManager.default.contentsOfDirectory(atPath: directory))
    }

    @Test func theShippedCatalogueLoads() throws {
        let catalogue = try Self.shipped()
        #expect(catalogue.apps.count >= 25)
        for id in [
            "instagram", "tiktok", "youtube", "facebook", "x", "reddit", "snapchat", "netflix", "twitch", "discord",
            "pinterest", "threads", "whatsapp", "telegram", "roblox",
        ] {
            #expect(catalogue.apps[id] != nil, "missing app \(id)")
        }
        for app in catalogue.apps.values {
            #expect(!app.name.isEmpty && !app.group.isEmpty)
        }
    }

    @Test func appsCoverTheirCDNs() throws {
        let catalogue = try Self.shipped()
        #expect(catalogue.app(covering: "scontent-ams2-1.cdninstagram.com") != nil)
        #expect(catalogue.apps["instagram"]?.rules.hit(name: "instagram.fams2-1.fna.fbcdn.net")?.isBlock == true)
        #expect(catalogue.apps["instagram"]?.rules.hit(name: "video.xx.fbcdn.net") == nil)
        #expect(catalogue.app(covering: "v16-webapp.tiktokcdn-us.com")?.id == "tiktok")
        #expect(catalogue.app(covering: "rr3---sn-4g5e6nez.googlevideo.com")?.id == "youtube")
        #expect(catalogue.app(covering: "i.ytimg.com")?.id == "youtube")
        #expect(catalogue.app(covering: "occ-0-1234-56.1.nflxso.net")?.id == "netflix")
        #expect(catalogue.app(covering: "pbs.twimg.com")?.id == "x")
        #expect(catalogue.app(covering: "example.com") == nil)
    }

    /// Names that each regex of the catalogue must match, for the attribution test below.
    static let regexExamples: [String: [String]] = [
        "^instagram\\.[a-z0-9.-]+\\.fbcdn\\.net$": ["instagram.fams2-1.fna.fbcdn.net", "instagram.fxyz1-1.fbcdn.net"]
    ]

    /// Names a rule covers, to look up: the name itself and a subdomain, or the regex's examples.
    static func examples(of rule: DomainRule) -> [String] {
        switch rule {
        case .domain(let name): [name, "m1x." + name]
        case .subdomains(let name): ["m1x." + name]
        case .regex(let pattern): regexExamples[pattern] ?? []
        }
    }

    /// A rule set holding only `rule`.
    static func ruleSet(_ rule: DomainRule) -> RuleSet {
        let text: String
        switch rule {
        case .domain(let name): text = name
        case .subdomains(let name): text = "*." + name
        case .regex(let pattern): text = "/\(pattern)/"
        }
        var builder = RuleSetBuilder()
        _ = RuleListParser.parse(Array(text.utf8), role: .block, source: builder.addSource("rule"), into: &builder)
        return builder.build()
    }

    /// Every name of every app, looked up among all apps, lands on the app whose rule is the most
    /// specific (a regex over any listed domain, a longer domain over a shorter one; for the very
    /// same rule, the id that sorts first), worked out rule by rule here.
    @Test func everyAppsOwnNamesGoToTheAppWithTheMostSpecificRule() throws {
        let apps = try Self.shipped().apps.values.sorted { $0.id < $1.id }
        let guardSet = GuardSet(apps: apps)
        let rules = apps.flatMap { app in app.domainRules.map { (app: app.id, rule: $0, set: Self.ruleSet($0)) } }
        var checked = 0
        var elsewhere: [String: String] = [:]
        for (owner, rule, _) in rules {
            let names = Self.examples(of: rule)
            #expect(!names.isEmpty, "\(owner): no example name for \(rule); add one to regexExamples")
            for name in names {
                var best: (app: String, specificity: Int)?
                for candidate in rules {
                    guard let hit = candidate.set.hit(name: name), hit.isBlock else { continue }
                    let specificity = candidate.set.specificity(of: hit)
                    if best == nil || specificity > best!.specificity { best = (candidate.app, specificity) }
                }
                #expect(guardSet.app(forName: name) == best?.app, "\(name) (listed by \(owner))")
                if let best, best.app != owner { elsewhere[name] = "\(owner) -> \(best.app)" }
                checked += 1
            }
        }
        #expect(checked > 100)
        // Instagram's media hosts on Meta's shared CDN are Instagram's, not Facebook's.
        #expect(guardSet.app(forName: "instagram.fams2-1.fna.fbcdn.net") == "instagram")
        #expect(guardSet.app(forName: "scontent.xx.fbcdn.net") == "facebook")
        // A name listed by two apps goes to one of them only where the catalogue shares it on purpose.
        #expect(Set(elsewhere.values).isSubset(of: ["threads -> instagram"]), "\(elsewhere)")
    }

    @Test func badFilesAreRefusedWithTheReason() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("lockr-catalogue-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        func attempt(_ text: String) -> String? {
            let file = directory.appendingPathComponent("demo.txt")
            try? text.write(to: file, atomically: true, encoding: .utf8)
            do {
                _ = try AppCatalogue.load(directory: directory.path, fileNames: ["demo.txt"])
                return nil
            } catch {
                return error.reason
            }
        }
        #expect(attempt("# id: demo\n# name: Demo\n# group: social\ndemo.test\n") == nil)
        #expect(attempt("# name: Demo\n# group: social\ndemo.test\n")?.contains("id") == true)
        #expect(attempt("# id: other\n# name: Demo\n# group: social\ndemo.test\n")?.contains("does not match") == true)
        #expect(attempt("# id: demo\n# name: Demo\n# group: social\n") == "no domain rules")
        #expect(attempt("# id: demo\n# name: Demo\n# group: social\nbad name\n")?.contains("line 4") == true)
    }
}
