import DNSTestSupport
import Foundation
import Testing

/// lockr's own modules stay off Foundation's internationalised parts (which link ICU into the
/// static program), as `scripts/foundation-uses` reads this very build's objects.
@Suite struct FoundationUsesTests {
    @Test func lockrsOwnModulesUseNoFoundationBeyondItsEssentials() async throws {
        let build = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath()
            .deletingLastPathComponent().path
        let ran = try await runAwaited(
            "env", ["BUILD=\(build)", ScriptArgumentsTests.checkout + "/scripts/foundation-uses"])
        #expect(ran.status == 0, "\(ran.output)")
        #expect(!ran.output.contains("not allowed"), "\(ran.output)")
        // It sees uses where there are some: the tests use Foundation freely.
        #expect(ran.output.contains("EndToEndTests: "), "\(ran.output)")
    }
}
