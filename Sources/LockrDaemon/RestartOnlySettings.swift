/// The settings a running daemon takes only at start (its sockets, threads, cache size, state
/// directory, backends, ...): a reload names each one it finds changed, so that nobody believes a
/// SIGHUP applied what waits for a restart.
enum RestartOnlySettings {
    /// Each such setting's key in the config file, and whether two configurations differ in it.
    private static let settings: [(key: String, differs: @Sendable (LockrConfiguration, LockrConfiguration) -> Bool)] =
        [
            ("listen", { $0.listen != $1.listen }),
            ("control", { $0.control != $1.control }),
            ("web", { $0.web != $1.web }),
            ("state-dir", { $0.stateDirectory != $1.stateDirectory }),
            ("threads", { $0.threads != $1.threads }),
            ("log-level", { $0.logLevel != $1.logLevel }),
            ("speech-model", { $0.speechModel != $1.speechModel }),
            ("backends", { $0.answersDNS != $1.answersDNS || $0.backends != $1.backends }),
            ("meter-from", { $0.meterFrom != $1.meterFrom }),
            ("adapters", { $0.adapterTiming != $1.adapterTiming }),
        ]

    /// The keys of the settings that differ between the running configuration and the one read.
    static func changed(from running: LockrConfiguration, to read: LockrConfiguration) -> [String] {
        settings.filter { $0.differs(running, read) }.map(\.key)
            + running.cache.restartOnlyChanges(to: read.cache, at: "cache")
            + running.tcp.restartOnlyChanges(to: read.tcp, at: "tcp")
            + running.queryLog.restartOnlyChanges(to: read.queryLog, at: "query-log")
    }
}
