#include <pocketsphinx.h>

/// A decoder configuration: cmd_ln_init is variadic, which Swift cannot call. The decoder's own log
/// goes nowhere; lockr reports what matters.
static inline cmd_ln_t *lockr_ps_config(const char *hmm, const char *lm, const char *dict) {
    return cmd_ln_init(NULL, ps_args(), TRUE, "-hmm", hmm, "-lm", lm, "-dict", dict, "-logfn", "/dev/null", NULL);
}

/// Makes the search `name` the default language model mixed with the one in the ARPA file at
/// `path` (the sentence's words, in order), `weight` going to the latter, and makes it current.
/// Other sentences stay recognisable through the default model. Returns 0, or <0 on failure.
static inline int lockr_ps_bias(ps_decoder_t *ps, const char *name, const char *path, float weight) {
    if (ps_get_lm(ps, name) != NULL) return ps_set_search(ps, name);
    ngram_model_t *generic = ps_get_lm(ps, "_default");
    if (generic == NULL) return -1;
    ngram_model_t *sentence = ngram_model_read(NULL, path, NGRAM_ARPA, logmath_retain(ps_get_logmath(ps)));
    if (sentence == NULL) return -2;
    ngram_model_t *models[2] = {ngram_model_retain(generic), sentence};
    char *names[2] = {"generic", "sentence"};
    float32 weights[2] = {1.0f - weight, weight};
    ngram_model_t *set = ngram_model_set_init(NULL, models, names, weights, 2);
    if (set == NULL) return -3;
    int result = ps_set_lm(ps, name, set);
    ngram_model_free(set);
    if (result < 0) return -4;
    return ps_set_search(ps, name);
}
