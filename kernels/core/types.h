// Plain data shared by every layer: dtypes, parameters of a run, device facts and measurements.
// No CUDA, no GUI: the app, the CLI, the tests and the simulated backend all include this.
#pragma once

#include "kernels/core/limiter.h"

#include <cstdint>
#include <array>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

namespace kernels {

// ---------------------------------------------------------------------------------------------
// Element types
// ---------------------------------------------------------------------------------------------
enum class DType { f32, f16, bf16 };

inline constexpr DType kAllDTypes[] = {DType::f32, DType::f16, DType::bf16};

int dtype_bytes(DType t);
const char* to_string(DType t);
// Accepts "fp32"/"f32"/"float", "fp16"/"f16"/"half", "bf16"/"bfloat16". Returns false otherwise.
bool parse_dtype(const std::string& s, DType& out);
// Rounds to the nearest value representable in t (ties to even), as __float2half_rn /
// __float2bfloat16_rn do on the GPU. Used to build inputs identical on host and device.
float round_to_dtype(float v, DType t);

// ---------------------------------------------------------------------------------------------
// Parameters of a run
// ---------------------------------------------------------------------------------------------
// One parameter set: which workload (its registry name, kernels/core/registry.h), the element type, and
// the workload's parameters by ParamSpec::name ("rows", "N", "steps", ...). A parameter that was
// never set reads as its spec's default, so Params{} is the chain workload a first-time user sees.
// Values of other workloads' parameters may stay in `values` (the GUI keeps N while the user looks
// at the chain): they are ignored, and equality compares only what the workload takes.
struct ParamSpec;  // kernels/core/workload_def.h

struct Params {
    std::string workload = "chain";
    DType dtype = DType::bf16;
    std::map<std::string, double> values;

