import ArgumentParser
import LockrAPI
import LockrControl

struct RecordsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "records",
        abstract: "The home's own names: list, add or remove local records while lockr runs.",
        discussion: """
            A record is written as [local] records writes it: NAME TYPE DATA, with A, AAAA, CNAME, PTR or \
            TXT ("nas.home.arpa A 192.168.1.5"). lockr answers it with authority and never forwards the name. \
            Records added here are kept across restarts beside the config file's, which are changed in the \
            file. A change applies at once (with the PIN where one is set): local records come after the block \
            lists, the guarded apps and safe search, so none frees a name those hold.
            """,
        subcommands: [List.self, Add.self, Remove.self],
        defaultSubcommand: List.self
    )

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Show every local record.")

        @OptionGroup var client: ClientOptions

        func run() async throws {
            let answer = await client.call { try await $0.getLocalRecords().ok.body.json }
            client.show(answer) { recordLines($0).joined(separator: "\n") }
        }
    }

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a record: `lockr records add \"nas.home.arpa A 192.168.1.5\" --comment \"the NAS\"`.")

        @Argument(help: ArgumentHelp("NAME TYPE DATA, quoted as one argument.", valueName: "RECORD")) var record: String
        @Option(help: ArgumentHelp("Why it is there, shown beside it.", valueName: "TEXT")) var comment: String?
        @OptionGroup var client: ClientOptions

        func run() async throws {
            await send(.init(change: .add, record: record, comment: comment), client: client)
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a record added with `lockr records add`.")

        @Argument(help: ArgumentHelp("The record as `lockr records` shows it.", valueName: "RECORD")) var record: String
        @OptionGroup var client: ClientOptions

        func run() async throws {
            await send(.init(change: .remove, record: record), client: client)
        }
    }

    /// Sends `body`, asking for the PIN when the daemon wants it, and shows the records after.
    static func send(_ body: Components.Schemas.LocalRecordChangeRequest, client: ClientOptions) async {
        do { _ = try ControlRouter.localRecordChange(body) } catch { client.fail(error.error, body: error) }
        var pin: String?
        while true {
            do {
                let answer = try await client.client().call { [pin] in
                    try await $0.changeLocalRecords(headers: .init(xLockrPIN: pin), body: .json(body)).ok.body.json
                }
                client.show(answer) { recordLines($0).joined(separator: "\n") }
                return
            } catch ControlClientError.refused(_, let refusal) where refusal.code == .pinRequired && pin == nil {
                pin = client.askPIN("PIN (a PIN protects settings): ", body: refusal)
            } catch {
                client.fail(error)
            }
        }
    }
}

/// One line per record, the config file's marked, then the hosts files read.
func recordLines(_ answer: Components.Schemas.LocalRecordsResponse) -> [String] {
    var lines = answer.records.map { record in
        record.record + (record.source == .config ? "  (config file)" : "")
            + (record.comment.isEmpty ? "" : "  # \(record.comment)")
    }
    if lines.isEmpty { lines = ["No local record: `lockr records add \"nas.home.arpa A 192.168.1.5\"`."] }
    if !answer.hostsFiles.isEmpty {
        lines.append("Also the hosts files: \(answer.hostsFiles.joined(separator: ", ")).")
    }
    return lines
}
