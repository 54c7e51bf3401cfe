/// The pages' assets, from the files of `Assets/` that the EmbedWebAssets plugin puts into the
/// binary, so that it needs no files beside it. Every value in a Mustache template is HTML-escaped;
/// no page has inline script or style (the Content-Security-Policy forbids both). A page follows
/// its person's live events unless rendered with `still` (the admin view, which is about everyone
/// and would lose what the admin reads).
enum WebAssets {
    /// Each Mustache template by name ("app" for `Assets/app.mustache`).
    static let templates: [String: String] = Dictionary(
        uniqueKeysWithValues: EmbeddedAssets.text.compactMap { name, text in
            name.hasSuffix(".mustache") ? (String(name.dropLast(".mustache".count)), text) : nil
        })

    /// The pages' one stylesheet (`Assets/lockr.css`).
    static let stylesheet = EmbeddedAssets.text["lockr.css"]!

    /// The pages' one script (`Assets/lockr.js`).
    static let script = EmbeddedAssets.text["lockr.js"]!
}
