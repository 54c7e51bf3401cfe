/// What compiling and running a POSIX extended regular expression would cost, read before the C
/// library sees it.
///
/// glibc's `regcomp` copies a repeated piece once per repetition and once more per stacked
/// operator, so a few dozen bytes can ask for gigabytes: `a++++…+` doubles with each `+`, and
/// `(a{1,200}){1,200}` asks for 40,000 copies (a 538-byte list line took 4.4 GB before the fuzzer
/// stopped it). The optional copies of a bound (`r{6,929}` has 923) nest one inside the next, and
/// their automaton grows with the square of their number: `r{1,1000}` takes 8 MB, `r{1,4000}`
/// 126 MB, so a list of such lines took gigabytes. A repetition of something that can match
/// nothing (`((a?){1,150})+`, `(a?|b?){1,32}`) makes its closure computation take minutes. It
/// parses groups recursively, so deep nesting can overflow the stack. And back-references make
/// matching exponential in the name's length, while lockr matches regular expressions on every
/// query. None of these fits a name of at most 253 characters, so all are refused. The cost is counted in states of the
/// automaton (about 10 bytes each, measured): each piece once, multiplied by every repetition
/// applied to it, and a bound's optional copies squared.
enum RegexCost {
    /// The most pieces a pattern may compile to; a hand-written name pattern uses a few dozen.
    static let limit = 4_096
    /// The most states a pattern may compile to: `[a-z]{1,253}`, a whole name, takes 64,000.
    static let mostStates = 131_072
    /// The deepest nesting of groups taken.
    static let deepestNesting = 32

    /// The states compiling `pattern` takes; throws why it is refused. Syntax errors are left to
    /// `regcomp`, which names them.
    static func states(of pattern: String) throws(RegexError) -> Int {
        var reader = Reader(bytes: Array(pattern.utf8))
        do throws(Refusal) {
            return try reader.read()
        } catch {
            throw RegexError(message: reason(error))
        }
    }

    private static func reason(_ refusal: Refusal) -> String {
        switch refusal {
        case .tooCostly:
            return "too costly to compile: more than \(limit) pieces once repetitions are counted"
        case .tooManyStates:
            return "too costly to compile: the optional copies of a bound nest one in another, and their cost grows "
                + "with their number squared (one bound may have about 360, fewer when there are several)"
        case .tooDeep:
            return "groups nested more than \(deepestNesting) deep"
        case .emptyRepeated:
            return "a repetition of something that can match nothing (like `(a?)+` or `(a|b*){2,9}`) takes the "
                + "C library minutes to compile: repeat what must match at least one character"
        case .backReference:
            return "back-references (\\1 to \\9) are not supported: matching them takes exponential time"
        }
    }

    private enum Refusal: Error {
        case tooCostly, tooManyStates, tooDeep, emptyRepeated, backReference
    }

    /// The pieces of one group read so far: those before the last piece, and the last piece (which
    /// a following repetition multiplies); and whether they can match nothing.
    private struct Group {
        var before = 0
        /// Zero while the alternative has no piece yet.
        var last = 0
        var lastMatchesNothing = true
        /// Whether every piece of this alternative before the last can match nothing.
        var restMatchesNothing = true
        /// Whether an earlier alternative (before a `|`) can match nothing.
        var anAlternativeMatchesNothing = false

        /// The states of the nested optional copies in the pieces before the last, and in the last.
        var chainsBefore = 0
        var lastChains = 0

        var cost: Int { before + last }
        var states: Int { cost + chainsBefore + lastChains }
        var matchesNothing: Bool { anAlternativeMatchesNothing || (restMatchesNothing && lastMatchesNothing) }
    }

    /// Reads the pattern left to right.
    private struct Reader {
        /// What follows `\` in word boundaries and buffer anchors (GNU extensions): they match nothing.
        static let emptyEscapes = Set("bB<>`'".utf8)

        let bytes: [UInt8]
        var index = 0
        var groups = [Group()]

