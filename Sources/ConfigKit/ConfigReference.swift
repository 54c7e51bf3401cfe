/// The config file's reference: every setting with what it does and its default, as a file a
/// reader can copy, generated from the declarations so that it cannot drift from them.
public enum ConfigReference {
    /// A part of the reference: a section's settings, or text of its own (commented examples of
    /// what is a table of names, such as people).
    public enum Part<Root: Sendable> {
        case section(SectionDeclaration<Root>)
        case text(String)
    }

    /// How wide a line of the reference may be.
    static let width = 100

    /// `parts` with the values of `defaults`, a blank line between parts.
    public static func render<Root>(_ parts: [Part<Root>], defaults: Root) -> String {
        parts.map { part in
            switch part {
            case .text(let text): text
            case .section(let section): render(section, defaults: defaults)
            }
        }.joined(separator: "\n\n") + "\n"
    }

    private static func render<Root>(_ section: SectionDeclaration<Root>, defaults: Root) -> String {
        var lines = section.name.isEmpty ? [] : ["[\(section.name)]"]
        for setting in section.settings {
            lines += comment(setting.summary.replacing("{range}", with: setting.range ?? "{range}"))
            if let example = setting.example {
                lines.append("# \(setting.key) = \(example)")
            } else {
                lines.append("\(setting.key) = \(setting.written(in: defaults))")
            }
        }
        return lines.joined(separator: "\n")
    }

    /// `text` as comment lines of at most `width` characters.
    public static func comment(_ text: String) -> [String] {
        var lines: [String] = []
        var line = "#"
        for word in text.split(separator: " ") {
            if line.count + 1 + word.count > width, line != "#" {
                lines.append(line)
                line = "#"
            }
            line += " " + word
        }
        if line != "#" { lines.append(line) }
        return lines
    }
}
