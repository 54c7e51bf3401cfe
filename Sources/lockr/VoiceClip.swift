import Foundation

/// Where a spoken sentence comes from: a WAV file, or the microphone through ALSA's `arecord`
/// (16 kHz, mono, 16-bit), with a level meter, stopping after a second and a half of silence once
/// speech began, on Enter, or after 20 s.
enum VoiceClip {
    case file(String)
    case microphone

    struct Failure: Error, CustomStringConvertible {
        let description: String
    }

    /// The clip's bytes, a WAV file.
    func bytes() throws -> [UInt8] {
        switch self {
        case .file(let path):
            guard let data = FileManager.default.contents(atPath: path) else {
                throw Failure(description: "cannot read \(path)")
            }
            return Array(data)
        case .microphone: return try Self.record()
        }
    }

    static let rate = 16_000

    private static func record() throws -> [UInt8] {
        let arecord = ["/usr/bin/arecord", "/bin/arecord"].first { FileManager.default.isExecutableFile(atPath: $0) }
        guard let arecord else {
            throw Failure(
                description: "no arecord to record with (apt-get install alsa-utils); or pass --voice-file or --type")
        }
        let arguments = ["-q", "-f", "S16_LE", "-r", String(rate), "-c", "1", "-t", "raw", "-d", "20"]
        let recorder = try Recorder(arecord, arguments)
        print("Say the sentence now; it stops after a pause, or press Enter.")
        let watchesEnter = isatty(STDIN_FILENO) == 1
        var samples: [Int16] = []
        var heardSpeech = false
        var quietFrames = 0
        let frame = rate / 10
        while true {
            let chunk = recorder.read(frame * 2)
            if chunk.count < 2 { break }
            let values = chunk.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
            samples += values
            let level =
                (values.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(max(values.count, 1))).squareRoot()
                / 32768
            let bars = min(30, Int(level * 300))
            writeOut("\r[\(String(repeating: "#", count: bars))\(String(repeating: " ", count: 30 - bars))] ")
            if level > 0.02 { heardSpeech = true; quietFrames = 0 } else if heardSpeech { quietFrames += 1 }
            if quietFrames >= 15 || (watchesEnter && Self.enterPressed()) { break }
        }
        print("")
        let errors = recorder.stop()
        if samples.isEmpty {
            // ALSA explains at length; arecord's own last line says what failed.
            let said =
                String(decoding: errors, as: UTF8.self).split(separator: "\n").last.map(String.init) ?? "no output"
            throw Failure(
                description: "no sound from a microphone (\(said)); check one is plugged in and this user may "
                    + "record (the audio group), or type the sentence with --type")
        }
        return wav(samples)
    }

    /// 16 kHz mono 16-bit PCM in a RIFF/WAVE container.
    static func wav(_ samples: [Int16]) -> [UInt8] {
        func le32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8((value >> (8 * $0)) & 0xFF) } }
        func le16(_ value: Int) -> [UInt8] { (0..<2).map { UInt8((value >> (8 * $0)) & 0xFF) } }
        let data = samples.flatMap { le16(Int(UInt16(bitPattern: $0))) }
        return Array("RIFF".utf8) + le32(36 + data.count) + Array("WAVEfmt ".utf8) + le32(16) + le16(1) + le16(1)
            + le32(rate) + le32(rate * 2) + le16(2) + le16(16) + Array("data".utf8) + le32(data.count) + data
    }
}

extension VoiceClip {
    /// Whether Enter was pressed (a line is waiting on the terminal); the line is taken.
    fileprivate static func enterPressed() -> Bool {
        var input = pollfd(fd: STDIN_FILENO, events: Int16(POLLIN), revents: 0)
        guard poll(&input, 1, 0) == 1 else { return false }
        _ = readLine()
        return true
    }
}

/// `arecord` running, its sound on a pipe and what it says on another (posix_spawn).
private final class Recorder {
    private let pid: pid_t
    private let sound: Int32
    private let errors: Int32

    init(_ program: String, _ arguments: [String]) throws(VoiceClip.Failure) {
        var soundPipe: [Int32] = [0, 0]
        var errorPipe: [Int32] = [0, 0]
        guard pipe(&soundPipe) == 0, pipe(&errorPipe) == 0 else {
            throw VoiceClip.Failure(description: "cannot start \(program): \(String(cString: strerror(errno)))")
        }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, soundPipe[1], STDOUT_FILENO)
        posix_spawn_file_actions_adddup2(&actions, errorPipe[1], STDERR_FILENO)
        for descriptor in soundPipe + errorPipe { posix_spawn_file_actions_addclose(&actions, descriptor) }
        let argv = ([program] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var child: pid_t = 0
        let started = posix_spawn(&child, program, &actions, nil, argv, environ)
        close(soundPipe[1])
        close(errorPipe[1])
        guard started == 0 else {
            close(soundPipe[0])
            close(errorPipe[0])
            throw VoiceClip.Failure(description: "cannot start \(program): \(String(cString: strerror(started)))")
        }
        pid = child
        sound = soundPipe[0]
        errors = errorPipe[0]
    }

    /// Up to `count` bytes of sound, fewer only at its end.
    func read(_ count: Int) -> [UInt8] { readFully(sound, count) }

    /// Stops it if it still records, and waits for it; what it said on its standard error.
    func stop() -> [UInt8] {
        kill(pid, SIGTERM)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        close(sound)
        let said = readFully(errors, 1 << 20)
        close(errors)
        return said
    }

    private func readFully(_ descriptor: Int32, _ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        var filled = 0
        while filled < count {
            let got = bytes[filled...].withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if got > 0 {
                filled += got
            } else if got < 0 && errno == EINTR {
                continue
            } else {
                break
            }
        }
        return Array(bytes[..<filled])
    }
}
