import LockrAPI
import LockrControl
import LockrPolicy
import LockrPuzzles

/// The page of one guarded app for its person, and the cool-down page a locked app's user lands
/// on: where it stands and why, until when, something else to do, and every way out the person has
/// now, in the order they are taken: the gate's steps (puzzles, the spoken sentence), then the
/// windows they open (unlock, snooze, extend, with the typed sentence where the gate asks it), and
/// the emergency hold.
struct AppPage {
    let person: String
    /// "Back to your apps", "Back to alice".
    let back: String
    let app: String
    let name: String
    let open: Bool
    let badge: String
    /// Why it is open or blocked ("daily budget spent (30/30 min)").
    let why: String
    /// When that changes ("until 15:00"), when known.
    let until: String?
    let countdown: Countdown?
    let used: String
    /// Something else to do, while it is locked.
    let suggestion: String?
    let error: String?
    let csrf: String
    /// Until when wrong answers keep the gate shut.
    let cooldown: GateShut?
    let puzzles: PuzzleStep?
    let voice: VoiceStep?
    let windows: WindowForm?
    let emergency: EmergencyHold?
    /// Said when the app is locked and nothing on the page opens it.
    let noWayOut: String?

    /// Wrong answers keep the gate shut: until when, and in how many real seconds the page shows
    /// the gate again.
    struct GateShut {
        let text: String
        let seconds: Int64
    }

    /// The puzzles the gate asks: those issued and open, or a button that issues them.
    struct PuzzleStep {
        /// "an easy puzzle", "2 medium puzzles".
        let asked: String
        let issued: [PuzzleCard]
        /// Whether any are issued (templates see stored properties only).
        let hasIssued: Bool
        let solved: Bool

        init(toSolve: Int, difficulty: Difficulty, issued: [PuzzleCard]) {
            let level = difficulty.rawValue
            asked = toSolve == 1 ? "\(level == "easy" ? "an" : "a") \(level) puzzle" : "\(toSolve) \(level) puzzles"
            self.issued = issued
            hasIssued = !issued.isEmpty
            solved = toSolve == 0
        }
    }

    struct PuzzleCard {
        let id: String
        let prompt: String
        let difficulty: String
        let expires: String
        /// Chess: the board to click on (the move can be typed too).
        let board: ChessBoardView?
    }

    /// The sentence to say into the microphone or a recording.
    struct VoiceStep {
        let sentence: String
        let heard: Bool
        /// Whether typing it below is taken as well.
        let orTyped: Bool
        /// Where it must be spoken: how long typing it instead makes the person wait, until asked;
        /// when it was asked, how long is left of that wait (nil once typing is taken).
        let fallbackWait: String?
        let typedIn: TypedWait?
    }

    /// What is left of the typed fallback's wait, and in how many real seconds the page shows the
    /// field to type the sentence in.
    struct TypedWait {
        let text: String
        let seconds: Int64
    }

    /// The windows the gate opens, as buttons of one form that carries the typed sentence where the
    /// gate asks it.
    struct WindowForm {
        let sentence: String?
        let buttons: [WindowButton]
    }

    struct WindowButton {
        /// `unlock`, `snooze`, `extend`.
        let action: String
        let label: String
    }

    /// The emergency: a press-and-hold the server times.
    struct EmergencyHold {
        let seconds: Int64
        let text: String
    }

