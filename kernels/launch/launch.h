// Launch-overhead workload: K small dependent steps y = y*a + b on one vector of n elements.
//
// Each step needs the previous step's y, so the steps cannot run side by side: an unfused program
// pays one kernel launch per step, and when each step is tiny (the vector sits in L2) the launch,
// not the memory, is what the GPU waits for.
//
// Variants:
//   stream  K kernels launched one by one on a stream: step 1 reads x and writes y, steps 2..K read
//           y and write y. Each launch costs the host a driver call and the GPU a gap between kernels.
//   graph   the same K kernels captured once into a CUDA graph and replayed with one call: the driver
//           work is done at instantiation, the GPU still starts K kernels (smaller gaps).
//   fused   one kernel: each thread loads its x once, runs the K steps in registers and stores y once.
//
// Precision: every kernel computes in fp32 (fmaf). stream and graph store y in the dtype after every
// step (fp16/bf16 round K times); fused rounds once at the end. The float64 reference follows the
// same rule per variant (launch_reference.cpp), so each variant is checked against what it promises.
// With a = 0.999 and b = 0.0005, y_K = c + (x - c) a^K with c = 0.5: |y| stays below 1 for any K and
// still depends on x at K = 1000 (a^1000 = 0.37). In bf16 one step changes y by less than half an
// ulp when |y - c| is small, so stream/graph in bf16 stall where fused does not: a real effect of
// rounding between kernels, shown by the error against the fused reference in the GPU tests.
#pragma once

#include "kernels/core/types.h"
#include "kernels/core/variant_names.h"
#include "kernels/core/schedule.h"
#include "kernels/core/workload_def.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace kernels::launch {

// Tensor id for input_value(); part of the data definition, keep stable.
inline constexpr uint32_t kX = 31;

inline constexpr float kA = 0.999f;   // y = y * kA + kB each step
inline constexpr float kB = 0.0005f;
inline constexpr int64_t kMaxSteps = 1000;
inline constexpr int64_t kMaxElements = int64_t{1} << 28;  // 1 GiB in fp32: far larger than any L2
inline constexpr int kThreads = 256;                        // threads per block, one element per thread

// The workload's parameters (its WorkloadDef: launch_def.cpp; the names "steps" and "elements" are
// used by lessons: keep them). The one mapping from the app's Params is to_launch().
struct LaunchParams {
    DType dtype = DType::bf16;
    int64_t steps = 100;       // K
    int64_t elements = 65536;  // vector length
    uint64_t seed = 1234;
    bool operator==(const LaunchParams&) const = default;
};
LaunchParams to_launch(const Params& p);

// The variants as values inside the workload, in the order of variants() (launch_model.cpp) and
// kVariantNames; names are read where they come in. Values past fused are kept for variants added
// at run time, which nothing here knows.
enum class Variant : int { stream, graph, fused };
inline constexpr const char* kVariantNames[] = {"stream", "graph", "fused"};
inline const char* name_of(Variant v) { return name_in(kVariantNames, v); }
inline std::optional<Variant> find_variant(const std::string& name) { return find_named<Variant>(kVariantNames, name); }
inline Variant variant_of(const std::string& name) { return named_or_throw<Variant>(kVariantNames, name, "launch"); }

const std::vector<VariantInfo>& variants();
// Kernels per run of a variant: K for stream and graph, 1 for fused.
int64_t kernel_count(Variant variant, const LaunchParams& p);
int64_t kernel_count(const std::string& variant, const LaunchParams& p);
uint64_t blocks(const LaunchParams& p);  // ceil(elements / kThreads)

// Step k's kernel is called "step"; fused's "fused_steps".
Schedule schedule(const std::string& variant, const LaunchParams& p);
uint64_t min_bytes(const LaunchParams& p);  // x read once, y written once

// Input element i (dtype-rounded), exactly what the GPU fills.
float x_value(const LaunchParams& p, int64_t i);
// Output element i of `variant` (float64 math, rounded to fp32 after each fma as the GPU's fmaf
// is, and to the dtype where the variant stores y).
double reference_value(const std::string& variant, const LaunchParams& p, int64_t i);
double reference_value(Variant variant, const LaunchParams& p, int64_t i);
// Elements the GPU check compares: all when elements * steps is small, else evenly spaced ones
// including the first and the last.
std::vector<int64_t> elements_to_check(const LaunchParams& p, int64_t max_work = 50'000'000);
// How many: elements_to_check(p, max_work).size() without building the list.
int64_t elements_checked(const LaunchParams& p, int64_t max_work = 50'000'000);

// Element i of `variant` as its kernels compute it (fp32 FMAs, rounded where they store y), and
// WorkloadDef::emulate: y on elements_to_check(p) against the reference (launch_emulate.cpp).
float emulate_value(const std::string& variant, const LaunchParams& p, int64_t i);
EmulatedCheck emulate(const std::string& variant, const LaunchParams& p, const EmulationBudget& budget);

}  // namespace kernels::launch
