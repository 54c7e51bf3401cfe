import Foundation
import Testing

@testable import LockrDaemon

/// Lists given by URL as the loader reads them: from the copy kept, or said not to be fetched yet.
@Suite struct ListLoadingTests {
    @Test func aListByURLWithoutACopyAddsNoRuleAndIsSaidNotFetchedYet() throws {
        let state = NSTemporaryDirectory() + "lockr-list-loading-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: state, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: state) }
        let file = state + "/own.txt"
        try "own.example\n".write(toFile: file, atomically: true, encoding: .utf8)
        var config = LockrConfiguration()
        config.stateDirectory = state
        config.blocklists = ["https://lists.example.org/hosts?key=1", file]
        config.allowlists = ["http://lists.example.org/allow.txt"]
        let loaded = try PolicyLoader.load(config)
        #expect(loaded.unfetched == ["https://lists.example.org/hosts?...", "http://lists.example.org/allow.txt"])
        #expect(
            loaded.reports.map(\.path) == [
                "https://lists.example.org/hosts?...", file, "http://lists.example.org/allow.txt",
            ])
        #expect(loaded.lists.shared.blockedDomainCount == 1, "the file's rule only")
        #expect(PolicyLoader.subscriptions(config).count == 2)
    }

    @Test func anEntryThatIsNoListLockrCanReadStopsTheLoadNamingIt() {
        var config = LockrConfiguration()
        config.blocklists = ["ftp://lists.example.org/hosts"]
        #expect {
            try PolicyLoader.load(config)
        } throws: { error in
            "\(error)" == "'ftp://lists.example.org/hosts': only http:// and https:// lists are fetched"
        }
    }
}
