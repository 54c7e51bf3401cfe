/// The sentence each app's lock is worded in, made once per lock instead of for every blocked
/// query: kept while the app's access stays the same (a cooldown's, whose text counts down, for
/// the second it was made in).
struct LockWording: Sendable {
    private struct Worded: Sendable {
        let access: AppAccess
        let second: Int64?
        let sentence: String
    }

    private var byApp: [String: Worded] = [:]

    /// `app`'s sentence for `access` at `now`, as `text` words it.
    mutating func sentence(_ app: String, _ access: AppAccess, at now: Instant, text: AccessText) -> String {
        let second: Int64? = if case .coolingDown = access { now.milliseconds / 1000 } else { nil }
        if let worded = byApp[app], worded.access == access, worded.second == second { return worded.sentence }
        let sentence = text.sentence(app, access, at: now)
        byApp[app] = Worded(access: access, second: second, sentence: sentence)
        return sentence
    }

    /// Forgets every sentence: the settings they were worded in changed.
    mutating func forget() { byApp.removeAll() }
}
