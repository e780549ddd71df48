// The attention kernels' arithmetic on the CPU, one row of O at a time (attention_emulate.cpp;
// the rules of exact and near emulation: kernels/sim/emulate.h). Skip's emulation reuses it.
#pragma once

#include "kernels/attention/attention.h"
#include "kernels/sim/emulate.h"

#include <string>

namespace kernels::attention {

// True when `kernel` ("naive", "flash", "flash_tc") has an emulation.
bool can_emulate(const std::string& kernel);
// Row `row` of head `head` as `kernel` computes it: d values in fp32 before the kernel's store
// rounds them to the dtype (naive: already rounded, its second GEMM stores O in the dtype).
void emulate_row(const std::string& kernel, const AttentionParams& p, int64_t head, int64_t row, float* o);

// Estimated CPU seconds (kernels/sim/emulate.h's rates) of: the K and V inputs of `heads` heads
// and the q rows; the float64 reference of `rows`; `kernel`'s emulation of them.
double inputs_seconds(const AttentionParams& p, const std::vector<RowRef>& rows);
double reference_seconds(const AttentionParams& p, const std::vector<RowRef>& rows);
double emulation_seconds(const std::string& kernel, const AttentionParams& p, const std::vector<RowRef>& rows);

// The words every emulated attention check shares: "first, last, evenly spaced rows of the first,
// middle and last heads" (or nothing when every row is compared).
std::string sampled_rows_how();

// WorkloadDef::emulate of the attention workload: O of `variant` on rows_to_check(p, budget).
EmulatedCheck emulate(const std::string& variant, const AttentionParams& p, const EmulationBudget& budget);

}  // namespace kernels::attention
