// The lesson file's line parser and the checks of each finished step (app/lessons/parser.h).
//
// [SECTION] The line parser (and the first-use check of glossary terms)
// [SECTION] Checking a finished step (levels against the highlight, typed limiters, doubled words)
// [SECTION] Entry points: parse_lesson, load_lesson
#include "app/lessons/parser.h"

#include "app/platform/platform_file.h"
#include "app/core/views.h"
#include "app/lessons/expressions.h"
#include "app/lessons/glossary.h"
#include "app/lessons/prose.h"
#include "app/lessons/text_helpers.h"
#include "app/lessons/vocabulary.h"
#include "kernels/core/registry.h"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <set>
#include <sstream>

namespace app {

namespace fs = std::filesystem;
using namespace lesson_text;

std::string LessonError::text() const { return file + ":" + std::to_string(line) + ": " + message; }

namespace {

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
            if (!kernels::parse_param_word(*spec, parts[1], value) && !parse_number(parts[1], value))
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

// =============================================================================================
// [SECTION] Entry points
// =============================================================================================

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

}  // namespace app
