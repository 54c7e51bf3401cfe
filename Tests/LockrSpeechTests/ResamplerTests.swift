import Foundation
import Testing

@testable import LockrSpeech

/// Rate conversion keeps what is below the lower Nyquist frequency and removes what is above it.
struct ResamplerTests {
    func sine(hertz: Double, rate: Int, seconds: Double = 0.5) -> [Float] {
        (0..<Int(Double(rate) * seconds)).map { Float(0.5 * sin(2 * Double.pi * hertz * Double($0) / Double(rate))) }
    }

    /// The samples away from both ends, where the kernel reaches past the clip.
    func middle(_ samples: [Float]) -> ArraySlice<Float> { samples[200..<(samples.count - 200)] }

    @Test(arguments: [8000, 22050, 44100, 48000, 96000])
    func aToneBelowBothNyquistFrequenciesKeepsItsShape(rate: Int) {
        let converted = Resampler.resample(sine(hertz: 1000, rate: rate), from: rate, to: 16000)
        let expected = sine(hertz: 1000, rate: 16000)
        #expect(abs(converted.count - expected.count) <= 1)
        let error = zip(middle(converted), middle(expected)).map { abs($0 - $1) }.max() ?? 1
        #expect(error < 0.002, "\(rate) Hz: off by \(error)")
    }

    @Test(arguments: [(44100, 11000.0), (48000, 10500.0), (96000, 30000.0)])
    func aToneAboveTheNewNyquistFrequencyIsRemovedNotFoldedBack(rate: Int, hertz: Double) {
        let converted = Resampler.resample(sine(hertz: hertz, rate: rate), from: rate, to: 16000)
        let loudest = middle(converted).map(abs).max() ?? 1
        #expect(loudest < 0.01, "\(hertz) Hz at \(rate) Hz left \(loudest) (of 0.5)")
    }

    @Test func theTabulatedKernelIsTheWindowedSincItStandsFor() {
        let width = Double(Resampler.halfWidth)
        var worst = 0.0
        for step in 0..<80_000 {
            let x = Double(step) / 10_000 + 0.000_037
            let sinc = sin(Double.pi * x) / (Double.pi * x)
            let exact = sinc * (0.5 + 0.5 * cos(Double.pi * x / width))
            let point = x * Double(Resampler.pointsPerCrossing)
            let below = Int(point)
            let read =
                Double(Resampler.kernel[below])
                + Double(Resampler.kernel[below + 1] - Resampler.kernel[below]) * (point - Double(below))
            worst = max(worst, abs(read - exact))
        }
        #expect(worst < 2e-6, "the table is off by up to \(worst)")
    }
}
