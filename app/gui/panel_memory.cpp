// [SECTION] Players: which variants, rebuilt when the parameters change
// [SECTION] Notes: modeled and measured time and bytes
// [SECTION] Controls: play, pause, step, scrub, speed, side by side
// [SECTION] The panel
#include "app/gui/panel_memory.h"

#include "app/lessons/lesson_player.h"
#include "app/core/panels_state.h"
#include "app/gui/panel_banner.h"
#include "kernels/core/format.h"
#include "kernels/core/registry.h"
#include "viz/highlight.h"
#include "viz/memory_view.h"
#include "viz/imgui_helpers.h"

#include <imgui.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace app {

namespace {

using viz::em;
using viz::tooltip;

// =============================================================================================
// [SECTION] Players
// =============================================================================================
std::string pick_variant(const std::string& wanted, std::string w, const std::vector<std::string>& selected,
                         const std::string& avoid) {
    if (!wanted.empty() && kernels::has_variant(w, wanted) && wanted != avoid) return wanted;
    for (const std::string& v : selected)
        if (v != avoid) return v;
    for (const kernels::VariantInfo& v : kernels::variants(w))
        if (v.name != avoid) return v.name;
    return {};
}

// The player of `variant`, rebuilt when the parameters or the device's L2 (which sets its DRAM
// bytes) change.
std::shared_ptr<const kernels::MemoryPlayer> player_for(const std::shared_ptr<const kernels::MemoryPlayer>& cached,
                                                       const std::string& variant, const kernels::Params& p,
                                                       uint64_t l2_bytes, std::string& error) {
    if (cached && cached->variant() == variant && cached->params() == p && cached->l2_bytes() == l2_bytes) return cached;
    try {
        return std::make_shared<const kernels::MemoryPlayer>(variant, p, l2_bytes);
    } catch (const std::exception& e) {
        error = variant + ": " + e.what();
        return nullptr;
    }
}

void update_players(MemoryPanelState& m, const Settings& s, const kernels::DeviceInfo& device) {
    const std::string w = s.params.workload;
    const std::vector<std::string> selected = selected_variants(s);
    m.variant = pick_variant(m.variant, w, selected, "");
    m.compare = pick_variant(m.compare, w, selected, m.variant);
    m.error.clear();
    // The model's DRAM bytes depend on the L2 they are reused in; without a device, the H100's.
    const uint64_t l2 = device.l2_bytes > 0 ? static_cast<uint64_t>(device.l2_bytes) : kernels::kDefaultL2Bytes;
    m.player = player_for(m.player, m.variant, s.params, l2, m.error);
    m.other = m.side_by_side && !m.compare.empty() ? player_for(m.other, m.compare, s.params, l2, m.error) : nullptr;
}

// The player's clock on this device (viz/model/memory_player.h MemoryPlayer::clock), kept until the
// player, the device or the unit changes, so frames stay cheap.
const MemoryPlayerTiming& timing_for(MemoryPlayerTiming& cache, const std::shared_ptr<const kernels::MemoryPlayer>& player,
                                     const kernels::DeviceInfo& device, bool modeled_time) {
    if (cache.player == player && cache.device == device.name && cache.modeled_time == modeled_time) return cache;
    cache.player = player;
    cache.device = device.name;
    cache.modeled_time = modeled_time;
    cache.clock = player->clock(device, modeled_time);
    return cache;
}

// The step and tile flight at clock `t`: the first step that ends at or after t, flown as far
// as t is through it.
void step_at(const std::vector<double>& ends, double t, size_t& step, float& flight) {
    const size_t n = ends.size() - 1;
    if (t <= 0 || n == 0) {
        step = 0;
        flight = 1;
        return;
    }
    step = static_cast<size_t>(std::lower_bound(ends.begin() + 1, ends.end(), t) - ends.begin());
    step = std::min(step, n);
    const double span = ends[step] - ends[step - 1];
    flight = span > 0 ? static_cast<float>(std::clamp((t - ends[step - 1]) / span, 0.0, 1.0)) : 1.0f;
}

struct Timelines {
    std::vector<double> first, second;  // second empty when alone
    bool modeled_time = false;
    double end() const { return std::max(first.back(), second.empty() ? 0.0 : second.back()); }
    // The next (or previous) step boundary of either variant strictly after (before) t.
    double next_boundary(double t, bool forward) const {
        double best = forward ? end() : 0.0;
        for (const auto* ends : {&first, &second})
            for (double b : *ends) {
                if (forward && b > t + 1e-12) best = std::min(best, b);
                if (!forward && b < t - 1e-12) best = std::max(best, b);
            }
        return best;
    }
};

// =============================================================================================
// [SECTION] Notes
// =============================================================================================
const kernels::Measurement* measurement_of(const AppState& state, const kernels::MemoryPlayer& player) {
    for (const kernels::Measurement& m : state.results)
        if (m.ok && m.job.variant == player.variant() && m.job.params == player.params()) return &m;
    return nullptr;
}

// Short lines under the view, each with a tooltip saying how the number was obtained.
void add_notes(const AppState& state, const kernels::MemoryPlayer& player, const MemoryPlayerTiming& timing,
               const kernels::DeviceInfo& device, viz::MemoryViewData& d) {
    if (!d.refusal.empty()) {
        // A time for a kernel that cannot launch would read as a prediction: there is none.
        d.notes.push_back("modeled: none (refused on " + plain_device_name(device) + ")");
        d.note_tips.push_back("The device refuses " + player.variant() + " with these parameters, so the model prices no "
                              "run of it: " + d.refusal);
    } else if (timing.clock.modeled_ms > 0) {
        d.notes.push_back("modeled: " + kernels::format_time_ms(timing.clock.modeled_ms) + ", " +
                          kernels::format_bytes(static_cast<double>(timing.clock.modeled_bytes)) + " DRAM");
        d.note_tips.push_back("Modeled on " + device.name + ": each kernel priced by its slowest resource (DRAM, L2, "
                              "shared memory, tensor cores, FP32, SFU, issue) plus its launch cost, as the simulated "
                              "backend does; DRAM bytes are the schedule's loads and stores through the L2 reuse model.");
    }
    const kernels::Measurement* m = measurement_of(state, player);
    const kernels::Measurement* failed = nullptr;
    for (const kernels::Measurement& r : state.results)
        if (!r.ok && r.job.variant == player.variant() && r.job.params == player.params()) failed = &r;
    if (!m && failed) {
        d.notes.push_back(std::string("measured: ") + (failed->refused ? "refused by " : "failed on ") +
                          plain_device_name(failed->device) + " (hover for why)");
        d.note_tips.push_back(failed->error);
    } else if (!m) {
        d.notes.push_back("measured: none yet for these parameters");
        d.note_tips.push_back("No finished measurement of " + player.variant() +
                              " with exactly these parameters; the Measurements tab runs one when they settle.");
    } else if (m->device.simulated) {
        d.notes.push_back("measured: unavailable (simulated GPU)");
        d.note_tips.push_back(plain_device_name(m->device) + " is simulated: no kernel ran, so there is no measured time "
                              "or byte count; the modeled line is all there is.");
    } else {
        std::string line = (m->recorded() ? "recorded " + m->recorded_date + ": " : std::string("measured: ")) +
                           kernels::format_time_ms(m->time.median_ms);
        line += m->measured_bytes ? ", " + kernels::format_bytes(static_cast<double>(*m->measured_bytes)) + " DRAM" : "";
        d.notes.push_back(line);
        d.note_tips.push_back((m->recorded() ? "Recorded on " + m->device.name + ", " + m->recorded_date : "Measured on " + m->device.name) + ": median of " + std::to_string(m->time.reps) + " runs (" +
                              kernels::format_time_ms(m->time.min_ms) + " .. " + kernels::format_time_ms(m->time.max_ms) +
                              "). DRAM bytes: " +
                              (m->measured_bytes ? kernels::format_count(static_cast<int64_t>(*m->measured_bytes)) +
                                                       " (hardware counters)"
                                                 : m->measured_bytes_note));
    }
}

// =============================================================================================
// [SECTION] Controls
// =============================================================================================
// The widest variant name of the workload, as a combo box shows it (name plus arrow button).
float combo_width(const std::string& w, const char* extra = nullptr) {
    float widest = extra ? ImGui::CalcTextSize(extra).x : 0.0f;
    for (const kernels::VariantInfo& v : kernels::variants(w)) widest = std::max(widest, ImGui::CalcTextSize(v.name.c_str()).x);
    return widest + ImGui::GetStyle().FramePadding.x * 2 + ImGui::GetFrameHeight();
}

bool variant_combo(const char* id, std::string& variant, std::string w, const std::string& exclude, float width) {
    bool changed = false;
    ImGui::SetNextItemWidth(width);
    if (ImGui::BeginCombo(id, variant.c_str())) {
        for (const kernels::VariantInfo& v : kernels::variants(w)) {
            if (v.name == exclude) continue;
            if (ImGui::Selectable(v.name.c_str(), v.name == variant)) {
                variant = v.name;
                changed = true;
            }
            tooltip(v.description);
        }
        ImGui::EndCombo();
    }
    return changed;
}

// The second variant, or "alone": one combo box for side by side and the variant it shows.
constexpr const char* kAlone = "alone";
void compare_combo(MemoryPanelState& m, const std::string& w, float width) {
    ImGui::SetNextItemWidth(width);
    const std::string shown = m.side_by_side ? "vs " + m.compare : std::string(kAlone);
    if (ImGui::BeginCombo("##memory_compare", shown.c_str())) {
        if (ImGui::Selectable(kAlone, !m.side_by_side)) m.side_by_side = false;
        tooltip("Play one variant.");
        for (const kernels::VariantInfo& v : kernels::variants(w)) {
            if (v.name == m.variant) continue;
            const std::string label = "vs " + v.name;
            if (ImGui::Selectable(label.c_str(), m.side_by_side && v.name == m.compare)) {
                m.compare = v.name;
                m.side_by_side = true;
            }
            tooltip(v.description);
        }
        ImGui::EndCombo();
    }
    tooltip("Play a second variant of the same parameters next to the first, both on one clock of modeled time, "
            "so their DRAM byte counters race and the faster variant finishes first.");
}

float button_w(const char* label) { return ImGui::CalcTextSize(label).x + ImGui::GetStyle().FramePadding.x * 2; }

// One line, so that at projector fonts the animation keeps the height: the variant, the second
// variant (or "alone"), the transport buttons, the scrub bar, and a menu with the rest (speed,
// full width; the second variant too when the line has no room for it). A refused variant does
// not play: the transport is disabled and the line says why.
void draw_controls(MemoryPanelState& m, const Timelines& lines, const std::string& w, bool refused) {
    const ImGuiStyle& style = ImGui::GetStyle();
    const float spacing = style.ItemSpacing.x, avail = ImGui::GetContentRegionAvail().x;
    const float compare_w = combo_width(w, "vs ") + ImGui::CalcTextSize("vs ").x;
    const char* play_label = m.playing ? "Pause" : "Play";
    const float play_w = std::max(button_w("Pause"), button_w("Play"));
    const float transport_w = button_w("|<") + button_w("<") + play_w + button_w(">") + button_w(">|") + spacing * 4;
    const float menu_w = button_w("...");
    // The scrub bar's text at its widest (the end of the schedule), and the least the bar needs to
    // show it whole.
    const std::string fmt = refused              ? std::string("refused: nothing to play")
                            : lines.modeled_time ? "%.4g ms modeled"
                                                 : "step %.0f of " + std::to_string(lines.first.size() - 1);
    char widest[64];
    std::snprintf(widest, sizeof widest, fmt.c_str(), lines.end());
    const float scrub_least = std::max(ImGui::CalcTextSize(widest).x + style.FramePadding.x * 4, viz::em() * 6);
    // One line when it holds everything; the compare box goes into the menu when it would leave the
    // scrub bar less than its least width. Where the line is too narrow (a narrow view at a large
    // font), the groups wrap in order: the variant, the transport, the scrub bar with the menu.
    // The variant box is as wide as the workload's longest name (it stays put as the variant
    // changes), unless that pushes the transport off its line: then as wide as this name.
    const float current_w = ImGui::CalcTextSize(m.variant.c_str()).x + style.FramePadding.x * 2 + ImGui::GetFrameHeight();
    const float variant_w = combo_width(w) + spacing + transport_w <= avail ? combo_width(w) : current_w;
    const float scrub_group_w = scrub_least + spacing + menu_w;
    const float one_line = variant_w + transport_w + scrub_group_w + spacing * 2;
    const bool compare_inline = one_line + compare_w + spacing <= avail;
    const bool transport_inline = variant_w + spacing + transport_w <= avail;
    const bool scrub_inline = transport_inline ? one_line <= avail : transport_w + spacing + scrub_group_w <= avail;

    variant_combo("##memory_variant", m.variant, w, "", variant_w);
    tooltip("The variant whose tile schedule plays.");
    if (compare_inline) {
        ImGui::SameLine();
        compare_combo(m, w, compare_w);
    }
    if (transport_inline) ImGui::SameLine();
    ImGui::BeginDisabled(refused);
    if (ImGui::Button("|<")) { m.clock = 0; m.playing = false; }
    tooltip("Back to the start.");
    ImGui::SameLine();
    if (ImGui::Button("<")) { m.clock = lines.next_boundary(m.clock, false); m.playing = false; }
    tooltip("Step back one event.");
    ImGui::SameLine();
    if (ImGui::Button(play_label, ImVec2(play_w, 0))) {
        if (!m.playing && m.clock >= lines.end()) m.clock = 0;
        m.playing = !m.playing;
    }
    tooltip("Play the schedule, one event after another.");
    ImGui::SameLine();
    if (ImGui::Button(">")) { m.clock = lines.next_boundary(m.clock, true); m.playing = false; }
    tooltip("Step forward one event (side by side: to the next event of either variant).");
    ImGui::SameLine();
    if (ImGui::Button(">|")) { m.clock = lines.end(); m.playing = false; }
    tooltip("Jump to the end: the counters then equal the model's totals.");
    if (scrub_inline) ImGui::SameLine();
    float clock = static_cast<float>(m.clock);
    ImGui::SetNextItemWidth(std::max(ImGui::GetContentRegionAvail().x - menu_w - spacing, viz::em() * 2));
    if (ImGui::SliderFloat("##scrub", &clock, 0.0f, static_cast<float>(lines.end()), fmt.c_str())) {
        m.clock = clock;
        m.playing = false;
    }
    ImGui::EndDisabled();
    tooltip(refused ? "This device refuses the variant (the view says why): there is no schedule to play."
            : lines.modeled_time ? "Scrub through modeled time: both variants run at the pace the model gives them, "
                                   "so the one that finishes first is the faster one."
                                 : "Scrub through the schedule.");
    ImGui::SameLine();
    if (ImGui::Button("...")) ImGui::OpenPopup("memory_more");
    tooltip("More: playback speed, full width, side by side.");
    if (ImGui::BeginPopup("memory_more")) {
        if (!compare_inline) {
            ImGui::AlignTextToFramePadding();
            ImGui::TextUnformatted("beside");
            ImGui::SameLine();
            compare_combo(m, w, compare_w);
        }
        ImGui::SetNextItemWidth(viz::em() * 9);
        ImGui::SliderFloat("##speed", &m.steps_per_second, 0.25f, 30.0f, "%.2g steps/s", ImGuiSliderFlags_Logarithmic);
        tooltip("Playback speed, in steps of the first variant per second.");
        ImGui::Checkbox("full width", &m.full_width);
        tooltip("Give the animation the whole window; the parameters fold into a header above it.");
        ImGui::EndPopup();
    }
}

void advance(MemoryPanelState& m, const Timelines& lines, bool interactive) {
    if (!interactive || !m.playing) return;
    // A whole run lasts (steps of the first variant) / speed seconds, whatever the clock's unit.
    const double per_second = static_cast<double>(m.steps_per_second) * lines.first.back() /
                              static_cast<double>(std::max<size_t>(lines.first.size() - 1, 1));
    m.clock += per_second * static_cast<double>(ImGui::GetIO().DeltaTime);
    if (m.clock >= lines.end()) {
        m.clock = lines.end();
        m.playing = false;
    }
}

}  // namespace

