// Helpers shared by the fuzz targets: turn libFuzzer's byte buffer into the inputs our parsers
// take (argument vectors, comma lists, a selector byte). Header-only so each target is one file.
#pragma once

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace fuzz {

// A broken property: says which target and what, with the input, then aborts (libFuzzer keeps the input).
[[noreturn]] inline void fail(const char* target, const std::string& what, const std::string& input) {
    std::fprintf(stderr, "%s: %s\n  input: [%s]\n", target, what.c_str(), input.c_str());
    std::abort();
}

// Lines in a text as a parser counts them (a last line without '\n' counts).
inline int line_count(const std::string& text) {
    int lines = 1;
    for (char c : text) lines += c == '\n';
    return lines;
}

// Splits on '\n' (seed files stay readable: one argument per line). Empty pieces are kept:
// an empty argument is legal input to a command line.
inline std::vector<std::string> split_lines(const std::string& text, size_t max_pieces = 64) {
    std::vector<std::string> pieces;
    std::string current;
    for (char c : text) {
        if (c == '\n') {
            pieces.push_back(current);
            current.clear();
            if (pieces.size() >= max_pieces) return pieces;
        } else {
            current += c;
        }
    }
    if (!current.empty()) pieces.push_back(current);
    return pieces;
}

// Consumes bytes from the front of the input; returns 0 once it is used up.
struct ByteReader {
    const uint8_t* data;
    size_t size;
    uint8_t next() {
        if (size == 0) return 0;
        --size;
        return *data++;
    }
    std::string rest() const { return std::string(reinterpret_cast<const char*>(data), size); }
};

}  // namespace fuzz
