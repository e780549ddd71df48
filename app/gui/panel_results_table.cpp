// The results table of the Measurements tab.
//
// Index:
//   [SECTION] Results table pieces (bytes at each level: DRAM, L2→SM, on chip)
//   [SECTION] Table
//   [SECTION] Reference rows
#include "app/gui/panel_results_table.h"

#include "app/files/export.h"
#include "app/core/panels_state.h"
#include "app/gui/panel_banner.h"
#include "app/gui/panel_helpers.h"
#include "kernels/sim/sim_backend.h"
#include "kernels/profiling/dram_counters.h"
#include "kernels/core/format.h"
#include "kernels/core/timeline.h"
#include "viz/model/roofline.h"
#include "kernels/core/registry.h"
#include "viz/bar_chart.h"
#include "viz/imgui_helpers.h"
#include "viz/label_layout.h"

#include <imgui.h>
#include <imgui_stdlib.h>

#include <algorithm>
#include <cstdio>
#include <functional>
#include <string>
#include <vector>

namespace app {

namespace {

using kernels::Measurement;
using viz::current_theme;
using viz::em;
using viz::error_color;
using viz::tooltip;
using viz::color_swatch;
using viz::wrapped_colored;

const kernels::VariantInfo* variant_info(std::string w, const std::string& variant) {
    for (const kernels::VariantInfo& v : kernels::variants(w))
        if (v.name == variant) return &v;
    return nullptr;
}

std::string percent_text(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.0f %%", value);
    return text;
}

std::string scientific_text(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%.2e", value);
    return text;
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Results table pieces
// ---------------------------------------------------------------------------------------------

// Right-aligns a value in its table cell so digits line up down a column.
// The table's values as labels of their cells, while a table is drawn: a test sees a value cut by
// its column ("13." for "13.028 ms" at projector fonts).
viz::LabelLayout* g_cells = nullptr;

void cell_text(const std::string& text) {
    const float room = ImGui::GetContentRegionAvail().x;
    const float free = room - ImGui::CalcTextSize(text.c_str()).x;
    const ImVec2 cell = ImGui::GetCursorScreenPos();
    if (free > 0) ImGui::SetCursorPosX(ImGui::GetCursorPosX() + free);
    // Wider than its cell (projector fonts): wrapped at its spaces ("shared / memory"), never cut.
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextUnformatted(text.c_str());
    ImGui::PopTextWrapPos();
    if (g_cells) {
        const ImVec2 lo = ImGui::GetItemRectMin(), hi = ImGui::GetItemRectMax();
        float widest_line = 0;  // the item is as wide as the wrap width; its longest line is what shows
        for (size_t at = 0; at <= text.size();) {
            const size_t end = std::min(text.find(' ', at), text.size());
            widest_line = std::max(widest_line, ImGui::CalcTextSize(text.c_str() + at, text.c_str() + end).x);
            at = end + 1;
        }
        g_cells->add(text, {lo.x, lo.y, lo.x + widest_line, hi.y}, {cell.x, lo.y, cell.x + room, hi.y}, "value", "",
                     ImGui::GetFontSize());
    }
}

// A name (a kernel's) on a line of its own: shortened with "..." where the cell is narrower.
void cell_name(const std::string& name) {
    const float room = ImGui::GetContentRegionAvail().x;
    const std::string shown = elide_to_width(name, room);
    ImGui::TextUnformatted(shown.c_str());
    if (g_cells) {
        const ImVec2 lo = ImGui::GetItemRectMin(), hi = ImGui::GetItemRectMax();
        g_cells->add(shown, {lo.x, lo.y, hi.x, hi.y}, {lo.x, lo.y, lo.x + room, hi.y}, "name", shown == name ? "" : name,
                     ImGui::GetFontSize());
    }
}

using CellFn = std::function<void(const Measurement&)>;

// One metric, one row: the name (hover: what it is and its formula), then a cell per variant.
void metric_row(const char* name, const std::string& help, const std::vector<const Measurement*>& shown,
                const std::vector<bool>& stale, const CellFn& cell) {
    ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(0);
    ImGui::PushTextWrapPos(0.0f);  // a narrow table (projector fonts) wraps the names, never the values
    ImGui::TextUnformatted(name);
    ImGui::PopTextWrapPos();
    tooltip(help);
    for (size_t i = 0; i < shown.size(); ++i) {
        ImGui::TableSetColumnIndex(static_cast<int>(i) + 1);
        if (!shown[i]->ok) {
            cell_text("-");
            continue;
        }
        if (stale[i]) ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
        cell(*shown[i]);
        if (stale[i]) ImGui::PopStyleColor();
    }
}

// stale_note: what a greyed column means now ("updating", or "earlier parameters" when the
// current ones are invalid and will not be measured).
void variant_header_row(const std::vector<const Measurement*>& shown, const std::vector<bool>& stale,
                        const std::string& stale_note) {
    ImGui::TableNextRow(ImGuiTableRowFlags_Headers);
    ImGui::TableSetColumnIndex(0);
    ImGui::TableHeader("metric");
    for (size_t i = 0; i < shown.size(); ++i) {
        const Measurement& m = *shown[i];
        ImGui::TableSetColumnIndex(static_cast<int>(i) + 1);
        ImGui::PushID(static_cast<int>(i));
        color_swatch(variant_series(m.job.params.workload, m.job.variant));
        // Nothing re-measures `yours` by itself: a stale one waits for the student's next run.
        const std::string note = m.job.variant == kernels::kStudentVariant ? "earlier settings: run it again" : stale_note;
        const std::string title = m.job.variant + (stale[i] ? " (" + note + ")" : "");
        ImGui::TableHeader(title.c_str());
        const kernels::VariantInfo* info = variant_info(m.job.params.workload, m.job.variant);
        tooltip((info ? info->description : m.job.variant) +
                (stale[i] ? "\nGreyed: measured with earlier settings (" + note + ")." : std::string()));
        ImGui::PopID();
    }
}

void error_row(const std::vector<const Measurement*>& shown) {
    bool any = false;
    for (const Measurement* m : shown) any |= !m->ok;
    if (!any) return;
    ImGui::TableNextRow();
    ImGui::TableSetColumnIndex(0);
    ImGui::TextUnformatted("error");
    for (size_t i = 0; i < shown.size(); ++i) {
        if (shown[i]->ok) continue;
        ImGui::TableSetColumnIndex(static_cast<int>(i) + 1);
        wrapped_colored(error_color(), (shown[i]->refused ? "refused: " : "") + shown[i]->error);
    }
}

std::string ceiling_help(const ResolvedBackend& backend) {
    const BandwidthCeiling c = bandwidth_ceiling(backend.device);
    std::string help = "Achieved bandwidth / ceiling x 100. The ceiling is the measured device-to-device copy "
                       "bandwidth on a GPU, the datasheet peak bandwidth on a simulated GPU.";
    if (c.gbps > 0) help += "\nNow: " + c.source + ", " + kernels::format_gbps(c.gbps) + ".";
    else help += "\nNow: no ceiling available (" + backend.device.ceiling_note + ").";
    return help;
}

void per_kernel_cell(const Measurement& m) {
    const BandwidthCeiling ceiling = bandwidth_ceiling(m.device);
    for (size_t k = 0; k < m.kernels.size(); ++k) {
        const kernels::KernelTime& kt = m.kernels[k];
        ImGui::PushID(static_cast<int>(k));
        const double gbps = kt.time.median_ms > 0 ? static_cast<double>(kt.bytes) / (kt.time.median_ms * 1e6) : 0;
        std::string detail = kt.name + "\nmedian " + kernels::format_time_ms(kt.time.median_ms) + ", min " +
                             kernels::format_time_ms(kt.time.min_ms) + ", max " +
                             kernels::format_time_ms(kt.time.max_ms) + "\nmodeled bytes " +
                             kernels::format_bytes(static_cast<double>(kt.bytes)) + "\nachieved " +
                             kernels::format_gbps(gbps);
        if (ceiling.gbps > 0) detail += " = " + percent_text(percent_of_ceiling(gbps, ceiling)) + " of " + ceiling.source;
        const std::string time = kernels::format_time_ms(kt.time.median_ms);
        const std::string line = kt.name + "  " + time;
        if (ImGui::CalcTextSize(line.c_str()).x <= ImGui::GetContentRegionAvail().x) {
            cell_text(line);
        } else {  // a narrow column: the name on a line of its own, shortened where longer than the cell
            cell_name(kt.name);
            tooltip(detail);
            cell_text(time);
        }
        tooltip(detail);
        ImGui::PopID();
    }
}

std::string bytes_cell(uint64_t bytes) { return kernels::format_bytes(static_cast<double>(bytes)); }

// The widest metric name: the first column's width.
constexpr const char* kWidestMetric = "on chip: shared bytes (model)";

// Traffic at the three levels, one row each, from the outside in, named by kernels/core/levels.h:
// DRAM (DRAM <-> L2, what the counters measure), L2→SM (what the loads and stores ask for), on chip
// (shared memory).
void bytes_rows(const std::vector<const Measurement*>& shown, const std::vector<bool>& stale) {
    metric_row("DRAM bytes (model)", "DRAM bytes (DRAM <-> L2; on these GPUs the DRAM is HBM) read + written, from the model: the tile schedule's loads and "
                                     "stores (L2 <-> SM) through the L2 reuse model (re-reads by blocks running together "
                                     "and intermediates that fit in half the L2 come from L2). What the DRAM counters "
                                     "measure; the bandwidth, the ratio to the minimum and the simulated DRAM time use it.",
               shown, stale, [](const Measurement& m) {
                   cell_text(bytes_cell(m.bytes()));
                   tooltip("DRAM read " + bytes_cell(m.bytes_read) + ", written " + bytes_cell(m.bytes_written) + "\n= " +
                           kernels::format_count(static_cast<int64_t>(m.bytes())) + " bytes" +
                           (m.dram_model_note.empty() ? std::string() : "\n" + m.dram_model_note));
               });
    metric_row("L2\xE2\x86\x92SM bytes (model)", "Bytes between L2 and the SMs, read + written: every load and store the kernels "
                                         "ask for, the sum of the tile schedule. More than the DRAM bytes where blocks "
                                         "re-read tiles that L2 serves (flash's K and V) or an intermediate stays in L2. "
                                         "Priced at L2 bandwidth by the simulator; no counter here measures it.",
               shown, stale, [](const Measurement& m) {
                   const uint64_t l2 = m.l2_bytes_read + m.l2_bytes_written;
                   cell_text(bytes_cell(l2));
                   tooltip("L2\xE2\x86\x92SM read " + bytes_cell(m.l2_bytes_read) + ", SM -> L2 written " + bytes_cell(m.l2_bytes_written) +
                           "\n= " + kernels::format_count(static_cast<int64_t>(l2)) + " bytes" +
                           (m.bytes() ? ", " + ratio_text(static_cast<double>(l2) / static_cast<double>(m.bytes())) +
                                            " the DRAM bytes"
                                      : std::string()));
               });
    metric_row("on chip: shared bytes (model)", "On chip: shared-memory bytes of all blocks, as the banks serve them (128 B per "
                                       "warp wavefront): the teaching kernels' operand reads and tile stores. Kernels that "
                                       "keep their data in registers, and cuBLAS (whose tiles the model does not know), "
                                       "count none.",
               shown, stale, [](const Measurement& m) {
                   cell_text(bytes_cell(m.shared_bytes));
                   tooltip(m.shared_bytes ? kernels::format_count(static_cast<int64_t>(m.shared_bytes)) + " bytes of shared-memory "
                                                                                                          "wavefronts"
                                          : "no shared-memory traffic in the model: registers, or a library kernel's own tiles");
               });
}

// A recorded backend mixes recorded and simulated columns: the first row says which each is.
bool has_source_row(const std::vector<const Measurement*>& shown) {
    for (const Measurement* m : shown)
        if (m->recorded() || m->job.backend == kernels::BackendKind::recorded) return true;
    return false;
}

void source_row(const std::vector<const Measurement*>& shown, const std::vector<bool>& stale) {
    metric_row("source", "Where the column's numbers come from. recorded: measured on a real GPU on that day and "
                         "read from a recording (assets/recordings), not measured now. simulated: the recording lacks "
                         "these parameters, so the calibrated model of that GPU estimates them.",
               shown, stale, [](const Measurement& m) {
                   // The date where the column has room for it; the device and file in the tooltip.
                   const std::string full = m.source_tag().empty() ? std::string("measured") : m.source_tag();
                   const bool fits = ImGui::CalcTextSize(full.c_str()).x <= ImGui::GetContentRegionAvail().x;
                   cell_text(fits ? full : m.recorded() ? std::string("recorded") : full);
                   tooltip(m.source_label() + "\n" + m.timing_note);
               });
}

void results_rows(const std::vector<const Measurement*>& shown, const std::vector<bool>& stale,
                  const ResolvedBackend& backend) {
    const bool simulated = backend.kind == kernels::BackendKind::simulated;
    if (has_source_row(shown)) source_row(shown, stale);
    metric_row("kernels", "Kernel launches per run. Unfused code launches one kernel per operation and passes "
                          "each intermediate through memory (DRAM, or L2 when it fits in half of it).", shown, stale,
               [](const Measurement& m) { cell_text(std::to_string(kernels::launched_kernels(m.kernels))); });
    metric_row("time (median)",
               simulated ? "Model estimate: sum over kernels of max(bytes / bandwidth, FLOPs / peak) + launch cost."
               : backend.kind == kernels::BackendKind::recorded
                   ? "Recorded columns: the median of the recording's timed runs on its GPU, from CUDA events, after "
                     "warm-up. Simulated columns: the calibrated model's estimate."
                   : "Median wall time of one run (all the variant's kernels), from CUDA events, after warm-up.",
               shown, stale, [](const Measurement& m) {
                   cell_text(kernels::format_time_ms(m.time.median_ms));
                   tooltip(m.timing_note + (m.time.reps > 0 ? "\nrepetitions: " + std::to_string(m.time.reps) : ""));
               });
    const std::string spread_help = "Fastest and slowest repetition. A wide range means noise (clocks, other work). "
                                    "Simulated: one estimate, so min = max = median.";
    metric_row("time min", spread_help, shown, stale,
               [](const Measurement& m) { cell_text(kernels::format_time_ms(m.time.min_ms)); });
    metric_row("time max", spread_help, shown, stale,
               [](const Measurement& m) { cell_text(kernels::format_time_ms(m.time.max_ms)); });
    metric_row("bound by (model)",
               simulated ? "What sets the simulated time: the slowest of DRAM, L2, shared memory, the tensor cores, FP32 "
                           "FMA, exp2, instruction issue, too few warps per SM to hide latency (occupancy), and launches. "
                           "Hover a cell for its numbers."
                         : "What the calibrated model of this GPU says sets the time: a model claim beside the measured "
                           "time, not a measurement. The counters and the timeline show what the GPU did. Hover a cell "
                           "for its numbers.",
               shown, stale, [](const Measurement& m) {
                   cell_text(m.model_limiter.empty() ? "-" : kernels::limiter_word(m.model_limiter_resource));
                   if (!m.model_limiter.empty()) tooltip(m.model_limiter);
               });
    bytes_rows(shown, stale);
    metric_row("minimum bytes", "The fewest bytes any implementation must move: each input read once and the "
                                "output written once.", shown, stale, [](const Measurement& m) {
                   cell_text(kernels::format_bytes(static_cast<double>(m.min_bytes)));
               });
    metric_row("bytes / minimum", "DRAM bytes (model) / minimum bytes: how much extra traffic the variant causes. "
                                  "Fusion drives it towards 1.", shown, stale, [](const Measurement& m) {
                   cell_text(m.min_bytes ? ratio_text(static_cast<double>(m.bytes()) / static_cast<double>(m.min_bytes))
                                         : std::string("n/a"));
               });
    metric_row("FLOPs", "Floating-point operations counted by the model. Fusion saves bytes, not arithmetic: "
                        "every variant does the same work.", shown, stale,
               [](const Measurement& m) { cell_text(kernels::format_flops(m.flops)); });
    metric_row("bandwidth", "Achieved DRAM bandwidth = DRAM bytes (model) / median time.", shown, stale, [](const Measurement& m) {
        cell_text(kernels::format_gbps(m.achieved_gbps()));
        tooltip("compute: " + kernels::format_rate_flops(m.achieved_gflops() * 1e9));
    });
    metric_row("% of ceiling", ceiling_help(backend), shown, stale, [](const Measurement& m) {
        const BandwidthCeiling c = bandwidth_ceiling(m.device);
        cell_text(c.gbps > 0 ? percent_text(percent_of_ceiling(m.achieved_gbps(), c)) : "n/a");
        tooltip(c.gbps > 0 ? kernels::format_gbps(m.achieved_gbps()) + " / " + kernels::format_gbps(c.gbps) + " (" +
                                 c.source + ")"
                           : "no ceiling: " + m.device.ceiling_note);
    });
    metric_row("% of compute roof", "Achieved FLOP/s / the compute ceiling the variant is held to x 100: the tensor "
                                    "GEMM roof for variants on tensor cores (cuBLAS fp16/bf16, flash_tc), the FP32 FMA "
                                    "roof otherwise. Measured ceilings on a GPU (cuBLAS GEMM, FMA-chain kernel, cached "
                                    "per device), datasheet values on a simulated GPU.",
               shown, stale, [](const Measurement& m) {
                   const kernels::RoofSet roofs = kernels::roofs_for(m.device, m.job.params.dtype);
                   const kernels::Roof& roof = kernels::roof_for_variant(roofs, m.job.variant, m.job.params);
                   const double achieved = m.achieved_gflops() * 1e9;
                   cell_text(roof.flops_per_s > 0 ? percent_text(100 * achieved / roof.flops_per_s) : "n/a");
                   tooltip(kernels::format_rate_flops(achieved) + " / " + roof.name + " " +
                           kernels::format_rate_flops(roof.flops_per_s) + "\n" + roof.source +
                           (m.device.simulated ? "" : "\n" + m.device.compute_ceiling_note));
               });
    metric_row("wall time", "From the runner receiving the batch to this result: queueing behind the batch's earlier "
                            "variants, buffer allocation, the check against the CPU reference, warm-up, the timed reps "
                            "and the counters pass. What you wait for after a change.",
               shown, stale, [](const Measurement& m) {
                   cell_text(m.wall_ms > 0 ? kernels::format_time_ms(m.wall_ms) : std::string("n/a"));
                   tooltip(m.job.quick ? "quick pass: " + std::to_string(m.time.reps) + " reps, no counters; the full "
                                         "pass follows"
                                       : "full pass: " + std::to_string(m.time.reps) + " reps" +
                                             (m.job.measure_counters ? " + counters" : ""));
               });
    metric_row("max error", "Error versus the reference: the largest |output - reference| over the checked elements; the reference "
                                         "is the float64 CPU implementation on the same inputs. On a simulated GPU no kernel ran: "
                                         "the variant's arithmetic is emulated on the CPU (its dtype, its order of operations).",
               shown, stale, [](const Measurement& m) {
                   if (m.checked) {
                       cell_text(scientific_text(m.max_abs_error));
                       tooltip("relative L2 error " + scientific_text(m.rel_l2_error) + " over " +
                               kernels::format_count(m.checked_elements) + " elements (" + m.check_note + ")");
                   } else {
                       cell_text(m.device.simulated ? "n/a: simulated" : "n/a");
                       tooltip(m.check_note);
                   }
               });
    metric_row("DRAM (counters)", "Measured DRAM bytes (read + written), counted by the GPU's hardware counters over one "
                                  "run after an L2 flush, and their ratio to the modeled bytes. Below 1x: L2 served "
                                  "some re-reads, or written lines were still in L2 when the run ended.",
               shown, stale, [](const Measurement& m) {
                   if (!m.measured_bytes) {
                       cell_text("n/a");
                       tooltip(m.measured_bytes_note);
                       return;
                   }
                   cell_text(kernels::measured_vs_modeled(*m.measured_bytes, m.bytes()));
                   std::string detail = kernels::explain_traffic_gap(m) + "\n\n";
                   if (m.measured_bytes_read && m.measured_bytes_written)
                       detail += "read " + kernels::measured_vs_modeled(*m.measured_bytes_read, m.bytes_read) +
                                ", written " + kernels::measured_vs_modeled(*m.measured_bytes_written, m.bytes_written) +
                                "\n";
                   tooltip(detail + m.measured_bytes_note);
               });
    metric_row("per kernel", "Each kernel of the variant with its median time. Hover a line for min/max, its "
                             "modeled bytes and achieved bandwidth.", shown, stale, per_kernel_cell);
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// [SECTION] Table
// ---------------------------------------------------------------------------------------------

void draw_results_table(const AppState& state, const ResolvedBackend& backend) {
    const std::vector<const Measurement*> shown = visible_results(state);
    if (shown.empty()) {
        ImGui::TextDisabled("%s", backend.ready ? "measuring..." : "waiting for the GPU probe...");
        return;
    }
    std::vector<bool> stale;
    for (const Measurement* m : shown) stale.push_back(is_stale(*m, state.settings, backend));

    const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_RowBg | ImGuiTableFlags_SizingStretchSame;
    // On wide screens a full-width table puts values a screen away from their labels. On narrow ones
    // (projector fonts beside a lesson) the values keep ~7 em each ("13.4 us", "2.00 GiB") and the
    // metric names wrap into what is left, down to 6 em: a number cut to "13." is worse than a name
    // on two lines. Where even then a value would get less than the 5 em its longest word needs
    // ("1.64e-05", "13.028" over "ms"), the variants go into several tables, one under the other.
    const float avail = ImGui::GetContentRegionAvail().x;
    const float metric_w = std::clamp(avail - em() * 7 * static_cast<float>(shown.size()), em() * 6,
                                      ImGui::CalcTextSize(kWidestMetric).x + em());
    const size_t per_table = std::max<size_t>(1, static_cast<size_t>((avail - metric_w) / (em() * 5)));
    const bool invalid = !params_error(state).empty();
    viz::LabelLayout cells("results table");
    g_cells = viz::recording_labels() ? &cells : nullptr;  // only a test reads them: no per-frame strings otherwise
    for (size_t first = 0; first < shown.size(); first += per_table) {
        const size_t last = std::min(shown.size(), first + per_table);
        const std::vector<const Measurement*> part(shown.begin() + static_cast<std::ptrdiff_t>(first),
                                                   shown.begin() + static_cast<std::ptrdiff_t>(last));
        const std::vector<bool> part_stale(stale.begin() + static_cast<std::ptrdiff_t>(first),
                                           stale.begin() + static_cast<std::ptrdiff_t>(last));
        const float table_w = std::min(avail, metric_w + em() * 16 * static_cast<float>(part.size()));
        const std::string id = first == 0 ? std::string("results") : "results " + std::to_string(first);
        if (!ImGui::BeginTable(id.c_str(), static_cast<int>(part.size()) + 1, flags, ImVec2(table_w, 0))) break;
        ImGui::TableSetupColumn("metric", ImGuiTableColumnFlags_WidthFixed, metric_w);
        for (const Measurement* m : part) ImGui::TableSetupColumn(m->job.variant.c_str(), ImGuiTableColumnFlags_WidthStretch);
        variant_header_row(part, part_stale, invalid ? "earlier parameters" : "updating");
        error_row(part);
        results_rows(part, part_stale, backend);
        ImGui::EndTable();
    }
    g_cells = nullptr;
    viz::record_labels(cells);
}

// ---------------------------------------------------------------------------------------------
// [SECTION] Reference rows
// ---------------------------------------------------------------------------------------------
namespace {

// "load...": a path field in a popup; a file that does not read leaves the current one and says why.
void reference_loader(AppState& state) {
    if (!state.interactive) return;  // shots: nothing to click
    ImGui::SameLine();
    if (ImGui::SmallButton(state.reference.path.empty() ? "load..." : "other file...")) {
        state.reference_input = state.reference.path;
        state.reference_message = {};
        ImGui::OpenPopup("reference_file");
    }
    tooltip("Read a reference file written by scripts/torch_reference.py (same as --reference FILE).");
    if (!ImGui::BeginPopup("reference_file")) return;
    ImGui::TextUnformatted("PyTorch reference file (scripts/torch_reference.py writes one):");
    ImGui::SetNextItemWidth(em() * 26);
    const bool enter = ImGui::InputTextWithHint("##reference_path", "path/to/reference.json", &state.reference_input,
                                                ImGuiInputTextFlags_EnterReturnsTrue);
    ImGui::SameLine();
    if (ImGui::Button("Load") || enter) {
        ReferenceFile read;
        if (std::string why = load_reference_json(state.reference_input, read); !why.empty()) {
            state.reference_message = {why, true};
        } else {
            state.reference = std::move(read);
            state.reference_message = {};
            ImGui::CloseCurrentPopup();
        }
    }
    if (!state.reference.path.empty()) {
        ImGui::SameLine();
        if (ImGui::Button("Remove")) {
            state.reference = ReferenceFile{};
            ImGui::CloseCurrentPopup();
        }
    }
    if (!state.reference_message.text.empty()) {
        ImGui::PushTextWrapPos(em() * 34);
        wrapped_colored(error_color(), state.reference_message.text);
        ImGui::PopTextWrapPos();
    }
    ImGui::EndPopup();
}

}  // namespace

void draw_reference_rows(AppState& state) {
    std::string why;
    const std::vector<const ReferenceRow*> rows = shown_reference(state, &why);
    if (rows.empty()) {
        if (!why.empty()) {
            ImGui::PushTextWrapPos(0.0f);
            ImGui::TextDisabled("%s", why.c_str());
            ImGui::PopTextWrapPos();
            tooltip("Reference rows show what a user would run instead (PyTorch eager, torch.compile, SDPA flash / "
                    "cuDNN, a CUDA graph), timed by scripts/torch_reference.py on a GPU the way fusionlab times its "
                    "kernels, in their own style beside ours and never in our ratios.");
            reference_loader(state);
        }
        return;
    }
    ImGui::PushTextWrapPos(0.0f);
    ImGui::TextDisabled("Reference, not fusionlab: %s", reference_source(rows).c_str());
    ImGui::PopTextWrapPos();
    tooltip("Timed by scripts/torch_reference.py (" + state.reference.path + "): warm-up, CUDA events around each "
            "repetition, median, random inputs, the same shapes and dtype. Bandwidth and FLOP/s use fusionlab's "
            "minimum bytes and FLOPs for these parameters (PyTorch has no model). Not fusionlab's kernels: never "
            "in the ratios above.");
    reference_loader(state);
    const kernels::Params& p = state.settings.params;
    const double flops = reference_flops(p), bytes = static_cast<double>(kernels::min_bytes(p));
    const ImGuiTableFlags flags = ImGuiTableFlags_Borders | ImGuiTableFlags_SizingStretchProp;
    const float table_w = std::min(ImGui::GetContentRegionAvail().x, em() * 44);
    if (!ImGui::BeginTable("reference", 4, flags, ImVec2(table_w, 0))) return;
    ImGui::PushStyleColor(ImGuiCol_Text, ImGui::GetStyleColorVec4(ImGuiCol_TextDisabled));
    ImGui::TableSetupColumn("reference", ImGuiTableColumnFlags_WidthStretch, 1.6f);
    ImGui::TableSetupColumn("median", ImGuiTableColumnFlags_WidthStretch, 1.0f);
    ImGui::TableSetupColumn("min - max", ImGuiTableColumnFlags_WidthStretch, 1.4f);
    ImGui::TableSetupColumn("at min bytes", ImGuiTableColumnFlags_WidthStretch, 1.2f);
    ImGui::TableHeadersRow();
    for (size_t i = 0; i < rows.size(); ++i) {
        const ReferenceRow& r = *rows[i];
        ImGui::PushID(static_cast<int>(i));
        ImGui::TableNextRow();
        ImGui::TableSetColumnIndex(0);
        const float swatch = ImGui::GetTextLineHeight() * 0.8f;
        const ImVec2 at = ImGui::GetCursorScreenPos();
        const float dy = (ImGui::GetTextLineHeight() - swatch) * 0.5f;
        viz::draw_reference_box(ImGui::GetWindowDrawList(), ImVec2(at.x, at.y + dy), ImVec2(at.x + swatch, at.y + dy + swatch),
                                current_theme());
        ImGui::Dummy(ImVec2(swatch, swatch));
        ImGui::SameLine();
        ImGui::TextUnformatted(r.label.c_str());
        tooltip(reference_caption(r) + "\n" + r.note + (r.driver.empty() ? "" : "\ndriver " + r.driver) + "\n" + r.command);
        if (!r.has_time) {
            ImGui::TableSetColumnIndex(1);
            ImGui::TextUnformatted("unavailable");
            tooltip(r.error);
            ImGui::PopID();
            continue;
        }
        ImGui::TableSetColumnIndex(1);
        cell_text(kernels::format_time_ms(r.time.median_ms));
        tooltip(std::to_string(r.time.reps) + " reps after " + std::to_string(r.warmup) + " warm-up runs, CUDA events");
        ImGui::TableSetColumnIndex(2);
        cell_text(kernels::format_time_ms(r.time.min_ms) + " - " + kernels::format_time_ms(r.time.max_ms));
        ImGui::TableSetColumnIndex(3);
        const double gbps = bytes / (r.time.median_ms * 1e6);
        cell_text(kernels::format_gbps(gbps));
        std::string detail = "minimum bytes " + kernels::format_bytes(bytes) + " / median time";
        if (flops > 0) {
            detail += '\n';
            detail += kernels::format_rate_flops(flops / (r.time.median_ms * 1e-3));
            detail += " at fusionlab's " + kernels::format_flops(flops) + " FLOPs";
        }
        tooltip(detail);
        ImGui::PopID();
    }
    ImGui::PopStyleColor();
    ImGui::EndTable();
}

float reference_rows_height(const AppState& state) {
    std::string why;
    const size_t n = shown_reference(state, &why).size();
    if (n == 0) return why.empty() ? 0.0f : ImGui::GetTextLineHeightWithSpacing();
    const float row = ImGui::GetTextLineHeight() + ImGui::GetStyle().CellPadding.y * 2 + 1;
    return ImGui::GetTextLineHeightWithSpacing() + row * static_cast<float>(n + 1) + ImGui::GetStyle().ItemSpacing.y;
}

float results_table_height(const AppState& state) {
    size_t kernel_lines = 1;
    for (const Measurement* m : visible_results(state)) kernel_lines = std::max(kernel_lines, m->kernels.size());
    const ImGuiStyle& style = ImGui::GetStyle();
    const float row = ImGui::GetTextLineHeight() + style.CellPadding.y * 2 + 1;
    constexpr int kMetricRows = 17;  // header + the metric rows of results_rows()
    const int rows = kMetricRows + (has_source_row(visible_results(state)) ? 1 : 0);
    return row * static_cast<float>(rows) + ImGui::GetTextLineHeightWithSpacing() * static_cast<float>(kernel_lines - 1) +
           reference_rows_height(state);
}

}  // namespace app
