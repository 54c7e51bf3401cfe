import Foundation
import PlainText
import Testing

/// Against Foundation's own answers, which these replace.
@Suite struct PlainTextTests {
    @Test func fixedDecimalsAsPrintfGivesThem() {
        var generator = SystemRandomNumberGenerator()
        var values: [Double] = [0, 1, -1, 0.5, 1.5, 2.5, 0.05, 99.95, 0.0004, 123456.789, -3.25, 1e-9, 0.1, 0.2, 0.3]
        for _ in 0..<2_000 { values.append(Double.random(in: -10_000...10_000, using: &generator)) }
        for value in values {
            for decimals in 0...4 {
                let expected = String(format: "%.\(decimals)f", value)
                let ours = PlainText.fixed(value, decimals: decimals)
                // printf rounds the exact binary value; a value a hair's breadth from a half may
                // round the other way: then the two differ by one in the last digit, never more.
                if ours != expected {
                    let difference = (Double(ours)! - Double(expected)!).magnitude
                    #expect(
                        difference <= pow(10, -Double(decimals)) * 1.000001, "\(value) \(decimals): \(ours) \(expected)"
                    )
                }
            }
        }
        #expect(PlainText.fixed(0.1234, decimals: 3) == "0.123")
        #expect(PlainText.fixed(-0.0004, decimals: 3) == "0.000")
        #expect(PlainText.fixed(.nan, decimals: 1) == "nan" && PlainText.fixed(-.infinity, decimals: 1) == "-inf")
    }

    @Test func paddedAsPercentZeroDGivesIt() {
        for value in [0, 7, 10, 59, 123, -5] {
            #expect(PlainText.padded(value, to: 2) == String(format: "%02d", value), "\(value)")
        }
    }

    @Test func hexOfBytes() {
        #expect(PlainText.hex([0x00, 0x0f, 0xa0, 0xff]) == "000fa0ff")
        #expect(PlainText.hex([UInt8]()) == "")
    }

    @Test func lastPathComponentAsNSStringGivesIt() {
        // Not "//": swift-corelibs-foundation gives "" there, Apple's Foundation "/".
        for path in ["/a/b.txt", "/a/b/", "b", "/", "", "/a//b//", "a/", "./x", "/x/y.rpz"] {
            #expect(PlainText.lastPathComponent(path) == (path as NSString).lastPathComponent, "\(path)")
        }
    }

    @Test func trimmedAsFoundationTrimsWhiteSpaceAndLineEnds() {
        for text in ["  a b  ", "\ta\n", "", "   ", "x", " \u{00A0}é \u{2003}", "a\r\n"] {
            #expect(text.trimmed == text.trimmingCharacters(in: .whitespacesAndNewlines), "\(text.debugDescription)")
        }
    }

    @Test func percentEncodedAsFoundationEncodesOutsideTheUnreserved() {
        let unreserved = CharacterSet(
            charactersIn: "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~")
        for text in ["plain", "../status", "a b&c=d", "Zoë's café ☕", "%41", "", "?#[]@!$'()*+,;"] {
            #expect(
                PlainText.percentEncoded(text) == text.addingPercentEncoding(withAllowedCharacters: unreserved),
                "\(text)")
        }
    }

    @Test func deletingLastPathComponentAsNSStringDoes() {
        for path in ["/a/b.txt", "/a/b/", "/a", "/", "", "/a//b", "a/b", "/var/lib/lockr", "./x"] {
            #expect(
                PlainText.deletingLastPathComponent(path) == (path as NSString).deletingLastPathComponent, "\(path)")
        }
        // swift-corelibs-foundation 6.3 stops the program on a bare name; Apple's gives "".
        #expect(PlainText.deletingLastPathComponent("state") == "")
    }
}
