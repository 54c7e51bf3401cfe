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
            let seconds = try await policy.secondsUntilBlocked("v1.tracker.test", lockr)
            #expect(seconds != nil, "the list was not swapped in: \(lockr.log)")
            #expect(try policy.address("www.ads.example.test", lockr) == "0.0.0.0", "subdomains too")
            #expect(lockr.log.contains("list fetched") && lockr.log.contains("lists swapped in"))
        }
        #expect(server!.requests.filter { $0.hasPrefix("GET /hosts.txt") }.count == 1)
        server = nil
        try await policy.withLockr(mode: "hourly", sections: sections, stateDirectory: stateDirectory) { lockr, _ in
            let answer = try policy.address("v1.tracker.test", lockr)
            #expect(answer == "0.0.0.0", "the copy kept filters at once")
            #expect(!lockr.log.contains("list not fetched"), "not due: the copy is a day old at most")
        }
    }
}