    // The value of `name` (set, else the spec's default). Throws std::logic_error when the workload
    // takes no such parameter (a misspelt name fails loudly, never reads as 0).
    double get(const std::string& name) const;
    int64_t get_int(const std::string& name) const;  // rounded to the nearest whole number
    // The value of a spec of this workload (set, else its default): no lookup of the workload.
    double get(const ParamSpec& spec) const;
    bool get_bool(const std::string& name) const { return get(name) != 0; }
    // The value set for `name` whichever workload takes it, else `fallback` (settings keep every
    // workload's values, so switching workloads keeps what was set for each).
    double get_or(const std::string& name, double fallback) const {
        const auto it = values.find(name);
        return it != values.end() ? it->second : fallback;
    }
    template <typename T>
        requires std::is_arithmetic_v<T>
    Params& set(const std::string& name, T value) {  // any number: every value is kept as a double
        values[name] = static_cast<double>(value);
        return *this;
    }
    // Same workload, dtype and value of every parameter the workload takes.
    bool operator==(const Params& other) const;
};

// ---------------------------------------------------------------------------------------------
// Devices
// ---------------------------------------------------------------------------------------------
struct DeviceInfo {
    std::string name;            // "NVIDIA H100 80GB HBM3" or "H100 SXM (simulated)"
    bool simulated = false;
    std::string driver;          // "13.0" ; "n/a (simulated)"
    std::string runtime;         // CUDA runtime the binary was built against
    int cc_major = 0, cc_minor = 0;
    int sm_count = 0;
    int sm_clock_mhz = 0;        // current/maximum SM clock as reported by the driver
    int mem_clock_mhz = 0;
    int mem_bus_bits = 0;
    int64_t global_mem_bytes = 0;
    int64_t l2_bytes = 0;
    int smem_per_block = 0;          // default limit per block
    int smem_per_block_optin = 0;    // after cudaFuncSetAttribute
    double peak_bw_gbps = 0;         // datasheet / theoretical from clocks and bus width
    double peak_fp32_tflops = 0;     // datasheet (simulated) or computed from clocks
    double peak_tensor_tflops = 0;   // fp16/bf16 dense with fp32 accumulation, datasheet
    double launch_overhead_us = 0;   // simulated: cost per kernel launch
    double graph_kernel_us = 0;      // simulated: cost per kernel node of a replayed CUDA graph
    // Measured ceilings (GPU only): a device-to-device copy, bytes read + written.
    std::optional<double> measured_copy_gbps;
    std::string ceiling_note;        // how the ceiling was measured, or why not
    // Measured compute ceilings (GPU only; kernels/profiling/ceilings.h): cuBLAS fp16 and bf16 GEMMs
    // with fp32 accumulation, and an FP32 FMA-chain kernel. Measured once per device, driver and
    // clocks, then read from a cache file; empty with the reason in compute_ceiling_note.
    std::optional<double> measured_fp16_gemm_tflops;
    std::optional<double> measured_bf16_gemm_tflops;
    std::optional<double> measured_fp32_fma_tflops;
    std::string compute_ceiling_note = "not measured";
};

// The device's name without the " (simulated)" suffix, for labels that already say so.
std::string plain_device_name(const DeviceInfo& d);

// ---------------------------------------------------------------------------------------------
// Measurements
// ---------------------------------------------------------------------------------------------
struct TimeStats {
    double median_ms = 0, min_ms = 0, max_ms = 0;
    int reps = 0;
};

// Summarise samples (ms). Empty input gives reps == 0.
TimeStats summarize(std::vector<double> samples_ms);

struct KernelTime {
    std::string name;        // same name as the model's kernel
    TimeStats time;
    uint64_t bytes = 0;      // modeled bytes read + written by this kernel
};

// One kernel of one run on the GPU's clock, for the timeline panel: where it started and ended,
// relative to the first kernel's start, so the gaps between kernels (launch overhead, idle GPU)
// are visible.
struct KernelSpan {
    std::string name;        // same name as the model's kernel
    double start_ms = 0, end_ms = 0;
    uint64_t bytes = 0;      // modeled bytes read + written by this kernel
};

// gpu: real kernels here. simulated: the model on a calibrated GPU. recorded: measurements taken
// earlier on a real GPU and shipped as a recording (app/recordings/recording_file.h), the simulated GPU of the
// same kind wherever the recording lacks the parameters.
enum class BackendKind { gpu, simulated, recorded };
const char* to_string(BackendKind b);  // "gpu", "simulated", "recorded"
// The inverse; false for anything else.
bool parse_backend_kind(const std::string& s, BackendKind& out);

// Timed repetitions a job may ask for (a GPU backend times at least 20 whatever is asked).
inline constexpr int kMinReps = 1;
inline constexpr int kMaxReps = 1000;
// Timed repetitions of a quick job (Job::quick): the GUI's first pass after a parameter change.
inline constexpr int kQuickReps = 5;

// The variant `yours`: a kernel a student wrote for an exercise (exercises/, app/exercises/), compiled
// at run time with NVRTC (kernels/gpu/nvrtc_compile.h) and run by the GPU harness in the place of
// one kernel of a built-in variant, on that variant's buffers, against its float64 reference.
inline constexpr const char* kStudentVariant = "yours";
struct StudentKernel {
    std::string exercise;      // "chain_fused"
    std::string source;        // the student's file as typed
    std::string source_name;   // its name in compile errors ("yours.cu")
    std::vector<std::pair<std::string, std::string>> headers;  // name, text: what it may #include
    std::string entry;         // its extern "C" __global__ function
    std::string base_variant;  // the built-in variant whose buffers, model and check it shares
    std::string replaces;      // the kernel of base_variant it takes the place of
    std::vector<std::string> argument_names, argument_types;  // the signature, in order
    std::array<int64_t, 3> grid{1, 1, 1};
    std::array<int, 3> block{1, 1, 1};
    int shared_bytes = 0;
    double watchdog_seconds = 10;  // the checked run's limit (the caller stops a run that exceeds it)
};

// What the UI or CLI asks for.
struct Job {
    uint64_t id = 0;             // set by the runner; results carry it back
    Params params;
    std::string variant;         // "unfused" / "fused"
    BackendKind backend = BackendKind::simulated;
    std::string sim_gpu = "H100";  // simulated GPU key when backend == simulated
    std::string recording;         // recording key ("h100-2026-11-27") when backend == recorded
    int reps = 50;               // timed repetitions (GPU: at least 20 are used)
    int warmup = 5;
    // GPU: after the timed reps, one more run with the hardware counters (CUPTI range profiler)
    // for the measured DRAM bytes. A separate run: profiling serialises kernels and replays.
    bool measure_counters = true;
    // The GUI's first pass while parameters move (app/core/panels_state.cpp): the GPU backend times
    // `reps` as asked (down to kMinReps) instead of its floor of 20, and the job carries no
    // counters; a full pass with the user's reps and the counters follows when the hand stops.
    bool quick = false;
    // A recording (`fusionlab record`) cut to fit a device budget: the GPU backend times `reps` as
    // asked (at least kMinReps) instead of its floor of 20, with the warm-up, the CPU check, the
    // timeline and the counters of a full job.
    bool reps_as_asked = false;
    // Simulated backend: run the variant's arithmetic on the CPU for the error against the float64
    // reference (kernels/sim/emulate.h; up to kEmulationSeconds a job). Off where no error is shown
    // (the sweep). A GPU job always checks its output before its time is shown.
    bool emulate = true;
    // Set when variant == kStudentVariant: the student's kernel and how the harness runs it.
    std::shared_ptr<const StudentKernel> student;
};

struct Measurement {
    Job job;
    bool ok = false;
    std::string error;           // why it failed (OOM, too large, cancelled, ...), when !ok
    // The GPU context of this process cannot be used again: a kernel faulted, or the watchdog gave up
    // on one that is still running (the variant `yours`). Only ending the process frees the GPU; a
    // caller that runs student kernels does so in a process of its own (app/exercises/).
    bool context_lost = false;
    // The device cannot run this variant with these parameters (Backend::unavailable_reason():
    // tile too large for shared memory, S and P larger than GPU memory, ...); error says why.
    bool refused = false;
    DeviceInfo device;
    TimeStats time;              // whole variant, all its kernels
    std::vector<KernelTime> kernels;
    // Modeled (from the schedule). bytes_read / bytes_written are DRAM <-> L2 bytes ("HBM bytes",
    // what the counters measure) from the L2 reuse model; l2_bytes_* are the L2 <-> SM bytes the
    // kernels' loads and stores ask for; shared_bytes the on-chip shared-memory traffic.
    double flops = 0;
    uint64_t bytes_read = 0, bytes_written = 0;
    uint64_t l2_bytes_read = 0, l2_bytes_written = 0;
    uint64_t shared_bytes = 0;
    std::string dram_model_note;  // the L2 reuse rules that gave bytes_read / bytes_written
    // The variant whose model the modeled numbers above are: job.variant, except for `yours` (a
    // student's kernel), which is modeled as the built-in variant it takes a kernel of.
    std::string model_variant;
    const std::string& modeled_variant() const { return model_variant.empty() ? job.variant : model_variant; }
    // Simulated results: the resource that sets the time, with its numbers ("bound by shared-memory
    // bandwidth: ..."), for the whole run (the kernel that takes longest names it). "" when measured.
    std::string limiter;
    // Every result: what the calibrated model says sets the time on this device, "bound by X: ..."
    // (simulated: the same as `limiter`; GPU and recorded: the model's claim beside the measurement).
    std::string model_limiter;
    // The resource model_limiter names, as a value (record_model sets both; a file read back
    // decodes it from the text with limiter_of_text).
    Limiter model_limiter_resource = Limiter::unknown;
    uint64_t min_bytes = 0;      // the fewest bytes any implementation must move
    // Register spills (modeled, not in bytes_read/written): traffic to the threads' local memory,
    // and how much of it leaves the SM by spill_estimate() for this device ("" when none spills).
    uint64_t local_bytes = 0;
    uint64_t local_beyond_l1_bytes = 0;
    std::string spill_note;
    // Measured DRAM bytes (hardware counters: dram__bytes_read.sum + dram__bytes_write.sum over one
    // run after an L2 flush); empty with the reason in the note when they could not be read.
    std::optional<uint64_t> measured_bytes;  // read + written
    std::optional<uint64_t> measured_bytes_read, measured_bytes_written;
    std::string measured_bytes_note = "unavailable: hardware counters not collected";
    // Correctness vs the float64 CPU reference.
    bool checked = false;
    double max_abs_error = 0;
    double rel_l2_error = 0;
    int64_t checked_elements = 0;
    std::string check_note;      // "all rows" / "256 of 8192 rows sampled" / why not checked
    std::string timing_note;     // L2 handling, reps, warm-up
    // Every kernel of one run, in launch order (empty when not recorded), and how the times were
    // taken ("CUPTI activity records", "CUDA events around each kernel", "simulated: ...").
    std::vector<KernelSpan> timeline;
    std::string timeline_source;
    std::string build_type;      // Release / Debug
    // Wall time from the runner receiving the job's batch to this result (queueing behind the
    // batch's earlier jobs, buffer allocation, the CPU check, timing, counters): what a GUI user
    // waits. 0 when not run through the runner.
    double wall_ms = 0;
    // Read from a recording of a real GPU (app/recordings/recording_file.h) rather than measured now: the day it
    // was measured ("2026-11-25"); `device` is the GPU it was measured on. Empty for a result made
    // here (measured or simulated). Every view and export that shows the numbers says so.
    std::string recorded_date;
    // Parameters left at "auto" (kernels/sim/auto_choice.h): what the run resolved them to and why,
    // with the numbers ("auto br x bc 128 x 64: 0.812 ms (recorded); then ..."). job.params keeps
    // "auto" (what was asked); auto_params is what ran. Empty when nothing was auto.
    std::optional<Params> auto_params;
    std::string auto_choice;
    // The parameters the kernels ran with: auto_params where set, else job.params.
    const Params& ran_params() const { return auto_params ? *auto_params : job.params; }

    bool recorded() const { return !recorded_date.empty(); }
    // Where the numbers come from, in a few words for labels: "recorded on NVIDIA H100 80GB HBM3,
    // 2026-11-25", "simulated on H100 SXM5 80GB", "measured on NVIDIA H100 80GB HBM3".
    std::string source_label() const;
    // The short tag a chart or a table cell carries: "recorded 2026-11-25", "simulated", "" (measured here).
    std::string source_tag() const;
    uint64_t bytes() const { return bytes_read + bytes_written; }
    // Achieved rates from the median time; 0 when time is 0.
    double achieved_gbps() const;
    double achieved_gflops() const;
};

}  // namespace kernels
