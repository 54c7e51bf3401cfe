/// Whether each app was open when last looked at: guarded apps, and apps a schedule or profile
/// blocks or blocked. What makes each lock and each unlock logged once.
struct LockTransitions: Sendable {
    private var wasOpen: [String: Bool] = [:]

    /// The apps looked at so far.
    var watched: Dictionary<String, Bool>.Keys { wasOpen.keys }

    /// Takes `app` as open (or not) now, without a transition to log: at a start, or when what
    /// opened it is logged by itself (an unlock, a snooze, the emergency).
    mutating func mark(_ app: String, open: Bool = true) { wasOpen[app] = open }

    /// Notes where `app` stands now; true when it locked or opened since last looked at. An app
    /// neither guarded nor restricted (`.free`) is forgotten once it is known to be open.
    mutating func changed(_ app: String, to access: AppAccess) -> Bool {
        let open = access.isOpen
        if access == .free, wasOpen[app] == true {
            wasOpen[app] = nil
            return false
        }
        guard wasOpen[app] != open else { return false }
        wasOpen[app] = access == .free ? nil : open
        return true
    }
}