// =============================================================================================
// [SECTION] The panel
// =============================================================================================
void draw_memory_panel(AppState& state, const ResolvedBackend& backend) {
    MemoryPanelState& m = state.memory;
    update_players(m, state.settings, backend.device);
    Timelines lines;
    if (m.player) {
        lines.modeled_time = m.other != nullptr;
        lines.first = timing_for(m.first_timing, m.player, backend.device, lines.modeled_time).clock.ends;
        if (m.other) lines.second = timing_for(m.second_timing, m.other, backend.device, true).clock.ends;
        lines.modeled_time = lines.modeled_time && lines.first.back() != static_cast<double>(lines.first.size() - 1);
        if (m.clock_was_time != lines.modeled_time) m.clock = 0;  // switched units: start over
        m.clock_was_time = lines.modeled_time;
        // A requested step (shots): its tile mid-flight, as a still picture should show it.
        if (m.pending_step >= 0) {
            const size_t step = std::min(static_cast<size_t>(m.pending_step), lines.first.size() - 1);
            const double flight = std::clamp(m.pending_flight, 0.0, 1.0);
            m.clock = step == 0 ? 0 : lines.first[step - 1] + flight * (lines.first[step] - lines.first[step - 1]);
            m.pending_step = -1;
        }
        m.clock = std::clamp(m.clock, 0.0, lines.end());
    }
    // Why the device refuses each variant ("" when it runs): a refused one does not animate.
    const auto refusal_of = [&](const std::shared_ptr<const kernels::MemoryPlayer>& player) -> std::string {
        return player && backend.ready ? state.validation.refusal(state.settings.params, backend.device, player->variant())
                                       : std::string();
    };
    const std::string first_refusal = refusal_of(m.player), second_refusal = refusal_of(m.other);
    const bool refused = !first_refusal.empty() && (!m.other || !second_refusal.empty());
    if (refused) m.playing = false;
    // Shots draw the controls too: a bundle shows the layout the class sees (one code path).
    if (m.player) draw_controls(m, lines, state.settings.params.workload, refused);
    // Full width in the wide layout hides the parameters panel: say what is animated, in one line
    // (the tooltip has it all). The narrow layout's folded "Parameters:" header already does.
    if (m.full_width && ImGui::GetIO().DisplaySize.x >= em() * 50) {
        const std::string line = kernels::describe(state.settings.params, m.player ? m.player->variant() : "");
        ImGui::TextDisabled("%s", elide_to_width(line, ImGui::GetContentRegionAvail().x).c_str());
        tooltip(line);
    }
    if (!m.error.empty() || !m.player) {
        ImGui::PushTextWrapPos(0.0f);
        ImGui::TextUnformatted(m.error.empty() ? "no schedule to play for these parameters" : m.error.c_str());
        ImGui::PopTextWrapPos();
        return;
    }
    advance(m, lines, state.interactive);

    const auto start = std::chrono::steady_clock::now();
    const viz::Theme theme = state.settings.theme;
    std::vector<viz::MemoryViewData> views;
    for (const auto& player : {m.player, m.other}) {
        if (!player) continue;
        size_t step = 0;
        float flight = 1;
        step_at(player == m.player ? lines.first : lines.second, m.clock, step, flight);
        viz::MemoryViewData d = viz::memory_view_data(*player, step, flight, backend.device, theme,
                                                      player == m.player ? first_refusal : second_refusal);
        add_notes(state, *player, player == m.player ? m.first_timing : m.second_timing, backend.device, d);
        d.interactive = state.interactive;
        d.highlight = state.highlight;
        d.highlight_pulse = highlight_pulse(state, ImGui::GetTime());
        views.push_back(std::move(d));
    }

    ImDrawList* draw = ImGui::GetWindowDrawList();
    ImVec2 origin = ImGui::GetCursorScreenPos();
    ImVec2 avail = ImGui::GetContentRegionAvail();
    if (views.size() > 1) {
        std::vector<const viz::MemoryViewData*> race;
        for (const auto& v : views) race.push_back(&v);
        const float race_em = viz::byte_race_em(avail.y);
        const float h = viz::byte_race_height(race.size(), race_em);
        viz::draw_byte_race(draw, origin, ImVec2(avail.x, h), race, race_em);
        if (state.highlight == "memory.race")
            viz::draw_highlight_ring(draw, origin, ImVec2(origin.x + avail.x, origin.y + h), em(), views.front().highlight_pulse);
        origin.y += h + em() * 0.3f;
        avail.y -= h + em() * 0.3f;
    }
    const float gap = em() * 1.0f;
    const float w = (avail.x - gap * static_cast<float>(views.size() - 1)) / static_cast<float>(views.size());
    double scale = 0;
    for (const auto& v : views) {
        const double fit = viz::memory_view_hbm_scale(ImVec2(w, avail.y), v);
        scale = scale > 0 ? std::min(scale, fit) : fit;
    }
    for (auto& v : views) v.hbm_scale = scale;
    for (size_t i = 0; i < views.size(); ++i)
        viz::draw_memory_view(draw, ImVec2(origin.x + static_cast<float>(i) * (w + gap), origin.y), ImVec2(w, avail.y), views[i]);
    if (views.size() > 1) {
        const float x = origin.x + w + gap * 0.5f;
        draw->AddLine(ImVec2(x, origin.y), ImVec2(x, origin.y + avail.y), ImGui::GetColorU32(ImGuiCol_Separator));
    }
    ImGui::Dummy(avail);
    m.last_frame_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

}  // namespace app
