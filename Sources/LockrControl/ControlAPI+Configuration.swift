import LockrAPI
import LockrPolicy

/// `lockr config export` and `lockr config import`: the household's run-time settings as one
/// document (`ConfigurationDocument`).
extension ControlAPI {
    func exportConfiguration(
        _ input: Operations.ExportConfiguration.Input
    ) async throws -> Operations.ExportConfiguration.Output {
        .ok(.init(body: .json(policy.configuration())))
    }

    /// Asks for a whole document, everyone's at once or nothing; with `?check=true` only says what
    /// it would do. A document the generated server could not read is refused by
    /// `ControlRouter.failure` with the place of its first problem.
    func importConfiguration(
        _ input: Operations.ImportConfiguration.Input
    ) async throws -> Operations.ImportConfiguration.Output {
        let document =
            switch input.body {
            case .json(let document): document
            }
        do throws(ConfigurationProblem) { try document.check() } catch {
            throw Components.Schemas.ErrorBody(error: error.description, code: .invalidConfiguration)
        }
        let checkOnly = [._true, ._1].contains(input.query.check)
        let answer = try policy.importConfiguration(
            document, pin: try pin(input.headers.xLockrPIN), checkOnly: checkOnly)
        return .ok(.init(body: .json(answer)))
    }
}
