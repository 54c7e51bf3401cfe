import LockrPolicy
import Mustache
import Testing

@testable import LockrWeb

/// The files of Sources/LockrWeb/Assets as the build embeds them.
@Suite struct WebAssetsTests {
    /// The script subscribes to live events by kind: every kind the daemon sends, and only those.
    @Test func theScriptListensToEveryKindOfLiveEvent() throws {
        let line = try #require(WebAssets.script.split(separator: "\n").first { $0.hasPrefix("const liveKinds = [") })
        let listed = line.split(separator: "\"").enumerated().filter { $0.offset % 2 == 1 }.map { String($0.element) }
        #expect(listed == LiveEvent.Kind.allCases.map(\.rawValue))
    }

    /// Every template and partial the pages use is embedded and compiles, and the files arrive as
    /// written (no final newline added or lost, nothing escaped).
    @Test func everyTemplateIsEmbeddedAndCompiles() throws {
        let names = [
            "layout-head", "layout-foot", "status", "app", "missing", "refused", "admin-nav", "admin-login", "admin",
            "admin-person", "admin-dashboard", "admin-lists", "admin-names", "admin-queries", "admin-events", "bar-chart",
        ]
        #expect(Set(WebAssets.templates.keys) == Set(names))
        var library = MustacheLibrary()
        for (name, text) in WebAssets.templates { try library.register(text, named: name) }
        let rendered = try #require(library.render(["message": "<not sent>"], withTemplate: "refused"))
        #expect(rendered.contains("&lt;not sent&gt;") && rendered.contains("<h1>Not sent</h1>"))
        #expect(WebAssets.templates["layout-foot"]?.hasSuffix("\n") == false)
        #expect(WebAssets.stylesheet.hasPrefix("/* The pages' one stylesheet"))
    }
}
