// [SECTION] Small text helpers
// [SECTION] Highlight ids and the expression vocabulary (with the level each counts or shows)
// [SECTION] Inline prose: bold, code, maths, live expressions; doubled and bound words
// [SECTION] Glossary (lessons/glossary.terms)
// [SECTION] The line parser (and the first-use check of glossary terms)
// [SECTION] Checking a finished step (levels against the highlight, typed limiters, doubled words)
// [SECTION] Live expressions: evaluation (verdicts on numbers, refusals, counters, limiter classes)
// [SECTION] Finding lesson files
#include "app/core/lesson.h"

#include "app/core/export.h"
#include "app/core/platform.h"
#include "app/core/platform_file.h"
#include "app/core/views.h"
#include "kernels/core/format.h"
#include "viz/model/memory_player.h"
#include "viz/model/roofline.h"
#include "kernels/core/registry.h"
#include "kernels/sim/sim_backend.h"
#include "kernels/core/timeline.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

#ifndef FUSIONLAB_LESSONS_DIR
#define FUSIONLAB_LESSONS_DIR ""
#endif

namespace app {

namespace fs = std::filesystem;

std::string LessonError::text() const { return file + ":" + std::to_string(line) + ": " + message; }

namespace {

// =============================================================================================
// [SECTION] Small text helpers
// =============================================================================================

std::string trim(const std::string& s) {
    size_t a = 0, b = s.size();
    while (a < b && std::isspace(static_cast<unsigned char>(s[a]))) ++a;
    while (b > a && std::isspace(static_cast<unsigned char>(s[b - 1]))) --b;
    return s.substr(a, b - a);
}

// Words separated by spaces or commas: "unfused, fused" -> {"unfused", "fused"}.
std::vector<std::string> words(const std::string& s) {
    std::vector<std::string> out;
    std::string word;
    for (char c : s) {
        if (std::isspace(static_cast<unsigned char>(c)) || c == ',') {
            if (!word.empty()) out.push_back(word);
            word.clear();
        } else {
            word += c;
        }
    }
    if (!word.empty()) out.push_back(word);
    return out;
}

std::string join(const std::vector<std::string>& items, const std::string& sep) {
    std::string out;
    for (const std::string& s : items) out += (out.empty() ? "" : sep) + s;
    return out;
}

std::string variant_names(std::string w) {
    std::vector<std::string> names;
    for (const auto& v : kernels::variants(w)) names.push_back(v.name);
    return join(names, ", ");
}

std::string param_names(std::string w) {
    std::vector<std::string> names;
    for (const auto& spec : kernels::param_specs(w)) names.push_back(spec.name);
    return join(names, ", ");
}

std::string workload_names() { return join(kernels::workload_names(), ", "); }

const kernels::ParamSpec* spec_named(std::string w, const std::string& name) {
    for (const auto& spec : kernels::param_specs(w))
        if (name == spec.name) return &spec;
    return nullptr;
}

bool parse_number(const std::string& text, double& out) {
    if (text.empty()) return false;
    char* end = nullptr;
    out = std::strtod(text.c_str(), &end);
    return end && *end == '\0';
}

std::string printf_text(const char* format, double v) {
    char text[64];
    std::snprintf(text, sizeof text, format, v);
    return text;
}

}  // namespace

// =============================================================================================
// [SECTION] Highlight ids and the expression vocabulary
// =============================================================================================

namespace {
constexpr int kDram = static_cast<int>(Level::dram);
constexpr int kL2sm = static_cast<int>(Level::l2sm);
constexpr int kOnchip = static_cast<int>(Level::onchip);
}  // namespace

const char* level_word(Level l) {
    switch (l) {
    case Level::dram: return "DRAM";
    case Level::l2sm: return "L2\xE2\x86\x92SM";
    case Level::onchip: return "on chip";
    case Level::none: break;
    }
    return "";
}

namespace {
std::string levels_text(int levels) {
    std::vector<std::string> words_;
    for (Level l : {Level::dram, Level::l2sm, Level::onchip})
        if (levels & static_cast<int>(l)) words_.emplace_back(level_word(l));
    return words_.empty() ? std::string("no bytes") : join(words_, " and ");
}
}  // namespace

// What each highlighted element shows, read from the panels that draw it: the bytes chart stacks
// each buffer's DRAM bytes from the L2 reuse model (app/gui/panel_charts.cpp byte_series); the
// results table has one row per level (DRAM, L2 -> SM, shared) and the DRAM counters
// (panel_results_table.cpp bytes_rows); the takeaway compares DRAM bytes; the memory view's HBM
// squares, byte race and footer count DRAM bytes (viz/memory_view.cpp, panel_memory.cpp
// add_notes); its L2 box shows hits and misses (L2 -> SM requests against DRAM); its SM box the
// tiles on chip and the loads that fill them.
const std::vector<HighlightInfo>& highlight_ids() {
    static const std::vector<HighlightInfo> table = {
        {"results.takeaway", "results", "the one-sentence takeaway above the charts (DRAM bytes, time)", kDram},
        {"results.time_chart", "results", "the time chart (median, min-max whiskers)", 0},
        {"results.bytes_chart", "results", "the DRAM bytes chart (model, stacked by buffer or kernel)", kDram},
        {"results.table", "results", "the results table: DRAM, L2\xE2\x86\x92SM and shared bytes (model), DRAM (counters)",
         kDram | kL2sm | kOnchip},
        {"memory.hbm", "memory", "the HBM tensors of the memory animation, with their DRAM bytes", kDram},
        {"memory.l2", "memory", "the L2 cache of the memory animation: L2\xE2\x86\x92SM requests, hits and DRAM misses",
         kDram | kL2sm},
        {"memory.sram", "memory", "the SMs' on-chip memory (shared memory / registers) and the loads that fill it",
         kOnchip | kL2sm},
        {"memory.footer", "memory", "the memory animation's notes: modeled and measured time and DRAM bytes", kDram},
        {"memory.race", "memory", "the DRAM byte race between two variants side by side", kDram},
    };
    return table;
}

const HighlightInfo* find_highlight(const std::string& id) {
    for (const HighlightInfo& h : highlight_ids())
        if (id == h.id) return &h;
    return nullptr;
}

const std::vector<ExprInfo>& expr_vocabulary() {
    static const std::vector<ExprInfo> table = {
        {"measured.time", "VARIANT", "median time of the variant's last measurement"},
        {"measured.dram_gbps", "VARIANT", "achieved DRAM bandwidth: modeled DRAM bytes / measured median time (the table's bandwidth row)"},
        {"measured.dram_percent", "VARIANT", "that DRAM bandwidth as % of the device's copy ceiling (or datasheet peak)"},
        {"measured.tflops", "VARIANT", "achieved FLOP rate: model FLOPs / measured median time"},
        {"measured.dram", "VARIANT", "DRAM bytes read + written, from the hardware counters"},
        {"measured.dram_per_l2sm", "VARIANT", "counter DRAM bytes / modeled L2\xE2\x86\x92SM bytes: the share of the requests DRAM served"},
        {"measured.dram_per_model", "VARIANT", "counter DRAM bytes / modeled DRAM bytes: how well the L2 reuse model did"},
        {"measured.error", "VARIANT", "relative L2 error against the float64 CPU reference"},
        {"measured.dram_intensity", "VARIANT", "model FLOPs / DRAM bytes the counters read (the roofline's DRAM intensity, measured)"},
        {"timeline.span", "VARIANT", "one run on the timeline: first kernel's start to last kernel's end"},
        {"timeline.busy", "VARIANT", "the time the GPU ran a kernel of that run (the timeline's GPU busy)"},
        {"timeline.idle", "VARIANT", "the share of the run the GPU ran none of its kernels, in % (the timeline's GPU idle)"},
        {"timeline.gap", "VARIANT", "the median gap between two kernels on the timeline"},
        {"timeline.kernels", "VARIANT", "kernels drawn on the timeline for one run"},
        {"model.dram", "VARIANT", "modeled DRAM bytes read + written: the L2 reuse model on this device's L2 (the bytes chart)"},
        {"model.dram_read", "VARIANT", "modeled DRAM bytes read"},
        {"model.dram_written", "VARIANT", "modeled DRAM bytes written"},
        {"model.l2sm", "VARIANT", "modeled L2\xE2\x86\x92SM bytes: every load and store the kernels ask for (sum of the tile schedule)"},
        {"model.l2sm_read", "VARIANT", "modeled L2\xE2\x86\x92SM bytes read"},
        {"model.l2sm_written", "VARIANT", "modeled SM\xE2\x86\x92L2 bytes written"},
        {"model.onchip", "VARIANT", "modeled shared-memory bytes, on chip (128 B per wavefront)"},
        {"model.flops", "VARIANT", "modeled FLOPs"},
        {"model.kernels", "VARIANT", "kernel launches per run"},
        {"model.l2sm_intensity", "VARIANT", "arithmetic intensity at L2: model FLOPs / modeled L2\xE2\x86\x92SM bytes"},
        {"model.dram_intensity", "VARIANT", "arithmetic intensity at DRAM: model FLOPs / modeled DRAM bytes (L2 reuse model)"},
        {"model.limiter", "VARIANT", "the resource the calibrated model says sets the variant's time on this device"},
        {"model.bound", "VARIANT", "that limiter as a kind: memory-bound, compute-bound, issue-bound, latency-bound, launch-bound, bound on chip"},
        {"model.time", "VARIANT", "the calibrated model's time for the variant on this device (what a simulated GPU shows)"},
        {"model.dram_buffer", "VARIANT BUFFER", "modeled DRAM bytes one buffer (S, P, x, h1, ...) moves, read + written"},
        {"model.l2sm_buffer", "VARIANT BUFFER", "modeled L2\xE2\x86\x92SM bytes one buffer moves, read + written"},
        {"model.tensor", "VARIANT BUFFER", "one buffer's footprint in memory: its size, not its traffic"},
        {"model.min_dram", "", "the fewest DRAM bytes any implementation must move (inputs read once, output written once)"},
        {"model.registers", "VARIANT", "registers per thread of the variant's row kernel or flash_tc (ptxas; sm_90)"},
        {"model.spill_bytes", "VARIANT", "register-spill traffic to and from local memory (ptxas bytes x threads)"},
        {"model.spill_past_l1", "VARIANT", "share of the spill traffic L1 cannot hold on this device (estimate)"},
        {"ratio", "EXPR A B", "{EXPR A} / {EXPR B} for a numeric expression of one variant: measured.time, model.dram, model.l2sm, measured.dram, model.flops, model.kernels, ..."},
        {"device.name", "", "the device the numbers come from"},
        {"device.bandwidth", "", "the DRAM bandwidth ceiling in use (measured copy; simulated: the calibrated copy; else datasheet)"},
        {"device.tflops", "", "the tensor-core roof the roofline draws: the cuBLAS GEMM measured on this GPU (simulated: the calibrated GEMM rate), else the peak"},
        {"device.ridge", "", "ridge point: that tensor roof / the bandwidth ceiling, in FLOP per byte (as on the roofline)"},
        {"device.smem", "", "shared memory one block may use (with opt-in)"},
        {"device.l2", "", "L2 cache size"},
        {"device.sms", "", "the device's SM count"},
        {"device.kind", "", "simulated, recorded or measured: where this device's numbers come from"},
        {"model.ctas", "VARIANT", "thread blocks (CTAs) the variant's largest kernel launches"},
        {"model.kernel_flops_per_element", "VARIANT KERNEL", "FLOPs the model counts per element in one kernel of the variant (gelu, layernorm, ...)"},
        {"model.kernel_dram_intensity", "VARIANT KERNEL", "one kernel's FLOPs / its modeled DRAM bytes (FLOP/B)"},
        {"param", "NAME", "the current value of a parameter (N, d, rows, br, ...) or dtype"},
        {"refusal", "VARIANT", "why this device cannot run the variant with these parameters (unavailable when it runs)"},
        {"if", "A OP B | THEN | ELSE", "a verdict: THEN when the live comparison holds (OP: < <= > >=), else ELSE; or refused V, runs V, counters V, recorded, simulated, model.limiter V is CLASS"},
        {"term", "KEY", "a glossary term: the word, with its definition on hover and in exports"},
    };
    return table;
}

// Expression names of earlier builds that did not say which level they count, with the one to use.
static const char* renamed_expr(const std::string& func) {
    static const std::vector<std::pair<const char*, const char*>> table = {
        {"model.bytes", "model.l2sm (L2\xE2\x86\x92SM) or model.dram (DRAM)"},
        {"model.read", "model.l2sm_read or model.dram_read"},
        {"model.written", "model.l2sm_written or model.dram_written"},
        {"model.shared", "model.onchip"},
        {"model.intensity", "model.l2sm_intensity or model.dram_intensity"},
        {"model.buffer", "model.dram_buffer or model.l2sm_buffer"},
        {"model.min_bytes", "model.min_dram"},
        {"measured.bytes", "measured.dram"},
        {"measured.gbps", "measured.dram_gbps"},
        {"measured.percent", "measured.dram_percent"},
        {"measured.dram_ratio", "measured.dram_per_l2sm"},
        {"measured.dram_vs_model", "measured.dram_per_model"},
    };
    for (const auto& [old_name, now] : table)
        if (func == old_name) return now;
    return nullptr;
}

int expr_levels(const LessonExpr& e);

Level expr_level(const LessonExpr& e) {
    const int l = expr_levels(e);
    return l & kDram ? Level::dram : l & kL2sm ? Level::l2sm : l & kOnchip ? Level::onchip : Level::none;
}

namespace {

const ExprInfo* find_expr(const std::string& func) {
    for (const ExprInfo& e : expr_vocabulary())
        if (func == e.func) return &e;
    return nullptr;
}

size_t expected_args(const ExprInfo& e) {
    if (std::string(e.func) == "ratio") return 3;
    if (std::string(e.func) == "if") return 0;  // checked on its own: check_if
    return words(e.args).size();
}

std::string func_names() {
    std::vector<std::string> names;
    for (const ExprInfo& e : expr_vocabulary()) names.emplace_back(e.func);
    return join(names, ", ");
}

// =============================================================================================
// [SECTION] Inline prose
// =============================================================================================

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
            if (!scripted(compact, c == '^', out))
                out += std::string(1, c) + (group.size() > 1 ? "(" + render_math(group) + ")" : group);
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
// [SECTION] Glossary
// =============================================================================================

namespace {
std::string lower_text(const std::string& s) {
    std::string out;
    for (char c : s) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return out;
}
}  // namespace

const GlossaryTerm* Glossary::find(const std::string& key) const {
    const std::string k = lower_text(trim(key));
    for (const GlossaryTerm& t : terms) {
        if (lower_text(t.key) == k) return &t;
        for (const std::string& a : t.aliases)
            if (lower_text(a) == k) return &t;
    }
    return nullptr;
}

// Format: `@term KEY`, optionally `@also ALIAS, ALIAS`, then the definition's lines (maths in $..$
// rendered), up to the next @term. // comments and blank lines are skipped.
Glossary parse_glossary(const std::string& path, const std::string& text) {
    Glossary g;
    g.path = path;
    std::istringstream in(text);
    std::string line;
    int no = 0;
    auto finish = [&] {
        if (!g.terms.empty() && trim(g.terms.back().definition).empty())
            g.errors.push_back({path, g.terms.back().line, "term '" + g.terms.back().key + "' has no definition"});
    };
    while (std::getline(in, line)) {
        ++no;
        if (!line.empty() && line.back() == '\r') line.pop_back();
        const std::string t = trim(line);
        if (t.empty() || t.rfind("//", 0) == 0) continue;
        if (t.rfind("@term ", 0) == 0) {
            finish();
            const std::string key = trim(t.substr(6));
            if (g.find(key)) g.errors.push_back({path, no, "term '" + key + "' is defined twice"});
            g.terms.push_back({key, {}, "", no});
            continue;
        }
        if (t.rfind("@also ", 0) == 0 && !g.terms.empty()) {
            std::string alias;
            for (char c : t.substr(6) + ",") {
                if (c == ',') {
                    if (!trim(alias).empty()) g.terms.back().aliases.push_back(trim(alias));
                    alias.clear();
                } else {
                    alias += c;
                }
            }
            continue;
        }
        if (t[0] == '@' || g.terms.empty()) {
            g.errors.push_back({path, no, "expected @term KEY, @also ALIASES or the definition's text"});
            continue;
        }
        // The definition: plain text with $maths$ rendered.
        std::string rendered;
        for (size_t i = 0; i < t.size(); ++i) {
            if (t[i] == '$') {
                const size_t close = t.find('$', i + 1);
                if (close == std::string::npos) {
                    g.errors.push_back({path, no, "unclosed $ (maths)"});
                    rendered += t.substr(i);
                    break;
                }
                rendered += render_math(t.substr(i + 1, close - i - 1));
                i = close;
                continue;
            }
            if (t[i] != '`') rendered += t[i];
        }
        std::string& d = g.terms.back().definition;
        d += (d.empty() ? "" : " ") + rendered;
    }
    finish();
    return g;
}

const Glossary& shipped_glossary() {
    static const Glossary g = [] {
        const std::string dir = lessons_dir();
        const std::string path = (fs::path(dir) / "glossary.terms").string();
        std::ifstream in(path, std::ios::binary);
        if (dir.empty() || !in) {
            Glossary none;
            none.path = path;
            none.errors.push_back({path, 0, "cannot read the glossary"});
            return none;
        }
        std::ostringstream text;
        text << in.rdbuf();
        return parse_glossary(path, text.str());
    }();
    return g;
}

void linked_terms(const std::vector<ProseSpan>& spans, std::vector<std::string>& out) {
    for (const ProseSpan& s : spans) {
        if (s.kind != ProseSpan::Kind::expr) continue;
        if (s.expr.func == "term") {
            const std::string key = join(s.expr.args, " ");
            const GlossaryTerm* t = shipped_glossary().find(key);
            const std::string k = t ? t->key : key;
            if (std::find(out.begin(), out.end(), k) == out.end()) out.push_back(k);
        }
        for (const auto& branch : s.expr.branch_spans) linked_terms(branch, out);
    }
}

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

std::string parse_inline(const std::string& line, int line_no, std::vector<ProseSpan>& out,
                         std::vector<std::string>* numbers);

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

// =============================================================================================
// [SECTION] The line parser
// =============================================================================================

class Parser {
public:
    Parser(const std::string& path, LessonParse& result) : path_(path), r_(result) {
        r_.lesson.path = path;
        r_.lesson.name = fs::path(path).stem().string();
    }

