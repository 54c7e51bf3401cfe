/// Why a clip cannot be listened to.
public enum ClipProblem: Error, Equatable, Sendable, CustomStringConvertible {
    /// Not audio lockr reads (not WAV, or a WAV encoding it does not take): the API answers 415.
    case unsupported(String)
    /// Audio, but nothing to recognise in it: silence, noise, too long or too short.
    case unusable(String)

    public var description: String {
        switch self {
        case .unsupported(let text), .unusable(let text): text
        }
    }
}

/// A clip as the recogniser takes it: 16 kHz, mono, 16-bit samples.
public struct AudioClip: Sendable, Equatable {
    public static let sampleRate = 16_000
    /// The longest clip taken: the sentence takes 5-8 s to say.
    public static let longest: Duration = .seconds(20)

    public let samples: [Int16]

    public init(samples: [Int16]) { self.samples = samples }

    /// The clip's length.
    public var length: Duration { .milliseconds(Int64(samples.count) * 1000 / Int64(Self.sampleRate)) }

    /// Reads a WAV file: PCM of 8, 16, 24 or 32 bits or IEEE float of 32 or 64 bits, 1 to 8
    /// channels, 8 to 96 kHz; mixed to mono and resampled to 16 kHz.
    public init(wav bytes: [UInt8]) throws(ClipProblem) {
        let wave = try WAVFile(bytes)
        let seconds = Double(wave.frameCount) / Double(wave.sampleRate)
        guard seconds <= Double(Self.longest.components.seconds) else {
            throw .unusable("the clip is \(Int(seconds.rounded())) s long; say the sentence in at most 20 s")
        }
        let mono = wave.monoSamples()
        samples = Resampler.resample(mono, from: wave.sampleRate, to: Self.sampleRate).map { value in
            Int16(max(-32768, min(32767, (value * 32768).rounded())))
        }
    }
}
