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
            ("cache.size", { $0.cache.capacity != $1.cache.capacity }),
            ("cache.serve-stale", { $0.cache.staleSeconds != $1.cache.staleSeconds }),
            ("tcp.max-connections", { $0.maxTCPConnections != $1.maxTCPConnections }),
            ("tcp.idle-timeout-ms", { $0.tcpIdleTimeout != $1.tcpIdleTimeout }),
            ("backends", { $0.answersDNS != $1.answersDNS || $0.backends != $1.backends }),
            ("meter-from", { $0.meterFrom != $1.meterFrom }),
            ("adapters", { $0.adapterTiming != $1.adapterTiming }),
            ("query-log.enabled", { $0.queryLog.enabled != $1.queryLog.enabled }),
            ("query-log.retention", { $0.queryLog.retention != $1.queryLog.retention }),
            ("query-log.max-size", { $0.queryLog.maximumBytes != $1.queryLog.maximumBytes }),
        ]

    /// The keys of the settings that differ between the running configuration and the one read.
    static func changed(from running: LockrConfiguration, to read: LockrConfiguration) -> [String] {
        settings.filter { $0.differs(running, read) }.map(\.key)
    }
}
