#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

/// A POSIX extended regular expression (the dialect of Pi-hole's regex lists), case-insensitive.
///
/// `regexec` on a compiled expression is thread-safe, so one instance is shared by all threads.
public final class PosixRegex: @unchecked Sendable {
    public let pattern: String
    /// The states of its automaton, about 10 bytes each (see `RegexCost`).
    public let states: Int
    private let compiled: UnsafeMutablePointer<regex_t>

    /// Compiles `pattern`; throws the C library's message when it is not a valid ERE, and why when
    /// it would cost too much to compile or to match (see `RegexCost`).
    public init(_ pattern: String) throws(RegexError) {
        states = try RegexCost.states(of: pattern)
        let compiled = UnsafeMutablePointer<regex_t>.allocate(capacity: 1)
        let status = regcomp(compiled, pattern, REG_EXTENDED | REG_ICASE | REG_NOSUB)
        guard status == 0 else {
            var message = [CChar](repeating: 0, count: 256)
            regerror(status, compiled, &message, message.count)
            compiled.deallocate()
            throw RegexError(
                message: String(decoding: message.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
        }
        self.pattern = pattern
        self.compiled = compiled
    }

    deinit {
        regfree(compiled)
        compiled.deallocate()
    }

    /// True when the expression matches somewhere in the NUL-terminated `text`.
    func matches(_ text: UnsafePointer<CChar>) -> Bool {
        regexec(compiled, text, 0, nil, 0) == 0
    }

    /// True when the expression matches somewhere in `text`.
    public func matches(_ text: String) -> Bool { text.withCString { matches($0) } }
}

/// A regular expression refused, with the C library's reason or lockr's.
public struct RegexError: Error, Equatable, Sendable {
    public let message: String
}
