/// Tells a clip with speech in it from silence and from noise, before the recogniser is asked:
/// speech comes in syllables (its loudness rises and falls from one 20 ms frame to the next), a fan
/// or hiss holds one level, and white noise crosses zero about every other sample.
enum ClipCheck {
    /// A frame is sound above about -40 dBFS.
    static let soundLevel: Float = 0.01
    /// Less than this much sound is silence.
    static let shortestSound = 0.3
    /// Spread of the sounding frames' levels (standard deviation over mean): speech measures 0.5-0.65
    /// (flite's voices), steady noise 0.04-0.22 (white, pink and brown).
    static let steadiest: Float = 0.3
    /// Zero crossings per sample in sounding frames: speech about 0.1, white noise about 0.5.
    static let busiest: Float = 0.35

    static func check(_ clip: AudioClip) throws(ClipProblem) {
        let frame = AudioClip.sampleRate / 50
        var levels: [Float] = []
        var crossings: [Float] = []
        var start = 0
        while start + frame <= clip.samples.count {
            let samples = clip.samples[start..<start + frame].map { Float($0) / 32768 }
            let level = (samples.reduce(0) { $0 + $1 * $1 } / Float(frame)).squareRoot()
            if level > soundLevel {
                levels.append(level)
                crossings.append(Float(zip(samples, samples.dropFirst()).filter { ($0 < 0) != ($1 < 0) }.count) / Float(frame))
            }
            start += frame
        }
        guard Double(levels.count) * 0.02 >= shortestSound else {
            throw .unusable("the clip is silent: no speech was heard (check the microphone and its level)")
        }
        let mean = levels.reduce(0, +) / Float(levels.count)
        let spread = (levels.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Float(levels.count)).squareRoot() / mean
        let crossingRate = crossings.reduce(0, +) / Float(crossings.count)
        guard spread >= steadiest, crossingRate <= busiest else {
            throw .unusable("the clip is noise, not speech: say the sentence somewhere quieter, closer to the microphone")
        }
    }
}
