import DNSTestSupport
import Foundation
import LockrPolicy
import Testing

@testable import LockrSpeech

/// Clips made with flite (speech) and sox (silence, noise, other formats), heard by PocketSphinx.
@Suite(.serialized) struct SpeechTests {
    static let sentence = "I am stupid enough to waste more time. Please give me another 15 minutes."
    static let pool = SpeechPool(threads: 1)
    /// The sentence as it is said, which recognition leans towards.
    static let said = PhraseGate.spokenForm(of: sentence)

    /// A temporary file path ending in `name`.
    func path(_ name: String) -> String { NSTemporaryDirectory() + "lockr-speech-\(UUID().uuidString)-\(name)" }

    func spoken(_ text: String, voice: String) throws -> [UInt8] {
        let file = path("\(voice).wav")
        defer { try? FileManager.default.removeItem(atPath: file) }
        let made = try run("flite", ["-voice", voice, "-t", text, "-o", file])
        #expect(made.status == 0, "\(made.output)")
        return Array(try Data(contentsOf: URL(fileURLWithPath: file)))
    }

    func sox(_ arguments: [String], input: [UInt8]? = nil) throws -> [UInt8] {
        let output = path("out.wav")
        let source = path("in.wav")
        defer { for file in [output, source] { try? FileManager.default.removeItem(atPath: file) } }
        if let input { try Data(input).write(to: URL(fileURLWithPath: source)) }
        let made = try run("sox", arguments.map { $0 == "IN" ? source : $0 == "OUT" ? output : $0 })
        #expect(made.status == 0, "\(made.output)")
        return Array(try Data(contentsOf: URL(fileURLWithPath: output)))
    }

    /// Why `pool` refused `bytes`, or nil when it heard them.
    func refusal(_ bytes: [UInt8], pool: SpeechPool = SpeechTests.pool) async -> HearingRefusal? {
        do {
            _ = try await pool.hear(bytes, for: "refusals")
            return nil
        } catch {
            return error
        }
    }

    func accepted(_ heard: Heard) -> Bool {
        PhraseGate.accepts(spoken: heard.transcript, sentence: Self.sentence, strictness: .normal)
    }

    @Test(arguments: ["slt", "kal16", "awb", "rms"])
    func theSentenceSpokenIsHeardInEachVoice(_ voice: String) async throws {
        let heard = try await Self.pool.hear(try spoken(Self.sentence, voice: voice), for: voice, expecting: Self.said)
        print("voice \(voice): heard \"\(heard.transcript)\" in \(heard.recognition) for a \(heard.length) clip")
        #expect(accepted(heard), "\(voice) heard as \"\(heard.transcript)\"")
    }

    @Test(arguments: ["slt", "kal16"])
    func anotherSentenceSpokenIsRefused(_ voice: String) async throws {
        for other in [
            "Open the app now, I really want to watch some videos.",
            "I am smart enough to save my time. Please give me nothing more today.",
        ] {
            let heard = try await Self.pool.hear(try spoken(other, voice: voice), for: voice, expecting: Self.said)
            #expect(!accepted(heard), "\(voice): \"\(other)\" heard as \"\(heard.transcript)\" and taken")
        }
    }

    @Test func otherRatesChannelsAndEncodingsAreHeardAlike() async throws {
        let clip = try spoken(Self.sentence, voice: "slt")
        for format in [
            ["-r", "44100", "-c", "2", "-b", "24"], ["-r", "16000", "-c", "1", "-b", "8", "-e", "unsigned-integer"],
            ["-r", "48000", "-c", "1", "-b", "32", "-e", "floating-point"], ["-r", "22050", "-c", "2", "-b", "16"],
        ] {
            let converted = try sox(["-D", "IN"] + format + ["OUT"], input: clip)
            let heard = try await Self.pool.hear(converted, for: "formats", expecting: Self.said)
            #expect(accepted(heard), "\(format): heard \"\(heard.transcript)\"")
        }
    }

