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
