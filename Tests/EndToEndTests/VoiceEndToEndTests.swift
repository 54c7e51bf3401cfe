import DNSTestSupport
import Foundation
import Testing

/// The spoken sentence through the real daemon: clips synthesised with flite and sox sent by the
/// CLI and by curl, DNS answered while a clip is being heard.
extension PolicyEndToEndTests {
    static let voiceGate = "[extreme]\ninput = \"voice\"\n"

    func synthesised(_ text: String, voice: String = "slt") async throws -> String {
        let file = NSTemporaryDirectory() + "lockr-e2e-voice-\(UUID().uuidString).wav"
        #expect(try await runAwaited("flite", ["-voice", voice, "-t", text, "-o", file]).status == 0)
        return file
    }

    /// A clip sent with curl: status and JSON.
    func sendClip(
        _ lockr: LockrProcess, file: String, type: String = "audio/wav"
    ) async throws -> (status: Int, json: [String: Any]) {
        try await curlAPI(lockr, "POST", "gate/voice", type: type, body: ["--data-binary", "@\(file)"])
    }

    @Test func theSentenceSpokenInAWAVOpensTheAppAndAnotherIsRefusedWithWhatWasHeard() async throws {
        let right = try await synthesised("I am stupid enough to waste more time. Please give me another 15 minutes.")
        let wrong = try await synthesised("Open the app now, I really want to watch some videos.", voice: "kal16")
        defer { for file in [right, wrong] { try? FileManager.default.removeItem(atPath: file) } }
        try await withLockr(mode: "extreme", sections: Self.voiceGate) { lockr, _ in
            // Typed where it must be spoken: refused, with the way out.
            let typed = try await lockr.cli("unlock", "instagram")
            #expect(
                typed.status == 1 && typed.output.contains("must be spoken") && typed.output.contains("--type"),
                "\(typed.output)")
            let refused = try await lockr.cli("unlock", "instagram", "--voice-file", wrong)
            #expect(refused.status == 1 && refused.output.contains("heard \""), "\(refused.output)")
            #expect(try await gateMisses(lockr) == 1)
            let opened = try await lockr.cli("unlock", "instagram", "--voice-file", right)
            #expect(opened.status == 0 && opened.output.contains("Heard: \"i am stupid enough"), "\(opened.output)")
            #expect(opened.output.contains("instagram: open until"), "\(opened.output)")
            #expect(try await address("instagram.com.", lockr) == "192.0.2.23")
            let log = try await lockr.cli("log").output
            #expect(log.contains("sentence spoken: heard"), "\(log)")
            // Without a sound card: a clear message and the way out, nothing counted.
            let cards = (try? String(contentsOfFile: "/proc/asound/cards", encoding: .utf8)) ?? ""
            guard cards.isEmpty || cards.contains("no soundcards") else { return }
            let noMicrophone = try await lockr.cli("unlock", "youtube", "--voice")
            #expect(
                noMicrophone.status == 1 && noMicrophone.output.contains("no sound from a microphone"),
                "\(noMicrophone.output)")
            #expect(noMicrophone.output.contains("--type"))
            #expect(try await gateMisses(lockr) == 0)
        }
    }

    @Test func whatIsNoSpeechIsRefusedWithItsReasonAndDNSIsAnsweredWhileAClipIsHeard() async throws {
        let right = try await synthesised("I am stupid enough to waste more time. Please give me another 15 minutes.")
        let noise = NSTemporaryDirectory() + "lockr-e2e-noise-\(UUID().uuidString).wav"
        let random = NSTemporaryDirectory() + "lockr-e2e-random-\(UUID().uuidString).bin"
        defer { for file in [right, noise, random] { try? FileManager.default.removeItem(atPath: file) } }
        #expect(
            try await runAwaited(
                "sox", ["-n", "-r", "16000", "-c", "1", "-b", "16", noise, "synth", "4", "whitenoise"]
            ).status == 0)
        var generator = SplitMix64.forTest()
        try Data((0..<5000).map { _ in UInt8.random(in: 0...255, using: &generator) }).write(
            to: URL(fileURLWithPath: random))
        try await withLockr(mode: "extreme", sections: Self.voiceGate) { lockr, _ in
            let garbage = try await sendClip(lockr, file: random)
            #expect(garbage.status == 415 && (garbage.json["error"] as? String)?.contains("not a WAV file") == true)
            let mislabelled = try await sendClip(lockr, file: right, type: "audio/mpeg")
            #expect(mislabelled.status == 415 && mislabelled.json["code"] as? String == "unsupported_audio")
            let hiss = try await sendClip(lockr, file: noise)
            #expect(hiss.status == 422 && (hiss.json["error"] as? String)?.contains("noise, not speech") == true)
            #expect(try await gateMisses(lockr) == 0, "a clip with no speech is no attempt")
            // DNS keeps answering while a clip is heard on the speech pool's thread.
            let (token, api) = try controlEndpoint(lockr)
            let curl = Process()
            curl.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
            curl.arguments = [
                "-s", "-X", "POST", "-H", "Authorization: Bearer \(token)", "-H", "Content-Type: audio/wav",
                "--data-binary", "@\(right)", "http://\(api)/api/v1/gate/voice",
            ]
            let output = Pipe()
            curl.standardOutput = output
            try curl.run()
            try await Task.sleep(for: .milliseconds(200))
            var answered = 0
            for _ in 0..<5 where try await address("news.example.", lockr) == "192.0.2.24" { answered += 1 }
            #expect(answered == 5 && curl.isRunning, "DNS answered while the clip was heard")
            let body = output.fileHandleForReading.readDataToEndOfFile()
            curl.waitUntilExit()
            let heard = try JSONSerialization.jsonObject(with: body) as? [String: Any] ?? [:]
            #expect((heard["recognition_milliseconds"] as? Int ?? 0) > 0, "\(heard)")
            #expect(lockr.process.isRunning)
        }
    }
}