    @Test func silenceNoiseAndLongClipsAreRefusedWithTheirReason() async throws {
        let cases: [([String], String)] = [
            (["-n", "-r", "16000", "-c", "1", "-b", "16", "OUT", "trim", "0", "3"], "the clip is silent"),
            (
                ["-n", "-r", "44100", "-c", "2", "-b", "16", "OUT", "synth", "3", "whitenoise", "vol", "0.001"],
                "the clip is silent"
            ),
            (
                ["-n", "-r", "16000", "-c", "1", "-b", "16", "OUT", "synth", "4", "whitenoise", "vol", "0.5"],
                "noise, not speech"
            ),
            (
                ["-n", "-r", "16000", "-c", "1", "-b", "16", "OUT", "synth", "4", "pinknoise", "vol", "0.5"],
                "noise, not speech"
            ),
            (
                ["-n", "-r", "16000", "-c", "1", "-b", "16", "OUT", "synth", "4", "brownnoise", "vol", "0.5"],
                "noise, not speech"
            ),
            (
                ["-n", "-r", "16000", "-c", "1", "-b", "16", "OUT", "synth", "25", "sine", "300"],
                "say the sentence in at most 20 s"
            ),
        ]
        for (arguments, reason) in cases {
            let refused = await refusal(try sox(arguments))
            guard case .unusable(let why) = refused else {
                Issue.record("\(arguments): \(String(describing: refused))")
                continue
            }
            #expect(why.contains(reason), "\(arguments): \(why)")
        }
    }

    @Test func whatIsNoWAVIsRefusedAsUnsupported() async throws {
        var random = SplitMix64.forTest()
        let noise = (0..<4096).map { _ in UInt8.random(in: 0...255, using: &random) }
        // An MP3 file begins with an ID3 tag or a frame sync; either way it is no RIFF/WAVE.
        let mp3 = Array("ID3".utf8) + [3, 0, 0, 0, 0, 0x21] + [0xFF, 0xFB, 0x90, 0x64] + noise
        var adpcm = try spoken("hello", voice: "slt")
        adpcm[20] = 2  // the format tag: Microsoft ADPCM
        for (bytes, reason) in [
            (noise, "not a WAV file"), (mp3, "not a WAV file"), ([], "not a WAV file"),
            (adpcm, "WAV format 2 with 16-bit samples"),
        ] {
            let refused = await refusal(bytes)
            guard case .unsupported(let why) = refused else {
                Issue.record("\(reason): \(String(describing: refused))")
                continue
            }
            #expect(why.contains(reason), "\(why)")
        }
    }

    @Test func onePersonHasOneClipInHandAtATime() async throws {
        let clip = try spoken(Self.sentence, voice: "slt")
        let pool = SpeechPool(threads: 1, waiting: 0)
        async let first = pool.hear(clip, for: "ada", expecting: Self.said)
        try await Task.sleep(for: .milliseconds(100))
        await #expect(throws: HearingRefusal.busy("a clip of yours is being heard: wait for its answer")) {
            try await pool.hear(clip, for: "ada")
        }
        await #expect(throws: HearingRefusal.busy("the recogniser is busy: try again in a few seconds")) {
            try await pool.hear(clip, for: "bob")
        }
        #expect(accepted(try await first))
        #expect(accepted(try await pool.hear(clip, for: "bob", expecting: Self.said)))
        try await pool.shutdown()
    }

    @Test func aMissingModelSaysWhatToInstall() async throws {
        let pool = SpeechPool(model: SpeechModel(directory: "/nonexistent"), threads: 1)
        await #expect(throws: HearingRefusal.self) { try await pool.hear([], for: "x") }
        #expect(SpeechModel(directory: "/nonexistent").problem?.contains("apt-get install pocketsphinx-en-us") == true)
        try await pool.shutdown()
    }
}
