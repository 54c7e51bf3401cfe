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
        let typed = Array(text.lowercased())
        guard !typed.isEmpty else { return nil }
        let allowed = max(1, typed.count / 4)
        let near = apps.keys.map { id in (id, PhraseGate.distance(typed, Array(id), limit: allowed)) }
            .filter { $0.1 <= allowed }
            .min { $0.1 != $1.1 ? $0.1 < $1.1 : $0.0 < $1.0 }
        if let near { return near.0 }
        return apps.keys.filter { $0.hasPrefix(String(typed)) }.min()
    }

    /// "no app 'tiktk' in the catalogue; did you mean tiktok?"
    public static func unknown(_ text: String, in apps: [String: String]) -> PolicyRefusal {
        .unknownApp(text, suggestion: suggestion(for: text, in: apps))
    }
}
