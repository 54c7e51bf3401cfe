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
            throw Failure(description: "no arecord to record with (apt-get install alsa-utils); or pass --voice-file or --type")
        }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: arecord)
        process.arguments = ["-q", "-f", "S16_LE", "-r", String(rate), "-c", "1", "-t", "raw", "-d", "20"]
        let audio = Pipe()
        let errors = Pipe()
        process.standardOutput = audio
        process.standardError = errors
        try process.run()
        print("Say the sentence now; it stops after a pause, or press Enter.")
        let enter = isatty(STDIN_FILENO) == 1 ? EnterKey() : nil
        var samples: [Int16] = []
        var heardSpeech = false
        var quietFrames = 0
        let frame = rate / 10
        while true {
            let chunk = audio.fileHandleForReading.readData(ofLength: frame * 2)
            if chunk.isEmpty { break }
            let values = chunk.withUnsafeBytes { Array($0.bindMemory(to: Int16.self)) }
            samples += values
            let level = (values.reduce(0.0) { $0 + Double($1) * Double($1) } / Double(max(values.count, 1))).squareRoot() / 32768
            let bars = min(30, Int(level * 300))
            FileHandle.standardOutput.write(Data("\r[\(String(repeating: "#", count: bars))\(String(repeating: " ", count: 30 - bars))] ".utf8))
            if level > 0.02 { heardSpeech = true; quietFrames = 0 } else if heardSpeech { quietFrames += 1 }
            if quietFrames >= 15 || enter?.pressed == true { break }
        }
        print("")
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        if samples.isEmpty {
            // ALSA explains at length; arecord's own last line says what failed.
            let said = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                .split(separator: "\n").last.map(String.init) ?? "no output"
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

/// Watches standard input for Enter while recording.
private final class EnterKey: @unchecked Sendable {
    private var seen = false
    private let lock = NSLock()

    init() {
        Thread.detachNewThread { [self] in
            _ = readLine()
            lock.withLock { seen = true }
        }
    }

    var pressed: Bool { lock.withLock { seen } }
}
