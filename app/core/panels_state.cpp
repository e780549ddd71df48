// [SECTION] Backend shown and imported results
// [SECTION] Batches and results
// [SECTION] Headline
// [SECTION] Export
#include "app/core/panels_state.h"
#include "app/recordings/auto_pick.h"

#include "app/files/export.h"
#include "app/recordings/recording_file.h"
#include "app/files/results_import.h"
#include "kernels/core/backend.h"
#include "kernels/core/format.h"
#include "kernels/core/levels.h"
#include "kernels/core/timeline.h"
#include "kernels/core/registry.h"

#include <algorithm>
#include <cstdio>

namespace app {

// ---------------------------------------------------------------------------------------------
// [SECTION] Backend shown and imported results
// ---------------------------------------------------------------------------------------------

ResolvedBackend current_backend(const AppState& state, const Runner& runner) {
    if (state.imported_from.empty() || state.results.empty()) return resolve_backend(state.settings, runner);
    const kernels::Measurement& first = state.results.front();
    ResolvedBackend r;
    r.ready = true;
    r.kind = first.job.backend;
    r.sim_key = first.job.sim_gpu;
    r.device = first.device;
    r.recording = first.job.recording;
    r.recording_date = first.recorded_date;
    return r;
}

std::string import_results(AppState& state, const std::string& path) {
    std::vector<kernels::Measurement> all;
    if (std::string why = load_measurements_json(path, all); !why.empty()) return why;
    // The file may hold a bench sweep: show the first parameter set, all its variants.
    const kernels::Params params = all.front().job.params;
    const kernels::BackendKind kind = all.front().job.backend;
    const std::string device = all.front().device.name, sim_gpu = all.front().job.sim_gpu;
    std::vector<kernels::Measurement> shown;
    std::vector<std::string> variants;
    for (kernels::Measurement& m : all) {
        if (!(m.job.params == params) || m.job.backend != kind || m.device.name != device) continue;
        m.job.sim_gpu = sim_gpu;
        variants.push_back(m.job.variant);
        shown.push_back(std::move(m));
    }
    state.settings.params = shown.front().job.params;
    state.settings.reps = shown.front().job.reps;
    state.settings.variants[state.settings.params.workload] = variants;
    state.results = std::move(shown);
    state.imported_from = path;
    state.params_dirty = false;
    return "";
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Batches and results
// ---------------------------------------------------------------------------------------------

const std::string& ValidationCache::error(const kernels::Params& p) const {
    if (!filled_ || !(params_ == p)) {
        params_ = p;
        error_ = kernels::validate(p);
        filled_ = true;
    }
    return error_;
}

const std::string& ValidationCache::refusal(const kernels::Params& p, const kernels::DeviceInfo& device,
                                            const std::string& variant) const {
    if (!(refusal_params_ == p) || refusal_device_ != device.name) {
        refusal_params_ = p;
        refusal_device_ = device.name;
        refusals_.clear();
    }
    const auto it = refusals_.find(variant);
    if (it != refusals_.end()) return it->second;
    // An auto tile is judged as the runner will resolve it (app/recordings/auto_pick.h).
    return refusals_[variant] =
               kernels::device_refusal(variant, pick_auto_for(variant, p, device).params, kernels::total_memory_budget(device));
}

const std::string& params_error(const AppState& state) { return state.validation.error(state.settings.params); }

void mark_changed(AppState& state, double now) {
    state.imported_from.clear();  // the user moved on from the imported numbers: measure live
    state.params_dirty = true;
    state.settings_dirty = true;
    state.changed_at = now;
}

void store_results(AppState& state, std::vector<kernels::Measurement> fresh) {
    for (kernels::Measurement& m : fresh) {
        auto same = [&](const kernels::Measurement& old) {
            return old.job.params.workload == m.job.params.workload && old.job.variant == m.job.variant;
        };
        auto it = std::find_if(state.results.begin(), state.results.end(), same);
        if (it != state.results.end()) *it = std::move(m);
        else state.results.push_back(std::move(m));
    }
}

namespace {

void submit_live(AppState& state, Runner& runner, std::vector<kernels::Job> batch) {
    state.live.count = batch.size();
    state.live.done = 0;
    state.live.first_id = runner.submit(std::move(batch));
}

// Counts the live batch's answers; when the quick pass has answered for every variant, the full
// pass (user's reps, counters) goes out for the same parameters.
void advance_live_pass(AppState& state, Runner& runner, const std::vector<kernels::Measurement>& fresh) {
    LivePass& live = state.live;
    for (const kernels::Measurement& m : fresh)
        if (m.job.id >= live.first_id && m.job.id < live.first_id + live.count) ++live.done;
    if (live.done < live.count) return;
    if (live.quick_running) {
        live.quick_running = false;
        if (live.full_pending && !state.params_dirty) {
            live.full_pending = false;
            const ResolvedBackend backend = resolve_backend(state.settings, runner);
            if (backend.ready) {
                live.full_running = true;
                submit_live(state, runner, make_batch(state.settings, backend));
            }
        }
    } else {
        live.full_running = false;
    }
}

}  // namespace

void update_measurements(AppState& state, Runner& runner, double now) {
    std::vector<kernels::Measurement> fresh = runner.take_results();
    take_sweep_results(state.sweep, fresh);  // the sweep's jobs go to the sweep view only
    advance_live_pass(state, runner, fresh);
    store_results(state, std::move(fresh));
    if (state.sweep_requested) {
        state.sweep_requested = false;
        state.sweep.start_requested = true;
    }
    if (service_sweep(state.sweep, state.settings, resolve_backend(state.settings, runner), runner)) {
        // Starting or cancelling a sweep supersedes the live batch in flight: measure the current
        // parameters again once the sweep is over.
        state.live = LivePass{};
        state.params_dirty = true;
        return;
    }
    if (state.sweep.running) return;  // parameter changes are measured when the sweep ends
    if (!state.params_dirty || now - state.changed_at < kSubmitDebounceSeconds) return;
    const ResolvedBackend backend = resolve_backend(state.settings, runner);
    if (!backend.ready) return;  // try again next frame, once the GPU probe has answered
    state.validation_error = params_error(state);
    state.params_dirty = false;
    if (!state.validation_error.empty()) return;  // shown in red beside the controls
    // A GPU measures quickly first, then fully; a model estimate is instant, so one full pass.
    const bool two_passes = backend.kind == kernels::BackendKind::gpu;
    state.live.quick_running = two_passes;
    state.live.full_pending = two_passes;
    state.live.full_running = !two_passes;
    submit_live(state, runner, two_passes ? make_quick_batch(state.settings, backend) : make_batch(state.settings, backend));
}

std::vector<const kernels::Measurement*> visible_results(const AppState& state) {
    std::vector<const kernels::Measurement*> shown;
    const std::string w = state.settings.params.workload;
    for (const std::string& variant : selected_variants(state.settings))
        for (const kernels::Measurement& m : state.results)
            if (m.job.params.workload == w && m.job.variant == variant) shown.push_back(&m);
    // A student's kernel (the exercise pane's last run) beside ours, last, while its exercise is open.
    if (state.exercise.open)
        for (const kernels::Measurement& m : state.results)
            if (m.job.params.workload == w && m.job.variant == kernels::kStudentVariant) shown.push_back(&m);
    return shown;
}

std::vector<const ReferenceRow*> shown_reference(const AppState& state, std::string* why_none) {
    if (why_none) why_none->clear();
    const kernels::Measurement* first = nullptr;
    for (const kernels::Measurement* m : visible_results(state))
        if (m->ok) {
            first = m;
            break;
        }
    if (!first) return {};  // nothing of ours to stand beside yet
    return reference_rows_for(state.reference, first->job.params, first->device, why_none);
}

namespace {

void source_kinds(const std::vector<const kernels::Measurement*>& shown, bool& simulated, std::string& recorded) {
    simulated = false;
    recorded.clear();
    for (const kernels::Measurement* m : shown) {
        if (m->recorded()) recorded = m->recorded_date;
        else if (m->device.simulated) simulated = true;
    }
}

}  // namespace

namespace {

// "<recorded_word> DATE", "<simulated_word>", both joined by " + ", or "" when everything shown was measured now.
std::string source_text(const std::vector<const kernels::Measurement*>& shown, const char* recorded_word,
                        const char* simulated_word) {
    bool simulated = false;
    std::string recorded;
    source_kinds(shown, simulated, recorded);
    if (recorded.empty()) return simulated ? simulated_word : "";
    return recorded_word + (" " + recorded) + (simulated ? std::string(" + ") + simulated_word : "");
}

}  // namespace

std::string results_source_caption(const std::vector<const kernels::Measurement*>& shown) {
    return source_text(shown, "recorded", "model estimate");
}

std::string results_watermark(const std::vector<const kernels::Measurement*>& shown) {
    return source_text(shown, "RECORDED", "SIMULATED");
}

std::string recording_line(const ResolvedBackend& backend) {
    if (backend.kind != kernels::BackendKind::recorded) return "";
    const std::shared_ptr<const Recording> r = find_recording(backend.recording);
    if (!r) return "recorded on " + backend.device.name + (backend.recording_date.empty() ? "" : ", " + backend.recording_date);
    return r->label() + ": measured on " + r->device.name + " (driver " + r->device.driver + ", CUDA " +
           r->device.runtime + ") on " + r->date + ", read from " + r->path;
}

bool is_stale(const kernels::Measurement& m, const Settings& s, const ResolvedBackend& backend) {
    if (m.job.backend == kernels::BackendKind::gpu && backend.kind == kernels::BackendKind::gpu &&
        m.device.name != backend.device.name)
        return true;
    // A quick-pass result is current: the full pass with the user's reps follows it. `yours` is
    // measured by its own run (`exercises run`, with its own reps; a failed run has none), never
    // by the app's passes: only other parameters or another device make it stale.
    const bool own_reps = m.job.variant == kernels::kStudentVariant;
    if (!(m.job.params == s.params) || (!m.job.quick && !own_reps && m.job.reps != s.reps)) return true;
    if (!backend.ready || m.job.backend != backend.kind) return true;
    if (backend.kind == kernels::BackendKind::recorded) return m.job.recording != backend.recording;
    return backend.kind == kernels::BackendKind::simulated && m.job.sim_gpu != backend.sim_key;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Headline
// ---------------------------------------------------------------------------------------------

namespace {

const kernels::VariantInfo* find_variant_info(const std::string& workload, const std::string& variant) {
    const kernels::WorkloadDef* w = kernels::find_workload(workload);
    return w ? w->find_variant(variant) : nullptr;
}

}  // namespace

std::vector<BaselinePair> baseline_pairs(const std::vector<const kernels::Measurement*>& shown) {
    std::vector<BaselinePair> pairs;
    auto shown_ok = [&](const std::string& workload, const std::string& variant) -> const kernels::Measurement* {
        for (const kernels::Measurement* m : shown)
            if (m->ok && m->job.params.workload == workload && m->job.variant == variant) return m;
        return nullptr;
    };
    for (const kernels::Measurement* m : shown) {
        if (!m->ok) continue;
        const std::string& w = m->job.params.workload;
        const kernels::VariantInfo* info = find_variant_info(w, m->job.variant);
        // Up the chain of declared baselines to the first one on screen (a chain is short; the
        // bound guards against a definition that loops).
        for (int hops = 0; info && !info->improves_on.empty() && hops < 8; ++hops) {
            if (const kernels::Measurement* b = shown_ok(w, info->improves_on)) {
                pairs.push_back({m, b});
                break;
            }
            info = find_variant_info(w, info->improves_on);
        }
    }
    return pairs;
}

namespace {

std::string times_text(double ratio) {
    char text[32];
    std::snprintf(text, sizeof text, "%.2f\xC3\x97", ratio);
    return text;
}

// "(model estimate)", "(recorded 2026-11-27)", "(recorded 2026-11-27 vs model estimate)" or "".
std::string pair_source(const kernels::Measurement& a, const kernels::Measurement& b) {
    if (a.device.simulated && b.device.simulated) return a.recorded() || b.recorded() ? "" : " (model estimate)";
    if (a.device.simulated != b.device.simulated)
        return " (" + (a.device.simulated ? b : a).source_tag() + " vs model estimate)";
    return a.recorded() ? " (recorded " + a.recorded_date + ")" : "";
}

std::string pair_sentence(const kernels::Measurement& v, const kernels::Measurement& b) {
    std::string text = v.job.variant + " vs " + b.job.variant + ": ";
    const double tv = v.time.median_ms, tb = b.time.median_ms;
    if (tv > 0 && tb > 0) {
        if (tv < tb) text += times_text(tb / tv) + " faster";
        else if (tv > tb) text += times_text(tv / tb) + " slower";
        else text += "the same time";
        text += pair_source(v, b);
    } else {
        text += "no time to compare";
    }
    const uint64_t bv = v.bytes(), bb = b.bytes();
    const std::string dram = kernels::level_name(kernels::TrafficLevel::dram);
    if (bv && bb && bv != bb)
        text += "; " + times_text(bv < bb ? static_cast<double>(bb) / static_cast<double>(bv)
                                          : static_cast<double>(bv) / static_cast<double>(bb)) +
                (bv < bb ? " fewer " : " more ") + dram + " bytes (" + kernels::format_bytes(static_cast<double>(bv)) +
                " instead of " + kernels::format_bytes(static_cast<double>(bb)) + ")";
    else if (bv && bv == bb)
        text += "; the same " + dram + " bytes (" + kernels::format_bytes(static_cast<double>(bv)) + ")";
    const int64_t kv = kernels::launched_kernels(v.kernels), kb = kernels::launched_kernels(b.kernels);
    if (kv != kb && kv > 0 && kb > 0)
        text += "; " + std::to_string(kv) + (kv == 1 ? " kernel" : " kernels") + " instead of " + std::to_string(kb);
    return text + ".";
}

}  // namespace

std::vector<HeadlineLine> headline_lines(const std::vector<const kernels::Measurement*>& shown,
                                         const std::vector<bool>& stale) {
    auto stale_of = [&](const kernels::Measurement* m) {
        for (size_t i = 0; i < shown.size() && i < stale.size(); ++i)
            if (shown[i] == m) return static_cast<bool>(stale[i]);
        return false;
    };
    std::vector<HeadlineLine> lines;
    for (const BaselinePair& p : baseline_pairs(shown)) {
        const bool sv = stale_of(p.variant), sb = stale_of(p.baseline);
        if (sv != sb) {  // one side new, one old: a ratio of the two would mix settings
            lines.push_back({p.variant->job.variant + " vs " + p.baseline->job.variant + ": updating (measuring " +
                                 (sv ? p.variant : p.baseline)->job.variant + " with the new settings)...",
                             true});
            continue;
        }
        lines.push_back({pair_sentence(*p.variant, *p.baseline) + (sv ? " (earlier settings; updating)" : ""), sv});
    }
    return lines;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Export
// ---------------------------------------------------------------------------------------------

void request_picture(AppState& state, const std::string& target, const std::string& format, int gif_frames) {
    PictureRequest r;
    r.target = target;
    r.format = format;
    r.gif_frames = gif_frames;
    r.path = export_path(state.settings, format);
    // fusionlab-chain-20261127-213000.svg -> fusionlab-chain-time-20261127-213000.svg: the file says
    // which chart it holds.
    const std::string stem = std::string("fusionlab-") + state.settings.params.workload + "-";
    if (const size_t at = r.path.rfind(stem); at != std::string::npos && target != "window")
        r.path.insert(at + stem.size(), target + "-");
    state.picture = r;
}

void record_picture_rect(AppState& state, const std::string& id, float x0, float y0, float x1, float y1, bool cut) {
    state.picture_rects[id] = PictureRect{x0, y0, x1, y1, cut};
}

bool service_svg_request(AppState& state, const std::string& id, const std::function<std::string()>& make_svg) {
    if (!state.capturing || !state.picture || state.picture->done || state.picture->format != "svg" ||
        state.picture->target != id)
        return false;
    PictureRequest& r = *state.picture;
    r.error = write_file_atomic(r.path, make_svg());
    r.done = true;
    state.export_message = r.error.empty() ? InlineMessage{"saved " + r.path, false} : InlineMessage{r.error, true};
    return true;
}

InlineMessage export_results(const AppState& state, const std::string& extension) {
    std::vector<kernels::Measurement> rows;
    for (const kernels::Measurement* m : visible_results(state)) rows.push_back(*m);
    if (rows.empty()) return {"nothing to export yet: no measurement has finished", true};
    const std::string path = export_path(state.settings, extension);
    const std::string error = extension == "json" ? export_json(path, rows) : export_csv(path, rows);
    if (!error.empty()) return {error, true};
    return {"saved " + path, false};
}

}  // namespace app
