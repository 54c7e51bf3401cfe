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
        clip.samples.withUnsafeBufferPointer { samples in
            while start + frame <= samples.count {
                // One pass over the frame, nothing allocated: its energy and its sign changes.
                var energy: Float = 0
                var signChanges = 0
                for index in start..<start + frame {
                    let value = Float(samples[index]) / 32768
                    energy += value * value
                    if index > start, (samples[index - 1] < 0) != (samples[index] < 0) { signChanges += 1 }
                }
                let level = (energy / Float(frame)).squareRoot()
                if level > soundLevel {
                    levels.append(level)
                    crossings.append(Float(signChanges) / Float(frame))
                }
                start += frame
            }
        }
        guard Double(levels.count) * 0.02 >= shortestSound else {
            throw .unusable("the clip is silent: no speech was heard (check the microphone and its level)")
        }
        let mean = levels.reduce(0, +) / Float(levels.count)
        let spread = (levels.reduce(0) { $0 + ($1 - mean) * ($1 - mean) } / Float(levels.count)).squareRoot() / mean
        let crossingRate = crossings.reduce(0, +) / Float(crossings.count)
        guard spread >= steadiest, crossingRate <= busiest else {
            throw .unusable(
                "the clip is noise, not speech: say the sentence somewhere quieter, closer to the microphone")
        }
    }
}
