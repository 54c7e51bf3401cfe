import NIOConcurrencyHelpers
import NIOCore
import NIOPosix

/// The sentence as heard: the words, the clip's length, and how long recognising took.
public struct Heard: Sendable, Equatable {
    public let transcript: String
    public let length: Duration
    public let recognition: Duration
}

/// Why a clip was not heard.
public enum HearingRefusal: Error, Equatable, Sendable, CustomStringConvertible {
    /// Not audio lockr reads (415).
    case unsupported(String)
    /// Silence, noise, too long (422).
    case unusable(String)
    /// A clip of this person's is being heard, or too many are waiting (429).
    case busy(String)
    /// No recogniser on this machine (503).
    case unavailable(String)

    public var description: String {
        switch self {
        case .unsupported(let text), .unusable(let text), .busy(let text), .unavailable(let text): text
        }
    }
}

/// Recognises clips on threads of its own, never on the DNS or API event loops: a few seconds per
/// clip delay no DNS answer. At most `threads` clips are heard at once (each thread has a decoder of
/// its own, loaded on first use), at most `waiting` more wait, and one person has one clip in
/// hand at a time.
public final class SpeechPool: Sendable {
    private let model: SpeechModel
    private let pool: NIOThreadPool
    private let capacity: Int
    private struct Books {
        var people: Set<String> = []
        var inHand = 0
        var idle: [Recognizer] = []
    }
    private let books = NIOLockedValueBox(Books())

    public init(model: SpeechModel = SpeechModel(), threads: Int = 1, waiting: Int = 3) {
        self.model = model
        capacity = threads + waiting
        pool = NIOThreadPool(numberOfThreads: threads)
        pool.start()
    }

    /// Stops the threads once the clips in hand are heard.
    public func shutdown() async throws { try await pool.shutdownGracefully() }

    /// Reads `wav`, checks it holds speech and recognises it, for `person`, leaning towards
    /// `sentence` when given (see `Recognizer.transcribe`).
    public func hear(_ wav: [UInt8], for person: String, expecting sentence: String? = nil) async throws(HearingRefusal)
        -> Heard
    {
        if let problem = model.problem { throw .unavailable(problem) }
        let library = try PocketSphinx.library.get()
        let admitted = books.withLockedValue { books -> HearingRefusal? in
            if books.people.contains(person) { return .busy("a clip of yours is being heard: wait for its answer") }
            if books.inHand >= capacity { return .busy("the recogniser is busy: try again in a few seconds") }
            books.people.insert(person)
            books.inHand += 1
            return nil
        }
        if let admitted { throw admitted }
        defer {
            books.withLockedValue { books in
                books.people.remove(person)
                books.inHand -= 1
            }
        }
        let outcome: Result<Heard, ClipProblem>
        do {
            outcome = try await pool.runIfActive { [self] in self.recognise(wav, expecting: sentence, with: library) }
        } catch {
            throw .unavailable("the recogniser is shutting down")
        }
        switch outcome {
        case .success(let heard): return heard
        case .failure(.unsupported(let why)): throw .unsupported(why)
        case .failure(.unusable(let why)): throw .unusable(why)
        }
    }

    /// Runs on a pool thread.
    private func recognise(_ wav: [UInt8], expecting sentence: String?, with library: PocketSphinx.Library)
        -> Result<Heard, ClipProblem>
    {
        Result(catching: { () throws(ClipProblem) -> Heard in
            let clip = try AudioClip(wav: wav)
            try ClipCheck.check(clip)
            let recognizer: Recognizer
            if let idle = books.withLockedValue({ $0.idle.popLast() }) {
                recognizer = idle
            } else {
                recognizer = try Recognizer(model: model, library: library)
            }
            defer { books.withLockedValue { $0.idle.append(recognizer) } }
            let started = ContinuousClock.now
            let transcript = recognizer.transcribe(clip, expecting: sentence)
            return Heard(transcript: transcript, length: clip.length, recognition: ContinuousClock.now - started)
        })
    }
}
