import Testing

@testable import LockrLists

/// What an entry of `blocklists` or `allowlists` names, and how it is shown.
@Suite struct ListSourceTests {
    @Test func urlsAreFetchedAndEverythingElseIsAFile() throws {
        #expect(try ListSource(entry: "/etc/lockr/adult.txt") == .file(path: "/etc/lockr/adult.txt"))
        #expect(try ListSource(entry: "lists/own.txt") == .file(path: "lists/own.txt"))
        let url = "https://lists.example.org/hosts?key=secret"
        #expect(try ListSource(entry: url) == .url(url))
        #expect(try ListSource(entry: "HTTP://Example.org/l.txt") == .url("HTTP://Example.org/l.txt"))
        #expect(throws: ListSourceProblem("'ftp://example.org/l.txt': only http:// and https:// lists are fetched")) {
            try ListSource(entry: "ftp://example.org/l.txt")
        }
        #expect(throws: ListSourceProblem("'https:///l.txt' is not a URL lockr can fetch")) {
            try ListSource(entry: "https:///l.txt")
        }
    }

    @Test func aURLIsShownWithoutItsQueryAndKeptUnderItsHash() throws {
        let source = try ListSource(entry: "https://lists.example.org/hosts?key=secret")
        #expect(source.displayName == "https://lists.example.org/hosts?...")
        #expect(source.sourceName == "lists.example.org/hosts?...")
        #expect(source.copyKey?.count == 16)
        #expect(source.copyKey == (try ListSource(entry: "https://lists.example.org/hosts?key=secret")).copyKey)
        #expect(source.copyKey != (try ListSource(entry: "https://lists.example.org/hosts?key=other")).copyKey)
        #expect(ListSource.file(path: "/etc/lockr/a.txt").sourceName == "a.txt")
    }
}
