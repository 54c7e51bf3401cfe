import DNSTestSupport
import Foundation
import Testing

/// `[local]` as a home writes it: records in the config file and a hosts file, asked with dig.
@Suite struct LocalRecordsEndToEndTests {
    @Test func theHomesOwnNamesAreAnsweredWithAuthorityAndNeverForwarded() async throws {
        let upstream = try await ScriptedUpstream()
        let directory = NSTemporaryDirectory() + "lockr-e2e-local-\(UUID())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try "192.168.1.30 tv.lan tv\n".write(toFile: directory + "/hosts", atomically: true, encoding: .utf8)
        try """
        [local]
        records = ["nas.home.arpa A 192.168.1.5", "printer.lan CNAME nas.home.arpa", "home.arpa TXT \\"our home\\""]
        hosts-files = ["\(directory)/hosts"]
        ttl = 120
        """.write(toFile: directory + "/lockr.toml", atomically: true, encoding: .utf8)
        let lockr = try await LockrProcess([
            "--config", directory + "/lockr.toml", "--upstream", "127.0.0.1:\(upstream.port)",
        ])
        try await stoppingAfterwards(lockr, upstream) { () async throws in
            let nas = try await dig(lockr.port, "nas.home.arpa")
            #expect(nas.contains("flags: qr aa rd ra") && nas.contains("nas.home.arpa.\t\t120\tIN\tA\t192.168.1.5"))
            let noV6 = try await dig(lockr.port, "nas.home.arpa", "AAAA")
            #expect(noV6.contains("status: NOERROR") && noV6.contains("ANSWER: 0") && noV6.contains("SOA"))
            #expect(try await dig(lockr.port, "printer.lan", "+short") == "nas.home.arpa.\n192.168.1.5\n")
            #expect(try await dig(lockr.port, "home.arpa", "TXT", "+short").contains("\"our home\""))
            #expect(try await dig(lockr.port, "tv", "+short") == "192.168.1.30\n")
            #expect(try await dig(lockr.port, "-x", "192.168.1.30", "+short") == "tv.lan.\n")
            for name in ["nas.home.arpa.", "printer.lan.", "home.arpa.", "tv.", "30.1.168.192.in-addr.arpa."] {
                #expect(upstream.queries(for: name) == 0, "\(name) never leaves the home")
            }
            let explained = try await lockr.cli("explain", "printer.lan", "--person", "default")
            #expect(explained.output.contains("answered by lockr: a name of the home's own"), "\(explained.output)")
            #expect(explained.output.contains("CNAME nas.home.arpa.; A 192.168.1.5"), "\(explained.output)")
            let privateName = try await lockr.cli(
                "explain", "5.0.0.10.in-addr.arpa", "--type", "PTR", "--person", "default")
            #expect(privateName.output.contains("a locally served zone"), "\(privateName.output)")
        }
    }

