/// Safe search as a person has it: the search engines answered with their strict modes'
/// hosts (`safe-search`) and YouTube's restricted mode (`youtube`). Part of `NameRules`, so that
/// switching it off, or YouTube to a milder level, loosens and waits like any other setting.
public struct SafeSearch: Sendable, Hashable, Codable {
    /// YouTube's restricted mode, mildest first.
    public enum YouTube: String, Sendable, Codable, CaseIterable, Comparable {
        case off, moderate, strict

        public static func < (lhs: YouTube, rhs: YouTube) -> Bool {
            allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
        }
    }

    /// Google, Bing, DuckDuckGo and the other providers of the catalogue's `safe-search/`.
    public var searchEngines: Bool
    /// As set; nil follows the search engines (moderate while they are on, else off).
    public var youtube: YouTube?

    public init(searchEngines: Bool = false, youtube: YouTube? = nil) {
        self.searchEngines = searchEngines
        self.youtube = youtube
    }

    /// YouTube's restricted mode in force.
    public var youtubeLevel: YouTube { youtube ?? (searchEngines ? .moderate : .off) }

    /// Whether anything is answered differently.
    public var isOn: Bool { searchEngines || youtubeLevel != .off }

    /// In words, for the pages and `lockr status`: "search engines, YouTube strict", or "off".
    public var text: String {
        let parts = [searchEngines ? "search engines" : nil, youtubeLevel == .off ? nil : "YouTube \(youtubeLevel)"]
        let words = parts.compactMap { $0 }.joined(separator: ", ")
        return words.isEmpty ? "off" : words
    }
}
