#include <dlfcn.h>
#include <stddef.h>
#include <stdio.h>

// CMU PocketSphinx (Debian's libpocketsphinx3 and libsphinxbase3), loaded with dlopen when a
// sentence is first to be heard, not linked: lockr starts without it and its dependencies (BLAS,
// LAPACK, gfortran), and runs where it is not installed. The functions lockr calls are declared
// here as PocketSphinx 5prealpha's headers declare them (int32 is int, int16 short, float32 float),
// with opaque types in place of its own.

typedef struct lockr_ps_decoder lockr_ps_decoder;    // ps_decoder_t
typedef struct lockr_ps_config lockr_ps_config;      // cmd_ln_t
typedef struct lockr_ps_arguments lockr_ps_arguments;  // arg_t
typedef struct lockr_ps_ngram lockr_ps_ngram;        // ngram_model_t
typedef struct lockr_ps_logmath lockr_ps_logmath;    // logmath_t

/// The PocketSphinx functions lockr calls, found in the loaded library.
typedef struct lockr_ps_library {
    lockr_ps_config *(*cmd_ln_init)(lockr_ps_config *, const lockr_ps_arguments *, int, ...);
    const lockr_ps_arguments *(*ps_args)(void);
    int (*cmd_ln_free_r)(lockr_ps_config *);
    lockr_ps_decoder *(*ps_init)(lockr_ps_config *);
    int (*ps_free)(lockr_ps_decoder *);
    int (*ps_set_search)(lockr_ps_decoder *, const char *);
    int (*ps_start_utt)(lockr_ps_decoder *);
    int (*ps_process_raw)(lockr_ps_decoder *, const short *, size_t, int, int);
    int (*ps_end_utt)(lockr_ps_decoder *);
    const char *(*ps_get_hyp)(lockr_ps_decoder *, int *);
    lockr_ps_ngram *(*ps_get_lm)(lockr_ps_decoder *, const char *);
    int (*ps_set_lm)(lockr_ps_decoder *, const char *, lockr_ps_ngram *);
    lockr_ps_logmath *(*ps_get_logmath)(lockr_ps_decoder *);
    lockr_ps_logmath *(*logmath_retain)(lockr_ps_logmath *);
    lockr_ps_ngram *(*ngram_model_read)(lockr_ps_config *, const char *, int, lockr_ps_logmath *);
    lockr_ps_ngram *(*ngram_model_retain)(lockr_ps_ngram *);
    lockr_ps_ngram *(*ngram_model_set_init)(lockr_ps_config *, lockr_ps_ngram **, char **, const float *, int);
    int (*ngram_model_free)(lockr_ps_ngram *);
} lockr_ps_library;

/// Loads `file` (libpocketsphinx.so.3, which brings libsphinxbase.so.3) and fills `library`.
/// Returns 0, or -1 with the reason in `reason` (dlerror's words).
static inline int lockr_ps_load(const char *file, lockr_ps_library *library, char *reason, size_t reasonSize) {
    void *handle = dlopen(file, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        snprintf(reason, reasonSize, "%s", dlerror());
        return -1;
    }
#define LOCKR_PS_FIND(name)                                                                \
    if ((*(void **)&library->name = dlsym(handle, #name)) == NULL) {                       \
        snprintf(reason, reasonSize, "%s has no %s", file, #name);                         \
        return -1;                                                                         \
    }
    LOCKR_PS_FIND(cmd_ln_init)
    LOCKR_PS_FIND(ps_args)
    LOCKR_PS_FIND(cmd_ln_free_r)
    LOCKR_PS_FIND(ps_init)
    LOCKR_PS_FIND(ps_free)
    LOCKR_PS_FIND(ps_set_search)
    LOCKR_PS_FIND(ps_start_utt)
    LOCKR_PS_FIND(ps_process_raw)
    LOCKR_PS_FIND(ps_end_utt)
    LOCKR_PS_FIND(ps_get_hyp)
    LOCKR_PS_FIND(ps_get_lm)
    LOCKR_PS_FIND(ps_set_lm)
    LOCKR_PS_FIND(ps_get_logmath)
    LOCKR_PS_FIND(logmath_retain)
    LOCKR_PS_FIND(ngram_model_read)
    LOCKR_PS_FIND(ngram_model_retain)
    LOCKR_PS_FIND(ngram_model_set_init)
    LOCKR_PS_FIND(ngram_model_free)
#undef LOCKR_PS_FIND
    return 0;
}

/// A decoder configuration: cmd_ln_init is variadic, which Swift cannot call. The decoder's own log
/// goes nowhere; lockr reports what matters.
static inline lockr_ps_config *lockr_ps_configure(
    const lockr_ps_library *library, const char *hmm, const char *lm, const char *dict) {
    return library->cmd_ln_init(
        NULL, library->ps_args(), 1, "-hmm", hmm, "-lm", lm, "-dict", dict, "-logfn", "/dev/null", NULL);
}

/// Makes the search `name` the default language model mixed with the one in the ARPA file at
/// `path` (the sentence's words, in order), `weight` going to the latter, and makes it current.
/// Other sentences stay recognisable through the default model. Returns 0, or <0 on failure.
static inline int lockr_ps_bias(
    const lockr_ps_library *library, lockr_ps_decoder *ps, const char *name, const char *path, float weight) {
    enum { arpaFile = 1 };  // NGRAM_ARPA
    if (library->ps_get_lm(ps, name) != NULL) return library->ps_set_search(ps, name);
    lockr_ps_ngram *generic = library->ps_get_lm(ps, "_default");
    if (generic == NULL) return -1;
    lockr_ps_ngram *sentence =
        library->ngram_model_read(NULL, path, arpaFile, library->logmath_retain(library->ps_get_logmath(ps)));
    if (sentence == NULL) return -2;
    lockr_ps_ngram *models[2] = {library->ngram_model_retain(generic), sentence};
    char *names[2] = {"generic", "sentence"};
    float weights[2] = {1.0f - weight, weight};
    lockr_ps_ngram *set = library->ngram_model_set_init(NULL, models, names, weights, 2);
    if (set == NULL) return -3;
    int result = library->ps_set_lm(ps, name, set);
    library->ngram_model_free(set);
    if (result < 0) return -4;
    return library->ps_set_search(ps, name);
}