    void line(int no, std::string text) {
        if (!text.empty() && text.back() == '\r') text.pop_back();
        const std::string t = trim(text);
        if (t.rfind("//", 0) == 0) return;  // a comment for the lesson's author
        if (t.empty()) {
            end_paragraph();
            return;
        }
        if (t[0] == '@') {
            end_paragraph();
            directive(no, t);
            return;
        }
        prose(no, t);
    }

    void finish(int last_line) {
        end_paragraph();
        if (recall_) {
            error(recall_line_, "unclosed @recall block: add @end after its answer");
            close_recall();
        }
        end_step();
        check_terms_linked_first();
        if (!title_seen_) error(1, "missing @lesson TITLE (the lesson's first directive)");
        if (r_.lesson.steps.empty()) error(std::max(1, last_line), "the lesson has no @step");
    }

private:
    void error(int line, const std::string& message) { r_.errors.push_back({path_, line, message}); }

    // Terms explained before their first use: the first time a lesson's prose says a glossary
    // word (its key or an alias, as a whole word in plain or bold text), it must be the {term}
    // link, or come after one. A student may open any lesson first, so each lesson links its own.
    void check_terms_linked_first() {
        const Glossary& g = shipped_glossary();
        if (g.terms.empty()) return;
        std::set<std::string> linked;
        auto whole_word_at = [](const std::string& text, const std::string& w) -> bool {
            for (size_t at = text.find(w); at != std::string::npos; at = text.find(w, at + 1)) {
                const auto word_char = [](char c) {  // UTF-8 bytes too: "L2→SM" is one word, not L2 and SM
                    return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-' || (c & 0x80);
                };
                const bool left = at == 0 || !word_char(text[at - 1]);
                const bool right = at + w.size() >= text.size() || !word_char(text[at + w.size()]);
                if (left && right) return true;
            }
            return false;
        };
        auto scan = [&](const std::vector<ProseSpan>& spans, auto& self) -> void {
            for (const ProseSpan& span : spans) {
                if (span.kind == ProseSpan::Kind::expr) {
                    if (span.expr.func == "term")
                        if (const GlossaryTerm* t = g.find(join(span.expr.args, " "))) linked.insert(t->key);
                    for (const auto& branch : span.expr.branch_spans) self(branch, self);
                    continue;
                }
                if (span.kind != ProseSpan::Kind::text && span.kind != ProseSpan::Kind::bold) continue;
                for (const GlossaryTerm& t : g.terms) {
                    if (linked.count(t.key)) continue;
                    std::vector<std::string> names = t.aliases;
                    names.insert(names.begin(), t.key);
                    for (const std::string& n : names)
                        if (whole_word_at(span.text, n)) {
                            error(span.line, "'" + n + "' is used before it is explained: link its first use as {term " +
                                                 n + "} (the glossary's " + t.key + ")");
                            linked.insert(t.key);  // once per lesson
                            break;
                        }
                }
            }
        };
        for (const LessonStep& s : r_.lesson.steps) {
            for (const ProseBlock& b : s.prose) scan(b.spans, scan);
            for (const RecallQuestion& q : s.recalls) {
                scan(q.question, scan);
                for (const ProseBlock& b : q.answer) scan(b.spans, scan);
            }
        }
    }
    void warn_numbers(int line, const std::vector<std::string>& numbers, const char* where) {
        for (const std::string& typed : numbers) {
            const bool in_verdict = !typed.empty() && typed[0] == '\x02';
            const std::string n = in_verdict ? typed.substr(1) : typed;
            r_.warnings.push_back({path_, line, "warning: '" + n + "' typed into " + (in_verdict ? "a verdict's text" : where) +
                                                    ": write it as a live expression, or mark a definition {=" + n + "}"});
        }
    }

