// Prose and maths: inline markup (bold, code, maths, live expressions) split into spans, maths
// rendered as Unicode, and the word checks the parser and the device test run on prose
// (app/lessons/prose.h).
//
// [SECTION] Maths as Unicode (super/subscripts, named symbols)
// [SECTION] Words in prose: typed numbers, doubled words, bound words
// [SECTION] Inline markup: spans and live expressions
#include "app/lessons/prose.h"

#include "app/lessons/text_helpers.h"

#include <algorithm>
#include <cctype>
#include <sstream>

namespace app {

using namespace lesson_text;

// =============================================================================================
// [SECTION] Maths as Unicode
// =============================================================================================

namespace {

// Unicode forms of super- and subscript characters the fonts carry; others stay as ^x / _x.
const char* superscript(char c) {
    switch (c) {
    case '0': return "\xE2\x81\xB0"; case '1': return "\xC2\xB9"; case '2': return "\xC2\xB2";
    case '3': return "\xC2\xB3"; case '4': return "\xE2\x81\xB4"; case '5': return "\xE2\x81\xB5";
    case '6': return "\xE2\x81\xB6"; case '7': return "\xE2\x81\xB7"; case '8': return "\xE2\x81\xB8";
    case '9': return "\xE2\x81\xB9"; case '+': return "\xE2\x81\xBA"; case '-': return "\xE2\x81\xBB";
    case '(': return "\xE2\x81\xBD"; case ')': return "\xE2\x81\xBE"; case 'n': return "\xE2\x81\xBF";
    case 'i': return "\xE2\x81\xB1"; case 'd': return "\xE1\xB5\x88"; case 't': return "\xE1\xB5\x97";
    case 'k': return "\xE1\xB5\x8F"; case 'm': return "\xE1\xB5\x90"; case 'x': return "\xCB\xA3";
    case 'e': return "\xE1\xB5\x89"; case 'w': return "\xCA\xB7"; case 'j': return "\xCA\xB2";
    case 'T': return "\xE1\xB5\x80";  // U+1D40, in the fonts' 1D2C..1D6A range (viz/theme.cpp)
    default: return nullptr;
    }
}

const char* subscript(char c) {
    switch (c) {
    case '0': return "\xE2\x82\x80"; case '1': return "\xE2\x82\x81"; case '2': return "\xE2\x82\x82";
    case '3': return "\xE2\x82\x83"; case '4': return "\xE2\x82\x84"; case '5': return "\xE2\x82\x85";
    case '6': return "\xE2\x82\x86"; case '7': return "\xE2\x82\x87"; case '8': return "\xE2\x82\x88";
    case '9': return "\xE2\x82\x89"; case '+': return "\xE2\x82\x8A"; case '-': return "\xE2\x82\x8B";
    case 'a': return "\xE2\x82\x90"; case 'e': return "\xE2\x82\x91"; case 'o': return "\xE2\x82\x92";
    case 'x': return "\xE2\x82\x93"; case 'h': return "\xE2\x82\x95"; case 'k': return "\xE2\x82\x96";
    case 'l': return "\xE2\x82\x97"; case 'm': return "\xE2\x82\x98"; case 'n': return "\xE2\x82\x99";
    case 'p': return "\xE2\x82\x9A"; case 's': return "\xE2\x82\x9B"; case 't': return "\xE2\x82\x9C";
    case 'i': return "\xE1\xB5\xA2"; case 'j': return "\xE2\xB1\xBC"; case 'r': return "\xE1\xB5\xA3";
    default: return nullptr;
    }
}

// Named symbols in maths: \sqrt -> √ and friends.
const std::vector<std::pair<std::string, std::string>>& math_symbols() {
    static const std::vector<std::pair<std::string, std::string>> table = {
        {"sqrt", "\xE2\x88\x9A"}, {"times", "\xC3\x97"}, {"cdot", "\xC2\xB7"}, {"le", "\xE2\x89\xA4"},
        {"ge", "\xE2\x89\xA5"}, {"approx", "\xE2\x89\x88"}, {"to", "\xE2\x86\x92"}, {"sum", "\xE2\x88\x91"},
        {"infty", "\xE2\x88\x9E"}, {"alpha", "\xCE\xB1"}, {"beta", "\xCE\xB2"}, {"gamma", "\xCE\xB3"},
        {"sigma", "\xCF\x83"}, {"mu", "\xCE\xBC"}, {"Sigma", "\xCE\xA3"}, {"pi", "\xCF\x80"},
        {"minus", "\xE2\x88\x92"}, {"max", "max"}, {"exp", "exp"},
    };
    return table;
}

// Appends the super/subscript form of `group` (one char or a {...} group); false when one of its
// characters has no such form (the caller keeps the plain ^ / _ notation then).
bool scripted(const std::string& group, bool super, std::string& out) {
    std::string converted;
    for (char c : group) {
        const char* s = super ? superscript(c) : subscript(c);
        if (!s) return false;
        converted += s;
    }
    out += converted;
    return true;
}

// The index of the '}' matching the '{' at `open` (src.size() when unclosed).
size_t matching_group(const std::string& src, size_t open) {
    int depth = 0;
    for (size_t i = open; i < src.size(); ++i) {
        if (src[i] == '{') ++depth;
        if (src[i] == '}' && --depth == 0) return i;
    }
    return src.size();
}

}  // namespace

std::string render_math(const std::string& src) {
    std::string out;
    for (size_t i = 0; i < src.size();) {
        const char c = src[i];
        if ((c == '^' || c == '_') && i + 1 < src.size()) {
            std::string group;
            size_t next = i + 2;
            if (src[i + 1] == '{') {
                // The matching brace, nested groups included: e^{S_{ij} - m}.
                size_t close = i + 2;
                for (int depth = 1; close < src.size(); ++close) {
                    if (src[close] == '{') ++depth;
                    if (src[close] == '}' && --depth == 0) break;
                }
                if (close < src.size()) {
                    group = src.substr(i + 2, close - i - 2);
                    next = close + 1;
                } else {
                    group = src.substr(i + 1, 1);
                }
            } else {
                group = src.substr(i + 1, 1);
            }
            std::string compact;  // spaces inside a script group only separate terms
            for (char g : group)
                if (g != ' ') compact += g;
            if (!scripted(compact, c == '^', out)) {
                // Appended piece by piece: GCC 12 warns (-Wrestrict, a false positive) on
                // std::string(1, c) + "(" + ... here once render_math has a file of its own.
                out += c;
                if (group.size() > 1) {
                    out += '(';
                    out += render_math(group);
                    out += ')';
                } else {
                    out += group;
                }
            }
            i = next;
            continue;
        }
        if (c == '\\') {
            size_t j = i + 1;
            while (j < src.size() && std::isalpha(static_cast<unsigned char>(src[j]))) ++j;
            const std::string name = src.substr(i + 1, j - i - 1);
            bool found = false;
            for (const auto& [key, symbol] : math_symbols())
                if (key == name) {
                    out += symbol;
                    found = true;
                    break;
                }
            if (!found) out += src.substr(i, j - i);
            i = std::max(j, i + 1);
            // \sqrt{d} -> √d, \sqrt{d_k + 1} -> √(dₖ + 1): the group's braces never show.
            if (name == "sqrt" && i < src.size() && src[i] == '{') {
                const size_t close = matching_group(src, i);
                const std::string inner = render_math(src.substr(i + 1, close - i - 1));
                const bool single = std::all_of(inner.begin(), inner.end(), [](char ch) {
                    return std::isalnum(static_cast<unsigned char>(ch)) || (ch & 0x80);
                });
                out += single ? inner : "(" + inner + ")";
                i = std::min(close + 1, src.size());
            }
            continue;
        }
        if (c == '{') {  // a bare group only groups: its braces never show
            const size_t close = matching_group(src, i);
            out += render_math(src.substr(i + 1, close - i - 1));
            i = std::min(close + 1, src.size());
            continue;
        }
        if (c == '}') {  // an unmatched closer: drop it rather than print it
            ++i;
            continue;
        }
        if (c == '*') {
            out += "\xC2\xB7";  // a product dot reads better than an asterisk
            ++i;
            continue;
        }
        out += c;
        ++i;
    }
    return out;
}

// =============================================================================================
// [SECTION] Words in prose
// =============================================================================================

std::vector<std::string> typed_numbers(const std::string& text) {
    auto word_char = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '.'; };
    std::vector<std::string> found;
    for (size_t i = 0; i < text.size();) {
        if (!word_char(text[i])) {
            ++i;
            continue;
        }
        size_t j = i;
        while (j < text.size() && word_char(text[j])) ++j;
        std::string word = text.substr(i, j - i);
        while (!word.empty() && word.back() == '.') word.pop_back();  // a full stop ends a sentence
        if (!word.empty() && std::isdigit(static_cast<unsigned char>(word[0]))) found.push_back(word);
        i = j;
    }
    return found;
}

