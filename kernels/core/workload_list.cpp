// The registry: every workload, one line each, in the order the GUI and `--workload all` list them.
// A new workload adds its line here and nothing else outside its folder (docs/ARCHITECTURE.md).
#include "kernels/core/registry.h"

namespace kernels {

// Each defined in its workload's folder (kernels/<folder>/<name>_def.cpp).
const WorkloadDef& chain_workload();
const WorkloadDef& bias_gelu_workload();
const WorkloadDef& attention_workload();
const WorkloadDef& skip_workload();
const WorkloadDef& launch_workload();
const WorkloadDef& ffn_workload();
const WorkloadDef& decode_workload();

const std::vector<const WorkloadDef*>& workloads() {
    static const std::vector<const WorkloadDef*> list{
        &chain_workload(),
        &bias_gelu_workload(),
        &attention_workload(),
        &skip_workload(),
        &launch_workload(),
        &ffn_workload(),
        &decode_workload(),
    };
    return list;
}

}  // namespace kernels
