import Foundation
import LockrAPI
import LockrControl
import OpenAPIRuntime
import PlainText

/// Walks a person through their gate at the terminal, step by step as the daemon asks: the puzzles
/// (boards drawn, answers read), then the sentence (typed, or after the typed fallback's wait).
/// Ends the command with the daemon's message when a step cannot be passed.
struct GateWalk {
    let client: ClientOptions
    let person: PersonOption
    /// The app the gate is for (its opens today raise the difficulty).
    let app: String?
    /// Where the sentence must be spoken: type it instead, paying the wait.
    var typeInstead = false
    /// The sentence, spoken.
    var voice: VoiceClip?

    /// Passes the gate up to the sentence, and returns the sentence typed when the gate asks it
    /// typed (to be sent with the action), else nil.
    func walk() async -> String? {
        var gate = await current()
        if gate.puzzlesToSolve > 0 { gate = await solvePuzzles(gate) }
        guard let input = gate.input, let sentence = gate.sentence, !gate.sentencePassed else { return nil }
        if let voice, input != .typed {
            await say(voice)
            return nil
        }
        if input == .voice {
            guard typeInstead else {
                let cost = gate.typedFallbackSeconds.map { spoken(seconds: $0) } ?? "a wait"
                client.fail(
                    "the sentence must be spoken here: say it with --voice, or pass --type to type it after \(cost)",
                    body: Components.Schemas.ErrorBody(error: "the sentence must be spoken", code: .gateRequired))
            }
            await waitForTypedFallback()
        }
        return askSentence(sentence)
    }

    private func current() async -> Components.Schemas.GateBody {
        await client.call { try await $0.getGate(query: .init(person: person.person, app: app)).ok.body.json }
    }

    /// Asks for puzzles and answers them until none is left; a wrong answer spends the puzzle, so a
    /// new one is asked for (a cooldown ends the command).
    private func solvePuzzles(_ start: Components.Schemas.GateBody) async -> Components.Schemas.GateBody {
        var gate = start
        while gate.puzzlesToSolve > 0 {
            let issued = await client.call {
                try await $0.issueChallenges(query: .init(person: person.person), body: .json(.init(app: app)))
                    .ok.body.json
            }
            for challenge in issued.challenges { gate = await solve(challenge) ?? gate }
            gate = await current()
        }
        return gate
    }

    /// Shows one puzzle and reads answers until one counts; the gate after a right one, nil after a
    /// wrong one.
    private func solve(_ challenge: Components.Schemas.ChallengeBody) async -> Components.Schemas.GateBody? {
        guard isatty(STDIN_FILENO) == 1 else {
            client.fail(
                "the gate asks a puzzle; run this at a terminal to answer it",
                body: Components.Schemas.ErrorBody(error: "puzzle at a terminal", code: .gateRequired))
        }
        print("\nPuzzle (\(challenge.difficulty), \(spoken(seconds: challenge.expires.inSeconds)) to answer):")
        if let position = challenge.position { print(BoardDrawing.draw(fen: position)) }
        print(challenge.prompt)
        while true {
            print("> ", terminator: "")
            fflush(nil)
            guard let line = readLine(), !line.trimmed.isEmpty else {
                client.fail(
                    "nothing answered; nothing was sent",
                    body: Components.Schemas.ErrorBody(error: "nothing answered", code: .cancelled))
            }
            do {
                let answered = try await client.send {
                    try await $0.answerChallenge(
                        path: .init(id: challenge.id), query: .init(person: person.person),
                        body: .json(.init(answer: line))
                    ).ok.body.json
                }
                print("Solved.")
                return answered.gate
            } catch ControlClientError.refused(_, let body) where body.code == .unreadableAnswer {
                print(body.error)
            } catch ControlClientError.refused(_, let body)
                where body.code == .wrongAnswer && body.retryAfterSeconds == nil
            {
                print(body.error + ". Another puzzle:")
                return nil
            } catch {
                client.fail(error)
            }
        }
    }

    /// Sends the spoken sentence; ends the command when it is not heard as the sentence.
    private func say(_ voice: VoiceClip) async {
        let clip: [UInt8]
        do { clip = try voice.bytes() } catch {
            client.fail("\(error)", body: Components.Schemas.ErrorBody(error: "\(error)", code: .noClip))
        }
        print("Listening...")
        do {
            // A clip takes a few seconds to hear, more while others wait.
            let passed = try await client.send(timeout: .seconds(60)) {
                try await $0.speakSentence(query: .init(person: person.person), body: .audioWav(HTTPBody(clip)))
                    .ok.body.json
            }
            print("Heard: \"\(passed.heard ?? "")\"")
        } catch ControlClientError.refused(_, let body) where body.heard != nil {
            client.fail("\(body.error)", body: body)
        } catch {
            client.fail(error)
        }
    }

    /// Begins the typed fallback's wait and counts it down.
    private func waitForTypedFallback() async {
        let begun = await client.call {
            try await $0.beginTypedFallback(query: .init(person: person.person)).ok.body.json
        }
        guard begun.waitMilliseconds > 0 else { return }
        print("Typing instead of saying it costs a wait of \(spoken(seconds: begun.typedFrom.inSeconds)).")
        let deadline = ContinuousClock.now + .milliseconds(begun.waitMilliseconds)
        while ContinuousClock.now < deadline {
            let left = Int(((deadline - ContinuousClock.now) / .seconds(1)).rounded(.up))
            writeOut("\rType it in \(left) s... ")
            try? await Task.sleep(for: min(deadline - ContinuousClock.now, .milliseconds(250)))
        }
        print("")
    }

    private func askSentence(_ sentence: String) -> String {
        guard isatty(STDIN_FILENO) == 1 else {
            client.fail(
                "the gate asks the sentence typed; run this at a terminal (pasting is refused)",
                body: Components.Schemas.ErrorBody(
                    error: "sentence at a terminal", code: .phraseRequired, sentence: sentence))
        }
        switch SentencePrompt.ask(sentence) {
        case .typed(let typed): return typed
        case .pasted:
            client.fail(
                "pasted text is not accepted: type the sentence (nothing was sent)",
                body: Components.Schemas.ErrorBody(error: "pasted", code: .pasted))
        case .nothing:
            client.fail(
                "nothing typed; nothing was sent",
                body: Components.Schemas.ErrorBody(error: "nothing typed", code: .cancelled))
        }
    }
}
