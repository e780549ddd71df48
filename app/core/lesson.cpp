// [SECTION] Small text helpers
// [SECTION] Highlight ids and the expression vocabulary
// [SECTION] Inline prose: bold, code, maths, live expressions
// [SECTION] The line parser
// [SECTION] Checking a finished step
// [SECTION] Live expressions: evaluation
// [SECTION] Finding lesson files
#include "app/core/lesson.h"

#include "app/core/export.h"
#include "app/core/platform.h"
#include "app/core/platform_file.h"
#include "app/core/views.h"
#include "kernels/common/format.h"
#include "kernels/memory_player.h"
#include "kernels/roofline.h"
#include "kernels/common/registry.h"
#include "kernels/common/backend.h"

#include <algorithm>
#include <cctype>
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

const std::vector<HighlightInfo>& highlight_ids() {
    static const std::vector<HighlightInfo> table = {
        {"results.takeaway", "results", "the one-sentence takeaway above the charts"},
        {"results.time_chart", "results", "the time chart (median, min-max whiskers)"},
        {"results.bytes_chart", "results", "the HBM bytes chart (stacked by buffer or kernel)"},
        {"results.table", "results", "the results table"},
        {"memory.hbm", "memory", "the HBM tensors of the memory animation"},
        {"memory.l2", "memory", "the L2 cache of the memory animation"},
        {"memory.sram", "memory", "the SMs' on-chip memory (shared memory / registers)"},
        {"memory.footer", "memory", "the memory animation's notes: modeled and measured time and bytes"},
        {"memory.race", "memory", "the byte race between two variants side by side"},
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
        {"measured.gbps", "VARIANT", "achieved bandwidth: modeled bytes / measured median time"},
        {"measured.percent", "VARIANT", "achieved bandwidth as % of the device's copy ceiling (or datasheet peak)"},
        {"measured.tflops", "VARIANT", "achieved FLOP rate: model FLOPs / measured median time"},
        {"measured.bytes", "VARIANT", "DRAM bytes read + written, from the hardware counters"},
        {"measured.dram_ratio", "VARIANT", "counter bytes / modeled L2<->SM bytes (what the caches did)"},
        {"measured.dram_vs_model", "VARIANT", "counter bytes / modeled DRAM bytes (how well the L2 reuse model did)"},
        {"measured.error", "VARIANT", "relative L2 error against the float64 CPU reference"},
        {"measured.dram_intensity", "VARIANT", "model FLOPs / DRAM bytes the counters read (the roofline's DRAM intensity, measured)"},
        {"model.bytes", "VARIANT", "modeled bytes the loads and stores ask for, L2<->SM (sum of the tile schedule)"},
        {"model.read", "VARIANT", "modeled L2<->SM bytes read"},
        {"model.written", "VARIANT", "modeled L2<->SM bytes written"},
        {"model.dram", "VARIANT", "modeled DRAM (HBM) bytes read + written, from the L2 reuse model"},
        {"model.shared", "VARIANT", "modeled shared-memory bytes (on chip, 128 B per wavefront)"},
        {"model.flops", "VARIANT", "modeled FLOPs"},
        {"model.kernels", "VARIANT", "kernel launches per run"},
        {"model.intensity", "VARIANT", "arithmetic intensity at L2: model FLOPs / modeled L2<->SM bytes"},
        {"model.dram_intensity", "VARIANT", "arithmetic intensity at DRAM: model FLOPs / modeled DRAM bytes (L2 reuse model)"},
        {"model.limiter", "VARIANT", "the resource the calibrated model says sets the variant's time on this device"},
        {"model.buffer", "VARIANT BUFFER", "modeled bytes one buffer (S, P, x, h1, ...) moves, read + written"},
        {"model.tensor", "VARIANT BUFFER", "one buffer's footprint in HBM: its size, not its traffic"},
        {"model.min_bytes", "", "the fewest bytes any implementation must move"},
        {"model.registers", "VARIANT", "registers per thread of the variant's row kernel or flash_tc (ptxas; sm_90)"},
        {"model.spill_bytes", "VARIANT", "register-spill traffic to and from local memory (ptxas bytes x threads)"},
        {"model.spill_past_l1", "VARIANT", "share of the spill traffic L1 cannot hold on this device (estimate)"},
        {"ratio", "time|bytes|flops|kernels|dram|model_dram A B", "A's quantity / B's: time and dram measured, the rest modeled"},
        {"device.name", "", "the device the numbers come from"},
        {"device.bandwidth", "", "the bandwidth ceiling in use (measured copy; simulated: the calibrated copy; else datasheet)"},
        {"device.tflops", "", "the tensor-core roof the roofline draws: the cuBLAS GEMM measured on this GPU (simulated: on a card of that model), else the peak"},
        {"device.ridge", "", "ridge point: that tensor roof / the bandwidth ceiling, in FLOP per byte (as on the roofline)"},
        {"device.smem", "", "shared memory one block may use (with opt-in)"},
        {"device.l2", "", "L2 cache size"},
        {"param", "NAME", "the current value of a parameter (N, d, rows, br, ...) or dtype"},
        {"refusal", "VARIANT", "why this device cannot run the variant with these parameters, or 'runs'"},
        {"if", "A OP B | THEN | ELSE", "a verdict: THEN when the live comparison holds (OP: < <= > >=), else ELSE"},
    };
    return table;
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

namespace {

LessonExpr parse_expr_text(const std::string& inner) {
    LessonExpr e;
    e.source = trim(inner);
    // A verdict: {if A OP B | THEN | ELSE}; the texts may hold spaces and commas.
    if (e.source.rfind("if ", 0) == 0 || e.source == "if") {
        std::vector<std::string> parts;
        size_t start = 0;
        for (size_t bar = e.source.find('|'); ; bar = e.source.find('|', start)) {
            parts.push_back(e.source.substr(start, bar == std::string::npos ? std::string::npos : bar - start));
            if (bar == std::string::npos) break;
            start = bar + 1;
        }
        e.func = "if";
        const std::vector<std::string> condition = words(parts.front().substr(2));
        e.args = condition;
        for (size_t i = 1; i < parts.size(); ++i) e.branches.push_back(trim(parts[i]));
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
            const char closer = c == '{' ? '}' : c;
            const size_t close = line.find(closer, i + 1);
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
            else out.push_back({ProseSpan::Kind::expr, "", parse_expr_text(inner), line_no});
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
        if (!title_seen_) error(1, "missing @lesson TITLE (the lesson's first directive)");
        if (r_.lesson.steps.empty()) error(std::max(1, last_line), "the lesson has no @step");
    }

private:
    void error(int line, const std::string& message) { r_.errors.push_back({path_, line, message}); }
    void warn_numbers(int line, const std::vector<std::string>& numbers, const char* where) {
        for (const std::string& n : numbers)
            r_.warnings.push_back({path_, line, "warning: '" + n + "' typed into " + where +
                                                    ": write it as a live expression, or mark a definition {=" + n + "}"});
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
                for (const std::string& b : span.expr.branches) warn_numbers(span.line, typed_numbers(b), "a verdict's text");
            }
        };
        for (const ProseBlock& b : s.prose) check_spans(b.spans);
        for (const RecallQuestion& q : s.recalls) {
            check_spans(q.question);
            for (const ProseBlock& b : q.answer) check_spans(b.spans);
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
    if (op == words_.size()) return "no comparison: write {if A OP B | THEN | ELSE} with OP one of < <= > >=, spaced";
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

}  // namespace

std::string check_expr(const LessonExpr& e, std::string w) {
    if (e.func.empty()) return "empty expression (legal functions: " + func_names() + ")";
    if (e.func == "if") {
        if (e.branches.size() != 2)
            return "if takes a condition and two texts: {if A OP B | shown when it holds | shown when not}";
        Condition c;
        if (std::string why = split_condition(e.args, c); !why.empty()) return why;
        for (const std::vector<std::string>* side : {&c.left, &c.right}) {
            double value = 0;
            if (literal(*side, value)) continue;
            const LessonExpr sub = side_expr(*side);
            if (sub.func == "if" || sub.func == "device.name" || sub.func == "refusal" ||
                (sub.func == "param" && sub.args.size() == 1 && sub.args[0] == "dtype"))
                return "'" + sub.source + "' is not a number to compare";
            if (std::string why = check_expr(sub, w); !why.empty()) return "'" + sub.source + "': " + why;
        }
        for (const std::string& b : e.branches)
            if (b.find_first_of("{}") != std::string::npos) return "a verdict's texts are plain text: no { }";
        return "";
    }
    const ExprInfo* info = find_expr(e.func);
    if (!info) return "unknown function '" + e.func + "' (legal: " + func_names() + ")";
    const size_t want = expected_args(*info);
    if (e.args.size() != want)
        return e.func + " takes " + std::to_string(want) + (want == 1 ? " argument" : " arguments") +
               (want ? std::string(" (") + info->args + ")" : std::string()) + ", not " + std::to_string(e.args.size());
    std::vector<std::string> variant_args;
    const std::string arg_kind = info->args;
    if (e.func == "ratio") {
        static const char* kQuantities[] = {"time", "bytes", "flops", "kernels", "dram", "model_dram"};
        bool ok = false;
        for (const char* q : kQuantities) ok = ok || e.args[0] == q;
        if (!ok) return "ratio of '" + e.args[0] + "'? (legal: time, bytes, flops, kernels, dram, model_dram)";
        variant_args = {e.args[1], e.args[2]};
    } else if (arg_kind.rfind("VARIANT", 0) == 0) {
        variant_args = {e.args[0]};
    } else if (e.func == "param") {
        if (e.args[0] != "dtype" && !spec_named(w, e.args[0]))
            return "unknown parameter '" + e.args[0] + "' of " + w + " (legal: dtype, " +
                   param_names(w) + ")";
    }
    for (const std::string& v : variant_args)
        if (!kernels::has_variant(w, v))
            return "unknown variant '" + v + "' of " + w + " (legal: " + variant_names(w) + ")";
    if (e.func == "model.buffer" || e.func == "model.tensor") {
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

std::optional<kernels::Model> model_of(const std::string& variant, const kernels::Params& p, std::string* why) {
    if (std::string bad = kernels::validate(p); !bad.empty()) {
        *why = bad;
        return std::nullopt;
    }
    try {
        return kernels::model(variant, p);
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

double model_quantity(const kernels::Model& m, const std::string& q) {
    if (q == "bytes") return static_cast<double>(m.bytes());
    if (q == "flops") return m.flops();
    if (q == "model_dram") return static_cast<double>(m.dram_bytes());
    return static_cast<double>(m.kernels.size());
}

ExprValue evaluate_model(const LessonExpr& e, const ExprContext& ctx) {
    std::string why;
    const std::optional<kernels::Model> m = model_of(e.args[0], ctx.params, &why);
    if (!m) return unavailable(why);
    auto bytes_value = [](uint64_t b) { return value_text(kernels::format_bytes(static_cast<double>(b)), static_cast<double>(b)); };
    if (e.func == "model.bytes") return bytes_value(m->bytes());
    if (e.func == "model.read") return bytes_value(m->bytes_read());
    if (e.func == "model.written") return bytes_value(m->bytes_written());
    if (e.func == "model.dram") return bytes_value(m->dram_bytes());
    if (e.func == "model.shared") return bytes_value(m->shared_bytes());
    if (e.func == "model.flops") return value_text(kernels::format_flops(m->flops()), m->flops());
    if (e.func == "model.kernels") return value_text(std::to_string(m->kernels.size()), static_cast<double>(m->kernels.size()));
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
    if (e.func == "model.intensity" || e.func == "model.dram_intensity") {
        const uint64_t bytes = e.func == "model.intensity" ? m->bytes() : m->dram_bytes();
        if (bytes == 0) return unavailable("the model moves no bytes");
        const double ai = m->flops() / static_cast<double>(bytes);
        return intensity_value(ai);
    }
    if (e.func == "model.limiter") {
        if (!ctx.device) return pending();
        // The calibrated simulator's verdict for this device (kernels/common/sim_backend.cpp's
        // price_run, as a simulated run names its limiter); on a GPU a model claim, not a measurement.
        return value_text(kernels::price_run(kernels::calibration_for(*ctx.device), e.args[0], ctx.params, *m, *ctx.device).limiter);
    }
    if (e.func == "model.tensor") {
        // The footprint, as the memory view draws it (kernels/memory_player.h).
        try {
            const kernels::MemoryPlayer player(e.args[0], ctx.params);
            for (const kernels::HbmTensor& t : player.tensors())
                if (t.name == e.args[1] && !t.local) return bytes_value(t.bytes);
        } catch (const std::exception& ex) {
            return unavailable(ex.what());
        }
        return unavailable(e.args[0] + " has no tensor " + e.args[1] + " with these parameters");
    }
    // model.buffer
    uint64_t bytes = 0;
    bool found = false;
    for (const auto& k : m->kernels)
        for (const auto& b : k.buffers)
            if (b.buffer == e.args[1]) {
                bytes += b.bytes_read + b.bytes_written;
                found = true;
            }
    if (!found) return unavailable(e.args[0] + " moves no buffer " + e.args[1] + " with these parameters");
    return bytes_value(bytes);
}

ExprValue evaluate_measured(const LessonExpr& e, const ExprContext& ctx) {
    ExprValue why;
    const kernels::Measurement* m = find_measurement(ctx, e.args[0], why);
    if (!m) return why;
    if (e.func == "measured.time") return measured(*m, kernels::format_time_ms(m->time.median_ms), m->time.median_ms);
    if (e.func == "measured.gbps") return measured(*m, kernels::format_gbps(m->achieved_gbps()), m->achieved_gbps());
    if (e.func == "measured.tflops")
        return measured(*m, kernels::format_rate_flops(m->achieved_gflops() * 1e9), m->achieved_gflops() / 1e3);
    if (e.func == "measured.percent") {
        const BandwidthCeiling c = bandwidth_ceiling(m->device);
        if (c.gbps <= 0) return unavailable("no bandwidth ceiling for this device");
        const double pct = percent_of_ceiling(m->achieved_gbps(), c);
        return measured(*m, printf_text("%.0f %%", pct) + " of " + c.source, pct);
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
    if (e.func == "measured.bytes") return measured(*m, kernels::format_bytes(counted), counted);
    if (e.func == "measured.dram_intensity") {
        if (!(counted > 0)) return unavailable("the counters read no DRAM bytes");
        const ExprValue v = intensity_value(m->flops / counted);
        return measured(*m, v.text, *v.number);
    }
    // measured.dram_ratio: against what the loop asks for (L2 <-> SM, model.bytes);
    // measured.dram_vs_model: against the modeled DRAM bytes (the L2 reuse model, model.dram).
    const uint64_t l2 = m->l2_bytes_read + m->l2_bytes_written;
    const double modeled = static_cast<double>(e.func == "measured.dram_vs_model" ? m->bytes() : (l2 > 0 ? l2 : m->bytes()));
    if (modeled <= 0) return unavailable("the model moves no bytes");
    const double share = counted / modeled;
    return measured(*m, printf_text("%.2f", share), share);
}

ExprValue evaluate_ratio(const LessonExpr& e, const ExprContext& ctx) {
    const std::string& q = e.args[0];
    if (q == "time" || q == "dram") {
        ExprValue why;
        const kernels::Measurement* a = find_measurement(ctx, e.args[1], why);
        if (!a) return why;
        const kernels::Measurement* b = find_measurement(ctx, e.args[2], why);
        if (!b) return why;
        if (q == "time") {
            if (!(b->time.median_ms > 0)) return unavailable(e.args[2] + " took no measurable time");
            const double r = a->time.median_ms / b->time.median_ms;
            return measured(*a, ratio_text(r), r);
        }
        if (!a->measured_bytes || !b->measured_bytes) return unavailable(counters_note(*(a->measured_bytes ? b : a)));
        if (*b->measured_bytes == 0) return unavailable(e.args[2] + " read no DRAM bytes");
        const double r = static_cast<double>(*a->measured_bytes) / static_cast<double>(*b->measured_bytes);
        return measured(*a, ratio_text(r), r);
    }
    std::string why;
    const std::optional<kernels::Model> a = model_of(e.args[1], ctx.params, &why);
    if (!a) return unavailable(why);
    const std::optional<kernels::Model> b = model_of(e.args[2], ctx.params, &why);
    if (!b) return unavailable(why);
    const double denominator = model_quantity(*b, q);
    if (denominator <= 0) return unavailable(e.args[2] + " has no " + q);
    const double r = model_quantity(*a, q) / denominator;
    return value_text(ratio_text(r), r);
}

ExprValue evaluate_device(const LessonExpr& e, const ExprContext& ctx) {
    if (!ctx.device) return pending();
    const kernels::DeviceInfo& d = *ctx.device;
    if (e.func == "device.name") return value_text(d.name);
    if (e.func == "device.smem") return value_text(kernels::format_bytes(d.smem_per_block_optin), d.smem_per_block_optin);
    if (e.func == "device.l2") return value_text(kernels::format_bytes(static_cast<double>(d.l2_bytes)), static_cast<double>(d.l2_bytes));
    if (e.func == "device.tflops" || e.func == "device.ridge") {
        // The roofs the roofline view draws for the step's dtype: the measured cuBLAS GEMM and copy
        // on a GPU, else the peak from clocks x SMs (GPU) or the datasheet's dense rate (simulated).
        const kernels::RoofSet roofs = kernels::roofs_for(d, ctx.params.dtype);
        const double tflops = roofs.tensor.flops_per_s / 1e12;
        if (!(tflops > 0)) return unavailable("no tensor-core roof known for this device");
        if (e.func == "device.tflops") {
            const std::string source = roofs.tensor.kind == "theoretical"
                                           ? std::string("clocks \xC3\x97 SMs, dense")
                                           : roofs.tensor.kind + " cuBLAS " + roofs.tensor.name.substr(12) + " GEMM";
            return value_text(printf_text("%.0f TFLOP/s", tflops) + " (" + source + ")", tflops);
        }
        if (!(roofs.bytes_per_s > 0)) return unavailable("no bandwidth known for this device");
        const double ridge = roofs.tensor.flops_per_s / roofs.bytes_per_s;
        return value_text(printf_text("%.0f FLOP/B", ridge), ridge);
    }
    const BandwidthCeiling c = bandwidth_ceiling(d);
    if (c.gbps <= 0) return unavailable("no bandwidth known for this device");
    return value_text(kernels::format_gbps(c.gbps) + " (" + c.source + ")", c.gbps);
}

ExprValue evaluate_if(const LessonExpr& e, const ExprContext& ctx) {
    Condition c;
    split_condition(e.args, c);  // check_expr has passed
    double x[2] = {0, 0};
    bool simulated = false, was_measured = false;
    std::string recorded;
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
    const bool holds = c.op == "<" ? x[0] < x[1] : c.op == "<=" ? x[0] <= x[1] : c.op == ">" ? x[0] > x[1] : x[0] >= x[1];
    ExprValue v = value_text(e.branches[holds ? 0 : 1]);
    v.simulated = simulated;
    v.measured = was_measured;
    v.recorded = recorded;
    return v;
}

}  // namespace

ExprValue evaluate(const LessonExpr& e, const ExprContext& ctx) {
    if (std::string why = check_expr(e, ctx.params.workload); !why.empty()) return unavailable(why);
    if (e.func.rfind("model.", 0) == 0) {
        if (e.func == "model.min_bytes") {
            if (std::string bad = kernels::validate(ctx.params); !bad.empty()) return unavailable(bad);
            const double b = static_cast<double>(kernels::min_bytes(ctx.params));
            return value_text(kernels::format_bytes(b), b);
        }
        return evaluate_model(e, ctx);
    }
    if (e.func.rfind("measured.", 0) == 0) return evaluate_measured(e, ctx);
    if (e.func == "ratio") return evaluate_ratio(e, ctx);
    if (e.func == "if") return evaluate_if(e, ctx);
    if (e.func.rfind("device.", 0) == 0) return evaluate_device(e, ctx);
    if (e.func == "param") {
        if (e.args[0] == "dtype") return value_text(kernels::to_string(ctx.params.dtype));
        const kernels::ParamSpec* spec = spec_named(ctx.params.workload, e.args[0]);
        const double v = ctx.params.get(spec->name);
        return value_text(spec->integer ? kernels::format_count(static_cast<int64_t>(v)) : printf_text("%g", v), v);
    }
    // refusal
    if (!ctx.device) return pending();
    if (std::string bad = kernels::validate(ctx.params); !bad.empty()) return unavailable(bad);
    const std::string why = kernels::device_refusal(e.args[0], ctx.params, kernels::total_memory_budget(*ctx.device));
    return value_text(why.empty() ? "runs on " + ctx.device->name : why);
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
