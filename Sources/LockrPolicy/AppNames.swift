/// Finds an app by what a person typed: its id, in any letter case, or its display name
/// ("TikTok"); and, for a typo, the id that was probably meant.
public enum AppNames {
    /// The id `text` names among `apps` (id to display name), or nil.
    public static func resolve(_ text: String, in apps: [String: String]) -> String? {
        if apps[text] != nil { return text }
        let lowered = text.lowercased()
        if apps[lowered] != nil { return lowered }
        return apps.first { $0.value.lowercased() == lowered }?.key
    }

    /// The id closest to `text` when it is near enough to be a typo ("tiktk", "instagramm"), or one
    /// that starts with it ("insta").
    public static func suggestion(for text: String, in apps: [String: String]) -> String? {
        NameSuggestion.closest(to: text.lowercased(), among: apps.keys)
    }

    /// The id `text` names among `apps`; refused as `unknown` when none.
    public static func id(_ text: String, in apps: [String: String]) throws(PolicyRefusal) -> String {
        guard let id = resolve(text, in: apps) else { throw unknown(text, in: apps) }
        return id
    }

    /// "no app 'tiktk' in the catalogue; did you mean tiktok?"
    public static func unknown(_ text: String, in apps: [String: String]) -> PolicyRefusal {
        .unknownApp(text, suggestion: suggestion(for: text, in: apps))
    }
}

/// The name probably meant by a mistyped one: an app id, a key of the config file.
public enum NameSuggestion {
    /// The name among `names` closest to `typed` when near enough to be a typo (one edit in a word
    /// of up to three letters; in a longer one two, or a quarter of its letters, so that two
    /// letters swapped count), or else the first that starts with it.
    public static func closest(to typed: String, among names: some Collection<String>) -> String? {
        let letters = Array(typed)
        guard !letters.isEmpty else { return nil }
        let allowed = letters.count < 4 ? 1 : max(2, letters.count / 4)
        let near = names.map { name in (name, PhraseGate.distance(letters, Array(name), limit: allowed)) }
            .filter { $0.1 <= allowed }
            .min { $0.1 != $1.1 ? $0.1 < $1.1 : $0.0 < $1.0 }
        if let near { return near.0 }
        return names.filter { $0.hasPrefix(typed) }.min()
    }
}
