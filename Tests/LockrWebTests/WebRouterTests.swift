import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import LockrControl
import LockrPolicy
import NIOCore
import PolicyFakes
import Testing

@testable import LockrWeb

/// The web pages' routes in process (`app.test(.router)`), on each person's engine in memory: what
/// a page shows, the forms' token, the assets and the headers every answer carries.
@Suite struct WebRouterTests {
    let start = Instant(Date(timeIntervalSince1970: 1_780_308_000))  // 2026-06-01 10:00 UTC
    let token = String(repeating: "c0", count: 32)

    func withPages(
        _ mode: Mode = .hourly, _ body: @escaping @Sendable (MemoryPolicy, any TestClientProtocol) async throws -> Void
    ) async throws {
        let policy = MemoryPolicy(mode: mode, now: start)
        let app = Application(router: try WebRouter.build(policy: policy, speech: nil))
        try await app.test(.router) { client in try await body(policy, client) }
    }

    var cookie: HTTPFields {
        [.cookie: "\(FormToken.cookieName)=\(token)", .contentType: "application/x-www-form-urlencoded"]
    }

    @Test func theStatusPageShowsEachGuardedAppWithTheHeadersEveryPageCarries() async throws {
        try await withPages { _, client in
            let page = try await client.execute(uri: "/", method: .get)
            #expect(page.status == .ok)
            #expect(page.headers[.contentType]?.hasPrefix("text/html") == true)
            let html = String(buffer: page.body)
            #expect(html.contains("TikTok") && html.contains("YouTube") && !html.contains("Reddit"))
            #expect(page.headers[.contentSecurityPolicy]?.contains("script-src 'self'") == true)
            #expect(page.headers[.xContentTypeOptions] == "nosniff")
            #expect(!html.contains("<script>") && !html.contains("style="), "no inline script or style")
        }
    }

    @Test func theAssetsAreServedAsTheFilesSay() async throws {
        try await withPages { _, client in
            let css = try await client.execute(uri: "/static/lockr.css", method: .get)
            #expect(css.headers[.contentType] == "text/css; charset=utf-8")
            #expect(String(buffer: css.body) == WebAssets.stylesheet)
            let script = try await client.execute(uri: "/static/lockr.js", method: .get)
            #expect(script.headers[.contentType] == "text/javascript; charset=utf-8")
            #expect(String(buffer: script.body).hasPrefix("// The pages' one script"))
            let missing = try await client.execute(uri: "/nowhere", method: .get)
            #expect(missing.status == .notFound && String(buffer: missing.body).contains("Not here"))
        }
    }

    @Test func anAppsPageGivesTheFormTokenAndAFormWithItOpensTheWindow() async throws {
        try await withPages { policy, client in
            let page = try await client.execute(uri: "/apps/tiktok", method: .get)
            #expect(page.status == .ok)
            let setCookie = page.headers[.setCookie] ?? ""
            #expect(setCookie.hasPrefix("\(FormToken.cookieName)=") && setCookie.contains("HttpOnly"))
            #expect(String(buffer: page.body).contains("name=\"csrf\""))

            let opened = try await client.execute(
                uri: "/apps/tiktok/open", method: .post, headers: cookie,
                body: ByteBuffer(string: "csrf=\(token)&action=unlock"))
            #expect(opened.status == .seeOther && opened.headers[.location] == "/apps/tiktok")
            #expect(policy.view(of: People.defaultName).policy.state.windows.all.map(\.app) == ["tiktok"])
        }
    }

    @Test func aFormWithoutTheBrowsersTokenChangesNothing() async throws {
        try await withPages { policy, client in
            let forged = try await client.execute(
                uri: "/apps/tiktok/open", method: .post, headers: cookie,
                body: ByteBuffer(string: "csrf=\(String(repeating: "d1", count: 32))&action=unlock"))
            #expect(forged.status == .forbidden)
            let noCookie = try await client.execute(
                uri: "/apps/tiktok/open", method: .post, headers: [.contentType: "application/x-www-form-urlencoded"],
                body: ByteBuffer(string: "csrf=\(token)&action=unlock"))
            #expect(noCookie.status == .forbidden)
            #expect(policy.view(of: People.defaultName).policy.state.windows.all.isEmpty)
        }
    }

    @Test func aRefusedFormShowsThePageAgainWithWhyUnderTheAPIsStatus() async throws {
        try await withPages(.time) { _, client in
            let refused = try await client.execute(
                uri: "/apps/tiktok/open", method: .post, headers: cookie,
                body: ByteBuffer(string: "csrf=\(token)&action=snooze"))
            #expect(refused.status == .conflict, "the status the API gives nothing_to_do")
            #expect(String(buffer: refused.body).contains("nothing to snooze"), "\(String(buffer: refused.body))")
        }
    }
}