        /// Reads the pattern and returns its states.
        mutating func read() throws(Refusal) -> Int {
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "("):
                    guard groups.count <= RegexCost.deepestNesting else { throw .tooDeep }
                    groups.append(Group())
                case UInt8(ascii: ")") where groups.count > 1:
                    try closeGroup()
                case UInt8(ascii: "|"):
                    var group = groups[groups.count - 1]
                    group.anAlternativeMatchesNothing = group.matchesNothing
                    group.before += group.last
                    group.chainsBefore += group.lastChains
                    (group.last, group.lastChains, group.lastMatchesNothing, group.restMatchesNothing) = (
                        0, 0, true, true
                    )
                    groups[groups.count - 1] = group
                case UInt8(ascii: "^"), UInt8(ascii: "$"):
                    try piece(costing: 1, matchesNothing: true)
                case UInt8(ascii: "*"):
                    try repeatLast(Repetition(copies: 2, optionalCopies: 0, many: true, optional: true))
                case UInt8(ascii: "+"):
                    try repeatLast(Repetition(copies: 2, optionalCopies: 0, many: true, optional: false))
                case UInt8(ascii: "?"):
                    try repeatLast(Repetition(copies: 2, optionalCopies: 1, many: false, optional: true))
                case UInt8(ascii: "{"):
                    if let repetition = bound() { try repeatLast(repetition) } else { try piece(costing: 1) }
                case UInt8(ascii: "\\"):
                    let escaped = index < bytes.count ? bytes[index] : 0
                    if (UInt8(ascii: "1")...UInt8(ascii: "9")).contains(escaped) { throw .backReference }
                    index += 1
                    try piece(costing: 1, matchesNothing: Self.emptyEscapes.contains(escaped))
                case UInt8(ascii: "["):
                    skipBracketExpression()
                    try piece(costing: 1)
                default:
                    try piece(costing: 1)
                }
            }
            // Groups left open are regcomp's error to name; what they hold still counts.
            while groups.count > 1 { try closeGroup() }
            return groups[0].states
        }

        /// The innermost group, closed, becomes the last piece of the one around it.
        private mutating func closeGroup() throws(Refusal) {
            let group = groups.removeLast()
            try piece(
                costing: max(group.cost, 1), chains: group.chainsBefore + group.lastChains,
                matchesNothing: group.matchesNothing)
        }

        /// A new piece in the innermost group.
        private mutating func piece(costing cost: Int, chains: Int = 0, matchesNothing: Bool = false) throws(Refusal) {
            var group = groups[groups.count - 1]
            group.before += group.last
            group.chainsBefore += group.lastChains
            group.restMatchesNothing = group.restMatchesNothing && group.lastMatchesNothing
            group.last = cost
            group.lastChains = chains
            group.lastMatchesNothing = matchesNothing
            try checkCost(of: group)
            groups[groups.count - 1] = group
        }

        private func checkCost(of group: Group) throws(Refusal) {
            guard group.cost <= RegexCost.limit else { throw .tooCostly }
            guard group.states <= RegexCost.mostStates else { throw .tooManyStates }
        }

        /// What a repetition operator does to the piece before it.
        struct Repetition {
            /// The copies it costs.
            let copies: Int
            /// How many of them are optional, each nested in the one before (`{2,5}` has 3).
            let optionalCopies: Int
            /// Whether it may match the piece more than once.
            let many: Bool
            /// Whether it may match the piece no time.
            let optional: Bool
        }

        /// The innermost group's last piece repeated; with no piece before it, the operator is
        /// regcomp's to refuse or take as a character.
        private mutating func repeatLast(_ repetition: Repetition) throws(Refusal) {
            var group = groups[groups.count - 1]
            guard group.last > 0 else { return try piece(costing: 1) }
            if repetition.many, group.lastMatchesNothing { throw .emptyRepeated }
            let (last, overflow) = group.last.multipliedReportingOverflow(by: repetition.copies)
            guard !overflow else { throw .tooCostly }
            // Both factors are within limits checked before: the products fit in 64 bits.
            group.last = last
            group.lastChains =
                group.lastChains * repetition.copies + repetition.optionalCopies * repetition.optionalCopies
            group.lastMatchesNothing = group.lastMatchesNothing || repetition.optional
            try checkCost(of: group)
            groups[groups.count - 1] = group
        }

        /// After `{`: the repetition `{n}`, `{n,}`, `{,m}` or `{n,m}` makes (`{n,}` costing n and
        /// one more copy), with the reader past the `}`; nil, the reader unmoved, when no bound
        /// follows.
        private mutating func bound() -> Repetition? {
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
            var unbounded = false
            if cursor < bytes.count, bytes[cursor] == UInt8(ascii: ",") {
                cursor += 1
                high = number()
                if high == nil { (high, unbounded) = (low.map { $0 + 1 }, true) }
            }
            guard let copies = high ?? low, cursor < bytes.count, bytes[cursor] == UInt8(ascii: "}") else { return nil }
            index = cursor + 1
            let optionalCopies = unbounded ? 0 : max(copies - (low ?? 0), 0)
            return Repetition(
                copies: max(copies, 1), optionalCopies: optionalCopies, many: unbounded || copies > 1,
                optional: (low ?? 0) == 0)
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
