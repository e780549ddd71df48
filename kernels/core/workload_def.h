// What a workload is, to the rest of the program: one WorkloadDef per workload, defined in the
// workload's own folder (kernels/<folder>/<name>_def.cpp) and listed once in kernels/core/workload_list.cpp.
// The harness (kernels/gpu, kernels/sim), the app and the views read workloads only through it: its
// parameters, variants, validation, tile schedule (and so its model), minimum bytes, device
// refusals, a one-line description of a parameter set, the memory view's facts, and its GPU side.
// docs/ARCHITECTURE.md has the checklist for adding one. No CUDA, no GUI.
#pragma once

#include "kernels/core/schedule.h"
#include "kernels/core/types.h"

#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

namespace kernels {

// ---------------------------------------------------------------------------------------------
// Parameters: one table drives the GUI controls, the CLI options, validation and export columns.
// ---------------------------------------------------------------------------------------------
// How a parameter is entered: a number in [min, max] (slider + typed value), one of a few listed
// values (combo box; the CLI accepts only those), or on/off (checkbox; the CLI takes 0 or 1).
enum class ParamKind { number, choice, boolean };

struct ParamSpec {
    std::string name;          // CLI option (--name), CSV / JSON / settings / lesson key: "rows"
    std::string label;         // GUI label: "rows (tokens)"
    double min = 0, max = 0;   // inclusive legal range
    bool integer = true;
    bool log_scale = false;    // slider moves in powers of two
    std::string help;          // tooltip: what it is and why it matters
    double default_value = 0;  // what Params{} reads before anything is set
    ParamKind kind = ParamKind::number;
    std::vector<double> choices = {};  // kind == choice: the legal values, ascending
    // The sweep view's default range for it (0, 0: 256 .. 16384, clamped to min .. max).
    double sweep_from = 0, sweep_to = 0;
    // kind == choice: the parameter also takes "auto" (kernels/sim/auto_choice.h: kAutoValue, which
    // `choices` lists first), resolved per variant and device to the fastest of the workload's
    // candidates (WorkloadDef::auto_candidates).
    bool auto_choice = false;
};

// "" when `value` is legal for the spec (in range, whole when integer, one of the choices, 0 or 1
// for a boolean), else a message naming the parameter, the value and what is legal.
std::string check_param_value(const ParamSpec& spec, double value);
// What is legal, as words: "1 .. 65536", "16, 32, 64 or 128", "0 or 1".
std::string legal_values_text(const ParamSpec& spec);
// A number as the messages print it: whole numbers without a decimal point, others as %g.
std::string param_number_text(double v);
// A value of the spec as the CLI, the GUI and lessons write it: "auto" for an auto parameter at auto
// (ParamSpec::auto_choice), else param_number_text.
std::string param_value_text(const ParamSpec& spec, double v);
// "auto" for a parameter that offers it: sets out to its value and returns true; false otherwise.
bool parse_param_word(const ParamSpec& spec, const std::string& text, double& out);

// The seed every workload takes: its random inputs (and the chain's dropout mask) come from it.
const ParamSpec& seed_param();
// Its value as the Philox key every workload's inputs use (the spec keeps it in 0 .. 2^53 - 1).
uint64_t seed_of(const Params& p);

// ---------------------------------------------------------------------------------------------
// Variants
// ---------------------------------------------------------------------------------------------
struct VariantInfo {
    std::string name;         // "unfused"
    std::string description;  // one line for the GUI tooltip
    int kernels = 1;          // kernel launches per run (a variant whose count depends on the
                              // parameters says 1 here; its schedule has the real count)
    // The kernels after the first are replayed from a CUDA graph (one cudaGraphLaunch): the
    // simulated backend charges its per-node cost instead of a launch between them.
    bool graph_replay = false;
    // The baseline: the variant a teacher compares this one with, so the comparison isolates what
    // this variant changed ("" for a baseline itself). Usually the one it improves on (fused vs
    // unfused); a variant built to show a cost names what it degrades (the chain's fused_spill vs
    // fused). The results headline and every ratio a panel shows compare these pairs
    // (app/core/panels_state.h, headline_lines); the roofline draws an arrow from the baseline to
    // this one where it is faster, and labels it "slower" where it is not.
    std::string improves_on = {};
};

// Sets each named variant's baseline (VariantInfo::improves_on) from {variant, baseline} pairs;
// variants not named keep theirs. Both names must be variants of the list: a misspelt name throws
// std::logic_error when the definition is built (every test that touches the workload fails).
inline std::vector<VariantInfo> with_baselines(std::vector<VariantInfo> variants,
                                               const std::vector<std::pair<std::string, std::string>>& pairs) {
    auto find = [&](const std::string& name) -> VariantInfo* {
        for (VariantInfo& v : variants)
            if (v.name == name) return &v;
        throw std::logic_error("with_baselines: no variant '" + name + "'");
    };
    for (const auto& [variant, baseline] : pairs) {
        find(baseline);
        find(variant)->improves_on = baseline;
    }
    return variants;
}

// Every variant but `baseline` improves on `baseline` (VariantInfo::improves_on), unless its
// definition names another one (attention's flash_wgmma improves on flash_tc).
inline std::vector<VariantInfo> improving_on(std::vector<VariantInfo> variants, const std::string& baseline) {
    for (VariantInfo& v : variants)
        if (v.name != baseline && v.improves_on.empty()) v.improves_on = baseline;
    return variants;
}

// ---------------------------------------------------------------------------------------------
// Devices, as the refusals need them
// ---------------------------------------------------------------------------------------------
// A device and the memory a run may take on it: free memory now (a real GPU, plus what the
// backend's own cached buffers hold) or the datasheet's total (a simulated one).
struct DeviceBudget {
    const DeviceInfo& device;
    uint64_t memory_bytes = 0;
    std::string memory_what = "free";  // "free" or "in total": how the refusal names it
};
// The whole of the device's memory: a simulated GPU's datasheet, or a real one judged without
// asking what is free now (lessons, the simulated backend).
inline DeviceBudget total_memory_budget(const DeviceInfo& d) {
    return DeviceBudget{d, d.global_mem_bytes > 0 ? static_cast<uint64_t>(d.global_mem_bytes) : 0, "in total"};
}

// ---------------------------------------------------------------------------------------------
// The memory view's facts
// ---------------------------------------------------------------------------------------------
// A tensor's size in HBM (its footprint, not its traffic) and the formula behind it.
struct TensorFootprint {
    uint64_t bytes = 0;
    std::string formula;  // "batch_heads x N x d x 2 B = 16 x 1024 x 64 x 2 B"
};

// ---------------------------------------------------------------------------------------------
// One thread block, lane by lane: for kernels whose warps have roles (a producer of copies,
// consumers of them), what each lane does over one block's life, modeled. The timeline view draws
// it under the kernel timeline. Spans in ms from the block's start.
// ---------------------------------------------------------------------------------------------
struct BlockLane {
    std::string label, summary;      // "WG 1: wgmma", "busy 71 %"
    std::vector<KernelSpan> spans;   // what it does, in order
    int kind = 0;                    // colour: 0 copies, 1 tensor-core products, 2 softmax (or other work)
};
struct BlockTimeline {
    std::vector<BlockLane> lanes;    // empty: the variant has none
    double block_ms = 0;
    double tensor_busy = 0;          // fraction of block_ms the tensor cores run
    std::string title, note;         // the chart's title; which block, the rates, what to trust
};

// ---------------------------------------------------------------------------------------------
// A job's parameters, decoded once
// ---------------------------------------------------------------------------------------------
// Params holds values by name (the edges: command line, settings, files, lessons). A workload reads
// them into its own struct (AttentionParams, FfnParams, ...) once per job, in its decode hook. The
// pricing and model hooks below (validate, schedule, min_bytes, device_refusal, footprint, l2_reuse)
// take the decoded struct, so pricing a job looks up no parameter by name after the decode; the
// views' and the emulation's hooks (describe, on_chip, sram_parts, emulate, ...) still take Params.
// The harness holds the struct without knowing its type (it names no workload); a workload's hook
// gets its own struct back with decoded_as<T>.
class DecodedParams {
public:
    virtual ~DecodedParams() = default;
};
using Decoded = std::shared_ptr<const DecodedParams>;

template <typename T>
class DecodedAs final : public DecodedParams {
public:
    explicit DecodedAs(T v) : value(std::move(v)) {}
    T value;
};

// A workload's struct back from what its decode hook made; another workload's struct is a bug of
// the caller (it decoded with one definition and asked another): std::logic_error.
template <typename T>
const T& decoded_as(const DecodedParams& d) {
    const auto* typed = dynamic_cast<const DecodedAs<T>*>(&d);
    if (!typed) throw std::logic_error("a workload's hook was handed parameters decoded by another workload");
    return typed->value;
}

// A decode hook from a workload's one mapping of Params to its struct (to_attention, to_ffn, ...).
template <typename T, T (*to_struct)(const Params&)>
Decoded decode_with(const Params& p) {
    return std::make_shared<const DecodedAs<T>>(to_struct(p));
}

// ---------------------------------------------------------------------------------------------
// The definition
// ---------------------------------------------------------------------------------------------
class GpuWorkload;      // kernels/gpu/gpu_workload.h: the workload's device side (CUDA builds)
struct EmulationBudget;  // kernels/sim/emulate.h: the variant's arithmetic on the CPU
struct EmulatedCheck;

struct WorkloadDef {
    std::string name;         // "attention": --workload, settings, exports, lessons' @workload
    std::string title;        // "Attention": the GUI's workload list
    std::string description;  // a few sentences: what it computes and what fusion saves
    std::vector<ParamSpec> params;
    std::vector<VariantInfo> variants;

