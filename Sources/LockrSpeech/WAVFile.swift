import Foundation

/// The parts of a RIFF WAVE file lockr reads: the format and the sample data.
struct WAVFile {
    enum Encoding {
        case integer(bits: Int)
        case float(bits: Int)
    }

    let encoding: Encoding
    let channels: Int
    let sampleRate: Int
    /// The sample bytes (a data chunk that claims more than the file holds is cut to what it holds,
    /// as `arecord` writing to a pipe leaves it).
    let data: ArraySlice<UInt8>

    var bytesPerFrame: Int {
        switch encoding {
        case .integer(let bits), .float(let bits): bits / 8 * channels
        }
    }

    var frameCount: Int { data.count / bytesPerFrame }

    init(_ bytes: [UInt8]) throws(ClipProblem) {
        guard bytes.count >= 12, Self.tag(bytes, 0) == "RIFF", Self.tag(bytes, 8) == "WAVE" else {
            throw .unsupported("not a WAV file: send PCM audio in a RIFF/WAVE container (audio/wav)")
        }
        var offset = 12
        var format: (encoding: Encoding, channels: Int, rate: Int)?
        while offset + 8 <= bytes.count {
            let id = Self.tag(bytes, offset)
            let size = Int(Self.uint32(bytes, offset + 4))
            let body = offset + 8
            if id == "fmt " {
                format = try Self.format(bytes, at: body, size: size)
            } else if id == "data" {
                guard let format else { throw .unsupported("a WAV file whose data comes before its format") }
                encoding = format.encoding
                channels = format.channels
                sampleRate = format.rate
                data = bytes[body..<min(bytes.count, body + size)]
                guard data.count >= bytesPerFrame else { throw .unusable("the clip holds no sound") }
                return
            }
            offset = body + size + (size & 1)
        }
        throw .unsupported("a WAV file without a data chunk")
    }

    private static func format(
        _ bytes: [UInt8], at offset: Int, size: Int
    ) throws(ClipProblem)
        -> (encoding: Encoding, channels: Int, rate: Int)
    {
        guard size >= 16, offset + 16 <= bytes.count else { throw .unsupported("a WAV file with a short format chunk") }
        var tag = Int(uint16(bytes, offset))
        let channels = Int(uint16(bytes, offset + 2))
        let rate = Int(uint32(bytes, offset + 4))
        let bits = Int(uint16(bytes, offset + 14))
        // WAVE_FORMAT_EXTENSIBLE: the real format is the first two bytes of the sub-format GUID.
        if tag == 0xFFFE, size >= 40, offset + 26 <= bytes.count { tag = Int(uint16(bytes, offset + 24)) }
        guard (1...8).contains(channels) else { throw .unsupported("\(channels) channels; 1 to 8 are taken") }
        guard (8000...96_000).contains(rate) else {
            throw .unsupported("a sample rate of \(rate) Hz; 8 to 96 kHz are taken")
        }
        switch (tag, bits) {
        case (1, 8), (1, 16), (1, 24), (1, 32): return (.integer(bits: bits), channels, rate)
        case (3, 32), (3, 64): return (.float(bits: bits), channels, rate)
        default:
            throw .unsupported(
                "WAV format \(tag) with \(bits)-bit samples; PCM (8, 16, 24, 32 bits) or float (32, 64 bits) are taken")
        }
    }

    /// The samples, channels averaged, as -1...1.
    func monoSamples() -> [Float] {
        let frames = frameCount
        var mono = [Float](repeating: 0, count: frames)
        data.withUnsafeBytes { raw in
            for frame in 0..<frames {
                var sum: Float = 0
                for channel in 0..<channels {
                    sum += sample(raw, at: frame * bytesPerFrame + channel * bytesPerFrame / channels)
                }
                mono[frame] = sum / Float(channels)
            }
        }
        return mono
    }

