// `fusionlab bench`'s table (app/cli/bench_table.h): columns, cells and the lines around them.
#include "app/cli/bench_table.h"

#include "app/cli/text.h"
#include "app/files/export.h"
#include "app/recordings/recording_file.h"
#include "kernels/profiling/dram_counters.h"
#include "kernels/sim/emulate.h"
#include "kernels/core/format.h"
#include "kernels/core/registry.h"
#include "kernels/core/timeline.h"

#include <algorithm>
#include <ostream>
#include <string>

namespace app::cli {

namespace {

struct Column {
    const char* title;
    size_t width;
    bool right;  // numbers right-aligned
};

// The shape column is as wide as the widest shape of the sweep (attention's are long).
std::vector<Column> table_columns(size_t shape_width) {
    return {
        {"workload", 10, false},    {"variant", 9, false},   {"dtype", 6, false},
        {"shape", std::max<size_t>(shape_width, 13), false}, {"median ms (min-max)", 24, false},
        {"modeled bytes", 14, true}, {"DRAM bytes (measured)", 24, true}, {"GB/s", 11, true}, {"% ceil", 8, true},
        {"TFLOP/s", 8, true},        {"wall ms", 9, true},   {"max err / rel err", 0, false},
    };
}

std::string table_line(const std::vector<std::string>& cells, size_t shape_width) {
    const auto columns = table_columns(shape_width);
    std::string line;
    for (size_t i = 0; i < cells.size() && i < columns.size(); ++i) {
        const bool last = i + 1 == columns.size();
        std::string cell = columns[i].right ? pad_left(cells[i], columns[i].width) : pad_right(cells[i], columns[i].width);
        line += cell + (last ? "" : "  ");
    }
    while (!line.empty() && line.back() == ' ') line.pop_back();
    return line;
}

std::string ms_text(double ms) {
    if (ms >= 100) return printf_string("%.1f", ms);
    if (ms >= 10) return printf_string("%.2f", ms);
    if (ms >= 1) return printf_string("%.3f", ms);
    return printf_string("%.4f", ms);
}

// A model estimate has no spread: say so instead of printing min = max.
std::string time_cell(const kernels::TimeStats& t, bool simulated) {
    if (simulated) return ms_text(t.median_ms) + " (model)";
    return ms_text(t.median_ms) + " (" + ms_text(t.min_ms) + "-" + ms_text(t.max_ms) + ")";
}

std::string gbps_cell(double gbps) { return printf_string("%.1f", gbps); }

std::string pct_cell(double gbps, const BandwidthCeiling& c) {
    return c.gbps > 0 ? printf_string("%.1f%%", percent_of_ceiling(gbps, c)) : std::string("n/a");
}

std::string error_cell(const kernels::Measurement& m) {
    if (m.checked) return printf_string("%.2e / %.2e", m.max_abs_error, m.rel_l2_error) + (m.device.simulated ? " (CPU)" : "");
    if (m.device.simulated) return m.check_note.empty() ? "n/a (simulated)" : m.check_note;  // "not emulated: ~2 s ..."
    return "not checked" + (m.check_note.empty() ? std::string() : ": " + m.check_note);
}

std::string tflops_cell(double gflops) { return gflops > 0 ? printf_string("%.1f", gflops / 1e3) : std::string("-"); }

}  // namespace

void print_header(std::ostream& out, const kernels::Measurement& first, size_t shape_width) {
    const auto& d = first.device;
    const BandwidthCeiling ceiling = bandwidth_ceiling(d);
    if (first.job.backend == kernels::BackendKind::recorded) {
        const auto r = find_recording(first.job.recording);
        out << "**************************************************************************************\n"
            << "  RECORDED: rows tagged [recorded DATE] were measured on "
            << (r ? r->device.name + " on " + r->date : std::string("a real GPU")) << ",\n"
            << "  read from " << (r ? r->path : first.job.recording) << ", not measured now;\n"
            << "  rows tagged [simulated] are not in the recording: the calibrated "
            << (r ? r->card : first.job.sim_gpu) << " model's estimates.\n"
            << "**************************************************************************************\n";
    } else if (d.simulated) {
        out << "**************************************************************************************\n"
            << "  SIMULATED: times come from the calibrated model of a " << d.name << ",\n"
            << "  not from a GPU. Errors are computed on the CPU: each variant's arithmetic emulated in\n"
            << "  its dtype on the rows a GPU check samples (n/a where that takes over "
            << kernels::kEmulationSeconds << " s).\n"
            << "**************************************************************************************\n";
    }
    out << "device: " << d.name << " | driver " << d.driver << ", runtime " << d.runtime << " | clocks SM "
        << clock_text(d.sm_clock_mhz) << ", memory " << clock_text(d.mem_clock_mhz) << " | backend "
        << kernels::to_string(first.job.backend) << " | build " << first.build_type << "\n";
    out << "ceiling: "
        << (ceiling.gbps > 0 ? kernels::format_gbps(ceiling.gbps) + " (" + ceiling.source + ")" : "unavailable")
        << (d.ceiling_note.empty() ? "" : " - " + d.ceiling_note) << "\n";
    if (!first.timing_note.empty()) out << "timing: " << first.timing_note << "\n";
    out << "measured DRAM bytes: " << first.measured_bytes_note << "\n\n";
    std::vector<std::string> titles;
    for (const auto& c : table_columns(shape_width)) titles.emplace_back(c.title);
    out << table_line(titles, shape_width) << "\n";
}

// The workload's note under the row (WorkloadDef::bench_note: the launch workload's time per step)
namespace {

// The workload's note under the row (WorkloadDef::bench_note: the launch workload's time per step)
// and, from the timeline run, how long the GPU sat idle between kernels.
void print_bench_note(std::ostream& out, const kernels::Measurement& m, const std::string& note) {
    const kernels::TimelineStats st = kernels::timeline_stats(m.timeline);
    out << "    " << note << "; GPU idle between kernels: "
        << (st.kernels > 1 ? printf_string("%.2f us median, ", st.median_gap_us) +
                                 printf_string("%.2f us mean, ", st.mean_gap_us) + printf_string("%.2f us max", st.max_gap_us) +
                                 printf_string(", %.0f %% of the run", st.span_ms > 0 ? 100.0 * st.idle_ms / st.span_ms : 0.0)
                           : std::string(st.kernels == 1 ? "none (one kernel)" : "unavailable (no timeline)"))
        << (m.timeline_source.empty() ? "" : " [" + m.timeline_source.substr(0, m.timeline_source.find(':')) + "]") << "\n";
}
}  // namespace


void print_measurement(std::ostream& out, const kernels::Measurement& m, bool per_kernel, size_t shape_width) {
    const auto& p = m.ran_params();  // an auto tile as the run resolved it
    std::vector<std::string> cells = {p.workload, m.job.variant, kernels::to_string(p.dtype),
                                      shape_text(p, m.job.variant)};
    if (!m.ok) {
        // The shape can be wider than its column: keep the message on the same line after it.
        out << table_line(cells, shape_width) << "  " << (m.refused ? "refused: " : "FAILED: ") << m.error << "\n";
        return;
    }
    // A recorded backend's rows say which kind each is: recorded (with the day) or simulated.
    const std::string tag = m.job.backend == kernels::BackendKind::recorded ? "  [" + m.source_tag() + "]" : "";
    const BandwidthCeiling ceiling = bandwidth_ceiling(m.device);
    cells.push_back(time_cell(m.time, m.device.simulated));
    cells.push_back(kernels::format_bytes(double(m.bytes())));
    cells.push_back(m.measured_bytes ? kernels::measured_vs_modeled(*m.measured_bytes, m.bytes()) : std::string("n/a"));
    cells.push_back(gbps_cell(m.achieved_gbps()));
    cells.push_back(pct_cell(m.achieved_gbps(), ceiling));
    cells.push_back(tflops_cell(m.achieved_gflops()));
    cells.push_back(m.wall_ms > 0 ? ms_text(m.wall_ms) : std::string("-"));
    cells.push_back(error_cell(m));
    out << table_line(cells, shape_width) << tag << "\n";
    // What an auto parameter resolved to on this device, and the numbers that chose it.
    if (!m.auto_choice.empty()) out << "    " << m.auto_choice << "\n";
    if (const auto& def = kernels::workload_def(p); def.bench_note) print_bench_note(out, m, def.bench_note(m));
    // A simulated row says what sets its time ("bound by shared-memory bandwidth: ...").
    if (!m.limiter.empty()) out << "    " << m.limiter << "\n";
    if (!per_kernel) return;
    // Each kernel against its own bytes: the unfused baseline is honest only if every one of its
    // kernels runs near the ceiling by itself.
    for (const auto& k : m.kernels) {
        const double gbps = k.time.median_ms > 0 ? double(k.bytes) / (k.time.median_ms * 1e6) : 0.0;
        out << table_line({"", "  kernel", "", k.name, time_cell(k.time, m.device.simulated), kernels::format_bytes(double(k.bytes)),
                           "", gbps_cell(gbps), pct_cell(gbps, ceiling), "", "", ""},
                          shape_width)
            << "\n";
    }
}

void print_reference(std::ostream& out, const ReferenceFile& file, const std::vector<kernels::Measurement>& all) {
    out << "\nPyTorch reference rows from " << file.path
        << " (scripts/torch_reference.py): not fusionlab's kernels, never in its ratios\n";
    std::vector<kernels::Params> seen;
    for (const kernels::Measurement& m : all) {
        const kernels::Params& p = m.job.params;
        if (std::find(seen.begin(), seen.end(), p) != seen.end()) continue;
        seen.push_back(p);
        std::string why;
        const std::vector<const ReferenceRow*> rows = reference_rows_for(file, p, m.device, &why);
        const std::string where = p.workload + " " + kernels::to_string(p.dtype) + " " + shape_text(p, "");
        if (rows.empty()) out << "  reference  " << where << ": " << why << "\n";
        const double flops = rows.empty() ? 0 : reference_flops(p), bytes = static_cast<double>(kernels::min_bytes(p));
        for (const ReferenceRow* r : rows) {
            out << "  reference  " << where << "  " << pad_right(r->label, 33);
            if (!r->has_time) {
                out << "unavailable: " << r->error;
            } else {
                const double s = r->time.median_ms * 1e-3;
                out << ms_text(r->time.median_ms) << " ms (" << ms_text(r->time.min_ms) << "-" << ms_text(r->time.max_ms)
                    << ")  " << kernels::format_gbps(bytes / s / 1e9) << " at minimum bytes";
                if (flops > 0) out << ", " << kernels::format_rate_flops(flops / s);
            }
            out << "; measured on " << r->device << ", " << reference_day(*r) << "\n";
        }
    }
    if (file.skipped_rows)
        out << "  (" << file.skipped_rows << " rows of workloads this build does not have: " << file.skipped_workloads
            << ")\n";
}


}  // namespace app::cli
