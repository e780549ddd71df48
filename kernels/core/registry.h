// The workload registry and the questions everything else asks of a workload by name: which
// workloads exist (kernels/core/workload_list.cpp lists them), their parameters and variants, validation,
// the tile schedule and model, minimum bytes, device refusals and a one-line description. Each
// answer comes from the workload's WorkloadDef (kernels/core/workload_def.h), defined in its
// folder; nothing here names a workload. No CUDA, no GUI.
#pragma once

#include "kernels/core/schedule.h"
#include "kernels/core/types.h"
#include "kernels/core/workload_def.h"

#include <string>
#include <vector>

namespace kernels {

// ---------------------------------------------------------------------------------------------
// The registry
// ---------------------------------------------------------------------------------------------
// Every workload, in the order the GUI and `--workload all` list them.
const std::vector<const WorkloadDef*>& workloads();
// Case-insensitive; nullptr when there is no such workload.
const WorkloadDef* find_workload(const std::string& name);
// The definition of p's workload (or of `name`); throws std::invalid_argument for an unknown name.
const WorkloadDef& workload_def(const std::string& name);
inline const WorkloadDef& workload_def(const Params& p) { return workload_def(p.workload); }
// Every workload's name, in registry order.
std::vector<std::string> workload_names();
// True and the registry's spelling in `out` when `text` names a workload (case-insensitive).
bool parse_workload(const std::string& text, std::string& out);
// "chain, bias_gelu, attention, skip or launch"
std::string workload_names_text();

// ---------------------------------------------------------------------------------------------
// Parameters
// ---------------------------------------------------------------------------------------------
const std::vector<ParamSpec>& param_specs(const std::string& workload);
// Every parameter of every workload, once each (a shared one like seed: its first spec), in
// workload order: the options bench and shot take, and the parameter columns of CSV exports.
const std::vector<ParamSpec>& all_param_specs();
// The spec of `param` for `workload`, or nullptr when it does not take that parameter.
const ParamSpec* find_param_spec(const std::string& workload, const std::string& param);
// Params of `workload` with every parameter at its default (dtype: bf16).
Params default_params(const std::string& workload);

// Checks every parameter of p's workload against its spec, then the workload's own checks
// (sizes legal one by one but too large together). "" when valid, else a message naming the
// parameter, the value and the range.
std::string validate(const Params& p);
// Each value of p against its spec of w alone (the first half of validate): what must hold before
// w decodes p (WorkloadDef::decode).
std::string check_param_values(const WorkloadDef& w, const Params& p);
// The same for a workload already found (a job's, resolved once: no lookup by name).
std::string validate(const WorkloadDef& w, const Params& p);

// ---------------------------------------------------------------------------------------------
// Variants, schedule, model
// ---------------------------------------------------------------------------------------------
const std::vector<VariantInfo>& variants(const std::string& workload);
bool has_variant(const std::string& workload, const std::string& variant);
// "unknown variant 'x' for workload chain (legal: unfused, fused or fused_spill)"
std::string unknown_variant_message(const std::string& workload, const std::string& variant);

Schedule schedule(const std::string& variant, const Params& p);
// The model at every level: L2<->SM and on-chip bytes summed from the schedule, DRAM bytes from the
// L2 reuse model (apply_l2_reuse and the workload's own l2_reuse hook) for an L2 of `l2_bytes`.
// Without a device: kDefaultL2Bytes, the H100's 50 MiB.
inline constexpr uint64_t kDefaultL2Bytes = 50ull << 20;
Model model(const std::string& variant, const Params& p, uint64_t l2_bytes = kDefaultL2Bytes);
// The same from a schedule already built (the memory animation plays the schedule it models).
Model model(const Schedule& s, const std::string& variant, const Params& p, uint64_t l2_bytes = kDefaultL2Bytes);
// The same for a workload already found (a job's: the simulated backend resolves it once).
Model model(const WorkloadDef& w, const std::string& variant, const Params& p, uint64_t l2_bytes = kDefaultL2Bytes);
Model model(const WorkloadDef& w, const Schedule& s, const std::string& variant, const Params& p,
            uint64_t l2_bytes = kDefaultL2Bytes);
// The same with the job's parameters decoded once by w (the simulated backend's pricing).
Model model(const WorkloadDef& w, const std::string& variant, const DecodedParams& decoded, uint64_t l2_bytes);
Model model(const WorkloadDef& w, const Schedule& s, const std::string& variant, const DecodedParams& decoded,
            uint64_t l2_bytes);
// The fewest bytes any implementation must move (each input read once, the output written once).
uint64_t min_bytes(const Params& p);

// "" when `variant` can run p on this device and memory budget; else why not, with the numbers.
// Parameter errors are validate()'s, not this.
std::string device_refusal(const std::string& variant, const Params& p, const DeviceBudget& device);
std::string device_refusal(const WorkloadDef& w, const std::string& variant, const Params& p, const DeviceBudget& device);
std::string device_refusal(const WorkloadDef& w, const std::string& variant, const DecodedParams& decoded,
                           const DeviceBudget& device);

// One line: the workload, the variant (when given), the sizes that matter and the dtype, as every
// view and export names a parameter set: "attention flash: 16 heads, N=4096, d=64, tile 64x64, fp16".
// The sizes alone: workload_def(p).describe(p, variant).
std::string describe(const Params& p, const std::string& variant = "");

}  // namespace kernels
