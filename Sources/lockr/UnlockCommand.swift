import ArgumentParser
import LockrAPI
import LockrControl
import LockrPolicy

struct UnlockCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "unlock",
        abstract: "Open the hour's window for an app, or all guarded apps (hourly and extreme modes).",
        discussion: """
            First the mode's gate (extreme: the sentence; `gate` in the config may ask puzzles or the spoken \
            sentence too). The sentence must be typed at a terminal: pasted text is refused, and an empty line \
            or Ctrl-D sends nothing. Puzzles: a number, or a chess move in SAN (Qh7) or UCI (d3h7). Three \
            wrong answers in a row start cooldowns of 15 s, 45 s, then 120 s.
            """
    )

    @Argument(help: ArgumentHelp("Catalogue id of the app.", valueName: "APP")) var app: String?
    @Flag(help: "Every guarded app.") var all = false
    @Flag(help: "Where the sentence must be spoken, type it instead (it costs a wait first).") var type = false
    @Flag(help: "Say the sentence: recorded from the microphone with arecord (ALSA), heard by the daemon.")
    var voice = false
    @Option(help: ArgumentHelp("Say the sentence from a recorded WAV file.", valueName: "FILE.wav")) var voiceFile:
        String?
    @OptionGroup var client: ClientOptions
    @OptionGroup var person: PersonOption

    func validate() throws {
        guard (app == nil) == all else { throw ValidationError("name one app, or pass --all") }
        guard [voice, voiceFile != nil, type].filter({ $0 }).count <= 1 else {
            throw ValidationError("pass one of --voice, --voice-file and --type")
        }
    }

    func run() async throws {
        let answer = await client.perform(
            .unlock(app: app), person: person, as: Components.Schemas.UnlockResponse.self, why: nil, app: app,
            typeInstead: type,
            voice: voiceFile.map(VoiceClip.file) ?? (voice ? .microphone : nil))
        client.show(answer) { answer in
            var lines = answer.opened.map { "\($0.app ?? "all"): open until \($0.ends.spokenTime)" }
            lines += answer.alreadyOpen.map { "\($0.app ?? "all"): already open until \($0.ends.spokenTime)" }
            return lines.joined(separator: "\n")
        }
    }
}
