import ConfigKit
import LockrPuzzles

/// One thing a gate asks before a window opens or protection loosens.
public enum GateStep: String, Sendable, Codable, CaseIterable, ChoiceOfWords {
    /// The sentence, typed or spoken as `GateSettings.input` allows.
    case phrase
    /// The sentence, spoken.
    case voice
    /// `PuzzleSettings.count` puzzles.
    case puzzle
}

/// How the sentence may be given.
public enum SentenceInput: String, Sendable, Codable, CaseIterable, ChoiceOfWords {
    case typed
    case voice
    case either

    /// How hard the input is to give: speaking is harder than typing; either is as easy as typing.
    var strength: Int { self == .voice ? 1 : 0 }
}

/// The puzzles of a gate.
public struct PuzzleSettings: Sendable, Equatable, Codable {
    /// The kinds to choose from, at random.
    public var kinds: [PuzzleKind]
    /// The level on a quiet day; it rises (see `Difficulty.rising`).
    public var difficulty: Difficulty
    /// Puzzles to solve for one opening.
    public var count: Int
    /// How long an issued puzzle may be answered.
    public var timeLimit: Duration

    /// The counts and time limits (seconds) a person may choose.
    public static let countRange = 1...5
    public static let timeLimitSeconds = 10...3600

    public init(
        kinds: [PuzzleKind] = [.arithmetic, .chess], difficulty: Difficulty = .easy, count: Int = 1,
        timeLimit: Duration = .seconds(120)
    ) {
        self.kinds = kinds
        self.difficulty = difficulty
        self.count = count
        self.timeLimit = timeLimit
    }
}

/// What each mode's gate asks and how.
///
/// Time mode's gate guards snooze and extend, hourly and extreme mode's guard `unlock`; the mode's
/// gate also guards every change that loosens protection. By default only extreme mode has one: the
/// sentence.
public struct GateSettings: Sendable, Equatable, Codable {
    public var time: [GateStep]
    public var hourly: [GateStep]
    public var extreme: [GateStep]
    /// How the sentence may be given where a gate asks `phrase`.
    public var input: SentenceInput
    /// Where the sentence must be spoken, typing it instead first costs a wait: this many steps
    /// further along the cooldown ladder than the person now stands (0: no wait).
    public var typedFallbackSteps: Int
    /// The steps a person may choose.
    public static let typedFallbackStepsRange = 0...5
    public var puzzles: PuzzleSettings

    public init(
        time: [GateStep] = [], hourly: [GateStep] = [], extreme: [GateStep] = [.phrase], input: SentenceInput = .either,
        typedFallbackSteps: Int = 1, puzzles: PuzzleSettings = PuzzleSettings()
    ) {
        self.time = time
        self.hourly = hourly
        self.extreme = extreme
        self.input = input
        self.typedFallbackSteps = typedFallbackSteps
        self.puzzles = puzzles
    }

    /// The gate of `mode`.
    public func steps(for mode: Mode) -> [GateStep] {
        switch mode {
        case .time: time
        case .hourly: hourly
        case .extreme: extreme
        }
    }

    /// How the sentence must be given in `steps`: spoken when the gate says `voice`, else `input`.
    public func sentenceInput(for steps: [GateStep]) -> SentenceInput? {
        if steps.contains(.voice) { return .voice }
        return steps.contains(.phrase) ? input : nil
    }

    /// Whether `new` asks less than `old`: a step dropped, or the sentence no longer spoken.
    static func weaker(_ old: [GateStep], _ new: [GateStep]) -> Bool {
        func rank(_ steps: [GateStep]) -> Int { steps.contains(.voice) ? 2 : steps.contains(.phrase) ? 1 : 0 }
        return rank(new) < rank(old) || (old.contains(.puzzle) && !new.contains(.puzzle))
    }

    /// Problems that make these settings unusable.
    func problems() -> [String] {
        var problems: [String] = []
        if extreme.isEmpty { problems.append("extreme gate must ask something (phrase, voice or puzzle)") }
        for (name, steps) in [("time", time), ("hourly", hourly), ("extreme", extreme)]
        where Set(steps).count != steps.count {
            problems.append("\(name) gate names a step twice")
        }
        if puzzles.kinds.isEmpty { problems.append("puzzles kinds must name arithmetic, chess or both") }
        if !(1...5).contains(puzzles.count) { problems.append("puzzles count must be 1 to 5") }
        if puzzles.timeLimit < .seconds(10) || puzzles.timeLimit > .seconds(3600) {
            problems.append("puzzles time limit must be 10 s to 60 min")
        }
        if !(0...5).contains(typedFallbackSteps) { problems.append("typed-fallback-steps must be 0 to 5") }
        return problems
    }
}

extension PuzzleSettings: ConfigSection {
    public static let settings: [Setting<PuzzleSettings>] = [
        Setting(
            "kinds", \.kinds,
            "Kinds drawn at random: \"arithmetic\", \"chess\" (mates in one; mates in two when hard).",
            read: { reader, key in
                guard let kinds = reader.choices(key, as: PuzzleKind.self) else { return nil }
                if kinds.isEmpty { reader.problem(key, "name arithmetic, chess or both") }
                return kinds.isEmpty ? nil : kinds
            },
            write: { "[" + $0.map { "\"\($0.rawValue)\"" }.joined(separator: ", ") + "]" }),
        .choice(
            "difficulty", \.difficulty,
            "The level on a quiet day: easy, medium or hard. It rises one level for more than 3 opens of the app today, one after 22:00 (until the day starts), one per wrong answer in a row; capped at hard."
        ),
        .integer("count", \.count, in: countRange, "Puzzles per opening ({range})."),
        .durationText(
            "time-limit", \.timeLimit, seconds: timeLimitSeconds, example: "2m", spokenRange: "10s to 60m",
            "How long each may be answered ({range})."),
    ]
}
