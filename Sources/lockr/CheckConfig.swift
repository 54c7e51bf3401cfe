import ArgumentParser
import LockrDaemon

struct CheckConfig: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "check-config",
        abstract: "Validate a config file and the lists and certificate it names; every error names its line and key."
    )

    @Argument(help: ArgumentHelp("The TOML config file.", valueName: "FILE"))
    var file: String

    func run() throws {
        var options = try ServeOptions.parse([])
        options.config = file
        do {
            let config = try options.resolve()
            let loaded = try PolicyLoader.load(config)
            try Daemon.checkCertificate(config)
            var warnings = 0
            for (path, report) in loaded.reports {
                guard !loaded.unfetched.contains(path) else {
                    print("\(path): not fetched yet (lockr serve fetches it at start)")
                    continue
                }
                print("\(path): \(report.rules) rules, \(report.issueCount) lines skipped")
                for issue in report.issues { print("  \(path): \(issue)") }
                warnings += report.issueCount
            }
            print("catalogue: \(loaded.catalogue.apps.count) apps (\(loaded.catalogueDirectory ?? "not found"))")
            if config.answersDNS {
                print("upstreams: \(loaded.upstreams.map(\.description).joined(separator: ", "))")
                for problem in loaded.unresolvedUpstreams { print("warning: upstream left out: \(problem)") }
            } else {
                print(
                    "upstreams: none (lockr answers no DNS; backends: \(config.backends.map(\.name).joined(separator: ", ")))"
                )
            }
            if !config.people.isEmpty {
                let people = config.people.map {
                    "\($0.name) (\($0.devices.count) device\($0.devices.count == 1 ? "" : "s"))"
                }
                print("people: default (every other device), \(people.joined(separator: ", "))")
            }
            for warning in config.warnings { print("warning: \(warning)") }
            var secretsMissing = false
            for backend in config.backends {
                for secret in backend.secrets {
                    do { _ = try secret.read() } catch {
                        printError("\(file): \(backend.name): \(error) (the daemon reads it at start)")
                        secretsMissing = true
                    }
                }
            }
            guard !secretsMissing else { throw ExitCode.failure }
            print("\(file): OK\(warnings > 0 ? " (\(warnings) list lines skipped)" : "")")
        } catch let exit as ExitCode {
            throw exit
        } catch {
            printError("\(error)")
            throw ExitCode.failure
        }
    }
}
