// [SECTION] Small helpers: sizes, colours, tooltips
// [SECTION] Prose: word-wrapped spans with bold, code, maths and live numbers
// [SECTION] The lesson pane: picker, progress, navigation, predictions, prose, recall questions, bundle
// [SECTION] Layout: pane | view, classroom mode, launcher
// [SECTION] Keys
// [SECTION] Interactive bundle export
#include "app/gui/panel_lesson.h"

#include "app/core/views.h"
#include "app/gui/panel_parameters.h"
#include "app/gui/view_tabs.h"
#include "app/lessons/expressions.h"
#include "app/lessons/glossary.h"
#include "app/lessons/lesson_bundle.h"
#include "app/lessons/lesson_files.h"
#include "app/lessons/lesson_player.h"
#include "app/lessons/vocabulary.h"
#include "kernels/core/registry.h"
#include "viz/highlight.h"
#include "viz/memory_view.h"
#include "viz/palette.h"
#include "viz/theme.h"
#include "viz/imgui_helpers.h"

#include <imgui.h>
#include <imgui_stdlib.h>

#define GLFW_INCLUDE_NONE  // key codes only
#include <GLFW/glfw3.h>

#include <algorithm>
#include <cfloat>
#include <cmath>
#include <memory>
#include <string>

namespace app {

namespace {

// =============================================================================================
// [SECTION] Small helpers
// =============================================================================================

using viz::em;
using viz::light_theme;
ImU32 error_color() { return ImGui::ColorConvertFloat4ToU32(viz::error_color()); }
ImU32 pending_color() { return ImGui::GetColorU32(ImGuiCol_TextDisabled); }
// Live numbers stand out from the prose: blue on light, sky blue on dark (Okabe-Ito).
ImU32 value_color() { return viz::rgb(light_theme() ? 0x0072B2 : 0x56B4E9); }
ImU32 code_background() { return ImGui::GetColorU32(ImGuiCol_FrameBg); }

void tooltip(const AppState& state, const std::string& text) {
    if (state.interactive) viz::tooltip(text);
}

void wrapped_error(const std::string& text) { viz::wrapped_colored(viz::error_color(), text); }

// =============================================================================================
// [SECTION] Prose
// =============================================================================================

// One unbreakable piece of a paragraph: a word in one style.
struct Piece {
    std::string text;
    ImFont* font = nullptr;
    ImU32 color = 0;
    bool boxed = false;          // code: drawn on a tinted box
    bool space_after = false;    // else the next piece is glued to this one ("(x)." wraps as one word)
    bool underline = false;      // a glossary term: dotted underline, its definition on hover
    std::string tip;             // expression pieces explain where the number comes from
};

void add_words(std::vector<Piece>& out, const std::string& text, ImFont* font, ImU32 color, bool boxed,
               const std::string& tip) {
    size_t i = 0;
    if (!text.empty() && text[0] == ' ' && !out.empty()) out.back().space_after = true;
    while (i < text.size()) {
        while (i < text.size() && text[i] == ' ') ++i;
        size_t j = i;
        while (j < text.size() && text[j] != ' ') ++j;
        if (j > i) out.push_back({text.substr(i, j - i), font, color, boxed, j < text.size(), false, tip});
        i = j;
    }
}

std::string expr_tip(const LessonExpr& e, const ExprValue& v) {
    std::string what;
    for (const ExprInfo& info : expr_vocabulary())
        if (e.func == info.func) what = info.what;
    std::string tip = "{" + e.source + "}: " + what + ".";
    if (v.state == ExprValue::State::pending) tip += "\nThe measurement for these parameters is running.";
    else if (v.state == ExprValue::State::unavailable) tip += "\n" + v.text;
    else if (v.emulated) tip += "\nComputed on this CPU: the variant's arithmetic emulated in its dtype and order of operations "
                                "on the rows a GPU check samples, against the float64 reference (no kernel ran).";
    else if (v.simulated) tip += "\nSimulated: the model's bytes and FLOPs over the datasheet GPU, not a measurement.";
    else if (!v.recorded.empty()) tip += "\nRecorded: " + v.recorded + " (read from a recording, not measured now).";
    else if (v.measured) tip += "\nMeasured now on this GPU (CUDA events, median of the repetitions).";
    else tip += "\nComputed by the model from the tile schedule for the parameters on screen.";
    return tip;
}

// Live values the student has not predicted yet show as a mask (hidden = true): the question comes
// before the numbers (app/lessons/prediction.h).
constexpr const char* kHiddenValue = "\xE2\x80\xA2\xE2\x80\xA2\xE2\x80\xA2";

std::vector<Piece> pieces_of(const std::vector<ProseSpan>& spans, const ExprContext& ctx, ImU32 text_color, bool hidden = false) {
    std::vector<Piece> out;
    ImFont* body = ImGui::GetFont();
    ImFont* bold = viz::bold_font();
    for (const ProseSpan& s : spans) {
        switch (s.kind) {
        case ProseSpan::Kind::text: add_words(out, s.text, body, text_color, false, ""); break;
        case ProseSpan::Kind::bold: add_words(out, s.text, bold, text_color, false, ""); break;
        case ProseSpan::Kind::code: add_words(out, s.text, body, text_color, true, ""); break;
        case ProseSpan::Kind::math: add_words(out, s.text, body, text_color, false, ""); break;
        case ProseSpan::Kind::expr: {
            if (s.expr.func == "term") {
                // A glossary word: plain text, underlined, its definition on hover.
                std::string key;
                for (const std::string& a : s.expr.args) key += (key.empty() ? "" : " ") + a;
                const GlossaryTerm* t = shipped_glossary().find(key);
                const size_t first = out.size();
                add_words(out, key, body, text_color, false, t ? t->key + ": " + t->definition : "not in the glossary");
                for (size_t i = first; i < out.size(); ++i) out[i].underline = true;
                break;
            }
            if (hidden && s.expr.func != "param") {  // the step's parameters are the question's setting, not its answer
                add_words(out, kHiddenValue, bold, pending_color(), false, "Hidden until the prediction above is answered.");
                break;
            }
            const ExprValue v = evaluate(s.expr, ctx);
            if (v.branch >= 0 && static_cast<size_t>(v.branch) < s.expr.branch_spans.size()) {
                // A verdict shows its chosen text as prose: its own live numbers stay live.
                const size_t first = out.size();
                std::vector<Piece> branch = pieces_of(s.expr.branch_spans[static_cast<size_t>(v.branch)], ctx, text_color);
                out.insert(out.end(), branch.begin(), branch.end());
                for (size_t i = first; i < out.size(); ++i)
                    if (out[i].tip.empty()) out[i].tip = expr_tip(s.expr, v);
                break;
            }
            const ImU32 color = v.state == ExprValue::State::value     ? value_color()
                                : v.state == ExprValue::State::pending ? pending_color()
                                                                       : error_color();
            add_words(out, v.text, bold, color, false, expr_tip(s.expr, v));
            break;
        }
        }
    }
    return out;
}

// Lays the pieces out in the current window's width, wrapping between words, and reserves the
// height. Hovering a live number shows where it comes from.
void draw_pieces(const AppState& state, const std::vector<Piece>& pieces, float indent) {
    ImDrawList* draw = ImGui::GetWindowDrawList();
    const ImVec2 start = ImGui::GetCursorScreenPos();
    const float left = start.x + indent;
    const float right = start.x + std::max(ImGui::GetContentRegionAvail().x, em() * 6);
    const float line_h = ImGui::GetTextLineHeightWithSpacing() * 1.08f;
    const float space = ImGui::CalcTextSize(" ").x;
    float x = left, y = start.y;
    auto width_of = [](const Piece& p) {
        return p.font->CalcTextSizeA(p.font->FontSize, FLT_MAX, 0, p.text.c_str()).x + (p.boxed ? em() * 0.4f : 0.0f);
    };
    for (size_t i = 0; i < pieces.size(); ++i) {
        const Piece& p = pieces[i];
        const ImVec2 size = p.font->CalcTextSizeA(p.font->FontSize, FLT_MAX, 0, p.text.c_str());
        const float pad = p.boxed ? em() * 0.2f : 0;
        // Pieces with no space between them wrap together: a live number and the ")." after it
        // stay on one line, so no line starts with punctuation.
        if (i == 0 || pieces[i - 1].space_after) {
            float group = width_of(p);
            for (size_t j = i; j + 1 < pieces.size() && !pieces[j].space_after; ++j) group += width_of(pieces[j + 1]);
            if (x > left && x + group > right) {
                x = left;
                y += line_h;
            }
        }
        const ImVec2 a(x, y), b(x + size.x + pad * 2, y + size.y);
        if (p.boxed) draw->AddRectFilled(a, b, code_background(), em() * 0.2f);
        draw->AddText(p.font, p.font->FontSize, ImVec2(x + pad, y), p.color, p.text.c_str());
        if (p.underline)  // dotted: a glossary term
            for (float u = a.x; u < b.x; u += em() * 0.3f)
                draw->AddLine(ImVec2(u, b.y), ImVec2(std::min(u + em() * 0.15f, b.x), b.y), p.color, 1.0f);
        if (!p.tip.empty() && state.interactive && ImGui::IsWindowHovered() && ImGui::IsMouseHoveringRect(a, b)) {
            draw->AddLine(ImVec2(a.x, b.y), b, p.color, 1.0f);
            viz::tooltip_box(p.tip);
        }
        x = b.x + (p.space_after ? space : 0);
    }
    ImGui::Dummy(ImVec2(right - start.x, y - start.y + line_h));
}

void draw_block(const AppState& state, const ProseBlock& block, const ExprContext& ctx, bool hidden = false) {
    const ImU32 text = ImGui::GetColorU32(ImGuiCol_Text);
    const std::vector<Piece> pieces = pieces_of(block.spans, ctx, text, hidden);
    if (block.bullet) {
        const ImVec2 at = ImGui::GetCursorScreenPos();
        const float r = em() * 0.14f;
        ImGui::GetWindowDrawList()->AddCircleFilled(ImVec2(at.x + em() * 0.55f, at.y + ImGui::GetTextLineHeight() * 0.55f), r, text);
        draw_pieces(state, pieces, em() * 1.2f);
    } else {
        draw_pieces(state, pieces, 0);
        ImGui::Dummy(ImVec2(0, em() * 0.2f));
    }
}

void draw_prose(const AppState& state, const std::vector<ProseBlock>& blocks, const ExprContext& ctx, bool hidden = false) {
    for (const ProseBlock& b : blocks) draw_block(state, b, ctx, hidden);
}

// =============================================================================================
// [SECTION] The lesson pane
// =============================================================================================

// "Lesson 7: When fusion fails ...": the number lessons refer to each other by (the file's).
std::string numbered_title(const Lesson& l) {
    if (l.name.empty() || !std::isdigit(static_cast<unsigned char>(l.name[0]))) return l.title;
    return "Lesson " + std::to_string(std::atoi(l.name.c_str())) + ": " + l.title;
}

void lesson_picker(AppState& state) {
    LessonPlayerState& lp = state.lesson;
    const Lesson* current = lp.current();
    ImGui::SetNextItemWidth(-FLT_MIN);
    const std::string shown = current ? numbered_title(*current) : std::string("choose a lesson");
    if (ImGui::BeginCombo("##lesson", shown.c_str())) {
        for (size_t i = 0; i < lp.lessons.size(); ++i) {
            const std::string label = numbered_title(lp.lessons[i]) + "##" + lp.lessons[i].name;
            if (ImGui::Selectable(label.c_str(), static_cast<int>(i) == lp.lesson))
                open_lesson(state, static_cast<int>(i), 0, ImGui::GetTime());
        }
        ImGui::EndCombo();
    }
    tooltip(state, current ? current->about + "\n\nFile: " + current->path : "Lessons live in " + lessons_dir());
}

void progress_row(AppState& state, const Lesson& lesson) {
    LessonPlayerState& lp = state.lesson;
    const int n = static_cast<int>(lesson.steps.size());
    const bool busy = lesson_bundle_running();
    ImGui::BeginDisabled(busy || lp.step <= 0);
    if (ImGui::ArrowButton("##prev", ImGuiDir_Left)) previous_step(state, ImGui::GetTime());
    ImGui::EndDisabled();
    tooltip(state, "Previous step (Left arrow or Page Up)");
    ImGui::SameLine();
    // "step 3 of 7" is also the jump menu: pick any step.
    const std::string label = "step " + std::to_string(lp.step + 1) + " of " + std::to_string(n);
    ImGui::SetNextItemWidth(ImGui::CalcTextSize(label.c_str()).x + ImGui::GetFrameHeight() + ImGui::GetStyle().FramePadding.x * 2);
    ImGui::BeginDisabled(busy);
    if (ImGui::BeginCombo("##jump", label.c_str())) {
        for (int i = 0; i < n; ++i) {
            const std::string item = std::to_string(i + 1) + ". " + lesson.steps[static_cast<size_t>(i)].title;
            if (ImGui::Selectable(item.c_str(), i == lp.step)) enter_step(state, i, ImGui::GetTime());
        }
        ImGui::EndCombo();
    }
    ImGui::EndDisabled();
    tooltip(state, "Jump to any step");
    ImGui::SameLine();
    ImGui::BeginDisabled(busy || lp.step + 1 >= n);
    if (ImGui::ArrowButton("##next", ImGuiDir_Right)) next_step(state, ImGui::GetTime());
    ImGui::EndDisabled();
    tooltip(state, "Next step (Right arrow or Page Down)");
    // A thin bar: how far through the lesson.
    const ImVec2 at = ImGui::GetCursorScreenPos();
    const float w = ImGui::GetContentRegionAvail().x, h = std::max(3.0f, em() * 0.2f);
    ImDrawList* draw = ImGui::GetWindowDrawList();
    draw->AddRectFilled(at, ImVec2(at.x + w, at.y + h), ImGui::GetColorU32(ImGuiCol_FrameBg));
    draw->AddRectFilled(at, ImVec2(at.x + w * static_cast<float>(lp.step + 1) / static_cast<float>(std::max(n, 1)), at.y + h),
                        value_color());
    ImGui::Dummy(ImVec2(w, h));
}

// What the pane says when the user has wandered off the step's settings.
void modified_hint(AppState& state) {
    if (!state.interactive) return;
    if (step_modified(state)) {
        ImGui::PushStyleColor(ImGuiCol_Text, ImGui::ColorConvertU32ToFloat4(viz::rgb(light_theme() ? 0xB35000 : 0xE69F00)));
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextUnformatted("You changed the settings: the numbers below follow them. Press R to return to this step.");
        ImGui::PopTextWrapPos();
        ImGui::PopStyleColor();
        if (ImGui::SmallButton("Return to step (R)")) reset_step(state, ImGui::GetTime());
    } else {
        ImGui::TextDisabled("Play with any control; R returns to this step.");
    }
}

void recall_questions(AppState& state, const LessonStep& step, const ExprContext& ctx, bool hidden) {
    for (size_t i = 0; i < step.recalls.size(); ++i) {
        const RecallQuestion& q = step.recalls[i];
        const int id = static_cast<int>(i);
        const bool open = state.lesson.revealed.count(id) > 0;
        ImGui::Spacing();
        ImGui::PushID(id);
        ImGui::PushFont(viz::bold_font());
        ImGui::TextUnformatted("Pause and recall");
        ImGui::PopFont();
        ImGui::SameLine();
        if (ImGui::SmallButton(open ? "hide answer" : "show answer")) {
            if (open) state.lesson.revealed.erase(id);
            else state.lesson.revealed.insert(id);
        }
        tooltip(state, "Think first, then click to open the answer.");
        draw_pieces(state, pieces_of(q.question, ctx, ImGui::GetColorU32(ImGuiCol_Text), hidden), 0);
        if (open) {
            const ImVec2 top = ImGui::GetCursorScreenPos();
            ImGui::Indent(em() * 0.8f);
            draw_prose(state, q.answer, ctx, hidden);
            ImGui::Unindent(em() * 0.8f);
            const float bottom = ImGui::GetCursorScreenPos().y;
            ImGui::GetWindowDrawList()->AddRectFilled(ImVec2(top.x, top.y), ImVec2(top.x + std::max(2.0f, em() * 0.15f), bottom),
                                                      value_color());
        }
        ImGui::PopID();
    }
}

// ---- Predictions: asked before the numbers, revealed with how far off the answer was ----

ImU32 right_color() { return viz::rgb(light_theme() ? 0x007A5A : 0x009E73); }   // Okabe-Ito bluish green
ImU32 wrong_color() { return viz::rgb(light_theme() ? 0xB35000 : 0xE69F00); }   // Okabe-Ito orange

void wrapped_line(const AppState& state, const std::string& text, ImU32 color, ImFont* font = nullptr) {
    std::vector<Piece> pieces;
    add_words(pieces, text, font ? font : ImGui::GetFont(), color, false, "");
    draw_pieces(state, pieces, 0);
}

// What the prediction asks for: "a number, within ±20 % (in MiB)" or the options A, B, C.
void prediction_form(const AppState& state, const Prediction& p) {
    const ImU32 dim = ImGui::GetColorU32(ImGuiCol_TextDisabled);
    if (p.kind == Prediction::Kind::number) {
        const std::string what = p.unit == "x" ? "Answer as a factor (2.5 means 2.5\xC3\x97)"
                                 : p.unit.empty() ? "Answer with a number"
                                                  : "Answer in " + p.unit;
        wrapped_line(state, what + "; right within " + tolerance_text(p) + ".", dim);
        return;
    }
    for (size_t i = 0; i < p.options.size(); ++i)
        wrapped_line(state, std::string(1, static_cast<char>('A' + i)) + ". " + p.options[i].label, ImGui::GetColorU32(ImGuiCol_Text));
}

// The reveal: the verdict on the answer (if any), the right answer with its source, what it rests
// on, and the lesson's closed form or measurement.
void prediction_reveal(const AppState& state, const Prediction& p, const std::string& answer, const ExprContext& ctx) {
    const PredictionGrade g = grade_prediction(p, answer, ctx);
    if (g.state == ExprValue::State::pending) {
        wrapped_line(state, "Measuring\xE2\x80\xA6 the answer appears when the numbers arrive.", pending_color());
        return;
    }
    if (g.state == ExprValue::State::unavailable) {
        wrapped_line(state, "Cannot be checked on this device: " + g.why, error_color());
    } else {
        const ImU32 color = !g.answered ? value_color() : g.right ? right_color() : wrong_color();
        wrapped_line(state, g.verdict, color, viz::bold_font());
        for (const std::string& e : g.evidence) wrapped_line(state, e, ImGui::GetColorU32(ImGuiCol_TextDisabled));
    }
    const ImVec2 top = ImGui::GetCursorScreenPos();
    ImGui::Indent(em() * 0.8f);
    draw_prose(state, p.reveal, ctx);
    ImGui::Unindent(em() * 0.8f);
    ImGui::GetWindowDrawList()->AddRectFilled(top, ImVec2(top.x + std::max(2.0f, em() * 0.15f), ImGui::GetCursorScreenPos().y),
                                              value_color());
}

// The student's input: a number field or the options, and Check. Enter checks too.
void prediction_input(AppState& state, const PredictionSet& set, int index, const Prediction& p, const ExprContext& ctx) {
    PredictionPlay& play = *set.play;
    std::string& input = play.input[index];
    bool check = false;
    if (p.kind == Prediction::Kind::number) {
        const float check_w = ImGui::CalcTextSize("Check").x + ImGui::GetStyle().FramePadding.x * 2;
        ImGui::SetNextItemWidth(std::max(em() * 4, ImGui::GetContentRegionAvail().x - check_w - ImGui::GetStyle().ItemSpacing.x));
        const std::string hint = p.unit.empty() ? "your number" : "your number, in " + p.unit;
        check = ImGui::InputTextWithHint("##answer", hint.c_str(), &input, ImGuiInputTextFlags_EnterReturnsTrue);
    } else {
        for (size_t i = 0; i < p.options.size(); ++i) {
            const std::string label = std::string(1, static_cast<char>('A' + i)) + ". " + p.options[i].label;
            if (ImGui::RadioButton(label.c_str(), option_named(p, input) == static_cast<int>(i))) input = p.options[i].label;
        }
    }
    if (p.kind == Prediction::Kind::number) ImGui::SameLine();
    ImGui::BeginDisabled(input.empty());
    check = ImGui::Button("Check") || check;
    ImGui::EndDisabled();
    tooltip(state, "Checks your answer against the live value on this device and keeps it (the teacher can export the answers as CSV).");
    ImGui::SameLine();
    if (ImGui::SmallButton("Skip")) play.settled.insert(index);
    tooltip(state, "Show the answer without predicting (nothing is kept).");
    if (check && !input.empty()) {
        const PredictionGrade g = answer_prediction(state.lesson, set, index, input, ctx);
        play.message[index] = !g.answer_error.empty() ? g.answer_error
                              : g.state == ExprValue::State::pending ? "Measuring\xE2\x80\xA6 check again when the numbers arrive."
                              : g.state == ExprValue::State::unavailable ? "Cannot be checked on this device: " + g.why
                                                                          : std::string();
    }
    if (auto it = play.message.find(index); it != play.message.end() && !it->second.empty())
        wrapped_line(state, it->second, error_color());
}

}  // namespace

void draw_prediction_cards(AppState& state, const PredictionSet& set, bool classroom, const ExprContext& ctx) {
    if (!set.predictions || !set.play) return;
    const std::vector<Prediction>& predictions = *set.predictions;
    const LessonPlayerState& lp = state.lesson;
    for (size_t i = 0; i < predictions.size(); ++i) {
        const Prediction& p = predictions[i];
        const int id = static_cast<int>(i);
        const bool posed_shot = !state.interactive && lp.shot_predictions_posed;
        const bool settled = state.interactive ? prediction_settled(lp.answers, set.owner, set.step, set.play->settled, id) : !posed_shot;
        ImGui::PushID(1000 + id);
        ImGui::PushFont(viz::bold_font());
        ImGui::TextUnformatted(predictions.size() > 1 ? ("Predict first (" + std::to_string(i + 1) + " of " +
                                                         std::to_string(predictions.size()) + ")").c_str()
                                                      : "Predict first");
        ImGui::PopFont();
        draw_prose(state, p.question, ctx);
        const bool typing = state.interactive && !classroom && !settled;
        if (!(typing && p.kind == Prediction::Kind::choice)) prediction_form(state, p);  // else the radio buttons list them
        if (!settled) {
            if (classroom || !state.interactive)
                wrapped_line(state, classroom ? "Ask the room, then press P to reveal." : "The numbers stay hidden until it is answered.",
                             pending_color());
            else
                prediction_input(state, set, id, p, ctx);
        } else {
            const PredictionAnswer* a = lp.answers.find(set.owner, set.step, id + 1);
            prediction_reveal(state, p, a ? a->answer : std::string(), ctx);
        }
        ImGui::Spacing();
        ImGui::PopID();
    }
    if (!predictions.empty()) ImGui::Separator();
}

namespace {

// The glossary: the terms this step links, defined, and every term under "All terms".
void glossary_section(const AppState& state, const LessonStep& step) {
    std::vector<std::string> keys;
    for (const ProseBlock& b : step.prose) linked_terms(b.spans, keys);
    for (const RecallQuestion& q : step.recalls) {
        linked_terms(q.question, keys);
        for (const ProseBlock& b : q.answer) linked_terms(b.spans, keys);
    }
    const Glossary& g = shipped_glossary();
    ImGui::Spacing();
    if (!ImGui::CollapsingHeader(keys.empty() ? "Glossary" : ("Glossary: " + std::to_string(keys.size()) + " terms in this step").c_str()))
        return;
    for (const LessonError& e : g.errors) wrapped_error(e.text());
    auto entry = [&](const GlossaryTerm& t) {
        std::vector<Piece> pieces;
        add_words(pieces, t.key + ":", viz::bold_font(), ImGui::GetColorU32(ImGuiCol_Text), false, "");
        add_words(pieces, t.definition, ImGui::GetFont(), ImGui::GetColorU32(ImGuiCol_Text), false, "");
        if (!pieces.empty()) pieces.front().space_after = true;
        draw_pieces(state, pieces, 0);
    };
    for (const std::string& k : keys)
        if (const GlossaryTerm* t = g.find(k)) entry(*t);
    if (ImGui::TreeNode("All terms")) {
        for (const GlossaryTerm& t : g.terms) entry(t);
        ImGui::TreePop();
    }
}

// What the last export said: an error in red, else dimmed.
void status_message(const std::string& message, bool error) {
    if (message.empty()) return;
    if (error) return wrapped_error(message);
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextDisabled("%s", message.c_str());
    ImGui::PopTextWrapPos();
}

void bundle_buttons(AppState& state) {
    LessonPlayerState& lp = state.lesson;
    ImGui::BeginDisabled(lesson_bundle_running());
    if (ImGui::Button("Bundle this step")) {
        lp.bundle_requested = true;
        lp.bundle_all_steps = false;
    }
    tooltip(state, "One folder in the export folder: this step's PNG, its measurements as CSV and JSON, its "
                   "settings and device as JSON, and its text with the numbers filled in. Written to a "
                   "temporary folder and renamed at the end, so it is complete or absent.");
    ImGui::SameLine();
    if (ImGui::Button("Bundle all steps")) {
        lp.bundle_requested = true;
        lp.bundle_all_steps = true;
    }
    tooltip(state, "The same for every step of the lesson: the player steps through it, waits for each step's "
                   "measurements, and saves each screen.");
    ImGui::EndDisabled();
    ImGui::SameLine();
    if (ImGui::Button("Export answers (CSV)")) {
        const std::string dir = state.settings.export_dir.empty() ? std::string(".") : state.settings.export_dir;
        const std::string path = dir + "/fusionlab-answers.csv";
        const std::string error = export_answers_csv(lp.answers, path);
        lp.answers_error = !error.empty();
        lp.answers_message = error.empty() ? "Wrote " + std::to_string(lp.answers.answers.size()) + " answers to " + path : error;
    }
    tooltip(state, "Every prediction answered in this app (all lessons), one row each: the answer, the live value, how "
                   "far off, within the tolerance or not, the device. Also: fusionlab lessons answers --csv FILE.");
    status_message(lp.answers_message, lp.answers_error);
    status_message(lp.bundle_message, lp.bundle_error);
}

void pane_header(AppState& state) {
    LessonPlayerState& lp = state.lesson;
    const float close_w = ImGui::CalcTextSize("Close").x + ImGui::GetStyle().FramePadding.x * 2;
    const float spacing = ImGui::GetStyle().ItemSpacing.x;
    const float x0 = ImGui::GetCursorPosX();
    const float avail = ImGui::GetContentRegionAvail().x;
    ImGui::PushFont(viz::heading_font());
    ImGui::TextUnformatted("Lesson");
    ImGui::PopFont();
    if (state.interactive) {
        // Right-aligned beside the heading when they fit, else on their own line.
        const char* room_label = lp.classroom ? "Leave classroom (F5)" : "Classroom (F5)";
        const float buttons_w = ImGui::CalcTextSize(room_label).x + ImGui::GetStyle().FramePadding.x * 2 + close_w + spacing;
        const float heading_right = ImGui::GetItemRectMax().x - ImGui::GetWindowPos().x;
        if (x0 + avail - buttons_w > heading_right + spacing) ImGui::SameLine(x0 + avail - buttons_w);
        if (ImGui::Button(room_label))
            set_classroom(state, !lp.classroom, ImGui::GetIO().DisplaySize.y);
        tooltip(state, "Presenter view: large fonts, only the controls this step uses, a halo around the mouse "
                       "pointer. Arrow keys or Page Up/Down step through the lesson; P reveals a prediction the room has answered.");
        ImGui::SameLine();
        if (ImGui::Button("Close")) close_lesson(state);
        tooltip(state, "Close the lesson: your own workload, parameters, dtype and variants come back.");
    }
    lesson_picker(state);
    if (state.interactive) {
        if (ImGui::Checkbox("Predictions", &state.settings.predictions)) state.settings_dirty = true;
        tooltip(state, "Ask for a prediction before a step shows its numbers (the teacher's switch; also on the toolbar). "
                       "In classroom mode the room answers aloud and P reveals.");
        if (const Lesson* l = lp.current(); l && lp.answers.count(l->name) > 0) {
            ImGui::SameLine();
            ImGui::TextDisabled("%d of %d right", lp.answers.right(l->name), lp.answers.count(l->name));
        }
    }
    for (const LessonError& e : lp.load_errors) wrapped_error(e.text());
}

void draw_lesson_pane(AppState& state, Runner& runner, const ResolvedBackend& backend) {
    LessonPlayerState& lp = state.lesson;
    pane_header(state);
    const Lesson* lesson = lp.current();
    const LessonStep* step = lp.current_step();
    if (!lesson || !step) {
        ImGui::TextWrapped("Pick a lesson above.");
        return;
    }
    progress_row(state, *lesson);
    ImGui::PushFont(viz::heading_font());
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextUnformatted(step->title.c_str());
    ImGui::PopTextWrapPos();
    ImGui::PopFont();
    modified_hint(state);
    ImGui::Separator();

    const ExprContext ctx = expr_context(state, backend, runner.busy());
    const bool hidden = step_numbers_hidden(state);
    if (state.settings.predictions) draw_prediction_cards(state, current_step_predictions(state), state.lesson.classroom, ctx);
    draw_prose(state, step->prose, ctx, hidden);
    recall_questions(state, *step, ctx, hidden);
    glossary_section(state, *step);
    ImGui::Spacing();

    if (lp.classroom) {
        // Presenter view: only what this step asks the class to play with.
        if (!step->state.controls.empty()) {
            ImGui::Separator();
            draw_step_controls(state, step->state.controls, runner, backend);
        }
        return;
    }
    if (state.interactive) {
        ImGui::Separator();
        bundle_buttons(state);
        if (ImGui::CollapsingHeader("Parameters (change anything)")) draw_parameters_panel(state, runner, backend);
    }
}

}  // namespace

// =============================================================================================
// [SECTION] Layout
// =============================================================================================

namespace {

// In place of the views while the step's prediction is open: the chart would give the answer away.
void hidden_view(const AppState& state) {
    const ImVec2 avail = ImGui::GetContentRegionAvail();
    const std::string text = state.lesson.classroom ? "The numbers appear when the prediction is revealed (P)."
                                                    : "The numbers appear when you have answered the prediction in the lesson pane.";
    ImGui::PushTextWrapPos(ImGui::GetCursorPosX() + std::max(em() * 8, avail.x - em()));
    ImGui::SetCursorPosY(ImGui::GetCursorPosY() + avail.y * 0.4f);
    ImGui::PushFont(viz::heading_font());
    ImGui::TextUnformatted("Predict first");
    ImGui::PopFont();
    ImGui::TextDisabled("%s", text.c_str());
    ImGui::PopTextWrapPos();
}

void draw_views_or_hidden(AppState& state, const ResolvedBackend& backend) {
    if (step_numbers_hidden(state)) hidden_view(state);
    else draw_view_tabs(state, backend);
}

// The views beside the lesson: a borderless child that keeps a margin of its own, so a step's ring
// around a chart flush with the pane's edge (viz::draw_highlight_ring, just outside the item) has
// room there instead of being pushed over the chart's first letters.
// Two memory views side by side, each 22 of its ems across (viz/memory_view.cpp's view_em), and
// the gap between them.
constexpr float kSideBySideViewEm = 44.0f;

void begin_views_child(ImVec2 size) {
    ImGui::PushStyleVar(ImGuiStyleVar_WindowPadding, ImVec2(em() * 0.45f, em() * 0.45f));
    ImGui::BeginChild("results", size, false, ImGuiWindowFlags_AlwaysUseWindowPadding);
    ImGui::PopStyleVar();  // read by BeginChild; the children drawn inside keep the theme's padding
}

}  // namespace

void draw_lesson_layout(AppState& state, Runner& runner, const ResolvedBackend& backend, float body_h) {
    const float total_w = ImGui::GetContentRegionAvail().x;
    // Side by side whenever the pane's least width leaves the view room for two memory views at
    // the smallest label the back row reads (viz/memory_view.h): stacked, a large font on a
    // 1280x720 projector left the prose one line and the animation a strip of overlapping labels.
    const float view_least_w = viz::kMinViewLabelPx * kSideBySideViewEm;
    if (total_w >= em() * 40 || total_w - em() * 18 >= view_least_w) {
        // The pane gets about 40 % (prose reads badly wider than ~35 em); the view the rest.
        const float share = state.lesson.classroom ? 0.42f : 0.38f;  // presenter fonts need the room
        const float pane_w = std::clamp(total_w * share, em() * 18, em() * 34);
        ImGui::BeginChild("lesson", ImVec2(pane_w, body_h), true);
        draw_lesson_pane(state, runner, backend);
        ImGui::EndChild();
        ImGui::SameLine();
        begin_views_child(ImVec2(0, body_h));
        draw_views_or_hidden(state, backend);
        ImGui::EndChild();
    } else {
        ImGui::BeginChild("lesson", ImVec2(0, body_h * 0.45f), true);
        draw_lesson_pane(state, runner, backend);
        ImGui::EndChild();
        begin_views_child(ImVec2(0, 0));
        draw_views_or_hidden(state, backend);
        ImGui::EndChild();
    }
    if (state.lesson.classroom && state.interactive && ImGui::IsMousePosValid())
        viz::draw_pointer_halo(ImGui::GetForegroundDrawList(), ImGui::GetIO().MousePos, em());
}

void draw_lesson_launcher(AppState& state) {
    if (!state.interactive) return;
    if (ImGui::Button("Lessons")) {
        ensure_lessons_loaded(state);
        // Reopened: the lesson's step state again (closing gave the user's own settings back).
        if (state.lesson.current()) open_lesson(state, state.lesson.lesson, state.lesson.step, ImGui::GetTime());
        else if (!state.lesson.lessons.empty()) open_lesson(state, 0, 0, ImGui::GetTime());
        state.lesson.open = true;
    }
    tooltip(state, "Step-by-step lessons on fusion: each step sets the parameters, measures, and explains the "
                   "numbers on screen. F5: classroom mode.");
}

// =============================================================================================
// [SECTION] Keys
// =============================================================================================

void handle_lesson_keys(AppState& state) {
    const ImGuiIO& io = ImGui::GetIO();
    if (io.WantTextInput || lesson_bundle_running()) return;
    LessonPlayerState& lp = state.lesson;
    if (ImGui::IsKeyPressed(GLFW_KEY_F5, false)) {
        ensure_lessons_loaded(state);
        if (!lp.current() && !lp.lessons.empty()) open_lesson(state, 0, 0, ImGui::GetTime());
        else if (lp.current() && !lp.open) open_lesson(state, lp.lesson, lp.step, ImGui::GetTime());
        set_classroom(state, !lp.classroom, io.DisplaySize.y);
    }
    if (lp.classroom && ImGui::IsKeyPressed(GLFW_KEY_ESCAPE, false)) set_classroom(state, false, 0);
    if (!lp.open || !lp.current()) return;
    const double now = ImGui::GetTime();
    if (ImGui::IsKeyPressed(GLFW_KEY_RIGHT, false) || ImGui::IsKeyPressed(GLFW_KEY_PAGE_DOWN, false)) next_step(state, now);
    if (ImGui::IsKeyPressed(GLFW_KEY_LEFT, false) || ImGui::IsKeyPressed(GLFW_KEY_PAGE_UP, false)) previous_step(state, now);
    if (ImGui::IsKeyPressed(GLFW_KEY_R, false) && !io.KeyCtrl) reset_step(state, now);
    // Classroom mode: the room has answered the prediction aloud; P reveals it (the next one first).
    if (lp.classroom && state.settings.predictions && ImGui::IsKeyPressed(GLFW_KEY_P, false)) reveal_next_prediction(state);
}

// =============================================================================================
// [SECTION] Interactive bundle export
// =============================================================================================

namespace {

// Seconds one step may take to measure before the export gives up.
constexpr double kBundleStepTimeoutSeconds = 300.0;
// Frames drawn with a step's results before its screen is captured (tables and charts settle).
constexpr int kBundleSettleFrames = 3;

struct GuiBundleJob {
    BundleWriter writer;
    std::vector<int> steps;
    size_t next = 0;
    int settle = 0;
    int return_to = 0;
    double step_started = 0;
};

std::unique_ptr<GuiBundleJob> g_bundle;

// Every selected variant has a result for exactly the parameters and backend on screen.
bool step_measured(const AppState& state, const Runner& runner) {
    if (state.params_dirty || runner.busy()) return false;
    // A step that shows a sweep waits for it: its picture shows the curves, the bundle its data.
    if (state.sweep_requested || state.sweep.start_requested || state.sweep.running) return false;
    const ResolvedBackend backend = resolve_backend(state.settings, runner);
    if (!backend.ready) return false;
    const std::vector<const kernels::Measurement*> shown = visible_results(state);
    if (shown.size() != selected_variants(state.settings).size()) return !state.validation_error.empty();
    for (const kernels::Measurement* m : shown)
        if (is_stale(*m, state.settings, backend)) return false;
    return true;
}

void finish_bundle(AppState& state, const std::string& error) {
    LessonPlayerState& lp = state.lesson;
    if (error.empty()) {
        const std::string e = g_bundle->writer.finish();
        lp.bundle_error = !e.empty();
        lp.bundle_message = e.empty() ? "saved " + g_bundle->writer.dir() : e;
    } else {
        g_bundle->writer.abort();
        lp.bundle_error = true;
        lp.bundle_message = error;
    }
    const int back = g_bundle->return_to;
    g_bundle.reset();
    enter_step(state, back, ImGui::GetTime());
}

}  // namespace

bool lesson_bundle_running() { return g_bundle != nullptr; }

void service_lesson_bundle(AppState& state, Runner& runner, const std::function<std::vector<uint8_t>()>& capture,
                           int width, int height) {
    LessonPlayerState& lp = state.lesson;
    const double now = ImGui::GetTime();
    if (lp.bundle_requested && !g_bundle) {
        lp.bundle_requested = false;
        const Lesson* lesson = lp.current();
        if (!lesson) return;
        auto job = std::make_unique<GuiBundleJob>();
        const std::string dir = bundle_dir_for(state.settings, lesson->name, lp.step, lp.bundle_all_steps);
        const ResolvedBackend backend = resolve_backend(state.settings, runner);
        if (std::string e = job->writer.begin(dir, *lesson, backend.device); !e.empty()) {
            lp.bundle_error = true;
            lp.bundle_message = e;
            return;
        }
        job->return_to = lp.step;
        if (lp.bundle_all_steps)
            for (int i = 0; i < static_cast<int>(lesson->steps.size()); ++i) job->steps.push_back(i);
        else
            job->steps.push_back(lp.step);
        g_bundle = std::move(job);
        lp.bundle_error = false;
        lp.bundle_message = "exporting...";
        enter_step(state, g_bundle->steps[0], now);
        g_bundle->step_started = now;
        return;
    }
    if (!g_bundle) return;
    GuiBundleJob& job = *g_bundle;
    lp.bundle_message = "exporting step " + std::to_string(job.next + 1) + " of " + std::to_string(job.steps.size()) + "...";
    if (!step_measured(state, runner)) {
        job.settle = 0;
        if (now - job.step_started > kBundleStepTimeoutSeconds)
            finish_bundle(state, "bundle not written: step " + std::to_string(job.steps[job.next] + 1) + " did not finish measuring");
        return;
    }
    if (++job.settle < kBundleSettleFrames) return;
    const LessonStep* step = lp.current_step();
    BundleStep out;
    out.index = lp.step;
    out.title = step ? step->title : "";
    const ResolvedBackend backend = resolve_backend(state.settings, runner);
    if (step) {
        const ExprContext ctx = expr_context(state, backend, false);
        out.prose = prose_plain_text(step->prose, ctx);
        for (const RecallQuestion& q : step->recalls)
            out.recalls.emplace_back(spans_plain_text(q.question, ctx), prose_plain_text(q.answer, ctx));
        if (step->state.sweep) out.sweep = state.sweep.results;
    }
    out.settings = state.settings;
    out.view = state.active_view;
    out.highlight = state.highlight;
    for (const kernels::Measurement* m : visible_results(state)) out.measurements.push_back(*m);
    out.width = width;
    out.height = height;
    out.rgba = capture();
    if (std::string e = job.writer.add_step(out); !e.empty()) {
        finish_bundle(state, "bundle not written: " + e);
        return;
    }
    if (++job.next >= job.steps.size()) {
        finish_bundle(state, "");
        return;
    }
    job.settle = 0;
    enter_step(state, job.steps[job.next], now);
    job.step_started = now;
}

}  // namespace app
