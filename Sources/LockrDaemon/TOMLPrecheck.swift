/// Finds the mistakes that toml++ asserts on (aborting the process) instead of
/// reporting them as syntax errors, found by fuzzing the configuration: a table header whose name
/// starts with a character no key may start with (`[?x]`, `[[` then a line break, also after a byte
/// order mark), and a closing bracket of the wrong kind (`[1, }`). The configuration's text is
/// looked at for them first; it is read as TOML is, so that brackets in strings and comments count
/// for nothing.
enum TOMLPrecheck {
    /// The line (from 1) of the first such mistake, and what is wrong there; nil when none.
    static func firstProblem(in text: String) -> (line: Int, problem: String)? {
        let scalars = Array(text.unicodeScalars)
        var index = 0
        var line = 1
        var open: [Unicode.Scalar] = []
        var atLineStart = true
        while index < scalars.count {
            let scalar = scalars[index]
            switch scalar {
            case "\n":
                line += 1
                atLineStart = true
            case "#":
                while index + 1 < scalars.count, scalars[index + 1] != "\n" { index += 1 }
            case "\"", "'":
                let (end, lines) = endOfString(scalars, from: index)
                index = end
                line += lines
                atLineStart = false
            case "[" where open.isEmpty && atLineStart:
                var next = index + 1
                if next < scalars.count, scalars[next] == "[" { next += 1 }
                while next < scalars.count, scalars[next] == " " || scalars[next] == "\t" { next += 1 }
                guard next < scalars.count, startsKey(scalars[next]) || scalars[next] == "]" else {
                    let found = next < scalars.count && scalars[next] != "\n" && scalars[next] != "\r"
                    let what = found ? "'\(scalars[next])'" : "the end of the line"
                    return (line, "a table's name starts with a letter, a digit, '_', '-' or a quote, not \(what)")
                }
                while index + 1 < scalars.count, scalars[index + 1] != "\n" { index += 1 }
            case "[", "{":
                open.append(scalar)
                atLineStart = false
            case "]", "}":
                if let opener = open.popLast(), (opener == "[") != (scalar == "]") {
                    return (line, "'\(scalar)' closes no \(scalar == "]" ? "array" : "inline table") here")
                }
                atLineStart = false
            case " ", "\t", "\r":
                break
            case "\u{FEFF}" where index == 0:
                break  // a byte order mark, which toml++ skips: what follows still starts the line
            default:
                atLineStart = false
            }
            index += 1
        }
        return nil
    }

    /// A letter, digit, '_' or '-' (a bare key's), or a quote (a quoted key's).
    private static func startsKey(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar {
        case "A"..."Z", "a"..."z", "0"..."9", "_", "-", "\"", "'": true
        default: false
        }
    }

    /// Where the string opening at `start` ends (its last quote), and the line breaks within it.
    private static func endOfString(_ scalars: [Unicode.Scalar], from start: Int) -> (end: Int, lines: Int) {
        let quote = scalars[start]
        let multiLine = start + 2 < scalars.count && scalars[start + 1] == quote && scalars[start + 2] == quote
        var index = start + (multiLine ? 3 : 1)
        var lines = 0
        while index < scalars.count {
            let scalar = scalars[index]
            if scalar == "\\" && quote == "\"" {
                if index + 1 < scalars.count, scalars[index + 1] == "\n" { lines += 1 }
                index += 2
                continue
            }
            if scalar == "\n" {
                guard multiLine else { return (index - 1, lines) }
                lines += 1
            }
            if scalar == quote {
                if !multiLine { return (index, lines) }
                if index + 2 < scalars.count, scalars[index + 1] == quote, scalars[index + 2] == quote {
                    return (index + 2, lines)
                }
            }
            index += 1
        }
        return (index, lines)
    }
}
