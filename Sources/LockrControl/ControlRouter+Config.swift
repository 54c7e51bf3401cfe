import Foundation
import Hummingbird
import LockrAPI
import LockrPolicy

extension ControlRouter {
    /// `GET config`: the household's run-time settings (`ConfigurationDocument`). `POST config`:
    /// asks for a whole document of them, everyone's at once or nothing; with `?check=true` only
    /// says what it would do. A bad document is refused with the place of its first problem.
    static func addConfigRoutes(to api: RouterGroup<ControlRequestContext>, policy: some PolicyAccess) {
        api.get("config") { _, _ in try await respond { policy.configuration() } }
        api.post("config") { request, context in
            try await respond {
                let checkOnly = ["true", "1"].contains(request.uri.queryParameters["check"].map(String.init) ?? "")
                // Read whole already, and at most `maximumBody` (`ControlRequestMiddleware`).
                var request = request
                let buffer = try await request.collectBody(upTo: maximumBody)
                let document: ConfigurationDocument
                do throws(ConfigurationProblem) {
                    document = try ConfigurationDocument.read(Data(buffer.readableBytesView))
                } catch {
                    throw Components.Schemas.ErrorBody(error: error.description, code: .invalidConfiguration)
                }
                let pinCheck = try policy.verifyPIN(pin(request, context))
                return try policy.importConfiguration(document, pin: pinCheck, checkOnly: checkOnly)
            }
        }
    }
}
