import Testing

@testable import LockrSpeech

/// PocketSphinx is loaded when a clip is first heard; where it cannot be, hearing is refused as
/// unavailable (503), in words that say what to install.
@Suite struct PocketSphinxLoadingTests {
    func reason(_ loaded: Result<PocketSphinx.Library, HearingRefusal>) -> String? {
        guard case .failure(.unavailable(let words)) = loaded else { return nil }
        return words
    }

    @Test func aMissingLibraryIsNamedWithWhatToInstall() {
        let words = reason(PocketSphinx.load("libpocketsphinx-not-here.so.3"))
        #expect(words?.contains("libpocketsphinx-not-here.so.3") == true, "\(words ?? "loaded")")
        #expect(words?.hasSuffix("apt-get install libpocketsphinx3)") == true, "\(words ?? "loaded")")
    }

    @Test func aLibraryWithoutItsFunctionsIsRefused() {
        let words = reason(PocketSphinx.load("libz.so.1"))
        #expect(words?.contains("libz.so.1 has no cmd_ln_init") == true, "\(words ?? "loaded")")
    }

    @Test func debiansLibraryHasEveryFunction() throws {
        let library = try PocketSphinx.library.get().functions
        #expect(library.ps_init != nil && library.ngram_model_free != nil)
    }
}