std::vector<std::string> doubled_words(const std::string& text) {
    // Words: runs between spaces, with the punctuation and code ticks around them stripped.
    auto strip = [](std::string w) {
        const std::string punct = "`*.,;:!?()[]\"'";
        while (!w.empty() && punct.find(w.front()) != std::string::npos) w.erase(w.begin());
        while (!w.empty() && punct.find(w.back()) != std::string::npos) w.pop_back();
        for (char& c : w) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
        return w;
    };
    std::vector<std::string> found;
    std::istringstream in(text);
    std::string word, previous;
    bool previous_ends_clause = true;
    while (in >> word) {
        const bool ends_clause = std::string(".,;:)!?").find(word.back()) != std::string::npos;
        const std::string w = strip(word);
        const bool has_letter = std::any_of(w.begin(), w.end(), [](char c) { return std::isalpha(static_cast<unsigned char>(c)); });
        if (has_letter && w == previous && !previous_ends_clause) found.push_back(w);
        previous = has_letter ? w : std::string();
        previous_ends_clause = ends_clause;
    }
    return found;
}

std::vector<std::string> typed_bound_words(const std::string& text) {
    std::string lower;
    for (char c : text) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    std::vector<std::string> found;
    // "memory-bound", "issue-bound", ... (a word ending in -bound), and "bound by".
    for (size_t at = lower.find("-bound"); at != std::string::npos; at = lower.find("-bound", at + 1)) {
        const size_t end = at + 6;
        if (end < lower.size() && std::isalpha(static_cast<unsigned char>(lower[end]))) continue;  // "-boundary"
        size_t begin = at;
        while (begin > 0 && (std::isalpha(static_cast<unsigned char>(lower[begin - 1])) || lower[begin - 1] == '-')) --begin;
        // A quoted claim ("... compute-bound", as a textbook wrote it) is a citation, not the app's verdict.
        if (std::count(lower.begin(), lower.begin() + static_cast<long>(begin), '"') % 2 == 1) continue;
        found.push_back(text.substr(begin, end - begin));
    }
    for (size_t at = lower.find("bound by"); at != std::string::npos; at = lower.find("bound by", at + 1))
        if (at == 0 || !std::isalpha(static_cast<unsigned char>(lower[at - 1]))) found.push_back(text.substr(at, 8));
    return found;
}

