/// The settings a running daemon takes only at start (its sockets, threads, cache size, state
/// directory, backends, ...): a reload names each one it finds changed, so that nobody believes a
/// SIGHUP applied what waits for a restart. Each setting says so in its declaration
/// (`Setting.restartOnly`); the backends, a table of names, are compared here.
enum RestartOnlySettings {
    /// The keys of the settings that differ between the running configuration and the one read.
    static func changed(from running: LockrConfiguration, to read: LockrConfiguration) -> [String] {
        let declared = LockrConfiguration.configSections.flatMap { $0.restartOnlyChanges(from: running, to: read) }
        let backends = running.answersDNS != read.answersDNS || running.backends != read.backends
        return declared + (backends ? ["backends"] : []) + (running.meterFrom != read.meterFrom ? ["meter-from"] : [])
    }
}
