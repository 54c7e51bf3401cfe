#ifndef CTOML_READER_H
#define CTOML_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The kind of one value of a TOML document.
typedef enum {
    TOMLReaderTable,
    TOMLReaderArray,
    TOMLReaderString,
    TOMLReaderInteger,
    TOMLReaderBoolean,
    /// A float, a date or a time: lockr's configuration has none.
    TOMLReaderOther,
} TOMLReaderKind;

/// One value of a document, in preorder: the `count` children of a table or an array follow it,
/// each with its own children.
typedef struct {
    TOMLReaderKind kind;
    /// Its key in its table (`keyLength` bytes); NULL for the document and an array's elements.
    const char *key;
    size_t keyLength;
    /// Where the value starts (1-based).
    uint32_t line;
    /// The children of a table or an array.
    size_t count;
    /// A string's bytes (`textLength` of them, which may include NUL).
    const char *text;
    size_t textLength;
    int64_t integer;
    bool boolean;
} TOMLReaderValue;

/// A parsed document and what it owns.
typedef struct TOMLReaderDocument TOMLReaderDocument;

/// Parses `length` bytes of TOML. NULL only when out of memory; free the result with
/// `toml_reader_free`.
TOMLReaderDocument *toml_reader_parse(const char *text, size_t length);

/// Why the document did not parse, with the line (1-based) in `line`; NULL when it parsed.
const char *toml_reader_error(const TOMLReaderDocument *document, uint32_t *line);

/// The document's values in preorder, the root table first (none when it did not parse).
const TOMLReaderValue *toml_reader_values(const TOMLReaderDocument *document);
size_t toml_reader_count(const TOMLReaderDocument *document);

/// Frees the document and every value and string it holds.
void toml_reader_free(TOMLReaderDocument *document);

#ifdef __cplusplus
}
#endif

#endif