    LessonStep* step() { return in_step_ ? &r_.lesson.steps.back() : nullptr; }

    // Prose goes to the open recall answer, else to the current step.
    std::vector<ProseBlock>& prose_target() { return recall_ ? step()->recalls.back().answer : step()->prose; }

    void prose(int no, const std::string& t) {
        if (!in_step_) {
            error(no, "text before the first @step: put prose inside a step (or make it a // comment)");
            return;
        }
        const bool bullet = t.size() > 1 && (t[0] == '-' || t[0] == '*') && t[1] == ' ';
        std::vector<ProseSpan> spans;
        std::vector<std::string> numbers;
        // A line with a markup error still counts as prose (no second, misleading "no prose" error).
        if (std::string why = parse_inline(bullet ? trim(t.substr(2)) : t, no, spans, &numbers); !why.empty()) error(no, why);
        warn_numbers(no, numbers, "prose");
        std::vector<ProseBlock>& blocks = prose_target();
        // A bullet is one line; the next plain line starts a new paragraph.
        if (bullet || !paragraph_open_ || blocks.back().bullet) {
            blocks.push_back({bullet, no, {}});
            paragraph_open_ = true;
        } else {
            blocks.back().spans.push_back({ProseSpan::Kind::text, " ", {}, no});
        }
        for (ProseSpan& s : spans) blocks.back().spans.push_back(std::move(s));
    }

    void end_paragraph() { paragraph_open_ = false; }

    void close_recall() {
        recall_ = false;
        if (step() && step()->recalls.back().answer.empty())
            error(recall_line_, "@recall has no answer: write it on the lines before @end");
    }

    void directive(int no, const std::string& t) {
        const size_t space = t.find_first_of(" \t");
        const std::string name = t.substr(1, space == std::string::npos ? std::string::npos : space - 1);
        const std::string arg = space == std::string::npos ? "" : trim(t.substr(space));
        if (recall_ && name != "end") {
            error(no, "@" + name + " inside the @recall block opened at line " + std::to_string(recall_line_) +
                          ": close the block with @end first");
            return;
        }
        if (name == "lesson") return lesson_title(no, arg);
        if (name == "about") {
            if (in_step_) return error(no, "@about belongs before the first @step");
            r_.lesson.about = arg;
            return;
        }
        if (name == "step") return start_step(no, arg);
        if (name == "end") {
            if (!recall_) return error(no, "@end without an open @recall block");
            close_recall();
            return;
        }
        static const char* kStepDirectives[] = {"workload", "dtype", "variants", "param", "view", "highlight",
                                                "measure", "sweep", "controls", "recall"};
        bool known = false;
        for (const char* d : kStepDirectives) known = known || name == d;
        if (!known)
            return error(no, "unknown directive @" + name +
                                 " (legal: @lesson, @about, @step, @workload, @dtype, @variants, @param, @view, "
                                 "@highlight, @measure, @sweep, @controls, @recall, @end)");
        if (!in_step_) return error(no, "@" + name + " must come after a @step line");
        step_directive(no, name, arg);
    }

    void lesson_title(int no, const std::string& arg) {
        if (title_seen_) return error(no, "a second @lesson: one lesson per file");
        if (in_step_) return error(no, "@lesson must come before the first @step");
        if (arg.empty()) return error(no, "@lesson needs a title");
        title_seen_ = true;
        r_.lesson.title = arg;
        for (const std::string& w : typed_bound_words(arg))
            error(no, "'" + w + "' typed into the lesson title: a limiter depends on the device; say it in a step with {model.bound V}");
    }

    void start_step(int no, const std::string& arg) {
        end_step();
        if (arg.empty()) error(no, "@step needs a title");
        LessonStep s;
        s.line = no;
        s.title = arg;
        // A step starts from the previous step's state; the first from the defaults.
        if (!r_.lesson.steps.empty()) s.state = r_.lesson.steps.back().state;
        else s.state.variants = all_variants(s.state.params.workload);
        s.state.highlight.clear();
        s.state.measure = false;
        s.state.sweep = false;
        r_.lesson.steps.push_back(std::move(s));
        in_step_ = true;
        variants_set_ = false;
        controls_set_ = false;
        set_params_.clear();
    }

    static std::vector<std::string> all_variants(std::string w) {
        std::vector<std::string> names;
        for (const auto& v : kernels::variants(w)) names.push_back(v.name);
        return names;
    }

