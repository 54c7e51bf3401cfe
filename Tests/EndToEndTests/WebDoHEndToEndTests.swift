import DNSTestSupport
import Foundation
import Testing

/// A real browser that resolves names only over DNS over HTTPS, at lockr, as a managed policy tells
/// it: headless Chromium with `DnsOverHttpsMode` "secure" and a template naming a person's device by
/// its ClientID. A page on a name lockr blocks for that person does not load; an allowed one does.
extension WebEndToEndTests {
    @Test func aBrowserOnDNSOverHTTPSGetsItsPersonsAnswersFromLockr() async throws {
        let authority = try TestCertificates()
        defer { authority.remove() }
        let certificate = try authority.server("lockr", names: ["dns.test"])
        // The pages are on 127.0.0.2: a blocked name's 0.0.0.0 reaches 127.0.0.1, where nothing listens.
        let pages = try ScriptServer("page_server.py", ["127.0.0.2"])
        let upstream = try await ScriptedUpstream(records: [
            "allowed.test.": ["allowed.test. 300 IN A 127.0.0.2"], "tiktok.com.": ["tiktok.com. 300 IN A 127.0.0.2"],
        ])
        let config = NSTemporaryDirectory() + "lockr-e2e-doh-browser-\(UUID()).toml"
        try """
        listen-https = ["127.0.0.1:0"]
        guard = ["tiktok"]
        [tls]
        certificate = "\(certificate.certificate)"
        key = "\(certificate.key)"
        name = "dns.test"
        [policy]
        mode = "hourly"
        [people.alice]
        devices = ["id:alice-phone"]
        [people.bob]
        devices = ["id:bob-laptop"]
        [people.bob.policy]
        mode = "time"
        """.write(toFile: config, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: config) }
        let lockr = try await LockrProcess(["--config", config, "--upstream", "127.0.0.1:\(upstream.port)"])
        let httpsPort = try lockr.listeningPort("https")
        let policies = "/etc/chromium/policies/managed"
        try FileManager.default.createDirectory(atPath: policies, withIntermediateDirectories: true)
        // One fixed name: a run killed before its clean-up leaves a file the next run overwrites. Two
        // files setting the same policy would leave Chromium to pick one, perhaps a dead template.
        let policy = policies + "/lockr-e2e-doh.json"
        defer { try? FileManager.default.removeItem(atPath: policy) }
        let allowed = "http://allowed.test:\(pages.port)/"
        let blocked = "http://tiktok.com:\(pages.port)/"
        try await stoppingAfterwards(lockr, upstream) { () async throws in
            for (device, tiktokLoads) in [("alice-phone", false), ("bob-laptop", true)] {
                let template = "https://dns.test:\(httpsPort)/dns-query/\(device){?dns}"
                try #"{"DnsOverHttpsMode": "secure", "DnsOverHttpsTemplates": "\#(template)"}"#
                    .write(toFile: policy, atomically: true, encoding: .utf8)
                let result = try await runAwaited(
                    "python3", [Self.scripts + "/web_doh.py", "dns.test", certificate.pin, allowed, blocked])
                let line = try #require(
                    result.output.split(separator: "\n").last { $0.hasPrefix("{") }, "\(result.output)")
                let report = try #require(
                    JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: [String: String]])
                #expect(report[allowed]?["title"] == "reachable", "\(device): \(report)")
                if tiktokLoads {
                    #expect(report[blocked]?["title"] == "reachable", "\(device): \(report)")
                } else {
                    #expect(
                        report[blocked]?["error"]?.contains("ERR_CONNECTION_REFUSED") == true, "\(device): \(report)")
                }
            }
            let devices = try await lockr.cli("devices").output
            #expect(devices.contains("id:alice-phone") && devices.contains("id:bob-laptop"), "\(devices)")
        }
    }
}