    // Params into the workload's own struct (DecodedParams above), once per job: what the pricing
    // and model hooks below take (validate, schedule, min_bytes, device_refusal, footprint,
    // l2_reuse). Required: decode_with<ItsParams, to_its_params>.
    Decoded (*decode)(const Params& p) = nullptr;
    // Checks across parameters, after each value passed its spec ("batch must divide heads",
    // "rows x hidden is too large"): "" or a message naming them. Optional.
    std::string (*validate)(const DecodedParams& p) = nullptr;
    // The variant's tile schedule: its model (FLOPs, bytes per buffer, spills) is the sum of it.
    Schedule (*schedule)(const std::string& variant, const DecodedParams& p) = nullptr;
    // The fewest bytes any implementation must move (each input read once, the output written once).
    uint64_t (*min_bytes)(const DecodedParams& p) = nullptr;
    // "" when the device can run the variant with p; else why not, with the numbers (a tile too
    // large for shared memory, S and P larger than memory, a missing architecture). Optional.
    std::string (*device_refusal)(const std::string& variant, const DecodedParams& p, const DeviceBudget& device) = nullptr;
    // The sizes that matter, in one short line ("16 heads, N=4096, d=64, tile 64x64"): the
    // variant's own facts (its tile) included when a variant is given. Without the dtype.
    std::string (*describe)(const Params& p, const std::string& variant) = nullptr;
    // The memory view: a buffer's footprint in HBM, where a kernel keeps its working set and,
    // for kernels that stage tiles in shared memory, the parts of one block's allocation.
    TensorFootprint (*footprint)(const DecodedParams& p, const std::string& buffer) = nullptr;
    OnChip (*on_chip)(const std::string& variant, const Params& p, const ScheduleKernel& kernel) = nullptr;
    std::vector<SramPart> (*sram_parts)(const std::string& variant, const Params& p, int kernel) = nullptr;
    // The L2 reuse only the workload knows, applied after the generic rules of apply_l2_reuse
    // (kernels/core/schedule.h) on a device with `l2_bytes` of L2: it may change a buffer's
    // dram_read / dram_written and says why in its dram_rule. Optional: the generic rules alone
    // give every workload DRAM bytes.
    void (*l2_reuse)(const std::string& variant, const DecodedParams& p, uint64_t l2_bytes, Model& m) = nullptr;
    // The GPU backend times its runs from an idle GPU (one event pair around all launches, so the
    // host's launch rate is inside the time): the simulated backend charges the first launch from
    // idle and the host's per-launch cost the same way. Default: kernels back to back.
    bool timed_from_idle = false;
    // Why measured DRAM bytes fall short of the model, beyond what every workload shares (L2
    // reuse of re-read tiles). Optional.
    std::string (*traffic_gap_reason)(const Measurement& m, uint64_t l2_bytes) = nullptr;
    // A few words under the bench's row for a measurement, when the workload has something to say
    // there ("per step 2.10 us; 100 kernels"); the bench adds the GPU's idle gaps from the
    // timeline. Optional.
    std::string (*bench_note)(const Measurement& m) = nullptr;
    // The variant's arithmetic on the CPU (kernels/sim/emulate.h): its output on the rows the GPU
    // check samples with budget.check, in the variant's own rounding and order of operations, against
    // the float64 reference; or why not (too slow for budget.max_seconds). The simulated backend shows
    // it as the computed error. Optional: without it simulated results say there is no emulation.
    EmulatedCheck (*emulate)(const std::string& variant, const Params& p, const EmulationBudget& budget) = nullptr;
    // One block of the variant lane by lane on `device` (BlockTimeline above), for variants whose
    // warps have roles; empty lanes for the others. Optional.
    BlockTimeline (*block_timeline)(const std::string& variant, const Params& p, const DeviceInfo& device) = nullptr;
    // The parameter sets `variant` may run for p's parameters left at auto (ParamSpec::auto_choice):
    // each auto parameter set to a value the variant takes, the others as p has them. Required when
    // a parameter offers auto; kernels/sim/auto_choice.h prices them and picks.
    std::vector<Params> (*auto_candidates)(const std::string& variant, const Params& p) = nullptr;
    // The variant whose time picks `variant`'s auto values (variants compared pairwise take the same
    // pick: skip's fused and two_pass run one attention tile). Optional: each variant its own.
    std::string (*auto_decider)(const std::string& variant) = nullptr;
    // The device side: nullptr in builds without CUDA.
    std::unique_ptr<GpuWorkload> (*make_gpu)() = nullptr;

    const ParamSpec* find_param(const std::string& param) const;
    const VariantInfo* find_variant(const std::string& variant) const;
};

}  // namespace kernels
