// The lesson vocabulary: traffic levels, highlight ids and the live expressions' names
// (app/lessons/vocabulary.h).
//
// [SECTION] Levels
// [SECTION] Highlight ids
// [SECTION] The expression vocabulary (and names of earlier builds)
#include "app/lessons/vocabulary.h"

#include "app/lessons/text_helpers.h"

#include <string>
#include <utility>
#include <vector>

namespace app {

using namespace lesson_text;

// =============================================================================================
// [SECTION] Levels
// =============================================================================================

const char* level_word(Level l) {
    switch (l) {
    case Level::dram: return "DRAM";
    case Level::l2sm: return "L2\xE2\x86\x92SM";
    case Level::onchip: return "on chip";
    case Level::none: break;
    }
    return "";
}

std::string levels_text(int levels) {
    std::vector<std::string> words_;
    for (Level l : {Level::dram, Level::l2sm, Level::onchip})
        if (levels & static_cast<int>(l)) words_.emplace_back(level_word(l));
    return words_.empty() ? std::string("no bytes") : join(words_, " and ");
}

// =============================================================================================
// [SECTION] Highlight ids
// =============================================================================================

// What each highlighted element shows, read from the panels that draw it: the bytes chart stacks
// each buffer's DRAM bytes from the L2 reuse model (app/gui/panel_charts.cpp byte_series); the
// results table has one row per level (DRAM, L2 -> SM, shared) and the DRAM counters
// (panel_results_table.cpp bytes_rows); the takeaway compares DRAM bytes; the memory view's HBM
// squares, byte race and footer count DRAM bytes (viz/memory_view.cpp, panel_memory.cpp
// add_notes); its L2 box shows hits and misses (L2 -> SM requests against DRAM); its SM box the
// tiles on chip and the loads that fill them.
const std::vector<HighlightInfo>& highlight_ids() {
    static const std::vector<HighlightInfo> table = {
        {"results.takeaway", "results", "the one-sentence takeaway above the charts (DRAM bytes, time)", kDram},
        {"results.time_chart", "results", "the time chart (median, min-max whiskers)", 0},
        {"results.bytes_chart", "results", "the DRAM bytes chart (model, stacked by buffer or kernel)", kDram},
        {"results.table", "results", "the results table: DRAM, L2\xE2\x86\x92SM and shared bytes (model), DRAM (counters)",
         kDram | kL2sm | kOnchip},
        {"memory.hbm", "memory", "the HBM tensors of the memory animation, with their DRAM bytes", kDram},
        {"memory.l2", "memory", "the L2 cache of the memory animation: L2\xE2\x86\x92SM requests, hits and DRAM misses",
         kDram | kL2sm},
        {"memory.sram", "memory", "the SMs' on-chip memory (shared memory / registers) and the loads that fill it",
         kOnchip | kL2sm},
        {"memory.footer", "memory", "the memory animation's notes: modeled and measured time and DRAM bytes", kDram},
        {"memory.race", "memory", "the DRAM byte race between two variants side by side", kDram},
    };
    return table;
}

const HighlightInfo* find_highlight(const std::string& id) {
    for (const HighlightInfo& h : highlight_ids())
        if (id == h.id) return &h;
    return nullptr;
}

// =============================================================================================
// [SECTION] The expression vocabulary
// =============================================================================================

const std::vector<ExprInfo>& expr_vocabulary() {
    static const std::vector<ExprInfo> table = {
        {"measured.time", "VARIANT", "median time of the variant's last measurement"},
        {"measured.dram_gbps", "VARIANT", "achieved DRAM bandwidth: modeled DRAM bytes / measured median time (the table's bandwidth row)"},
        {"measured.dram_percent", "VARIANT", "that DRAM bandwidth as % of the device's copy ceiling (or datasheet peak)"},
        {"measured.tflops", "VARIANT", "achieved FLOP rate: model FLOPs / measured median time"},
        {"measured.dram", "VARIANT", "DRAM bytes read + written, from the hardware counters"},
        {"measured.dram_per_l2sm", "VARIANT", "counter DRAM bytes / modeled L2\xE2\x86\x92SM bytes: the share of the requests DRAM served"},
        {"measured.dram_per_model", "VARIANT", "counter DRAM bytes / modeled DRAM bytes: how well the L2 reuse model did"},
        {"measured.error", "VARIANT", "relative L2 error against the float64 CPU reference"},
        {"measured.dram_intensity", "VARIANT", "model FLOPs / DRAM bytes the counters read (the roofline's DRAM intensity, measured)"},
        {"timeline.span", "VARIANT", "one run on the timeline: first kernel's start to last kernel's end"},
        {"timeline.busy", "VARIANT", "the time the GPU ran a kernel of that run (the timeline's GPU busy)"},
        {"timeline.idle", "VARIANT", "the share of the run the GPU ran none of its kernels, in % (the timeline's GPU idle)"},
        {"timeline.gap", "VARIANT", "the median gap between two kernels on the timeline"},
        {"timeline.kernels", "VARIANT", "kernels drawn on the timeline for one run"},
        {"model.dram", "VARIANT", "modeled DRAM bytes read + written: the L2 reuse model on this device's L2 (the bytes chart)"},
        {"model.dram_read", "VARIANT", "modeled DRAM bytes read"},
        {"model.dram_written", "VARIANT", "modeled DRAM bytes written"},
        {"model.l2sm", "VARIANT", "modeled L2\xE2\x86\x92SM bytes: every load and store the kernels ask for (sum of the tile schedule)"},
        {"model.l2sm_read", "VARIANT", "modeled L2\xE2\x86\x92SM bytes read"},
        {"model.l2sm_written", "VARIANT", "modeled SM\xE2\x86\x92L2 bytes written"},
        {"model.onchip", "VARIANT", "modeled shared-memory bytes, on chip (128 B per wavefront)"},
        {"model.flops", "VARIANT", "modeled FLOPs"},
        {"model.kernels", "VARIANT", "kernel launches per run"},
        {"model.l2sm_intensity", "VARIANT", "arithmetic intensity at L2: model FLOPs / modeled L2\xE2\x86\x92SM bytes"},
        {"model.dram_intensity", "VARIANT", "arithmetic intensity at DRAM: model FLOPs / modeled DRAM bytes (L2 reuse model)"},
        {"model.limiter", "VARIANT", "the resource the calibrated model says sets the variant's time on this device"},
        {"model.bound", "VARIANT", "that limiter as a kind: memory-bound, compute-bound, issue-bound, latency-bound, launch-bound, bound on chip"},
        {"model.time", "VARIANT", "the calibrated model's time for the variant on this device (what a simulated GPU shows)"},
        {"model.dram_buffer", "VARIANT BUFFER", "modeled DRAM bytes one buffer (S, P, x, h1, ...) moves, read + written"},
        {"model.l2sm_buffer", "VARIANT BUFFER", "modeled L2\xE2\x86\x92SM bytes one buffer moves, read + written"},
        {"model.tensor", "VARIANT BUFFER", "one buffer's footprint in memory: its size, not its traffic"},
        {"model.min_dram", "", "the fewest DRAM bytes any implementation must move (inputs read once, output written once)"},
        {"model.registers", "VARIANT", "registers per thread of the variant's row kernel or flash_tc (ptxas; sm_90)"},
        {"model.spill_bytes", "VARIANT", "register-spill traffic to and from local memory (ptxas bytes x threads)"},
        {"model.spill_past_l1", "VARIANT", "share of the spill traffic L1 cannot hold on this device (estimate)"},
        {"ratio", "EXPR A B", "{EXPR A} / {EXPR B} for a numeric expression of one variant: measured.time, model.dram, model.l2sm, measured.dram, model.flops, model.kernels, ..."},
        {"device.name", "", "the device the numbers come from"},
        {"device.bandwidth", "", "the DRAM bandwidth ceiling in use (measured copy; simulated: the calibrated copy; else datasheet)"},
        {"device.tflops", "", "the tensor-core roof the roofline draws: the cuBLAS GEMM measured on this GPU (simulated: the calibrated GEMM rate), else the peak"},
        {"device.ridge", "", "ridge point: that tensor roof / the bandwidth ceiling, in FLOP per byte (as on the roofline)"},
        {"device.smem", "", "shared memory one block may use (with opt-in)"},
        {"device.l2", "", "L2 cache size"},
        {"device.sms", "", "the device's SM count"},
        {"device.kind", "", "simulated, recorded or measured: where this device's numbers come from"},
        {"model.ctas", "VARIANT", "thread blocks (CTAs) the variant's largest kernel launches"},
        {"model.kernel_flops_per_element", "VARIANT KERNEL", "FLOPs the model counts per element in one kernel of the variant (gelu, layernorm, ...)"},
        {"model.kernel_dram_intensity", "VARIANT KERNEL", "one kernel's FLOPs / its modeled DRAM bytes (FLOP/B)"},
        {"param", "NAME", "the current value of a parameter (N, d, rows, br, ...) or dtype"},
        {"refusal", "VARIANT", "why this device cannot run the variant with these parameters (unavailable when it runs)"},
        {"if", "A OP B | THEN | ELSE", "a verdict: THEN when the live comparison holds (OP: < <= > >=), else ELSE; or refused V, runs V, counters V, recorded, simulated, model.limiter V is CLASS"},
        {"term", "KEY", "a glossary term: the word, with its definition on hover and in exports"},
    };
    return table;
}

// Expression names of earlier builds that did not say which level they count, with the one to use.
const char* renamed_expr(const std::string& func) {
    static const std::vector<std::pair<const char*, const char*>> table = {
        {"model.bytes", "model.l2sm (L2\xE2\x86\x92SM) or model.dram (DRAM)"},
        {"model.read", "model.l2sm_read or model.dram_read"},
        {"model.written", "model.l2sm_written or model.dram_written"},
        {"model.shared", "model.onchip"},
        {"model.intensity", "model.l2sm_intensity or model.dram_intensity"},
        {"model.buffer", "model.dram_buffer or model.l2sm_buffer"},
        {"model.min_bytes", "model.min_dram"},
        {"measured.bytes", "measured.dram"},
        {"measured.gbps", "measured.dram_gbps"},
        {"measured.percent", "measured.dram_percent"},
        {"measured.dram_ratio", "measured.dram_per_l2sm"},
        {"measured.dram_vs_model", "measured.dram_per_model"},
    };
    for (const auto& [old_name, now] : table)
        if (func == old_name) return now;
    return nullptr;
}

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

}  // namespace app
