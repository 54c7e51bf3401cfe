import CPocketSphinx
import Foundation
import PlainText

/// Where the acoustic model, language model and dictionary are: Debian's `pocketsphinx-en-us`
/// by default.
public struct SpeechModel: Sendable, Equatable {
    public let directory: String

    public static let debianDirectory = "/usr/share/pocketsphinx/model/en-us"

    public init(directory: String = Self.debianDirectory) { self.directory = directory }

    var acousticModel: String { directory + "/en-us" }
    var languageModel: String { directory + "/en-us.lm.bin" }
    var dictionary: String { directory + "/cmudict-en-us.dict" }

    /// What is missing, in words, or nil when the model is all there.
    public var problem: String? {
        let missing = [acousticModel + "/mdef", languageModel, dictionary].filter {
            !FileManager.default.fileExists(atPath: $0)
        }
        guard let first = missing.first else { return nil }
        return "speech recognition needs the en-us model (\(first) is missing; apt-get install pocketsphinx-en-us)"
    }
}

/// PocketSphinx's functions, from the library loaded (dlopen) the first time a clip is heard:
/// lockr starts without it, and runs without it where it is not installed.
enum PocketSphinx {
    struct Library: @unchecked Sendable {
        var functions = lockr_ps_library()
    }

    /// Debian's libpocketsphinx3 (which brings libsphinxbase3).
    static let file = "libpocketsphinx.so.3"

    /// The functions, or in words why the library could not be loaded.
    static let library = load(file)

    /// The functions of the library `file`, or in words why it could not be loaded.
    static func load(_ file: String) -> Result<Library, HearingRefusal> {
        var library = Library()
        var reason = [CChar](repeating: 0, count: 512)
        guard lockr_ps_load(file, &library.functions, &reason, reason.count) == 0 else {
            let words = String(decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            return .failure(
                .unavailable("speech recognition needs PocketSphinx (\(words); apt-get install libpocketsphinx3)"))
        }
        return .success(library)
    }
}

/// One PocketSphinx decoder: it takes one clip at a time and is used from one thread at a time
/// (`SpeechPool` hands each to one of its threads, under its lock).
final class Recognizer: @unchecked Sendable {
    private var library: lockr_ps_library
    private let decoder: OpaquePointer

    /// A decoder of `model` made with `library`'s functions.
    init(model: SpeechModel, library: PocketSphinx.Library) throws(ClipProblem) {
        self.library = library.functions
        guard model.problem == nil,
            let config = lockr_ps_configure(&self.library, model.acousticModel, model.languageModel, model.dictionary),
            let decoder = self.library.ps_init(config)
        else {
            throw .unusable(model.problem ?? "the speech recogniser could not load its model from \(model.directory)")
        }
        _ = self.library.cmd_ln_free_r(config)
        self.decoder = decoder
    }

    deinit { _ = library.ps_free(decoder) }

    /// How much of the mixed language model is the sentence's.
    static let sentenceWeight: Float = 0.7

    private func lean(towards sentence: String) {
        let words = sentence.lowercased().split { !$0.isLetter && $0 != "'" }.map(String.init)
        guard !words.isEmpty else { return }
        let name = "sentence-" + String(UInt64(bitPattern: Int64(words.joined(separator: " ").hashValue)), radix: 16)
        let path = (ProcessInfo.processInfo.environment["TMPDIR"] ?? "/tmp") + "/lockr-\(name)-\(getpid()).arpa"
        do {
            try Self.arpa(words).write(toFile: path, atomically: true, encoding: .utf8)
        } catch {
            _ = library.ps_set_search(decoder, "_default")
            return
        }
        defer { try? FileManager.default.removeItem(atPath: path) }
        if lockr_ps_bias(&library, decoder, name, path, Self.sentenceWeight) < 0 {
            _ = library.ps_set_search(decoder, "_default")
        }
    }

    /// A bigram language model in ARPA format in which `words` follow one another.
    static func arpa(_ words: [String]) -> String {
        var unigrams = ["<s>", "</s>"]
        for word in words where !unigrams.contains(word) { unigrams.append(word) }
        var bigrams: [String] = []
        for (first, second) in zip(["<s>"] + words, words + ["</s>"]) where !bigrams.contains("\(first) \(second)") {
            bigrams.append("\(first) \(second)")
        }
        let probability = PlainText.fixed(-Foundation.log10(Double(unigrams.count)), decimals: 4)
        return """
            \\data\\
            ngram 1=\(unigrams.count)
            ngram 2=\(bigrams.count)

            \\1-grams:
            \(unigrams.map { "\(probability) \($0) -0.3000" }.joined(separator: "\n"))

            \\2-grams:
            \(bigrams.map { "-0.0500 \($0)" }.joined(separator: "\n"))

            \\end\\

            """
    }

    /// The words heard in `clip`, lower case, separated by single spaces (empty when none). With
    /// `sentence` (as said: numbers in words), recognition leans towards its words in their order,
    /// through a language model of the sentence mixed with the general one; other sentences are
    /// still heard as what they are.
    func transcribe(_ clip: AudioClip, expecting sentence: String?) -> String {
        if let sentence { lean(towards: sentence) } else { _ = library.ps_set_search(decoder, "_default") }
        _ = library.ps_start_utt(decoder)
        clip.samples.withUnsafeBufferPointer { samples in
            _ = library.ps_process_raw(decoder, samples.baseAddress, samples.count, 0, 1)
        }
        _ = library.ps_end_utt(decoder)
        guard let hypothesis = library.ps_get_hyp(decoder, nil) else { return "" }
        return String(cString: hypothesis).split(separator: " ").filter { !$0.hasPrefix("<") && !$0.hasPrefix("[") }
            .joined(separator: " ")
    }
}
