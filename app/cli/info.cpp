// `fusionlab info`: the build, the GPU module, the GPU the runner found (or exactly why none), the
// hardware counters, where lessons and recordings come from, and the simulated GPUs with their
// calibration.
#include "app/cli/commands.h"
#include "app/recordings/sim_heldout.h"

#include "app/cli/text.h"
#include "app/files/export.h"
#include "app/lessons/lesson_files.h"
#include "app/platform/module_loader.h"
#include "app/core/runner.h"
#include "app/recordings/recording_file.h"
#include "kernels/core/backend.h"
#include "kernels/sim/sim_backend.h"
#include "kernels/profiling/dram_counters.h"
#include "kernels/core/format.h"
#include "kernels/core/registry.h"

#include <algorithm>
#include <ostream>

namespace app::cli {

namespace {

void print_line(std::ostream& out, const std::string& label, const std::string& value) {
    out << "  " << pad_right(label, 20) << value << "\n";
}

std::string bandwidth_text(double gbps) { return gbps > 0 ? kernels::format_gbps(gbps) : std::string("unknown"); }

std::string tflops_or_unavailable(const std::optional<double>& v) {
    return v ? printf_string("%.1f TFLOP/s", *v) : std::string("unavailable");
}

// Measured roofs beside the datasheet ones; a simulated GPU has only the datasheet (roofline).
void print_compute_ceilings(std::ostream& out, const kernels::DeviceInfo& d) {
    if (d.simulated) {
        // The roofs the roofline draws for a simulated GPU: its calibration (viz/model/roofline.h).
        const kernels::SimCalibration c = kernels::calibration_for(d);
        print_line(out, "GEMM fp16", printf_string("%.1f TFLOP/s calibrated   (datasheet %.0f TFLOP/s)", c.gemm_tflops, d.peak_tensor_tflops));
        print_line(out, "GEMM bf16", printf_string("%.1f TFLOP/s calibrated", c.gemm_bf16_tflops));
        print_line(out, "FP32 FMA", printf_string("%.1f TFLOP/s calibrated   (datasheet %.1f TFLOP/s)", c.fp32_tflops, d.peak_fp32_tflops));
        print_line(out, "calibration", c.source);
        return;
    }
    print_line(out, "measured fp16 GEMM", tflops_or_unavailable(d.measured_fp16_gemm_tflops) +
                                              printf_string("   (theoretical peak %.0f TFLOP/s)", d.peak_tensor_tflops));
    print_line(out, "measured bf16 GEMM", tflops_or_unavailable(d.measured_bf16_gemm_tflops) +
                                              printf_string("   (theoretical peak %.0f TFLOP/s)", d.peak_tensor_tflops));
    print_line(out, "measured FP32 FMA", tflops_or_unavailable(d.measured_fp32_fma_tflops) +
                                             printf_string("   (theoretical peak %.1f TFLOP/s)", d.peak_fp32_tflops));
    print_line(out, "how", d.compute_ceiling_note);
}

void print_device(std::ostream& out, const kernels::DeviceInfo& d) {
    print_line(out, "device", d.name + (d.simulated ? "   [SIMULATED: datasheet and calibrated numbers, no GPU]" : ""));
    print_line(out, "compute capability", printf_string("%d.%d, %d SMs", d.cc_major, d.cc_minor, d.sm_count));
    print_line(out, "driver / runtime", d.driver + " / " + d.runtime);
    print_line(out, "clocks", "SM " + clock_text(d.sm_clock_mhz) + ", memory " + clock_text(d.mem_clock_mhz) +
                                  (d.mem_bus_bits > 0 ? printf_string(", %d-bit bus", d.mem_bus_bits) : ""));
    print_line(out, "memory", kernels::format_bytes(double(d.global_mem_bytes)) + ", L2 " +
                                  kernels::format_bytes(double(d.l2_bytes)));
    print_line(out, "shared memory", kernels::format_bytes(double(d.smem_per_block)) + " per block, " +
                                         kernels::format_bytes(double(d.smem_per_block_optin)) + " opt-in");
    print_line(out, "peak bandwidth", bandwidth_text(d.peak_bw_gbps) +
                                          (d.simulated ? " (datasheet)" : " (theoretical: clocks x bus width)"));
    if (d.measured_copy_gbps)
        print_line(out, "measured copy", kernels::format_gbps(*d.measured_copy_gbps) +
                                             (d.ceiling_note.empty() ? "" : " (" + d.ceiling_note + ")"));
    else
        print_line(out, "measured copy",
                   "unavailable" + (d.ceiling_note.empty() ? std::string() : ": " + d.ceiling_note));
    print_line(out, "peak compute", printf_string("FP32 %.1f TFLOP/s, tensor fp16/bf16 %.0f TFLOP/s",
                                                  d.peak_fp32_tflops, d.peak_tensor_tflops) +
                                        (d.simulated ? " (datasheet)" : " (theoretical: clocks x SMs)"));
    print_compute_ceilings(out, d);
    if (d.simulated) print_line(out, "launch overhead", printf_string("%.1f us per kernel (model)", d.launch_overhead_us));
    if (d.simulated)
        print_line(out, "graph replay", printf_string("%.1f us per kernel node (model)", d.graph_kernel_us));
    const BandwidthCeiling ceiling = bandwidth_ceiling(d);
    print_line(out, "ceiling used", ceiling.gbps > 0 ? kernels::format_gbps(ceiling.gbps) + " (" + ceiling.source + ")"
                                                     : std::string("unavailable"));
}

void print_sim_table(std::ostream& out) {
    size_t key_width = 5, name_width = 6;
    for (const auto& gpu : kernels::sim_gpus()) {
        key_width = std::max(key_width, display_width(gpu.key) + 2);
        name_width = std::max(name_width, display_width(gpu.info.name) + 2);
    }
    out << "\nsimulated GPUs (--sim KEY), datasheet numbers:\n";
    out << "  " << pad_right("KEY", key_width) << pad_right("name", name_width) << pad_left("HBM", 10)
        << pad_left("FP32", 14) << pad_left("tensor", 14) << pad_left("memory", 11) << pad_left("L2", 11)
        << pad_left("SMs", 6) << pad_left("launch", 9) << pad_left("graph", 9) << "\n";
    for (const auto& gpu : kernels::sim_gpus()) {
        const auto& d = gpu.info;
        out << "  " << pad_right(gpu.key, key_width) << pad_right(d.name, name_width)
            << pad_left(bandwidth_text(d.peak_bw_gbps), 10)
            << pad_left(printf_string("%.1f TFLOP/s", d.peak_fp32_tflops), 14)
            << pad_left(printf_string("%.0f TFLOP/s", d.peak_tensor_tflops), 14)
            << pad_left(kernels::format_bytes(double(d.global_mem_bytes)), 11)
            << pad_left(kernels::format_bytes(double(d.l2_bytes)), 11) << pad_left(std::to_string(d.sm_count), 6)
            << pad_left(printf_string("%.1f us", d.launch_overhead_us), 9)
            << pad_left(printf_string("%.1f us", d.graph_kernel_us), 9) << "\n";
    }
    // What the simulator and the roofline use instead of the datasheet's bandwidth and GEMM rates.
    out << "\ncalibration (the simulator's and the roofline's copy and GEMM rates):\n";
    for (const auto& gpu : kernels::sim_gpus())
        out << "  " << pad_right(gpu.key, key_width)
            << pad_right(printf_string("copy %.0f GB/s, GEMM fp16 %.0f / bf16 %.0f TFLOP/s", gpu.cal.dram_gbps,
                                       gpu.cal.gemm_tflops, gpu.cal.gemm_bf16_tflops),
                         52)
            << gpu.cal.source << "\n";
}

// The recordings found at start-up (--backend NAME picks one), and any file that could not be read.
void print_recordings(std::ostream& out) {
    std::string why;
    const std::string dir = recordings_dir(&why);
    const auto catalog = recordings();
    print_line(out, "recordings", dir.empty() ? "none: " + why
                                              : dir + " (" + std::to_string(catalog->recordings.size()) + " readable)");
    for (const auto& r : catalog->recordings)
        out << "    " << pad_right(r->key, 18) << r->label() << ": " << r->measurements.size() << " measurements on "
            << r->device.name << ", driver " << r->device.driver << " (--backend " << r->key << ")\n";
    for (const std::string& e : catalog->errors) out << "    not loaded: " << e << "\n";
}

}  // namespace

// The simulator against the recordings' points it was not fitted on (app/recordings/sim_heldout.h):
// per card, all and each workload, the mean, median and worst absolute error of the simulated time.
static void print_heldout_error(std::ostream& out) {
    std::string why;
    const std::string dir = recordings_dir(&why);
    out << "\nsimulator against held-out recorded points (a third of each recording's points, chosen by a hash "
           "of the point's key before the fit; |simulated / measured - 1|):\n";
    if (dir.empty()) {
        out << "  unavailable: no recordings (" << why << ")\n";
        return;
    }
    std::vector<std::string> errors;
    const std::vector<SimPoint> points = load_sim_points(dir, "", errors);
    for (const std::string& e : errors) out << "  not loaded: " << e << "\n";
    const std::vector<std::string> lines = heldout_report_lines(points);
    if (lines.empty()) out << "  unavailable: no recorded point of a simulated card\n";
    for (const std::string& line : lines) out << "  " << line << "\n";
}

int run_info(const InfoOptions& o, std::ostream& out) {
    out << "fusionlab " << kernels::build_type() << " build, CUDA kernels "
        << (kernels::built_with_cuda() ? "built in" : "not built (simulated backend only)") << "\n\n";
    if (o.sim_heldout) {
        // The held-out study alone, reproducible on new recordings (app/recordings/sim_heldout.h).
        std::string why;
        const std::string dir = o.repository.empty() ? recordings_dir(&why) : o.repository + "/assets/recordings";
        out << "SIMULATOR ON HELD-OUT POINTS (issue 34; a third of each recording's and bench table's points, chosen by a "
               "hash of the point's key before any fit):\n";
        if (dir.empty()) out << "  no recordings: " << why << "\n";
        std::string csv_error;
        for (const std::string& line : heldout_study(dir, o.repository, o.points_csv, &csv_error)) out << line << "\n";
        if (!csv_error.empty()) {
            out << "--points-csv: " << csv_error << "\n";
            return kExitFailure;
        }
        return kExitOk;
    }
    if (!o.sim_gpu.empty()) {
        out << "SIMULATED GPU '" << o.sim_gpu << "':\n";
        print_device(out, kernels::find_sim_gpu(o.sim_gpu)->info);
        return kExitOk;
    }
    // Builds with CUDA have their GPU side in a module opened at start: loaded, or exactly why not.
    if (const gpu_module::Status& module = gpu_module::status(); module.built)
        print_line(out, "GPU module", module.loaded ? "loaded: " + module.path +
                                                          (module.libraries.empty() ? "" : " (" + module.libraries + ")")
                                                    : "not loaded: " + module.why_not);
    // The runner's worker probes and owns the GPU backend, as in the GUI and bench.
    Runner runner;
    runner.wait_until_probed();
    if (runner.gpu_available()) {
        out << "GPU:\n";
        print_device(out, runner.gpu_device());
    } else {
        out << "GPU: none usable: " << runner.gpu_status() << "\n"
            << "  the app runs on a simulated GPU (default H100; pick one with --sim KEY)\n";
    }
    // Tried for real (initialisation and one small measured kernel): permission problems show here.
    print_line(out, "hardware counters",
               kernels::counters_status_line(!kernels::built_with_cuda() || runner.gpu_available()
                                                 ? kernels::probe_hardware_counters(0)
                                                 : "unavailable: no usable GPU"));
    // Where the lessons come from: a lab's install is checked with `fusionlab info`.
    std::string why;
    const std::string lessons = lessons_dir(&why);
    print_line(out, "lessons", lessons.empty() ? "none: " + why
                                               : lessons + " (" + std::to_string(lesson_files(lessons).size()) + " files)");
    print_recordings(out);
    print_sim_table(out);
    print_heldout_error(out);
    return kExitOk;
}


}  // namespace app::cli
