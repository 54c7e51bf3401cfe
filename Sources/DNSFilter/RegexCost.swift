/// What compiling and running a POSIX extended regular expression would cost, read before the C
/// library sees it.
///
/// glibc's `regcomp` copies a repeated piece once per repetition and once more per stacked
/// operator, so a few dozen bytes can ask for gigabytes: `a++++…+` doubles with each `+`, and
/// `(a{1,200}){1,200}` asks for 40,000 copies (a 538-byte list line took 4.4 GB before the fuzzer
/// stopped it). It also parses groups recursively, so deep nesting can overflow the stack. And
/// back-references make matching exponential in the name's length, while lockr matches regular
/// expressions on every query. None of these fits a name of at most 253 characters, so all are
/// refused: the cost counts each piece once, multiplied by every repetition applied to it.
enum RegexCost {
    /// The most pieces a pattern may compile to; a hand-written name pattern uses a few dozen.
    static let limit = 4_096
    /// The deepest nesting of groups taken.
    static let deepestNesting = 32

    /// Why `pattern` is refused, or nil when it may be compiled. Syntax errors are left to
    /// `regcomp`, which names them.
    static func problem(in pattern: String) -> String? {
        var reader = Reader(bytes: Array(pattern.utf8))
        do throws(Refusal) {
            try reader.read()
            return nil
        } catch {
            switch error {
            case .tooCostly:
                return "too costly to compile: more than \(limit) pieces once repetitions are counted"
            case .tooDeep:
                return "groups nested more than \(deepestNesting) deep"
            case .backReference:
                return "back-references (\\1 to \\9) are not supported: matching them takes exponential time"
            }
        }
    }

    private enum Refusal: Error {
        case tooCostly, tooDeep, backReference
    }

    /// The pieces of one group read so far: those before the last piece, and the last piece (which
    /// a following repetition multiplies).
    private struct Group {
        var before = 0
        var last = 0

        var cost: Int { before + last }
    }

    /// Reads the pattern left to right.
    private struct Reader {
        let bytes: [UInt8]
        var index = 0
        var groups = [Group()]

        mutating func read() throws(Refusal) {
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "("):
                    guard groups.count <= RegexCost.deepestNesting else { throw .tooDeep }
                    groups.append(Group())
                case UInt8(ascii: ")") where groups.count > 1:
                    let group = groups.removeLast()
                    try piece(costing: group.cost)
                case UInt8(ascii: "*"), UInt8(ascii: "+"), UInt8(ascii: "?"):
                    try repeatLast(copies: 2)
                case UInt8(ascii: "{"):
                    if let copies = bound() { try repeatLast(copies: copies) } else { try piece(costing: 1) }
                case UInt8(ascii: "\\"):
                    if index < bytes.count, (UInt8(ascii: "1")...UInt8(ascii: "9")).contains(bytes[index]) {
                        throw .backReference
                    }
                    index += 1
                    try piece(costing: 1)
                case UInt8(ascii: "["):
                    skipBracketExpression()
                    try piece(costing: 1)
                default:
                    try piece(costing: 1)
                }
            }
            // Groups left open are regcomp's error to name; what they hold still counts.
            while groups.count > 1 {
                let group = groups.removeLast()
                try piece(costing: group.cost)
            }
        }

        /// A new piece in the innermost group.
        private mutating func piece(costing cost: Int) throws(Refusal) {
            var group = groups[groups.count - 1]
            group.before += group.last
            group.last = cost
            guard group.cost <= RegexCost.limit else { throw .tooCostly }
            groups[groups.count - 1] = group
        }

        /// The innermost group's last piece made `copies` times (a repetition of nothing counts
        /// as one piece repeated).
        private mutating func repeatLast(copies: Int) throws(Refusal) {
            var group = groups[groups.count - 1]
            let (last, overflow) = max(group.last, 1).multipliedReportingOverflow(by: copies)
            group.last = last
            guard !overflow, group.cost <= RegexCost.limit else { throw .tooCostly }
            groups[groups.count - 1] = group
        }

        /// After `{`: how many copies `{n}`, `{n,}`, `{,m}` or `{n,m}` makes (`{n,}` as n and one
        /// more), with the reader past the `}`; nil, the reader unmoved, when no bound follows.
        private mutating func bound() -> Int? {
            var cursor = index
            func number() -> Int? {
                var value: Int?
                while cursor < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[cursor]) {
                    value = min((value ?? 0) * 10 + Int(bytes[cursor] - UInt8(ascii: "0")), 1_000_000)
                    cursor += 1
                }
                return value
            }
            let low = number()
            var high = low
            if cursor < bytes.count, bytes[cursor] == UInt8(ascii: ",") {
                cursor += 1
                high = number() ?? low.map { $0 + 1 }
            }
            guard let copies = high ?? low, cursor < bytes.count, bytes[cursor] == UInt8(ascii: "}") else { return nil }
            index = cursor + 1
            return max(copies, 1)
        }

        /// Moves past a bracket expression (`[...]`, `[^]...]`, with `[:class:]`, `[=e=]` and
        /// `[.c.]` inside), or to the end when it is not closed.
        private mutating func skipBracketExpression() {
            if index < bytes.count, bytes[index] == UInt8(ascii: "^") { index += 1 }
            if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1 }
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                if byte == UInt8(ascii: "]") { return }
                if byte == UInt8(ascii: "["), index < bytes.count,
                    [UInt8(ascii: ":"), UInt8(ascii: "="), UInt8(ascii: ".")].contains(bytes[index])
                {
                    let delimiter = bytes[index]
                    index += 1
                    while index + 1 < bytes.count,
                        !(bytes[index] == delimiter && bytes[index + 1] == UInt8(ascii: "]"))
                    {
                        index += 1
                    }
                    index = min(index + 2, bytes.count)
                }
            }
        }
    }
}