    /// `lockr records` adds names while lockr runs: answered at once, kept across a restart, checked
    /// with the config file's as a whole; the file's own are changed in the file; a safe-search
    /// person's search engine stays safe whatever a record says.
    @Test func recordsAddedWhileLockrRunsAreAnsweredAndKept() async throws {
        let upstream = try await ScriptedUpstream(records: [
            "forcesafesearch.google.com.": ["forcesafesearch.google.com. 300 IN A 216.239.38.120"]
        ])
        let directory = NSTemporaryDirectory() + "lockr-e2e-local-added-\(UUID())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try """
        [local]
        records = ["nas.home.arpa A 192.168.1.5"]
        [people.kid]
        devices = ["127.0.0.2"]
        safe-search = true
        """.write(toFile: directory + "/lockr.toml", atomically: true, encoding: .utf8)
        let state = LockrProcess.makeStateDirectory()
        defer { try? FileManager.default.removeItem(atPath: state) }
        let arguments = ["--config", directory + "/lockr.toml", "--upstream", "127.0.0.1:\(upstream.port)"]
        var lockr = try await LockrProcess(arguments, stateDirectory: state)
        do {
            let added = try await lockr.cli("records", "add", "tv.lan A 192.168.1.30", "--comment", "living room")
            #expect(
                added.status == 0 && added.output.contains("tv.lan A 192.168.1.30  # living room"), "\(added.output)")
            let tv = try await dig(lockr.port, "tv.lan")
            #expect(tv.contains("flags: qr aa rd ra") && tv.contains("192.168.1.30"), "\(tv)")
            #expect(try await lockr.cli("records", "add", "box.lan CNAME tv.lan").status == 0)
            #expect(try await dig(lockr.port, "box.lan", "+short") == "tv.lan.\n192.168.1.30\n")
            // The CNAME's target cannot go while the CNAME points to it; the file's own stay the file's.
            let orphaning = try await lockr.cli("records", "remove", "tv.lan A 192.168.1.30")
            #expect(
                orphaning.status == 1 && orphaning.output.contains("which no local record defines"),
                "\(orphaning.output)")
            let fileOwn = try await lockr.cli("records", "remove", "nas.home.arpa A 192.168.1.5")
            #expect(fileOwn.status == 1 && fileOwn.output.contains("the config file's"), "\(fileOwn.output)")
            let bad = try await lockr.cli("records", "add", "x.lan MX 10 mail.lan")
            #expect(bad.status == 1 && bad.output.contains("'MX' is not one of"), "\(bad.output)")
            // Safe search comes first: a record for Google does not lead the kid around it.
            #expect(try await lockr.cli("records", "add", "www.google.com A 192.0.2.99").status == 0)
            #expect(try await dig(lockr.port, "-b", "127.0.0.2", "www.google.com", "+short").contains("216.239.38.120"))
            #expect(try await dig(lockr.port, "-b", "127.0.0.1", "www.google.com", "+short") == "192.0.2.99\n")
            #expect(upstream.queries(for: "tv.lan.") == 0)
        } catch {
            await lockr.finish()
            await upstream.stop()
            throw error
        }
        await lockr.finish()
        lockr = try await LockrProcess(arguments, stateDirectory: state)
        try await stoppingAfterwards(lockr, upstream) { () async throws in
            #expect(try await dig(lockr.port, "box.lan", "+short") == "tv.lan.\n192.168.1.30\n", "kept")
            let listed = try await lockr.cli("records").output
            #expect(listed.contains("nas.home.arpa A 192.168.1.5  (config file)"), "\(listed)")
            #expect(try await lockr.cli("records", "remove", "www.google.com A 192.0.2.99").status == 0)
            #expect(try await dig(lockr.port, "-b", "127.0.0.1", "www.google.com", "+short") != "192.0.2.99\n")
        }
    }

    @Test func aBadRecordOrHostsFileIsNamedAndNothingStarts() async throws {
        let directory = NSTemporaryDirectory() + "lockr-e2e-local-bad-\(UUID())"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try "[local]\nrecords = [\"nas.lan MX 10 mail.lan\"]\n".write(
            toFile: directory + "/bad.toml", atomically: true, encoding: .utf8)
        let checked = try await runAwaited(LockrProcess.binary, ["check-config", directory + "/bad.toml"])
        #expect(checked.status != 0)
        #expect(
            checked.output.contains("line 2: key 'local.records': type 'MX' is not one of A, AAAA, CNAME, PTR, TXT"))

        try "10.0.0.1 tv.lan\nnot-an-address tv2.lan\n".write(
            toFile: directory + "/hosts", atomically: true, encoding: .utf8)
        try "[local]\nhosts-files = [\"\(directory)/hosts\"]\n".write(
            toFile: directory + "/hosts.toml", atomically: true, encoding: .utf8)
        let served = try await runAwaited(
            LockrProcess.binary,
            [
                "serve", "--config", directory + "/hosts.toml", "--listen", "127.0.0.1:0", "--control", "127.0.0.1:0",
                "--web", "off", "--state-dir", directory + "/state",
            ])
        #expect(served.status != 0)
        #expect(
            served.output.contains(
                "hosts file \(directory)/hosts, line 2: 'not-an-address' is not an IPv4 or IPv6 address"))
    }
}
