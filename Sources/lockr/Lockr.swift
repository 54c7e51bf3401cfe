import ArgumentParser

@main
struct Lockr: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "lockr",
        abstract: "A DNS forwarder that throttles apps by answering or sinkholing their domains.",
        discussion: """
            lockr answers DNS for this machine or your home network; point your resolver at it (see README.md). \
            DNS decides only new lookups: a connection an app already has open stays open until the app \
            reconnects. Short TTLs and firewall rules narrow that gap.
            """,
        version: LockrVersion.current,
        subcommands: [
            Serve.self, StatusCommand.self, AppsCommand.self, UnlockCommand.self, ModeCommand.self, GuardCommand.self,
            SnoozeCommand.self, ExtendCommand.self, EmergencyCommand.self, PendingCommand.self, SettingsCommand.self, PinCommand.self,
            ScheduleCommand.self, ProfileCommand.self, DevicesCommand.self, LogCommand.self, QueriesCommand.self, StatsCommand.self, WatchCommand.self, NotifyCommand.self, ExplainCommand.self, DoctorCommand.self, ListsCommand.self, FiltersCommand.self, RecordsCommand.self,
            ConfigCommand.self, CheckConfig.self,
        ]
    )
}