    /// `app` of `status` as its person's page shows it, from `view` of their policy, whose time
    /// runs `timeScale` times as fast as real time; for the browser holding `csrf`, with the
    /// refusal of the form last sent, if any.
    init(
        _ app: Components.Schemas.AppBody, of status: Components.Schemas.StatusBody, view: PolicyView,
        timeScale: Double, suggestion: String?, csrf: String,
        error: String? = nil
    ) {
        let gate = view.policy.gateRequirement(for: app.id, at: view.now)
        let settings = view.policy.settings
        person = status.person
        back = status.person == People.defaultName ? "Back to your apps" : "Back to \(status.person)"
        self.app = app.id
        name = app.name
        open = app.open
        badge = StatusPage.badge(app)
        why = StatusPage.why(app, opener: "the button below")
        until = app.state.until.flatMap { until in
            app.open || app.state.code == .cooldown || app.state.text.firstRange(of: until.local) != nil
                ? nil : "until \(until.local)"
        }
        countdown = app.windowEnds.map { Countdown($0, timeScale: timeScale) }
        used = "used \(Duration.seconds(app.usedSeconds).spokenAsUse) today"
        self.suggestion = app.open ? nil : suggestion
        self.error = error
        self.csrf = csrf
        let buttons = app.open ? [] : Self.windowButtons(app, status, settings: settings)
        let gated = !buttons.isEmpty && !gate.steps.isEmpty
        let shut = gated || app.state.code == .cooldown ? gate.cooldownUntil : nil
        cooldown = shut.map { until in
            GateShut(
                text:
                    "Wrong answers shut the gate for \((until - view.now).spoken) more (until \(view.calendar.clockText(until))).",
                seconds: Self.realSeconds(until - view.now, timeScale: timeScale))
        }
        let gateOpen = gated && cooldown == nil
        puzzles =
            gateOpen && gate.steps.contains(.puzzle)
            ? PuzzleStep(
                toSolve: gate.puzzlesToSolve, difficulty: gate.difficulty,
                issued: view.policy.state.gate.challenges.filter { $0.expires > view.now }.map { challenge in
                    PuzzleCard(
                        id: challenge.id, prompt: challenge.puzzle.prompt,
                        difficulty: challenge.puzzle.difficulty.rawValue,
                        expires: view.calendar.clockText(challenge.expires),
                        board: challenge.puzzle.position.flatMap { try? ChessPosition(fen: $0) }.map(
                            ChessBoardView.init))
                })
            : nil
        let typedFrom = gate.typedFallbackFrom
        voice =
            gateOpen && (gate.input == .voice || gate.input == .either)
            ? gate.sentence.map { sentence in
                VoiceStep(
                    sentence: sentence, heard: gate.sentencePassed, orTyped: gate.input == .either,
                    fallbackWait: typedFrom == nil ? gate.typedFallbackCost.map(\.spoken) : nil,
                    typedIn: typedFrom.flatMap { from in
                        from > view.now
                            ? TypedWait(
                                text:
                                    "You may type it instead in \((from - view.now).spoken); the field shows below then.",
                                seconds: Self.realSeconds(from - view.now, timeScale: timeScale)) : nil
                    })
            }
            : nil
        let typable = gate.input == .typed || gate.input == .either || typedFrom.map { $0 <= view.now } == true
        windows =
            buttons.isEmpty || (gated && cooldown != nil)
            ? nil
            : WindowForm(sentence: gateOpen && typable && !gate.sentencePassed ? gate.sentence : nil, buttons: buttons)
        let emergencies = status.emergencies
        emergency =
            !app.open && emergencies.used < emergencies.perDay
            ? EmergencyHold(
                seconds: settings.emergencyHold.secondsRoundedUp,
                text: "Opens every guarded app for \(settings.emergency.length.spoken). "
                    + "\(emergencies.perDay - emergencies.used) of \(emergencies.perDay) left today.")
            : nil
        noWayOut =
            !app.open && windows == nil && emergency == nil && cooldown == nil
            ? "Nothing opens it now: it opens again \(until ?? "when the day ends")." : nil
    }

    /// Real seconds until `left` of policy time has passed, rounded up.
    private static func realSeconds(_ left: Duration, timeScale: Double) -> Int64 {
        Int64((Double(left.milliseconds) / 1000 / timeScale).rounded(.up))
    }

    /// The windows that would open `app` now, before the gate, each saying how long: the hour's
    /// window where it is locked until unlocked; snooze and extend where the day's budget is spent
    /// and some are left.
    private static func windowButtons(
        _ app: Components.Schemas.AppBody, _ status: Components.Schemas.StatusBody, settings: PolicySettings
    ) -> [WindowButton] {
        var buttons: [WindowButton] = []
        if app.state.code == .locked, [.unlock, .sentence, .gate].contains(app.state.opensBy) {
            buttons.append(WindowButton(action: "unlock", label: "Open \(app.name) for \(status.windowMinutes) min"))
        }
        if app.state.code == .budgetSpent {
            let (snoozes, extensions) = (status.snoozes, status.extensions)
            if snoozes.used < snoozes.perDay {
                buttons.append(
                    WindowButton(
                        action: "snooze",
                        label: "Snooze for \(settings.snooze.length.spoken) (\(snoozes.perDay - snoozes.used) of "
                            + "\(snoozes.perDay) left today)"))
            }
            if extensions.used < extensions.perDay {
                buttons.append(
                    WindowButton(
                        action: "extend",
                        label:
                            "Add \(settings.extend.length.spoken) to today's budget (\(extensions.perDay - extensions.used) "
                            + "of \(extensions.perDay) left today)"))
            }
        }
        return buttons
    }
}

/// A chess position as the page draws it: from the side to move, each square a button that the
/// script turns into a move, labelled for screen readers.
struct ChessBoardView {
    let caption: String
    let fen: String
    let ranks: [Rank]
    let files: [String]

    struct Rank {
        let label: String
        let squares: [Square]
    }

    struct Square {
        let name: String
        let shade: String
        let glyph: String
        /// "white knight"; nil for an empty square.
        let piece: String?
        /// The piece's FEN letter, for the script's promotion check.
        let letter: String
    }

    init(_ position: ChessPosition) {
        let whiteBelow = position.sideToMove == .white
        fen = position.fen
        caption = "Chess position, \(whiteBelow ? "White" : "Black") to move"
        let fileOrder = whiteBelow ? Array(0..<8) : Array((0..<8).reversed())
        files = fileOrder.map { String(Character(UnicodeScalar(UInt8(97 + $0)))) }
        ranks = (whiteBelow ? Array((0..<8).reversed()) : Array(0..<8)).map { rank in
            Rank(
                label: String(rank + 1),
                squares: fileOrder.map { file in
                    let square = rank * 8 + file
                    let piece = position.piece(at: square)
                    return Square(
                        name: squareName(square), shade: (rank + file) % 2 == 0 ? "dark" : "light",
                        glyph: piece.map { $0.kind.symbol($0.color) } ?? "",
                        piece: piece.map { "\($0.color == .white ? "white" : "black") \($0.kind.name)" },
                        letter: piece.map { $0.kind.fenLetter($0.color) } ?? "")
                })
        }
    }
}
