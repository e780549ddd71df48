// `auto` parameters: the pick per variant and device (auto_choice.h says how).
//
// [SECTION] Auto values
// [SECTION] The pick
#include "kernels/sim/auto_choice.h"

#include "kernels/sim/sim_backend.h"
#include "kernels/core/format.h"
#include "kernels/core/registry.h"
#include "kernels/core/workload_def.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <mutex>

namespace kernels {

// =============================================================================================
// [SECTION] Auto values
// =============================================================================================

bool has_auto(const Params& p) {
    const WorkloadDef* w = find_workload(p.workload);
    if (!w) return false;
    for (const ParamSpec& s : w->params)
        if (s.auto_choice && p.get(s.name) == kAutoValue) return true;
    return false;
}

// =============================================================================================
// [SECTION] The pick
// =============================================================================================
namespace {


// The candidate's values of the parameters p left at auto, joined: "128 x 64".
std::string label_of(const WorkloadDef& w, const Params& p, const Params& candidate) {
    std::string label;
    for (const ParamSpec& s : w.params)
        if (s.auto_choice && p.get(s.name) == kAutoValue)
            label += (label.empty() ? "" : " x ") + param_number_text(candidate.get(s.name));
    return label;
}

// What the auto parameters are, for the line: "tile" when they are attention's Br and Bc.
std::string what_of(const WorkloadDef& w, const Params& p) {
    std::string names;
    for (const ParamSpec& s : w.params)
        if (s.auto_choice && p.get(s.name) == kAutoValue) names += (names.empty() ? "" : " x ") + s.name;
    return names;
}

AutoPick compute(const std::string& variant, const Params& p, const DeviceInfo& device, const RecordedTime& recorded,
                 bool only_recorded) {
    AutoPick pick;
    pick.params = p;
    const WorkloadDef* w = find_workload(p.workload);
    if (!w || !has_auto(p)) return pick;
    if (!w->auto_candidates) {
        pick.error = p.workload + " offers auto but lists no candidates";
        return pick;
    }
    // The variant whose time decides (auto_decider): its candidates and prices stand for this one.
    const std::string decider = w->auto_decider ? w->auto_decider(variant) : variant;
    const SimCalibration cal = calibration_for(device);
    const uint64_t l2 = static_cast<uint64_t>(std::max<int64_t>(device.l2_bytes, 0));
    std::string refusals;
    const std::vector<Params> candidates = w->auto_candidates(variant, p);
    if (candidates.empty()) return pick;  // the variant has none of the auto parameters (naive's tile)
    for (const Params& c : candidates) {
        if (std::string why = validate(c); !why.empty()) continue;  // not a tile this variant takes
        std::string refused = device_refusal(variant, c, total_memory_budget(device));
        if (refused.empty() && decider != variant) refused = device_refusal(decider, c, total_memory_budget(device));
        if (!refused.empty()) {
            refusals += (refusals.empty() ? "" : "; ") + refused;
            continue;
        }
        AutoCandidate a;
        a.params = c;
        a.label = label_of(*w, p, c);
        const Model m = model(decider, c, l2);
        a.simulated_ms = price_run(cal, decider, c, m, device).total_ms;
        if (recorded) a.recorded_ms = recorded(c, decider);
        pick.candidates.push_back(std::move(a));
    }
    if (pick.candidates.empty()) {
        pick.error = "no " + what_of(*w, p) + " of " + variant + " runs on " + device.name +
                     (refusals.empty() ? std::string() : ": " + refusals);
        return pick;
    }
    // Recorded candidates speak for themselves; the others are scaled by how the recorded ones'
    // measurements compare with their simulations at this shape.
    std::vector<double> ratios;
    for (const AutoCandidate& a : pick.candidates)
        if (a.recorded_ms && a.simulated_ms > 0) ratios.push_back(*a.recorded_ms / a.simulated_ms);
    if (only_recorded && !ratios.empty())
        std::erase_if(pick.candidates, [](const AutoCandidate& a) { return !a.recorded_ms; });
    double ratio = 1.0;
    if (!ratios.empty()) {
        std::sort(ratios.begin(), ratios.end());
        const size_t n = ratios.size();
        ratio = n % 2 ? ratios[n / 2] : (ratios[n / 2 - 1] + ratios[n / 2]) / 2;
    }
    for (AutoCandidate& a : pick.candidates) a.compared_ms = a.recorded_ms ? *a.recorded_ms : a.simulated_ms * ratio;
    std::stable_sort(pick.candidates.begin(), pick.candidates.end(),
                     [](const AutoCandidate& x, const AutoCandidate& y) { return x.compared_ms < y.compared_ms; });
    const AutoCandidate& best = pick.candidates.front();
    pick.params = best.params;
    pick.resolved = true;
    pick.label = best.label;
    char scale[64];
    std::snprintf(scale, sizeof scale, "simulated x %.2f", ratio);
    auto source = [&](const AutoCandidate& a) {
        return a.recorded_ms ? std::string("recorded") : ratios.empty() ? std::string("simulated") : std::string(scale);
    };
    pick.why = "auto " + what_of(*w, p) + " " + best.label + ": " + (decider != variant ? decider + " " : std::string()) +
               format_time_ms(best.compared_ms) + " (" + source(best) + ")";
    const size_t shown = std::min<size_t>(pick.candidates.size(), 4);
    for (size_t i = 1; i < shown; ++i) {
        const AutoCandidate& a = pick.candidates[i];
        pick.why += std::string(i == 1 ? "; then " : ", ") + a.label + " " + format_time_ms(a.compared_ms) + " (" + source(a) + ")";
    }
    if (pick.candidates.size() > shown)
        pick.why += ", " + std::to_string(pick.candidates.size() - shown) + " more";
    pick.why += " on " + device.name;
    return pick;
}

}  // namespace

AutoPick pick_auto(const std::string& variant, const Params& p, const DeviceInfo& device, const RecordedTime& recorded,
                   const std::string& recorded_key, bool only_recorded) {
    if (!has_auto(p)) {
        AutoPick none;
        none.params = p;
        return none;
    }
    // The GUI asks every frame: picks are kept per device, recording, variant and point.
    static std::mutex mutex;
    static std::map<std::string, AutoPick> cache;
    std::string key = device.name + "|" + recorded_key + (only_recorded ? "|only" : "|") + "|" + variant + "|" + p.workload + "|" + to_string(p.dtype);
    for (const auto& [name, value] : p.values) key += "|" + name + "=" + param_number_text(value);
    {
        std::lock_guard<std::mutex> lock(mutex);
        if (auto it = cache.find(key); it != cache.end()) return it->second;
    }
    AutoPick pick = compute(variant, p, device, recorded, only_recorded);
    std::lock_guard<std::mutex> lock(mutex);
    if (cache.size() > 4096) cache.clear();
    cache.emplace(key, pick);
    return pick;
}

}  // namespace kernels