// =============================================================================================
// [SECTION] Inline markup
// =============================================================================================

namespace {

// The position of the `}` closing the `{` at `open`, nested braces and \-escapes skipped; npos if none.
size_t matching_brace(const std::string& line, size_t open) {
    int depth = 0;
    for (size_t i = open; i < line.size(); ++i) {
        if (line[i] == '\\') {
            ++i;
            continue;
        }
        if (line[i] == '{') ++depth;
        if (line[i] == '}' && --depth == 0) return i;
    }
    return std::string::npos;
}

// Splits at the '|' outside nested braces.
std::vector<std::string> split_top_level_bars(const std::string& text) {
    std::vector<std::string> parts(1);
    int depth = 0;
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '\\' && i + 1 < text.size()) {
            parts.back() += text.substr(i, 2);
            ++i;
            continue;
        }
        if (c == '{') ++depth;
        if (c == '}') --depth;
        if (c == '|' && depth == 0) {
            parts.emplace_back();
            continue;
        }
        parts.back() += c;
    }
    return parts;
}

}  // namespace

// `inner`: the text between the braces. Errors inside a verdict's texts go to *error.
LessonExpr parse_expr_text(const std::string& inner, int line_no, std::string* error, std::vector<std::string>* numbers) {
    LessonExpr e;
    e.source = trim(inner);
    // A verdict: {if A OP B | THEN | ELSE}; the texts are prose (live numbers, code, maths).
    if (e.source.rfind("if ", 0) == 0 || e.source == "if") {
        const std::vector<std::string> parts = split_top_level_bars(e.source);
        e.func = "if";
        e.args = words(parts.front().substr(2));
        for (size_t i = 1; i < parts.size(); ++i) {
            e.branches.push_back(trim(parts[i]));
            std::vector<ProseSpan> spans;
            std::vector<std::string> branch_numbers;
            if (std::string why = parse_inline(trim(parts[i]), line_no, spans, &branch_numbers); !why.empty() && error && error->empty())
                *error = why;
            // Marked so the warning names where they were typed: "a verdict's text".
            if (numbers)
                for (const std::string& n : branch_numbers) numbers->push_back(n[0] == '\x02' ? n : "\x02" + n);
            e.branch_spans.push_back(std::move(spans));
        }
        return e;
    }
    std::vector<std::string> parts = words(inner);
    if (!parts.empty()) {
        e.func = parts.front();
        e.args.assign(parts.begin() + 1, parts.end());
    }
    return e;
}

