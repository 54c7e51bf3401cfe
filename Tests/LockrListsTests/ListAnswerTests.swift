import Testing

@testable import LockrLists

/// A list server's answer taken apart: redirects, heads and bodies.
@Suite struct ListAnswerTests {
    let https = "https://lists.example.org/lists/hosts.txt"

    @Test func redirectsAreFollowedButNeverFromHTTPSToHTTP() throws {
        #expect(try ListAnswer.redirect(status: 200, headers: [("Location", "/x")], from: https) == nil)
        #expect(
            try ListAnswer.redirect(status: 301, headers: [("location", "other.txt")], from: https)
                == "https://lists.example.org/lists/other.txt")
        #expect(
            try ListAnswer.redirect(status: 308, headers: [("Location", "https://cdn.example.net/h")], from: https)
                == "https://cdn.example.net/h")
        #expect(
            try ListAnswer.redirect(
                status: 302, headers: [("Location", "https://x.example/l")], from: "http://a.example/l")
                == "https://x.example/l", "up to HTTPS is fine")
        #expect(throws: ListFetchProblem.refused("HTTP 302 redirects from HTTPS to HTTP (evil.example); not followed"))
        {
            try ListAnswer.redirect(status: 302, headers: [("Location", "http://evil.example/l")], from: https)
        }
        #expect(throws: ListFetchProblem.refused("HTTP 307 redirects to no URL lockr can fetch")) {
            try ListAnswer.redirect(status: 307, headers: [("Location", "file:///etc/passwd")], from: https)
        }
        #expect(throws: ListFetchProblem.refused("HTTP 301 redirects to no URL lockr can fetch")) {
            try ListAnswer.redirect(status: 301, headers: [], from: https)
        }
    }

    @Test func aHeadSaysWhetherABodyFollows() throws {
        #expect(try ListAnswer.head(status: 304, reason: "Not Modified", headers: [], limit: 10) == .unchanged)
        #expect(try ListAnswer.head(status: 200, reason: "OK", headers: [("Content-Length", "10")], limit: 10) == nil)
        #expect(throws: ListFetchProblem.tooLarge(10)) {
            try ListAnswer.head(status: 200, reason: "OK", headers: [("content-length", "11")], limit: 10)
        }
        #expect(throws: ListFetchProblem.refused("HTTP 404 Not Found")) {
            try ListAnswer.head(status: 404, reason: "Not Found\r\nX: y", headers: [], limit: 10)
        }
    }

    @Test func aBodyIsAListOnlyWithRulesAndItsValidatorsAreKeptWhenSane() throws {
        let list = Array("0.0.0.0 a.example\n||b.example^\n".utf8)
        let long = String(repeating: "x", count: 2000)
        let fetched = try ListAnswer.list(list, headers: [("ETag", "\"7\""), ("Last-Modified", long)])
        #expect(fetched == .fetched(list, rules: 2, etag: "\"7\"", lastModified: nil), "a 2,000-byte date is no date")
        #expect(throws: ListFetchProblem.refused("no rules in what came (13 bytes; not a list?)")) {
            try ListAnswer.list(Array("<html></html>".utf8), headers: [])
        }
    }
}