    void step_directive(int no, const std::string& name, const std::string& arg) {
        StepState& st = step()->state;
        const std::string w = st.params.workload;
        if (name == "workload") {
            std::string parsed;
            if (!kernels::parse_workload(arg, parsed))
                return error(no, "unknown workload '" + arg + "' (legal: " + workload_names() + ")");
            if (parsed != w || r_.lesson.steps.size() == 1) {
                st.params.workload = parsed;
                if (!variants_set_) st.variants = all_variants(parsed);
            }
            return;
        }
        if (name == "dtype") {
            kernels::DType t;
            if (!kernels::parse_dtype(arg, t)) return error(no, "bad dtype '" + arg + "' (legal: fp32, fp16, bf16)");
            st.params.dtype = t;
            return;
        }
        if (name == "variants") {
            std::vector<std::string> chosen = words(arg);
            if (chosen.empty()) return error(no, "@variants needs at least one variant (legal: " + variant_names(w) + ")");
            for (const std::string& v : chosen)
                if (!kernels::has_variant(w, v))
                    return error(no, "unknown variant '" + v + "' of " + w +
                                         " (legal: " + variant_names(w) + "; put @workload first)");
            st.variants = chosen;
            variants_set_ = true;
            return;
        }
        if (name == "param") {
            const std::vector<std::string> parts = words(arg);
            if (parts.size() != 2) return error(no, "@param takes NAME VALUE, e.g. @param N 4096");
            const kernels::ParamSpec* spec = spec_named(w, parts[0]);
            if (!spec)
                return error(no, "unknown parameter '" + parts[0] + "' for " + w +
                                     " (legal: " + param_names(w) + "; put @workload first)");
            double value = 0;
            if (!parse_number(parts[1], value))
                return error(no, "bad value '" + parts[1] + "' for " + parts[0] + " (legal: " +
                                     kernels::legal_values_text(*spec) + ")");
            if (std::string why = kernels::check_param_value(*spec, value); !why.empty()) return error(no, why);
            st.params.set(spec->name, value);
            set_params_.push_back(spec->name);
            return;
        }
        if (name == "view") {
            if (!find_view(arg)) return error(no, "unknown view '" + arg + "' (legal: " + view_ids_text() + ")");
            st.view = arg;
            return;
        }
        if (name == "highlight") {
            const HighlightInfo* h = find_highlight(arg);
            if (!h) {
                std::vector<std::string> ids;
                for (const HighlightInfo& info : highlight_ids()) ids.emplace_back(info.id);
                return error(no, "unknown highlight '" + arg + "' (legal: " + join(ids, ", ") + ")");
            }
            st.highlight = arg;
            highlight_line_ = no;
            step()->highlight_line = no;
            return;
        }
        if (name == "measure" || name == "sweep") {
            if (!arg.empty()) return error(no, "@" + name + " takes no argument");
            (name == "measure" ? st.measure : st.sweep) = true;
            return;
        }
        if (name == "controls") {
            std::vector<std::string> names = words(arg);
            if (names.empty()) return error(no, "@controls needs at least one control name");
            for (const std::string& c : names) {
                const bool known = c == "dtype" || c == "variants" || c == "backend" || c == "workload" ||
                                   spec_named(w, c) != nullptr;
                if (!known)
                    return error(no, "unknown control '" + c + "' (legal: workload, variants, dtype, backend, " +
                                         param_names(w) + ")");
            }
            st.controls = names;
            controls_set_ = true;
            return;
        }
        if (name == "recall") {
            if (arg.empty()) return error(no, "@recall needs its question on the same line");
            RecallQuestion q;
            q.line = no;
            std::vector<std::string> numbers;
            if (std::string why = parse_inline(arg, no, q.question, &numbers); !why.empty()) error(no, why);
            warn_numbers(no, numbers, "a recall question");
            step()->recalls.push_back(std::move(q));
            recall_ = true;
            recall_line_ = no;
            return;
        }
    }

    // =========================================================================================
    // [SECTION] Checking a finished step
    // =========================================================================================
    void end_step() {
        if (!in_step_) return;
        in_step_ = false;
        LessonStep& s = r_.lesson.steps.back();
        StepState& st = s.state;
        if (s.prose.empty()) error(s.line, "step '" + s.title + "' has no prose: say what the class should see");
        if (std::string why = kernels::validate(st.params); !why.empty()) error(s.line, "step '" + s.title + "': " + why);
        for (const std::string& v : st.variants)
            if (!kernels::has_variant(st.params.workload, v))
                error(s.line, "variant '" + v + "' (inherited) is not a variant of " +
                                  st.params.workload + ": add @variants");
        if (!st.highlight.empty()) {
            const HighlightInfo* h = find_highlight(st.highlight);
            if (h && st.view != h->view)
                error(highlight_line_, "highlight '" + st.highlight + "' is in the " + h->view +
                                           " view, but this step shows " + st.view + ": add @view " + h->view);
        }
        if (!controls_set_) {
            // Classroom mode shows what the step changes, unless it says otherwise.
            if (!set_params_.empty()) st.controls = set_params_;
        } else {
            for (const std::string& c : st.controls)
                if (c != "dtype" && c != "variants" && c != "backend" && c != "workload" && !spec_named(st.params.workload, c))
                    error(s.line, "control '" + c + "' (inherited) is not a parameter of " +
                                      st.params.workload + ": add @controls");
        }
        auto check_spans = [&](const std::vector<ProseSpan>& spans) {
            for (const ProseSpan& span : spans) {
                if (span.kind != ProseSpan::Kind::expr) continue;
                if (std::string why = check_expr(span.expr, st.params.workload); !why.empty())
                    error(span.line, "{" + span.expr.source + "}: " + why);
            }
        };
        for (const ProseBlock& b : s.prose) check_spans(b.spans);
        for (const RecallQuestion& q : s.recalls) {
            check_spans(q.question);
            for (const ProseBlock& b : q.answer) check_spans(b.spans);
        }
        check_levels(s);
        check_words(s);
    }

    // The prose and recall questions of a step quote only the levels its highlight shows: bytes
    // at DRAM under the DRAM chart, not the L2->SM bytes of the same loop (issue 28: "flash moves
    // 1.02 GiB" under a chart showing 32 MiB).
    void check_levels(const LessonStep& s) {
        if (s.state.highlight.empty()) return;
        const HighlightInfo* h = find_highlight(s.state.highlight);
        if (!h || h->levels == 0) return;
        auto check = [&](const std::vector<ProseSpan>& spans, auto& self) -> void {
            for (const ProseSpan& span : spans) {
                if (span.kind != ProseSpan::Kind::expr) continue;
                const int levels = expr_levels(span.expr);
                if (levels & ~h->levels)
                    error(span.line, "{" + span.expr.source + "} quotes " + levels_text(levels & ~h->levels) +
                                         " bytes, but the highlighted " + h->id + " shows " + levels_text(h->levels) +
                                         ": quote the level it shows, or highlight results.table (every level)");
                for (const auto& branch : span.expr.branch_spans) self(branch, self);
            }
        };
        for (const ProseBlock& b : s.prose) check(b.spans, check);
        for (const RecallQuestion& q : s.recalls) check(q.question, check);
    }

    // Words the prose types that the engine must supply: a limiter or bound ("memory-bound",
    // "bound by") outside {model.limiter}, {model.bound} or a limiter verdict; a word said twice
    // ("`flash_wgmma` flash_wgmma needs"); a level written another way than the level words.
    void check_words(const LessonStep& s) {
        for (const std::string& w : typed_bound_words(s.title))
            error(s.line, "'" + w + "' typed into the step title: a limiter comes from {model.bound V} in the prose");
        auto check = [&](const std::vector<ProseSpan>& spans, int line) {
            std::string flat;  // the text as shown, with each live value a placeholder
            for (const ProseSpan& span : spans) {
                if (span.kind == ProseSpan::Kind::expr) {
                    flat += " \x01 ";
                    check_bound_words_in_branches(span);
                    continue;
                }
                flat += span.text;
                if (span.kind == ProseSpan::Kind::text || span.kind == ProseSpan::Kind::bold) {
                    for (const std::string& w : typed_bound_words(span.text))
                        error(span.line, "'" + w + "' typed into prose: say the limiter with {model.limiter V} or "
                                         "{model.bound V}, or a verdict {if model.limiter V is CLASS | ... | ...}");
                    for (const char* bad : {"L2-to-SM", "L2<->SM", "L2 <-> SM", "L2->SM", "L2 to SM", "HBM bytes", "HBM traffic", "HBM (DRAM)", "DRAM (HBM)"})
                        if (span.text.find(bad) != std::string::npos)
                            error(span.line, std::string("'") + bad + "': write the level words DRAM, L2\xE2\x86\x92SM or on chip "
                                                                  "(the glossary explains each)");
                }
            }
            for (const std::string& w : doubled_words(flat)) error(line, "'" + w + " " + w + "': a word said twice");
        };
        for (const ProseBlock& b : s.prose) check(b.spans, b.line);
        for (const RecallQuestion& q : s.recalls) {
            check(q.question, q.line);
            for (const ProseBlock& b : q.answer) check(b.spans, b.line);
        }
    }

    // A verdict on numbers may not put a bound word in its texts; a limiter verdict may.
    void check_bound_words_in_branches(const ProseSpan& span) {
        const LessonExpr& e = span.expr;
        if (e.func != "if") return;
        const bool on_limiter = !e.args.empty() && e.args[0] == "model.limiter";
        for (const auto& branch : e.branch_spans)
            for (const ProseSpan& b : branch) {
                if (b.kind == ProseSpan::Kind::expr) check_bound_words_in_branches(b);
                if (on_limiter || (b.kind != ProseSpan::Kind::text && b.kind != ProseSpan::Kind::bold)) continue;
                for (const std::string& w : typed_bound_words(b.text))
                    error(b.line, "'" + w + "' in a verdict on numbers: a limiter comes from {model.limiter V}, "
                                  "{model.bound V} or {if model.limiter V is CLASS | ... | ...}");
            }
    }

