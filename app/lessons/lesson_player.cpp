#include "app/lessons/lesson_player.h"

#include "app/files/export.h"
#include "app/lessons/expressions.h"
#include "app/lessons/glossary.h"
#include "app/lessons/lesson_files.h"
#include "kernels/sim/sim_backend.h"
#include "kernels/core/registry.h"

#include <algorithm>
#include <cmath>

namespace app {

void ensure_lessons_loaded(AppState& state) {
    LessonPlayerState& lp = state.lesson;
    if (lp.loaded) return;
    load_all_lessons(lp.lessons, lp.load_errors);
    lp.loaded = true;
}

void apply_step_state(AppState& state, const StepState& st) {
    Settings& s = state.settings;
    s.params = st.params;
    s.variants[st.params.workload] = st.variants;
    state.requested_view = st.view;
    state.highlight = st.highlight;
    if (st.sweep) state.sweep_requested = true;
    // The memory animation follows the lesson's variants: its first and, side by side, second one.
    state.memory.variant = st.variants.empty() ? std::string() : st.variants.front();
    state.memory.compare = st.variants.size() > 1 ? st.variants[1] : std::string();
    state.memory.side_by_side = st.view == "memory" && st.variants.size() > 1;
    state.memory.clock = 0;
    // A step that shows the animation plays it (shots pick their still frame themselves).
    state.memory.playing = st.view == "memory" && state.interactive;
}

void enter_step(AppState& state, int step, double now) {
    LessonPlayerState& lp = state.lesson;
    const Lesson* lesson = lp.current();
    if (!lesson || lesson->steps.empty()) return;
    lp.step = std::clamp(step, 0, static_cast<int>(lesson->steps.size()) - 1);
    lp.revealed.clear();
    lp.predictions.clear();
    const StepState& st = lesson->steps[static_cast<size_t>(lp.step)].state;
    apply_step_state(state, st);
    mark_changed(state, now);
    // @measure: no debounce wait; otherwise the usual short pause lets fast stepping skip runs.
    if (st.measure) state.changed_at = now - kSubmitDebounceSeconds;
    lp.step_applied = true;
    lp.step_entered_at = now;
}

bool highlight_pulsing(const AppState& state, double now) {
    return state.interactive && !state.highlight.empty() && now - state.lesson.step_entered_at < kHighlightPulseSeconds;
}

float highlight_pulse(const AppState& state, double now) {
    if (!highlight_pulsing(state, now)) return 0.0f;
    return 0.5f + 0.5f * static_cast<float>(std::sin((now - state.lesson.step_entered_at) * 6.0));
}

void open_lesson(AppState& state, int index, int step, double now) {
    LessonPlayerState& lp = state.lesson;
    if (index < 0 || index >= static_cast<int>(lp.lessons.size())) return;
    if (!lp.user_state_saved) {
        lp.user_params = state.settings.params;
        lp.user_variants = state.settings.variants;
        lp.user_state_saved = true;
    }
    lp.open = true;
    lp.lesson = index;
    enter_step(state, step, now);
}

void close_lesson(AppState& state) {
    LessonPlayerState& lp = state.lesson;
    set_classroom(state, false, 0);
    lp.open = false;
    state.highlight.clear();
    if (lp.user_state_saved) {
        state.settings.params = lp.user_params;
        state.settings.variants = lp.user_variants;
        lp.user_state_saved = false;
        lp.step_applied = false;
        mark_changed(state, 0);
    }
}

Settings settings_to_save(const AppState& state) {
    Settings saved = state.settings;
    const LessonPlayerState& lp = state.lesson;
    if (lp.classroom && lp.font_scale_before_classroom > 0) saved.font_scale = lp.font_scale_before_classroom;
    if (lp.user_state_saved) {
        saved.params = lp.user_params;
        saved.variants = lp.user_variants;
    }
    return saved;
}

bool next_step(AppState& state, double now) {
    const Lesson* l = state.lesson.current();
    if (!l || state.lesson.step + 1 >= static_cast<int>(l->steps.size())) return false;
    enter_step(state, state.lesson.step + 1, now);
    return true;
}

bool previous_step(AppState& state, double now) {
    if (!state.lesson.current() || state.lesson.step <= 0) return false;
    enter_step(state, state.lesson.step - 1, now);
    return true;
}

void reset_step(AppState& state, double now) { enter_step(state, state.lesson.step, now); }

bool step_modified(const AppState& state) {
    const LessonStep* step = state.lesson.current_step();
    if (!step) return false;
    const Settings& s = state.settings;
    if (!(s.params == step->state.params)) return true;
    return selected_variants(s) != step->state.variants;
}

float classroom_font_scale(float display_height) {
    // 1.5x at 720 px, 2.25x at 1080 px: the 17 px body font becomes 1/28 of the screen height
    // either way, readable from the back of a room, and the layout keeps the same ~50 em width.
    const float scale = display_height / 480.0f;
    return std::clamp(std::round(scale * 4.0f) / 4.0f, 1.25f, kMaxFontScale);
}

void set_classroom(AppState& state, bool on, float display_height) {
    LessonPlayerState& lp = state.lesson;
    if (on == lp.classroom) return;
    lp.classroom = on;
    if (on) {
        lp.font_scale_before_classroom = state.settings.font_scale;
        state.settings.font_scale = std::max(state.settings.font_scale, classroom_font_scale(display_height));
        lp.open = true;
    } else if (lp.font_scale_before_classroom > 0) {
        state.settings.font_scale = lp.font_scale_before_classroom;
    }
}

ExprContext expr_context(const AppState& state, const ResolvedBackend& backend, bool pending) {
    ExprContext ctx;
    ctx.params = state.settings.params;
    ctx.selected = selected_variants(state.settings);
    ctx.device = backend.ready ? &backend.device : nullptr;
    if (backend.ready && backend.kind == kernels::BackendKind::recorded)
        if (const kernels::SimGpu* gpu = kernels::find_sim_gpu(backend.sim_key)) ctx.fallback_device = &gpu->info;
    ctx.results = &state.results;
    ctx.pending = pending || state.params_dirty;
    return ctx;
}

std::string spans_plain_text(const std::vector<ProseSpan>& spans, const ExprContext& ctx) {
    std::string out;
    for (const ProseSpan& s : spans) {
        switch (s.kind) {
        case ProseSpan::Kind::text: out += s.text; break;
        case ProseSpan::Kind::bold: {
            // Spaces stay outside the markers ("3.00× **fewer bytes**", not "3.00×** fewer bytes**"):
            // a live number inside bold is its own span.
            const size_t a = s.text.find_first_not_of(' '), b = s.text.find_last_not_of(' ');
            if (a == std::string::npos) out += s.text;
            else out += s.text.substr(0, a) + "**" + s.text.substr(a, b - a + 1) + "**" + s.text.substr(b + 1);
            break;
        }
        case ProseSpan::Kind::code: out += "`" + s.text + "`"; break;
        case ProseSpan::Kind::math: out += s.text; break;
        case ProseSpan::Kind::expr: {
            const ExprValue v = evaluate(s.expr, ctx);
            // A verdict's chosen text keeps its own markup (code, bold) around its live numbers.
            if (v.branch >= 0 && static_cast<size_t>(v.branch) < s.expr.branch_spans.size())
                out += spans_plain_text(s.expr.branch_spans[static_cast<size_t>(v.branch)], ctx);
            else
                out += v.text;
            break;
        }
        }
    }
    return out;
}

std::string prose_plain_text(const std::vector<ProseBlock>& blocks, const ExprContext& ctx) {
    std::string out;
    std::vector<std::string> terms;
    for (const ProseBlock& b : blocks) {
        out += (b.bullet ? "- " : "") + spans_plain_text(b.spans, ctx) + (b.bullet ? "\n" : "\n\n");
        linked_terms(b.spans, terms);
    }
    // The glossary terms the step links, defined where the text goes (a slide, a handout).
    if (!terms.empty()) {
        out += "Terms:\n";
        for (const std::string& key : terms)
            if (const GlossaryTerm* t = shipped_glossary().find(key)) out += "- " + t->key + ": " + t->definition + "\n";
        out += "\n";
    }
    return out;
}

PredictionSet current_step_predictions(AppState& state) {
    LessonPlayerState& lp = state.lesson;
    PredictionSet set;
    set.play = &lp.predictions;
    const Lesson* l = lp.current();
    const LessonStep* step = lp.current_step();
    if (!l || !step) return set;
    set.owner = l->name;
    set.step = lp.step + 1;
    set.predictions = &step->predictions;
    return set;
}

bool prediction_settled(const AnswerBook& book, const std::string& owner, int step, const std::set<int>& settled, int index) {
    return settled.count(index) || (!owner.empty() && book.find(owner, step, index + 1) != nullptr);
}

bool prediction_settled(const AppState& state, int index) {
    const LessonPlayerState& lp = state.lesson;
    const Lesson* l = lp.current();
    return prediction_settled(lp.answers, l ? l->name : std::string(), lp.step + 1, lp.predictions.settled, index);
}

bool step_numbers_hidden(const AppState& state) {
    const LessonStep* step = state.lesson.current_step();
    if (!state.settings.predictions || !step || step->predictions.empty() || !state.lesson.open) return false;
    if (!state.interactive && !state.lesson.shot_predictions_posed) return false;
    for (size_t i = 0; i < step->predictions.size(); ++i)
        if (!prediction_settled(state, static_cast<int>(i))) return true;
    return false;
}

PredictionGrade answer_prediction(LessonPlayerState& lp, const PredictionSet& set, int index, const std::string& answer,
                                  const ExprContext& ctx) {
    if (!set.predictions || !set.play || set.owner.empty() || index < 0 || index >= static_cast<int>(set.predictions->size()))
        return {};
    const Prediction& p = (*set.predictions)[static_cast<size_t>(index)];
    PredictionGrade g = grade_prediction(p, answer, ctx);
    if (!g.answered || g.state != ExprValue::State::value) return g;
    PredictionAnswer a;
    a.lesson = set.owner;
    a.step = set.step;
    a.prediction = index + 1;
    a.kind = p.kind == Prediction::Kind::number ? "number" : "choice";
    std::string question;
    for (const ProseBlock& b : p.question) {
        if (!question.empty()) question += ' ';
        question += spans_plain_text(b.spans, ctx);
    }
    a.question = question;
    a.answer = p.kind == Prediction::Kind::choice ? p.options[static_cast<size_t>(option_named(p, answer))].label : answer;
    a.correct = g.truth_text;
    a.off_percent = g.off_percent;
    a.right = g.right;
    a.tolerance = tolerance_text(p);
    a.device = ctx.device ? ctx.device->name + (ctx.device->simulated ? " (simulated)" : ctx.fallback_device ? " (recorded)" : "")
                          : std::string();
    a.answered_at = utc_timestamp();
    lp.answers.record(a);
    lp.answers_dirty = true;
    set.play->settled.insert(index);
    return g;
}

PredictionGrade answer_prediction(AppState& state, int index, const std::string& answer, const ExprContext& ctx) {
    return answer_prediction(state.lesson, current_step_predictions(state), index, answer, ctx);
}

bool reveal_next_prediction(const AnswerBook& book, const PredictionSet& set) {
    if (!set.predictions || !set.play) return false;
    for (size_t i = 0; i < set.predictions->size(); ++i)
        if (!prediction_settled(book, set.owner, set.step, set.play->settled, static_cast<int>(i))) {
            set.play->settled.insert(static_cast<int>(i));
            return true;
        }
    return false;
}

bool reveal_next_prediction(AppState& state) { return reveal_next_prediction(state.lesson.answers, current_step_predictions(state)); }

std::string export_answers_csv(const AnswerBook& book, const std::string& path) {
    return write_file_atomic(path, answers_csv(book));
}

}  // namespace app
