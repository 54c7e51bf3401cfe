// toml++ (Debian's libtomlplusplus-dev, compiled in here header-only) read into a flat list of
// plain values that one call frees: what TOMLKit never freed of a parsed document.
#include "CTOMLReader.h"

#include <deque>
#include <new>
#include <string>
#include <string_view>
#include <vector>

#include <toml++/toml.h>

struct TOMLReaderDocument {
    std::vector<TOMLReaderValue> values;
    /// The keys' and strings' bytes, at addresses that never move.
    std::deque<std::string> texts;
    bool failed = false;
    std::string error;
    uint32_t errorLine = 0;

    const std::string &keep(std::string_view bytes) { return texts.emplace_back(bytes); }

    /// Adds `node` and, after it, everything it holds (toml++ nests at most 256 deep).
    void add(const toml::node &node, const std::string *key) {
        TOMLReaderValue value{};
        if (key) {
            value.key = key->data();
            value.keyLength = key->size();
        }
        value.line = node.source().begin.line;
        if (auto table = node.as_table()) {
            value.kind = TOMLReaderTable;
            value.count = table->size();
            values.push_back(value);
            for (auto &&[name, child] : *table) add(child, &keep(name.str()));
        } else if (auto array = node.as_array()) {
            value.kind = TOMLReaderArray;
            value.count = array->size();
            values.push_back(value);
            for (auto &&child : *array) add(child, nullptr);
        } else {
            if (auto string = node.as_string()) {
                const std::string &text = keep(string->get());
                value.kind = TOMLReaderString;
                value.text = text.data();
                value.textLength = text.size();
            } else if (auto integer = node.as_integer()) {
                value.kind = TOMLReaderInteger;
                value.integer = integer->get();
            } else if (auto boolean = node.as_boolean()) {
                value.kind = TOMLReaderBoolean;
                value.boolean = boolean->get();
            } else {
                value.kind = TOMLReaderOther;
            }
            values.push_back(value);
        }
    }
};

extern "C" TOMLReaderDocument *toml_reader_parse(const char *text, size_t length) {
    auto document = new (std::nothrow) TOMLReaderDocument();
    if (!document) return nullptr;
    try {
        toml::parse_result result = toml::parse(std::string_view(text, length));
        if (!result) {
            document->failed = true;
            document->error = std::string(result.error().description());
            document->errorLine = result.error().source().begin.line;
        } else {
            document->add(result.table(), nullptr);
        }
    } catch (const std::bad_alloc &) {
        delete document;
        return nullptr;
    }
    return document;
}

extern "C" const char *toml_reader_error(const TOMLReaderDocument *document, uint32_t *line) {
    if (!document->failed) return nullptr;
    *line = document->errorLine;
    return document->error.c_str();
}

extern "C" const TOMLReaderValue *toml_reader_values(const TOMLReaderDocument *document) {
    return document->values.data();
}

extern "C" size_t toml_reader_count(const TOMLReaderDocument *document) { return document->values.size(); }

extern "C" void toml_reader_free(TOMLReaderDocument *document) { delete document; }
