// [SECTION] Points: a result at each level
// [SECTION] Trails
// [SECTION] Hover text
#include "app/core/roofline_points.h"

#include "app/core/panels_state.h"
#include "kernels/core/format.h"
#include "kernels/core/registry.h"

#include <algorithm>
#include <cstdio>

namespace app {

namespace {

using kernels::Measurement;

std::string num(const char* fmt, double v) {
    char text[64];
    std::snprintf(text, sizeof text, fmt, v);
    return text;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// [SECTION] Points
// ---------------------------------------------------------------------------------------------
RooflineLevels roofline_levels(const Measurement& m, bool use_measured) {
    RooflineLevels p;
    p.flops = m.flops;
    p.flops_per_s = m.time.median_ms > 0 ? m.flops / (m.time.median_ms * 1e-3) : 0.0;
    p.dram_measured = use_measured && m.measured_bytes.has_value() && *m.measured_bytes > 0;
    p.dram_bytes = p.dram_measured ? static_cast<double>(*m.measured_bytes) : static_cast<double>(m.bytes());
    p.dram_intensity = kernels::arithmetic_intensity(m.flops, p.dram_bytes);
    p.model_dram_intensity = kernels::arithmetic_intensity(m.flops, static_cast<double>(m.bytes()));
    p.l2_bytes = static_cast<double>(m.l2_bytes_read + m.l2_bytes_written);
    p.l2_intensity = kernels::arithmetic_intensity(m.flops, p.l2_bytes);
    return p;
}

RooflineBound roofline_bound(const RooflineLevels& p, const kernels::RoofSet& roofs, const kernels::Roof& compute) {
    RooflineBound b{compute.name, compute.flops_per_s};
    const auto lower = [&](const char* level, double intensity, double bytes_per_s) {
        if (!(intensity > 0) || !(bytes_per_s > 0)) return;
        const double roof = intensity * bytes_per_s;
        if (roof < b.attainable) b = {level, roof};
    };
    lower("DRAM", p.dram_intensity, roofs.bytes_per_s);
    lower("L2", p.l2_intensity, roofs.l2_bytes_per_s);
    return b;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Trails
// ---------------------------------------------------------------------------------------------
std::string point_params_text(const kernels::Params& p) {
    // Every parameter of the workload's table but the seed, as name=value.
    std::string text;
    for (const kernels::ParamSpec& spec : kernels::param_specs(p.workload)) {
        if (spec.name == "seed") continue;
        const double v = p.get(spec.name);
        char value[32];
        if (spec.integer) std::snprintf(value, sizeof value, "%lld", static_cast<long long>(v));
        else std::snprintf(value, sizeof value, "%g", v);
        if (!text.empty()) text += ' ';
        text.append(spec.name).append("=").append(value);
    }
    return text;
}

void update_roofline_trails(AppState& state) {
    RooflinePanelState& r = state.roofline;
    const kernels::Params& now = state.settings.params;
    std::string context = now.workload + "|" + kernels::to_string(now.dtype);
    for (const Measurement* m : visible_results(state)) context += "|" + m->device.name;
    // The trail compares like with like: a new workload, dtype or device starts afresh.
    if (context != r.context) {
        r.context = context;
        r.trails.clear();
        r.seen_job.clear();
        r.seen_params.clear();
    }
    for (const Measurement* m : visible_results(state)) {
        if (!m->ok) continue;
        const std::string& v = m->job.variant;
        auto seen = r.seen_job.find(v);
        if (seen != r.seen_job.end() && seen->second == m->job.id) continue;
        auto params = r.seen_params.find(v);
        r.seen_job[v] = m->job.id;
        const bool moved = params == r.seen_params.end() || !(params->second == m->job.params);
        const RooflineLevels at = roofline_levels(*m, r.use_measured);
        RooflineTrailMark mark{at.dram_intensity, at.flops_per_s, point_params_text(m->job.params)};
        std::vector<RooflineTrailMark>& trail = r.trails[v];
        // The trail's last entry is the current position; a re-measurement of the same parameters
        // (quick pass -> full pass) replaces it, new parameters push a new one.
        if (moved || trail.empty()) trail.push_back(mark);
        else trail.back() = mark;
        if (trail.size() > kRooflineTrail + 1) trail.erase(trail.begin());
        r.seen_params[v] = m->job.params;
    }
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Hover text
// ---------------------------------------------------------------------------------------------
namespace {

// One level's lines: its bytes, intensity and attainable FLOP/s under its roof.
std::string level_text(const char* level, const std::string& bytes_what, double flops, double bytes, double intensity,
                        const kernels::Roof& roof, double bytes_per_s) {
    std::string t = std::string(level) + ": bytes (" + bytes_what + ") = " + kernels::format_bytes(bytes) + "\n";
    t += "  intensity = FLOPs / bytes = " + kernels::format_flops(flops) + " / " + kernels::format_bytes(bytes) + " = " +
         num("%.3g", intensity) + " FLOP/B\n";
    if (!(bytes_per_s > 0)) return t + "  no bandwidth known for this level\n";
    const double attainable = kernels::attainable_flops(intensity, roof.flops_per_s, bytes_per_s);
    t += "  attainable = min(peak, intensity x BW) = min(" + kernels::format_rate_flops(roof.flops_per_s) + ", " +
         num("%.3g", intensity) + " x " + kernels::format_gbps(bytes_per_s / 1e9) + ") = " +
         kernels::format_rate_flops(attainable) + "\n";
    return t;
}

}  // namespace

std::string roofline_point_text(const Measurement& m, const kernels::RoofSet& roofs, bool use_measured) {
    const RooflineLevels p = roofline_levels(m, use_measured);
    const kernels::Roof& roof = kernels::roof_for_variant(roofs, m.job.variant, m.job.params);
    std::string t = m.job.variant + "   " + point_params_text(m.job.params) + "\n\n";
    t += "FLOPs (model) = " + kernels::format_flops(m.flops) + "\n";
    t += "time (median) = " + kernels::format_time_ms(m.time.median_ms) +
         (m.device.simulated ? "  [simulated: model estimate]"
          : m.recorded()     ? "  (" + std::to_string(m.time.reps) + " reps, " + m.source_label() + ")"
                             : "  (" + std::to_string(m.time.reps) + " reps)") + "\n";
    t += "achieved = FLOPs / time = " + kernels::format_rate_flops(p.flops_per_s) + "\n\n";
    t += level_text("DRAM (circle)", p.dram_measured ? "measured, counters" : "model, L2 reuse rules", m.flops, p.dram_bytes,
                    p.dram_intensity, roof, roofs.bytes_per_s);
    if (p.dram_measured)
        t += "  modeled: " + kernels::format_bytes(static_cast<double>(m.bytes())) + ", " + num("%.3g", p.model_dram_intensity) +
             " FLOP/B (the hollow ring)\n";
    t += level_text("L2\xE2\x86\x92SM (square)", "model: the loads and stores the kernels ask for", m.flops, p.l2_bytes, p.l2_intensity,
                    roof, roofs.l2_bytes_per_s);
    const RooflineBound bound = roofline_bound(p, roofs, roof);
    t += "\nThe lowest roof at these intensities: " + bound.level + ", " + kernels::format_rate_flops(bound.attainable) +
         "; achieved " + num("%.0f", bound.attainable > 0 ? 100 * p.flops_per_s / bound.attainable : 0) + "% of it.";
    if (bound.level == "DRAM" || bound.level == "L2") {
        t += " Memory-bound at " + bound.level + ": the ridge of the " + roof.name + " roof is at " +
             num("%.3g", kernels::ridge_point(roof.flops_per_s, bound.level == "DRAM" ? roofs.bytes_per_s : roofs.l2_bytes_per_s)) +
             " FLOP/B there";
        t += p.dram_intensity < 1 ? "; below 1 FLOP/B every byte feeds less than one operation, so only fewer bytes make it "
                                    "faster.\n"
                                  : ".\n";
    } else {
        t += " Compute-bound: both levels' intensities are right of their ridges.\n";
    }
    if (m.measured_bytes) t += "\nDRAM counters: " + kernels::explain_traffic_gap(m);
    else t += "\nDRAM counters: " + m.measured_bytes_note;
    return t;
}

}  // namespace app