    std::string path_;
    LessonParse& r_;
    bool title_seen_ = false;
    bool in_step_ = false;
    bool paragraph_open_ = false;
    bool recall_ = false;
    int recall_line_ = 0;
    int highlight_line_ = 0;
    bool variants_set_ = false;
    bool controls_set_ = false;
    std::vector<std::string> set_params_;
};

}  // namespace

LessonParse parse_lesson(const std::string& path, const std::string& text) {
    LessonParse result;
    Parser parser(path, result);
    std::istringstream in(text);
    std::string line;
    int no = 0;
    while (std::getline(in, line)) parser.line(++no, line);
    parser.finish(no);
    auto by_line = [](const LessonError& a, const LessonError& b) { return a.line < b.line; };
    std::stable_sort(result.errors.begin(), result.errors.end(), by_line);
    std::stable_sort(result.warnings.begin(), result.warnings.end(), by_line);
    return result;
}

LessonParse load_lesson(const std::string& path) {
    std::string text;  // bounded: regular files of at most the lesson limit only (platform_file.h)
    const platform::ReadResult read = platform::read_user_file(path, platform::UserFile::lesson, text);
    if (!read.ok()) {
        LessonParse r;
        r.lesson.path = path;
        const bool missing = read.failure == platform::ReadFailure::not_found || read.failure == platform::ReadFailure::cannot_read;
        r.errors.push_back({path, 0, missing ? "cannot read the file" : read.reason});
        return r;
    }
    return parse_lesson(path, text);
}

// =============================================================================================
// [SECTION] Live expressions: evaluation
// =============================================================================================

namespace {

bool is_comparison(const std::string& word) { return word == "<" || word == "<=" || word == ">" || word == ">="; }

// The two sides of a verdict's condition: each a number or an expression's words.
struct Condition {
    std::vector<std::string> left, right;
    std::string op;
};

// "" and the condition, or why the words are not "A OP B".
std::string split_condition(const std::vector<std::string>& words_, Condition& c) {
    size_t op = words_.size();
    for (size_t i = 0; i < words_.size(); ++i)
        if (is_comparison(words_[i])) {
            if (op != words_.size()) return "one comparison only";
            op = i;
        }
    if (op == words_.size())
        return "no comparison: write {if A OP B | THEN | ELSE} with OP one of < <= > >=, spaced; or a test: refused V, "
               "runs V, counters V, timeline V, simulated, recorded, model.limiter V is CLASS";
    c.left.assign(words_.begin(), words_.begin() + static_cast<long>(op));
    c.right.assign(words_.begin() + static_cast<long>(op) + 1, words_.end());
    c.op = words_[op];
    if (c.left.empty() || c.right.empty()) return "the comparison " + c.op + " needs a side on its left and its right";
    return "";
}

bool literal(const std::vector<std::string>& side, double& value) { return side.size() == 1 && parse_number(side[0], value); }

LessonExpr side_expr(const std::vector<std::string>& side) {
    LessonExpr e;
    e.func = side.front();
    e.args.assign(side.begin() + 1, side.end());
    e.source = join(side, " ");
    return e;
}

// Tests a verdict may make without a comparison: the first word, and how many variant words follow.
struct UnaryTest {
    const char* word;
    int variants;
    const char* what;
};
const std::vector<UnaryTest>& unary_tests() {
    static const std::vector<UnaryTest> tests = {
        {"refused", 1, "the device cannot run V with these parameters"},
        {"runs", 1, "the device can run V with these parameters"},
        {"counters", 1, "V's measurement has DRAM counter bytes (a GPU, or a recording of one)"},
        {"timeline", 1, "V's measurement has a timeline of its kernels"},
        {"simulated", 0, "the numbers come from a simulated GPU"},
        {"recorded", 0, "the numbers come from a recording of a real GPU"},
    };
    return tests;
}
const UnaryTest* find_unary(const std::vector<std::string>& args) {
    if (args.empty()) return nullptr;
    for (const UnaryTest& t : unary_tests())
        if (args[0] == t.word && static_cast<int>(args.size()) == 1 + t.variants) return &t;
    return nullptr;
}

// Limiter classes a verdict tests: `{if model.limiter V is CLASS | ... | ...}`. Each resource of
// kernels/sim/sim_backend.cpp's price_run belongs to one fine class and one coarse kind.
struct LimiterClass {
    const char* resource;  // prefix of RunPrice::limiter
    const char* fine;      // dram, l2, shared, tensor, fp32, sfu, issue, occupancy, latency, launch
    const char* kind;      // memory, onchip, compute, issue, latency, launch
    const char* bound;     // the bound word model.bound shows
};
const std::vector<LimiterClass>& limiter_classes() {
    static const std::vector<LimiterClass> table = {
        {"DRAM bandwidth", "dram", "memory", "memory-bound (DRAM bandwidth)"},
        {"L2 bandwidth", "l2", "memory", "memory-bound (L2\xE2\x86\x92SM bandwidth)"},
        {"shared-memory bandwidth", "shared", "onchip", "bound on chip (shared-memory bandwidth)"},
        {"tensor-core MMA and exp2 in turn", "tensor", "compute", "compute-bound (tensor cores and exp2 in turn)"},
        {"tensor-core MMA", "tensor", "compute", "compute-bound (tensor cores)"},
        {"FP32 FMA", "fp32", "compute", "compute-bound (FP32 multiply-adds)"},
        {"SFU", "sfu", "compute", "compute-bound (exp2 on the special-function units)"},
        {"instruction issue", "issue", "issue", "issue-bound (instruction issue)"},
        {"occupancy", "occupancy", "latency", "latency-bound (too few warps: occupancy)"},
        {"memory latency", "latency", "latency", "latency-bound (memory latency)"},
        {"latency", "latency", "latency", "latency-bound (each block's serial steps)"},
        {"launch cost", "launch", "launch", "launch-bound (kernel launches)"},
        {"graph-replay cost", "launch", "launch", "launch-bound (graph replay)"},
    };
    return table;
}
const LimiterClass* limiter_class(const std::string& resource) {
    for (const LimiterClass& c : limiter_classes())
        if (resource.rfind(c.resource, 0) == 0) return &c;
    return nullptr;
}
bool known_class_word(const std::string& w) {
    for (const LimiterClass& c : limiter_classes())
        if (w == c.fine || w == c.kind) return true;
    return false;
}
std::string class_words() { return "dram, l2, shared, tensor, fp32, sfu, issue, occupancy, latency, launch; memory, onchip, compute"; }

bool is_limiter_test(const std::vector<std::string>& args) {
    return args.size() == 4 && args[0] == "model.limiter" && args[2] == "is";
}

// Expressions that give text, not a number: they cannot be compared or divided.
bool is_text_expr(const LessonExpr& e) {
    return e.func == "if" || e.func == "term" || e.func == "device.name" || e.func == "device.kind" || e.func == "refusal" ||
           e.func == "model.limiter" || e.func == "model.bound" ||
           (e.func == "param" && e.args.size() == 1 && e.args[0] == "dtype");
}

}  // namespace

int expr_levels(const LessonExpr& e) {
    const std::string& f = e.func;
    if (f == "ratio" && !e.args.empty()) return expr_levels(side_expr({e.args[0], "x"}));
    if (f == "if") {
        int levels = 0;
        Condition c;
        if (split_condition(e.args, c).empty())
            for (const auto* side : {&c.left, &c.right})
                if (double v = 0; !literal(*side, v)) levels |= expr_levels(side_expr(*side));
        for (const auto& branch : e.branch_spans)
            for (const ProseSpan& s : branch)
                if (s.kind == ProseSpan::Kind::expr) levels |= expr_levels(s.expr);
        return levels;
    }
    if (f == "measured.dram_per_l2sm") return kDram | kL2sm;
    if (f.rfind("model.dram", 0) == 0 || f.rfind("measured.dram", 0) == 0 || f == "model.min_dram") return kDram;
    if (f.rfind("model.l2sm", 0) == 0) return kL2sm;
    if (f == "model.onchip" || f == "model.spill_bytes" || f == "model.spill_past_l1") return kOnchip;
    return 0;
}

std::string check_expr(const LessonExpr& e, std::string w) {
    if (e.func.empty()) return "empty expression (legal functions: " + func_names() + ")";
    if (e.func == "if") {
        if (e.branches.size() != 2)
            return "if takes a condition and two texts: {if A OP B | shown when it holds | shown when not}";
        for (const auto& branch : e.branch_spans)
            for (const ProseSpan& s : branch)
                if (s.kind == ProseSpan::Kind::expr)
                    if (std::string why = check_expr(s.expr, w); !why.empty()) return "{" + s.expr.source + "}: " + why;
        if (const UnaryTest* t = find_unary(e.args)) {
            if (t->variants == 1 && !kernels::has_variant(w, e.args[1]))
                return "unknown variant '" + e.args[1] + "' of " + w + " (legal: " + variant_names(w) + ")";
            return "";
        }
        if (is_limiter_test(e.args)) {
            if (!kernels::has_variant(w, e.args[1]))
                return "unknown variant '" + e.args[1] + "' of " + w + " (legal: " + variant_names(w) + ")";
            if (!known_class_word(e.args[3])) return "unknown limiter class '" + e.args[3] + "' (legal: " + class_words() + ")";
            return "";
        }
        Condition c;
        if (std::string why = split_condition(e.args, c); !why.empty()) return why;
        for (const std::vector<std::string>* side : {&c.left, &c.right}) {
            double value = 0;
            if (literal(*side, value)) continue;
            const LessonExpr sub = side_expr(*side);
            if (is_text_expr(sub)) return "'" + sub.source + "' is not a number to compare";
            if (std::string why = check_expr(sub, w); !why.empty()) return "'" + sub.source + "': " + why;
        }
        return "";
    }
    if (e.func == "term") {
        if (e.args.empty()) return "term takes a glossary key: {term CTA}";
        const Glossary& g = shipped_glossary();
        if (!g.terms.empty() && !g.find(join(e.args, " ")))
            return "no glossary term '" + join(e.args, " ") + "' in " + g.path + ": add it there (@term KEY)";
        return "";
    }
    const ExprInfo* info = find_expr(e.func);
    if (!info) {
        if (const char* now = renamed_expr(e.func))
            return "'" + e.func + "' does not say which level it counts: write " + now;
        return "unknown function '" + e.func + "' (legal: " + func_names() + ")";
    }
    const size_t want = expected_args(*info);
    if (e.args.size() != want)
        return e.func + " takes " + std::to_string(want) + (want == 1 ? " argument" : " arguments") +
               (want ? std::string(" (") + info->args + ")" : std::string()) + ", not " + std::to_string(e.args.size());
    std::vector<std::string> variant_args;
    const std::string arg_kind = info->args;
    if (e.func == "ratio") {
        const LessonExpr sub = side_expr({e.args[0], e.args[1]});
        const ExprInfo* q = find_expr(e.args[0]);
        if (!q || std::string(q->args) != "VARIANT" || is_text_expr(sub)) {
            const char* now = renamed_expr("model." + e.args[0]);
            return "ratio of '" + e.args[0] + "'? Name a number of one variant: measured.time, model.dram, model.l2sm, "
                   "measured.dram, model.flops, model.kernels, ..." + (now ? std::string(" (for bytes: ") + now + ")" : std::string());
        }
        variant_args = {e.args[1], e.args[2]};
    } else if (arg_kind.rfind("VARIANT", 0) == 0) {
        variant_args = {e.args[0]};
    } else if (e.func == "param") {
        if (e.args[0] != "dtype" && !spec_named(w, e.args[0]))
            return "unknown parameter '" + e.args[0] + "' of " + w + " (legal: dtype, " + param_names(w) + ")";
    }
    for (const std::string& v : variant_args)
        if (!kernels::has_variant(w, v))
            return "unknown variant '" + v + "' of " + w + " (legal: " + variant_names(w) + ")";
    if (e.func == "model.dram_buffer" || e.func == "model.l2sm_buffer" || e.func == "model.tensor") {
        kernels::Params p;
        p.workload = w;
        bool found = false;
        try {
            for (const auto& k : kernels::model(e.args[0], p).kernels)
                for (const auto& b : k.buffers) found = found || b.buffer == e.args[1];
        } catch (const std::exception&) {
            found = true;  // cannot tell with default parameters; evaluation will say
        }
        if (!found) return "variant " + e.args[0] + " moves no buffer named '" + e.args[1] + "'";
    }
    return "";
}

namespace {

ExprValue value_text(std::string text, std::optional<double> number = std::nullopt) {
    ExprValue v;
    v.text = std::move(text);
    v.number = number;
    return v;
}
ExprValue unavailable(const std::string& why) {
    ExprValue v = value_text("unavailable: " + why);
    v.state = ExprValue::State::unavailable;
    return v;
}
ExprValue pending() {
    ExprValue v = value_text("measuring\xE2\x80\xA6");
    v.state = ExprValue::State::pending;
    v.measured = true;
    return v;
}

std::string ratio_text(double v) { return printf_text(v >= 10 ? "%.1f\xC3\x97" : "%.2f\xC3\x97", v); }

// The measurement of `variant` for exactly the parameters on screen, or why there is none.
const kernels::Measurement* find_measurement(const ExprContext& ctx, const std::string& variant, ExprValue& why) {
    if (ctx.results)
        for (const kernels::Measurement& m : *ctx.results) {
            if (m.job.variant != variant || !(m.job.params == ctx.params)) continue;
            if (ctx.device && m.device.name != ctx.device->name &&
                !(ctx.fallback_device && m.device.name == ctx.fallback_device->name))
                continue;
            if (!m.ok) {
                why = unavailable(m.error.empty() ? "the run failed" : m.error);
                return nullptr;
            }
            return &m;
        }
    if (std::string bad = kernels::validate(ctx.params); !bad.empty()) {
        why = unavailable(bad);
        return nullptr;
    }
    if (ctx.device) {
        const std::string refused = kernels::device_refusal(variant, ctx.params, kernels::total_memory_budget(*ctx.device));
        if (!refused.empty()) {
            why = unavailable(refused);
            return nullptr;
        }
    }
    if (std::find(ctx.selected.begin(), ctx.selected.end(), variant) == ctx.selected.end()) {
        why = unavailable(variant + " is not selected: tick it under Parameters to measure it");
        return nullptr;
    }
    why = ctx.pending || !ctx.device ? pending() : unavailable("not measured yet");
    return nullptr;
}

ExprValue measured(const kernels::Measurement& m, std::string text, double number) {
    ExprValue v = value_text(std::move(text) + (m.device.simulated ? " (simulated)"
                                                : m.recorded()      ? " (recorded " + m.recorded_date + ")"
                                                                    : ""),
                             number);
    v.simulated = m.device.simulated;
    if (m.recorded()) v.recorded = m.source_label();
    v.measured = true;
    return v;
}

// The L2 the DRAM model assumes: the device's, as the bytes chart and every backend use it.
uint64_t l2_of(const ExprContext& ctx) {
    return ctx.device && ctx.device->l2_bytes > 0 ? static_cast<uint64_t>(ctx.device->l2_bytes) : kernels::kDefaultL2Bytes;
}

std::optional<kernels::Model> model_of(const std::string& variant, const ExprContext& ctx, std::string* why) {
    if (std::string bad = kernels::validate(ctx.params); !bad.empty()) {
        *why = bad;
        return std::nullopt;
    }
    try {
        return kernels::model(variant, ctx.params, l2_of(ctx));
    } catch (const std::exception& e) {
        *why = e.what();
        return std::nullopt;
    }
}

// Why a measurement has no counter bytes, without the note's own "unavailable: " (the value adds it).
std::string counters_note(const kernels::Measurement& m) {
    const std::string& note = m.measured_bytes_note;
    return note.rfind("unavailable: ", 0) == 0 ? note.substr(13) : note;
}

ExprValue intensity_value(double flop_per_byte) {
    return value_text(printf_text(flop_per_byte >= 10 ? "%.0f FLOP/B" : "%.2f FLOP/B", flop_per_byte), flop_per_byte);
}

// A simulated GPU calibrated from its datasheet and the H100's measured-to-datasheet ratios (not
// measured on a card of its own, kernels/sim/sim_backend.cpp): its roofs say so, as `fusionlab
// info` does, rather than "calibrated" (issue 28: the A100's roofs labelled "(calibrated)").
bool datasheet_scaled(const kernels::DeviceInfo& d) {
    return d.simulated && kernels::calibration_for(d).source.rfind("datasheet", 0) == 0;
}
std::string ceiling_source(const kernels::DeviceInfo& d, const std::string& source) {
    return datasheet_scaled(d) ? "datasheet copy \xC3\x97 the H100's measured ratio" : source;
}

std::string refusal_of(const std::string& variant, const ExprContext& ctx) {
    if (!ctx.device) return "";
    return kernels::device_refusal(variant, ctx.params, kernels::total_memory_budget(*ctx.device));
}

// The calibrated model's price of the variant on this device, as the backends report it
// (kernels::record_model): on a GPU a model claim beside the measurement, not a measurement.
std::optional<kernels::RunPrice> price_of(const std::string& variant, const ExprContext& ctx, ExprValue& why) {
    if (!ctx.device) {
        why = pending();
        return std::nullopt;
    }
    std::string bad;
    const std::optional<kernels::Model> m = model_of(variant, ctx, &bad);
    if (!m) {
        why = unavailable(bad);
        return std::nullopt;
    }
    // A refused variant has no limiter: nothing runs (issue 28: "flash_wgmma ... unavailable; the
    // model says it is bound by tensor-core MMA").
    if (const std::string refused = refusal_of(variant, ctx); !refused.empty()) {
        why = unavailable(refused);
        return std::nullopt;
    }
    return kernels::price_run(kernels::calibration_for(*ctx.device), variant, ctx.params, *m, *ctx.device);
}

ExprValue evaluate_model(const LessonExpr& e, const ExprContext& ctx) {
    if (e.func == "model.limiter" || e.func == "model.bound" || e.func == "model.time") {
        ExprValue why;
        const std::optional<kernels::RunPrice> run = price_of(e.args[0], ctx, why);
        if (!run) return why;
        if (e.func == "model.time") {
            ExprValue v = value_text(kernels::format_time_ms(run->total_ms) + " (model)", run->total_ms);
            return v;
        }
        if (e.func == "model.limiter") return value_text(run->limiter);
        const LimiterClass* c = limiter_class(run->limiter);
        return value_text(c ? c->bound : "bound by " + run->limiter);
    }
    std::string why;
    const std::optional<kernels::Model> m = model_of(e.args[0], ctx, &why);
    if (!m) return unavailable(why);
    auto bytes_value = [](uint64_t b) { return value_text(kernels::format_bytes(static_cast<double>(b)), static_cast<double>(b)); };
    if (e.func == "model.l2sm") return bytes_value(m->bytes());
    if (e.func == "model.l2sm_read") return bytes_value(m->bytes_read());
    if (e.func == "model.l2sm_written") return bytes_value(m->bytes_written());
    if (e.func == "model.dram") return bytes_value(m->dram_bytes());
    if (e.func == "model.dram_read") return bytes_value(m->dram_read());
    if (e.func == "model.dram_written") return bytes_value(m->dram_written());
    if (e.func == "model.onchip") return bytes_value(m->shared_bytes());
    if (e.func == "model.flops") return value_text(kernels::format_flops(m->flops()), m->flops());
    if (e.func == "model.kernels") return value_text(std::to_string(m->kernels.size()), static_cast<double>(m->kernels.size()));
    if (e.func == "model.ctas") {
        int64_t ctas = 0;
        for (const auto& k : m->kernels) ctas = std::max<int64_t>(ctas, static_cast<int64_t>(k.blocks));
        if (ctas <= 0) return unavailable(e.args[0] + "'s model does not count its thread blocks");
        return value_text(kernels::format_count(ctas), static_cast<double>(ctas));
    }
    if (e.func == "model.kernel_flops_per_element" || e.func == "model.kernel_dram_intensity") {
        const kernels::KernelModel* k = nullptr;
        std::vector<std::string> names;
        for (const auto& km : m->kernels) {
            names.push_back(km.name);
            if (km.name == e.args[1]) k = &km;
        }
        if (!k) return unavailable(e.args[0] + " has no kernel " + e.args[1] + " (its kernels: " + join(names, ", ") + ")");
        if (e.func == "model.kernel_dram_intensity") {
            if (k->dram_bytes() == 0) return unavailable(e.args[1] + " moves no DRAM bytes");
            return intensity_value(k->flops / static_cast<double>(k->dram_bytes()));
        }
        if (!spec_named(ctx.params.workload, "rows") || !spec_named(ctx.params.workload, "hidden"))
            return unavailable("per element needs rows and hidden (an elementwise workload)");
        const double n = ctx.params.get("rows") * ctx.params.get("hidden");
        if (!(n > 0)) return unavailable("per element needs rows and hidden (an elementwise workload)");
        const double per = k->flops / n;
        return value_text(printf_text(per >= 10 ? "%.0f" : "%.3g", per), per);
    }
    if (e.func == "model.registers" || e.func == "model.spill_bytes" || e.func == "model.spill_past_l1") {
        const kernels::KernelModel* k = nullptr;
        for (const auto& km : m->kernels)
            if (km.registers.registers > 0 && (!k || km.local_bytes() > k->local_bytes())) k = &km;
        if (!k) return unavailable(e.args[0] + "'s kernels are not in the register tables (the row kernels and flash_tc are)");
        if (e.func == "model.registers") return value_text(std::to_string(k->registers.registers), k->registers.registers);
        if (e.func == "model.spill_bytes") return bytes_value(m->local_bytes());
        if (!ctx.device) return pending();
        const kernels::SpillEstimate est = kernels::spill_estimate(*k, *ctx.device);
        return value_text(printf_text("%.0f %%", 100.0 * est.beyond_l1), 100.0 * est.beyond_l1);
    }
    if (e.func == "model.l2sm_intensity" || e.func == "model.dram_intensity") {
        const uint64_t bytes = e.func == "model.l2sm_intensity" ? m->bytes() : m->dram_bytes();
        if (bytes == 0) return unavailable("the model moves no bytes");
        return intensity_value(m->flops() / static_cast<double>(bytes));
    }
    if (e.func == "model.tensor") {
        // The footprint, as the memory view draws it (viz/model/memory_player.h).
        try {
            const kernels::MemoryPlayer player(e.args[0], ctx.params);
            for (const kernels::HbmTensor& t : player.tensors())
                if (t.name == e.args[1] && !t.local) return bytes_value(t.bytes);
        } catch (const std::exception& ex) {
            return unavailable(ex.what());
        }
        return unavailable(e.args[0] + " has no tensor " + e.args[1] + " with these parameters");
    }
    // model.dram_buffer, model.l2sm_buffer
    const bool dram = e.func == "model.dram_buffer";
    uint64_t bytes = 0;
    bool found = false;
    for (const auto& k : m->kernels)
        for (const auto& b : k.buffers)
            if (b.buffer == e.args[1]) {
                bytes += dram ? b.dram_read + b.dram_written : b.bytes_read + b.bytes_written;
                found = true;
            }
    if (!found) return unavailable(e.args[0] + " moves no buffer " + e.args[1] + " with these parameters");
    return bytes_value(bytes);
}

ExprValue evaluate_timeline(const LessonExpr& e, const ExprContext& ctx) {
    ExprValue why;
    const kernels::Measurement* m = find_measurement(ctx, e.args[0], why);
    if (!m) return why;
    if (m->timeline.empty()) return unavailable("no timeline was recorded for " + e.args[0]);
    // The numbers the timeline view's table shows (app/gui/panel_timeline.cpp: timeline_stats).
    const kernels::TimelineStats s = kernels::timeline_stats(m->timeline);
    if (e.func == "timeline.kernels") return measured(*m, std::to_string(s.kernels), static_cast<double>(s.kernels));
    if (e.func == "timeline.span") return measured(*m, kernels::format_time_ms(s.span_ms), s.span_ms);
    if (e.func == "timeline.busy") return measured(*m, kernels::format_time_ms(s.busy_ms), s.busy_ms);
    if (e.func == "timeline.gap") {
        if (s.kernels < 2) return unavailable(e.args[0] + " runs one kernel: no gaps");
        return measured(*m, kernels::format_time_ms(s.median_gap_us * 1e-3), s.median_gap_us * 1e-3);
    }
    if (!(s.span_ms > 0)) return unavailable(e.args[0] + "'s timeline has no length");
    const double pct = std::round(100.0 * s.idle_ms / s.span_ms);
    return measured(*m, printf_text("%.0f %%", pct), pct);
}

ExprValue evaluate_measured(const LessonExpr& e, const ExprContext& ctx) {
    ExprValue why;
    const kernels::Measurement* m = find_measurement(ctx, e.args[0], why);
    if (!m) return why;
    if (e.func == "measured.time") return measured(*m, kernels::format_time_ms(m->time.median_ms), m->time.median_ms);
    if (e.func == "measured.dram_gbps") return measured(*m, kernels::format_gbps(m->achieved_gbps()), m->achieved_gbps());
    if (e.func == "measured.tflops")
        return measured(*m, kernels::format_rate_flops(m->achieved_gflops() * 1e9), m->achieved_gflops() / 1e3);
    if (e.func == "measured.dram_percent") {
        const BandwidthCeiling c = bandwidth_ceiling(m->device);
        if (c.gbps <= 0) return unavailable("no bandwidth ceiling for this device");
        // The number a verdict compares is the one shown (84.6 shows as "85 %" and counts as 85):
        // a verdict never contradicts the percentage beside it.
        const double pct = std::round(percent_of_ceiling(m->achieved_gbps(), c));
        return measured(*m, printf_text("%.0f %%", pct) + " of " + ceiling_source(m->device, c.source), pct);
    }
    if (e.func == "measured.error") {
        if (!m->checked) {
            std::string note = m->check_note.empty() ? "not checked against the reference" : m->check_note;
            if (note.rfind("n/a: ", 0) == 0) note = note.substr(5);  // "n/a: simulated, ..." reads twice as "unavailable"
            return unavailable(note);
        }
        if (m->device.simulated) {  // no kernel ran: the variant's arithmetic emulated on the CPU
            ExprValue v = value_text(printf_text("%.1e", m->rel_l2_error) + " (computed on the CPU)", m->rel_l2_error);
            v.emulated = true;
            return v;
        }
        return measured(*m, printf_text("%.1e", m->rel_l2_error), m->rel_l2_error);
    }
    if (!m->measured_bytes) return unavailable(counters_note(*m));
    const double counted = static_cast<double>(*m->measured_bytes);
    if (e.func == "measured.dram") return measured(*m, kernels::format_bytes(counted), counted);
    if (e.func == "measured.dram_intensity") {
        if (!(counted > 0)) return unavailable("the counters read no DRAM bytes");
        const ExprValue v = intensity_value(m->flops / counted);
        return measured(*m, v.text, *v.number);
    }
    // measured.dram_per_l2sm: against what the loads and stores ask for (L2 -> SM);
    // measured.dram_per_model: against the modeled DRAM bytes (the L2 reuse model).
    const uint64_t l2 = m->l2_bytes_read + m->l2_bytes_written;
    const double modeled = static_cast<double>(e.func == "measured.dram_per_model" ? m->bytes() : l2);
    if (modeled <= 0) return unavailable("the model moves no bytes");
    const double share = counted / modeled;
    return measured(*m, printf_text("%.2f", share), share);
}

ExprValue evaluate_ratio(const LessonExpr& e, const ExprContext& ctx) {
    const ExprValue a = evaluate(side_expr({e.args[0], e.args[1]}), ctx);
    if (a.state != ExprValue::State::value) return a;
    const ExprValue b = evaluate(side_expr({e.args[0], e.args[2]}), ctx);
    if (b.state != ExprValue::State::value) return b;
    if (!a.number || !b.number) return unavailable(e.args[0] + " is not a number");
    if (!(*b.number > 0)) return unavailable(e.args[2] + "'s " + e.args[0] + " is zero");
    const double r = *a.number / *b.number;
    ExprValue v = value_text(ratio_text(r), r);
    // A ratio of measurements carries its source like the measurements do.
    const ExprValue& tagged = a.measured ? a : b;
    if (tagged.simulated) v.text += " (simulated)";
    else if (!tagged.recorded.empty()) v.text += tagged.text.substr(tagged.text.rfind(" (recorded"));
    v.simulated = a.simulated || b.simulated;
    v.measured = a.measured || b.measured;
    v.recorded = a.recorded.empty() ? b.recorded : a.recorded;
    return v;
}

ExprValue evaluate_device(const LessonExpr& e, const ExprContext& ctx) {
    if (!ctx.device) return pending();
    const kernels::DeviceInfo& d = *ctx.device;
    if (e.func == "device.name") return value_text(d.name);
    if (e.func == "device.kind") return value_text(d.simulated ? "simulated" : ctx.fallback_device ? "recorded" : "measured");
    if (e.func == "device.sms") return value_text(std::to_string(d.sm_count), d.sm_count);
    if (e.func == "device.smem") return value_text(kernels::format_bytes(d.smem_per_block_optin), d.smem_per_block_optin);
    if (e.func == "device.l2") return value_text(kernels::format_bytes(static_cast<double>(d.l2_bytes)), static_cast<double>(d.l2_bytes));
    if (e.func == "device.tflops" || e.func == "device.ridge") {
        // The roofs the roofline view draws for the step's dtype: the measured cuBLAS GEMM and copy
        // on a GPU, else the peak from clocks x SMs (GPU) or the calibrated GEMM rate (simulated).
        const kernels::RoofSet roofs = kernels::roofs_for(d, ctx.params.dtype);
        const double tflops = roofs.tensor.flops_per_s / 1e12;
        if (!(tflops > 0)) return unavailable("no tensor-core roof known for this device");
        if (e.func == "device.tflops") {
            const std::string gemm = "cuBLAS " + roofs.tensor.name.substr(12) + " GEMM";
            const std::string source = roofs.tensor.kind == "theoretical" ? std::string("clocks \xC3\x97 SMs, dense")
                                       : datasheet_scaled(d) ? "datasheet \xC3\x97 the H100's measured ratio for a " + gemm
                                                             : roofs.tensor.kind + " " + gemm;
            return value_text(printf_text("%.0f TFLOP/s", tflops) + " (" + source + ")", tflops);
        }
        if (!(roofs.bytes_per_s > 0)) return unavailable("no bandwidth known for this device");
        const double ridge = roofs.tensor.flops_per_s / roofs.bytes_per_s;
        return value_text(printf_text("%.0f FLOP/B", ridge), ridge);
    }
    const BandwidthCeiling c = bandwidth_ceiling(d);
    if (c.gbps <= 0) return unavailable("no bandwidth known for this device");
    return value_text(kernels::format_gbps(c.gbps) + " (" + ceiling_source(d, c.source) + ")", c.gbps);
}

ExprValue evaluate_if(const LessonExpr& e, const ExprContext& ctx) {
    bool holds = false;
    bool simulated = false, was_measured = false;
    std::string recorded;
    if (const UnaryTest* t = find_unary(e.args)) {
        const std::string word = t->word;
        if (word == "simulated" || word == "recorded") {
            if (!ctx.device) return pending();
            holds = word == "simulated" ? ctx.device->simulated : ctx.fallback_device != nullptr;
        } else if (word == "refused" || word == "runs") {
            if (!ctx.device) return pending();
            if (std::string bad = kernels::validate(ctx.params); !bad.empty()) return unavailable(bad);
            holds = refusal_of(e.args[1], ctx).empty() == (word == "runs");
        } else {  // counters, timeline: what the measurement carries
            ExprValue why;
            const kernels::Measurement* m = find_measurement(ctx, e.args[1], why);
            if (!m) {
                if (why.state == ExprValue::State::pending) return why;
                holds = false;
            } else {
                holds = word == "counters" ? m->measured_bytes.has_value() : !m->timeline.empty();
            }
        }
    } else if (is_limiter_test(e.args)) {
        ExprValue why;
        const std::optional<kernels::RunPrice> run = price_of(e.args[1], ctx, why);
        if (!run) return why;
        const LimiterClass* c = limiter_class(run->limiter);
        holds = c && (e.args[3] == c->fine || e.args[3] == c->kind);
    } else {
        Condition c;
        split_condition(e.args, c);  // check_expr has passed
        double x[2] = {0, 0};
        const std::vector<std::string>* sides[2] = {&c.left, &c.right};
        for (int i = 0; i < 2; ++i) {
            if (literal(*sides[i], x[i])) continue;
            const LessonExpr sub = side_expr(*sides[i]);
            const ExprValue v = evaluate(sub, ctx);
            if (v.state != ExprValue::State::value) return v;  // measuring, or why the verdict cannot be had
            if (!v.number) return unavailable("{" + sub.source + "} is not a number");
            x[i] = *v.number;
            simulated = simulated || v.simulated;
            was_measured = was_measured || v.measured;
            if (!v.recorded.empty()) recorded = v.recorded;
        }
        holds = c.op == "<" ? x[0] < x[1] : c.op == "<=" ? x[0] <= x[1] : c.op == ">" ? x[0] > x[1] : x[0] >= x[1];
    }
    const size_t b = holds ? 0 : 1;
    // The text of the chosen branch with its own live numbers filled in.
    ExprValue v = value_text(e.branch_spans.size() == 2 ? spans_text(e.branch_spans[b], ctx) : e.branches[b]);
    v.branch = static_cast<int>(b);
    v.simulated = simulated;
    v.measured = was_measured;
    v.recorded = recorded;
    return v;
}

}  // namespace

std::string spans_text(const std::vector<ProseSpan>& spans, const ExprContext& ctx) {
    std::string out;
    for (const ProseSpan& s : spans) {
        if (s.kind == ProseSpan::Kind::expr) out += evaluate(s.expr, ctx).text;
        else out += s.text;
    }
    return out;
}

ExprValue evaluate(const LessonExpr& e, const ExprContext& ctx) {
    if (std::string why = check_expr(e, ctx.params.workload); !why.empty()) return unavailable(why);
    if (e.func == "term") {
        return value_text(join(e.args, " "));  // the word as the lesson writes it; its definition is the tooltip
    }
    if (e.func.rfind("model.", 0) == 0) {
        if (e.func == "model.min_dram") {
            if (std::string bad = kernels::validate(ctx.params); !bad.empty()) return unavailable(bad);
            const double b = static_cast<double>(kernels::min_bytes(ctx.params));
            return value_text(kernels::format_bytes(b), b);
        }
        return evaluate_model(e, ctx);
    }
    if (e.func.rfind("measured.", 0) == 0) return evaluate_measured(e, ctx);
    if (e.func.rfind("timeline.", 0) == 0) return evaluate_timeline(e, ctx);
    if (e.func == "ratio") return evaluate_ratio(e, ctx);
    if (e.func == "if") return evaluate_if(e, ctx);
    if (e.func.rfind("device.", 0) == 0) return evaluate_device(e, ctx);
    if (e.func == "param") {
        if (e.args[0] == "dtype") return value_text(kernels::to_string(ctx.params.dtype));
        const kernels::ParamSpec* spec = spec_named(ctx.params.workload, e.args[0]);
        const double v = ctx.params.get(spec->name);
        return value_text(spec->integer ? kernels::format_count(static_cast<int64_t>(v)) : printf_text("%g", v), v);
    }
    // refusal: only where something is refused (issue 28: "an impossible tile says why it cannot
    // run: runs on NVIDIA H100"); a step that may see both writes {if refused V | {refusal V} | ...}.
    if (!ctx.device) return pending();
    if (std::string bad = kernels::validate(ctx.params); !bad.empty()) return unavailable(bad);
    const std::string why = refusal_of(e.args[0], ctx);
    if (why.empty()) return unavailable(e.args[0] + " is not refused here: it runs on " + ctx.device->name);
    return value_text(why);
}

// =============================================================================================
// [SECTION] Finding lesson files
// =============================================================================================

std::string lessons_dir(std::string* why_not) {
    // Installed: <prefix>/bin/fusionlab finds <prefix>/share/fusionlab/lessons (when it holds lessons),
    // wherever it is run from.
    return platform::data_dir(
        "FUSIONLAB_LESSONS", "lessons", FUSIONLAB_LESSONS_DIR,
        [](const std::string& dir) { return !lesson_files(dir).empty(); }, "lessons", "lessons/", why_not);
}

std::vector<std::string> lesson_files(const std::string& dir) {
    std::vector<std::string> files;
    std::error_code ec;
    for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec))
        if (it->is_regular_file(ec) && it->path().extension() == ".lesson") files.push_back(it->path().string());
    std::sort(files.begin(), files.end());
    return files;
}

