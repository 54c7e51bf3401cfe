#!/bin/sh
# Writes OUTPUT, a Swift file holding each FILE's text as a raw string literal under its name
# (`EmbeddedAssets.text["app.mustache"]`), without the file's final newline. Run by the
# EmbedWebAssets build plugin; a file holding the literal's closing delimiter is refused.
set -eu
output="$1"
shift
delimiter='"""####'
{
    echo "// Made by Plugins/EmbedWebAssets from the files in Assets/: edit those, not this."
    echo "enum EmbeddedAssets {"
    echo "    static let text: [String: String] = ["
    for file in "$@"; do
        if grep -qF "$delimiter" "$file"; then
            echo "embed.sh: $file holds $delimiter, which would end its literal" >&2
            exit 1
        fi
        printf '        "%s": ####"""\n' "$(basename "$file")"
        cat "$file"
        # A file's final newline is the literal's own line break before its closing delimiter.
        [ -z "$(tail -c 1 "$file")" ] || echo
        echo "$delimiter,"
    done
    echo "    ]"
    echo "}"
} > "$output.tmp"
mv "$output.tmp" "$output"