// Splits one source line into styled spans. Returns "" or a message (an unclosed marker). Numbers
// typed into its plain or bold text (not code, maths, live expressions or {=definitions}) are
// added to *numbers.
std::string parse_inline(const std::string& line, int line_no, std::vector<ProseSpan>& out,
                         std::vector<std::string>* numbers) {
    std::string text;
    std::string scanned;  // text with its {=definitions} blanked: what the number check reads
    auto flush = [&] {
        if (!text.empty()) {
            out.push_back({ProseSpan::Kind::text, text, {}, line_no});
            for (std::string& n : typed_numbers(scanned)) numbers->push_back(std::move(n));
        }
        text.clear();
        scanned.clear();
    };
    for (size_t i = 0; i < line.size();) {
        const char c = line[i];
        if (c == '\\' && i + 1 < line.size() && std::string("{}$*`\\").find(line[i + 1]) != std::string::npos) {
            text += line[i + 1];
            scanned += line[i + 1];
            i += 2;
            continue;
        }
        if (c == '*' && i + 1 < line.size() && line[i + 1] == '*') {
            const size_t close = line.find("**", i + 2);
            if (close == std::string::npos) return "unclosed ** (bold): close it on the same line";
            flush();
            // Bold may hold code, maths and live numbers: **{ratio bytes a b} fewer bytes**.
            std::vector<ProseSpan> inner;
            if (std::string why = parse_inline(line.substr(i + 2, close - i - 2), line_no, inner, numbers); !why.empty()) return why;
            for (ProseSpan& span : inner) {
                if (span.kind == ProseSpan::Kind::text) span.kind = ProseSpan::Kind::bold;
                out.push_back(std::move(span));
            }
            i = close + 2;
            continue;
        }
        if (c == '`' || c == '$' || c == '{') {
            const size_t close = c == '{' ? matching_brace(line, i) : line.find(c, i + 1);
            if (close == std::string::npos) {
                const std::string what = c == '`' ? "` (code)" : c == '$' ? "$ (maths)" : "{ (live expression)";
                return std::string("unclosed ") + what + ": close it on the same line (write \\" + c +
                       " for the character itself)";
            }
            const std::string inner = line.substr(i + 1, close - i - 1);
            // {=4}: a definition, the same on every device ("{=4} kernels"): plain text, part of
            // the words around it ("({=2026-11-25})." wraps as one word), not checked.
            if (c == '{' && !inner.empty() && inner[0] == '=') {
                text += inner.substr(1);
                scanned += ' ';
                i = close + 1;
                continue;
            }
            flush();
            if (c == '`') out.push_back({ProseSpan::Kind::code, inner, {}, line_no});
            else if (c == '$') out.push_back({ProseSpan::Kind::math, render_math(inner), {}, line_no});
            else {
                std::string why;
                out.push_back({ProseSpan::Kind::expr, "", parse_expr_text(inner, line_no, &why, numbers), line_no});
                if (!why.empty()) return why;
            }
            i = close + 1;
            continue;
        }
        if (c == '}') return "a } without its {: write \\} for the character itself";
        text += c;
        scanned += c;
        ++i;
    }
    flush();
    return "";
}


}  // namespace app
