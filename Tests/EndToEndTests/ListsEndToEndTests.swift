import DNSTestSupport
import Foundation
import Testing

/// A person's block list given by URL with the real binary: fetched at start from a real HTTP server
/// (Tests/Scripts/list_server.py) and swapped in while lockr answers, then, after a restart with
/// the server gone, still in force from the copy kept in the state directory.
@Suite struct ListsEndToEndTests {
    @Test func aListByURLBlocksOnceFetchedAndStillAfterARestartWithoutNetwork() async throws {
        let stateDirectory = LockrProcess.makeStateDirectory()
        defer { try? FileManager.default.removeItem(atPath: stateDirectory) }
        var server: ListServer? = try ListServer()
        let url = server!.url("/hosts.txt")
        // The list is a person's own; the queries come from their device.
        let sections = "[people.kid]\ndevices = [\"127.0.0.1\"]\nblocklists = [\"\(url)\"]\n"
        let policy = PolicyEndToEndTests()
        try await policy.withLockr(mode: "hourly", sections: sections, stateDirectory: stateDirectory) { lockr, _ in
            // Lists are fetched and built on an idle-class thread: on a machine busy with the
            // suite's other tests that takes far longer than the fetch itself.
            let seconds = try await policy.secondsUntilBlocked("v1.tracker.test", lockr, limit: 60)
            #expect(seconds != nil, "the list was not swapped in: \(lockr.log)")
            #expect(try await policy.address("www.ads.example.test", lockr) == "0.0.0.0", "subdomains too")
            // The log is read from a pipe: its line may come a moment after the answers change.
            #expect(
                await eventually(10) { lockr.log.contains("list fetched") && lockr.log.contains("lists swapped in") })

            let shown = try await lockr.cli("lists")
            #expect(shown.status == 0)
            #expect(shown.output.contains("\(url)  block for kid: 2 rules"), "\(shown.output)")
            try server!.set("/set-version/2")
            let updated = try await lockr.cli("lists", "update")
            #expect(updated.status == 0 && updated.output.contains("[1/1] fetching \(url)"), "\(updated.output)")
            #expect(
                try await policy.secondsUntilBlocked("v2.tracker.test", lockr, limit: 60) != nil,
                "the new copy is in force")
            let json = try await lockr.cli("lists", "--json")
            let lists = try JSONSerialization.jsonObject(with: Data(json.output.utf8)) as? [String: Any]
            let first = (lists?["lists"] as? [[String: Any]])?.first
            #expect(first?["people"] as? [String] == ["kid"] && first?["kept"] as? Bool == true, "\(json.output)")
            try server!.set("/set-broken/error")
            let failed = try await lockr.cli("lists", "update", url)
            #expect(failed.status == 1 && failed.output.contains("last fetch failed (1 in a row): HTTP 500"))
            #expect(failed.output.contains("the copy kept stays in force"), "\(failed.output)")
            #expect(try await policy.address("v2.tracker.test", lockr) == "0.0.0.0")
            let (token, address) = try policy.controlEndpoint(lockr)
            let metrics = try await runAwaited(
                "curl", ["-s", "-H", "Authorization: Bearer \(token)", "http://\(address)/metrics"])
            let listed = metrics.output.split(separator: "\n").filter { $0.hasPrefix("lockr_list_") }
            #expect(listed.contains("lockr_list_rules{list=\"\(url)\"} 2.0"), "\(listed)")
            #expect(listed.contains("lockr_list_failures{list=\"\(url)\"} 1.0"), "\(listed)")
            let doctor = try await lockr.cli("doctor")
            #expect(doctor.output.contains("ok   list \(url): 2 rules"), "\(doctor.output)")
            let unknown = try await lockr.cli("lists", "update", "https://nowhere.example/l.txt")
            #expect(unknown.status == 1 && unknown.output.contains("no list https://nowhere.example/l.txt"))
        }
        #expect(server!.requests.filter { $0.hasPrefix("GET /hosts.txt") }.count == 3, "at start and twice asked")
        server = nil
        try await policy.withLockr(mode: "hourly", sections: sections, stateDirectory: stateDirectory) { lockr, _ in
            let answer = try await policy.address("v2.tracker.test", lockr)
            #expect(answer == "0.0.0.0", "the copy kept filters at once")
            #expect(!lockr.log.contains("list not fetched"), "not due: the copy is a day old at most")
        }
    }
}