    private func sample(_ raw: UnsafeRawBufferPointer, at offset: Int) -> Float {
        switch encoding {
        case .integer(bits: 8): return (Float(raw[offset]) - 128) / 128
        case .integer(bits: 16):
            return Float(Int16(bitPattern: UInt16(raw[offset]) | UInt16(raw[offset + 1]) << 8)) / 32768
        case .integer(bits: 24):
            let value = Int32(
                bitPattern: UInt32(raw[offset]) << 8 | UInt32(raw[offset + 1]) << 16 | UInt32(raw[offset + 2]) << 24)
            return Float(value >> 8) / 8_388_608
        case .integer:
            return Float(Int32(bitPattern: raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self).littleEndian))
                / 2_147_483_648
        case .float(bits: 32):
            return Float(bitPattern: raw.loadUnaligned(fromByteOffset: offset, as: UInt32.self).littleEndian)
        case .float:
            return Float(Double(bitPattern: raw.loadUnaligned(fromByteOffset: offset, as: UInt64.self).littleEndian))
        }
    }

    private static func tag(_ bytes: [UInt8], _ offset: Int) -> String {
        guard offset + 4 <= bytes.count else { return "" }
        return String(decoding: bytes[offset..<offset + 4], as: UTF8.self)
    }

    private static func uint16(_ bytes: [UInt8], _ offset: Int) -> UInt16 {
        guard offset + 2 <= bytes.count else { return 0 }
        return UInt16(bytes[offset]) | UInt16(bytes[offset + 1]) << 8
    }

    private static func uint32(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        guard offset + 4 <= bytes.count else { return 0 }
        return (0..<4).reduce(0) { $0 | UInt32(bytes[offset + $1]) << (8 * $1) }
    }
}

/// Sample-rate conversion by windowed-sinc interpolation: each output sample is the input
/// band-limited below the lower of the two Nyquist frequencies (so nothing aliases when the rate
/// drops), read at its own instant.
enum Resampler {
    /// Zero crossings of the sinc on each side of a sample.
    static let halfWidth = 8
    /// Points of the kernel table per zero crossing: read between two points, the kernel is off by
    /// less than 1e-6, well under a 16-bit sample's step (3e-5).
    static let pointsPerCrossing = 1024
    /// The Hann-windowed sinc from 0 to `halfWidth` crossings, tabulated once: the sine and cosine
    /// it takes would otherwise be computed for each of the 16-96 taps of every output sample.
    static let kernel: [Float] = (0...halfWidth * pointsPerCrossing + 1).map { point in
        let x = Double(point) / Double(pointsPerCrossing)
        guard x < Double(halfWidth) else { return 0 }
        let sinc = x == 0 ? 1 : Foundation.sin(Double.pi * x) / (Double.pi * x)
        return Float(sinc * (0.5 + 0.5 * Foundation.cos(Double.pi * x / Double(halfWidth))))
    }

    static func resample(_ input: [Float], from inRate: Int, to outRate: Int) -> [Float] {
        guard inRate != outRate, !input.isEmpty else { return input }
        let step = Double(inRate) / Double(outRate)
        let cutoff = min(1, 1 / step)
        let reach = Double(halfWidth) / cutoff
        let count = Int(Double(input.count) / step)
        let scale = cutoff * Double(pointsPerCrossing)
        var output = [Float](repeating: 0, count: count)
        input.withUnsafeBufferPointer { samples in
            kernel.withUnsafeBufferPointer { kernel in
                for index in 0..<count {
                    let center = Double(index) * step
                    let first = max(0, Int((center - reach).rounded(.up)))
                    let last = min(samples.count - 1, Int(center + reach))
                    var sum: Float = 0
                    if first <= last {
                        for position in first...last {
                            let point = abs(Double(position) - center) * scale
                            let below = min(Int(point), kernel.count - 2)
                            let fraction = Float(point - Double(below))
                            let weight = kernel[below] + (kernel[below + 1] - kernel[below]) * fraction
                            sum += samples[position] * weight
                        }
                    }
                    output[index] = sum * Float(cutoff)
                }
            }
        }
        return output
    }
}