void load_all_lessons(std::vector<Lesson>& lessons, std::vector<LessonError>& errors) {
    lessons.clear();
    errors.clear();
    std::string why;
    const std::string dir = lessons_dir(&why);
    if (dir.empty()) {
        errors.push_back({"lessons", 0, why});
        return;
    }
    for (const std::string& file : lesson_files(dir)) {
        LessonParse p = load_lesson(file);
        if (p.ok()) lessons.push_back(std::move(p.lesson));
        else errors.insert(errors.end(), p.errors.begin(), p.errors.end());
    }
}

const Lesson* find_lesson(const std::vector<Lesson>& lessons, const std::string& name, std::string* why) {
    for (const Lesson& l : lessons)
        if (l.name == name || l.path == name) return &l;
    // A number: "2" or "02" matches "02-...".
    if (!name.empty() && std::all_of(name.begin(), name.end(), [](char c) { return std::isdigit(static_cast<unsigned char>(c)); })) {
        const int n = std::atoi(name.c_str());
        for (const Lesson& l : lessons)
            if (std::isdigit(static_cast<unsigned char>(l.name[0])) && std::atoi(l.name.c_str()) == n) return &l;
    }
    std::vector<std::string> names;
    for (const Lesson& l : lessons) names.push_back(l.name);
    if (why) *why = "no lesson '" + name + "' (legal: " + (names.empty() ? std::string("none found") : join(names, ", ")) + ")";
    return nullptr;
}

}  // namespace app
