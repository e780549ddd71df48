// Attention timing table on the GPU: every variant at the sizes of kernels/PERF.md, fp16/bf16,
// TFLOP/s against the nominal 4 N² d FLOPs per head (2 N (N + 1) d causal), as the anchors count.
// Not a test: run it by hand on a GPU machine. Every time comes from the GPU backend's checked run
// (the same path the app and the GPU tests take: the output is checked before a time is kept).
//   fusionlab_attention_timing [--dtype fp16|bf16|fp32] [--causal] [--tokens T] [--reps R]
//                              [--N 1024,4096,8192] [--d 64,128] [--variants naive,flash,flash_tc] [--Br B] [--Bc B]
// batch_heads = tokens / N (default 262144 tokens: 64 heads at N = 4096).
#include "kernels/attention/attention.h"
#include "kernels/core/backend.h"

#include <cstdio>
#include <cstdlib>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

using namespace kernels::attention;

namespace {

std::vector<std::string> split(const std::string& s) {
    std::vector<std::string> out;
    std::stringstream in(s);
    for (std::string item; std::getline(in, item, ',');)
        if (!item.empty()) out.push_back(item);
    return out;
}

std::vector<int64_t> split_ints(const std::string& s) {
    std::vector<int64_t> out;
    for (const std::string& x : split(s)) out.push_back(std::stoll(x));
    return out;
}

int usage(const char* why) {
    std::fprintf(stderr, "fusionlab_attention_timing: %s\n", why);
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    kernels::DType dtype = kernels::DType::f16;
    bool causal = false;
    int64_t tokens = 262144;
    int reps = 20, Br = 64, Bc = 64;
    std::vector<int64_t> Ns = {1024, 4096, 8192}, ds = {64, 128};
    std::vector<std::string> names = {"naive", "flash", "flash_tc"};
    try {
        for (int i = 1; i < argc; ++i) {
            const std::string a = argv[i];
            auto value = [&]() -> std::string {
                if (i + 1 >= argc) throw std::invalid_argument(a + " needs a value");
                return argv[++i];
            };
            if (a == "--dtype") {
                if (!kernels::parse_dtype(value(), dtype)) return usage("--dtype must be fp16, bf16 or fp32");
            } else if (a == "--causal") causal = true;
            else if (a == "--tokens") tokens = std::stoll(value());
            else if (a == "--reps") reps = std::stoi(value());
            else if (a == "--N") Ns = split_ints(value());
            else if (a == "--d") ds = split_ints(value());
            else if (a == "--variants") names = split(value());
            else if (a == "--Br") Br = std::stoi(value());
            else if (a == "--Bc") Bc = std::stoi(value());
            else return usage(("unknown option " + a).c_str());
        }
    } catch (const std::exception& e) {
        return usage(e.what());
    }
    std::string why_not;
    const std::unique_ptr<kernels::Backend> backend = kernels::make_gpu_backend(&why_not);
    if (!backend) return usage(why_not.c_str());
    const kernels::DeviceInfo& dev = backend->device();
    std::printf("device: %s (cc %d.%d, %d SMs); %s%s; batch_heads = %lld / N\n", dev.name.c_str(), dev.cc_major,
                dev.cc_minor, dev.sm_count, kernels::to_string(dtype), causal ? ", causal" : "",
                static_cast<long long>(tokens));
    std::printf("%-9s %6s %4s %5s %9s %10s %10s %10s %9s %11s\n", "variant", "N", "d", "bh", "tile", "median_ms",
                "min_ms", "max_ms", "TFLOP/s", "model_GB");
    int failures = 0;
    for (int64_t d : ds)
        for (int64_t N : Ns)
            for (const std::string& v : names) {
                AttentionParams p;
                p.batch_heads = std::max<int64_t>(1, tokens / N);
                p.N = N;
                p.d = d;
                p.dtype = dtype;
                p.causal = causal;
                p.Br = Br;
                p.Bc = Bc;
                p.seed = 2026;
                const std::string tile =
                    v == "naive" ? "-" : std::to_string(flash_tile(v, p).Br) + "x" + std::to_string(flash_tile(v, p).Bc);
                kernels::Job job;
                job.backend = kernels::BackendKind::gpu;
                job.variant = v;
                job.params = to_params(p);
                job.reps = reps;
                job.measure_counters = false;
                const kernels::Measurement t = backend->run(job, {});
                if (!t.ok) {
                    std::printf("%-9s %6lld %4lld %5lld %9s unavailable: %s\n", v.c_str(), static_cast<long long>(N),
                                static_cast<long long>(d), static_cast<long long>(p.batch_heads), tile.c_str(),
                                t.error.c_str());
                    ++failures;
                    continue;
                }
                const double tflops = nominal_flops(p) / (t.time.median_ms * 1e-3) / 1e12;
                std::printf("%-9s %6lld %4lld %5lld %9s %10.4f %10.4f %10.4f %9.1f %11.3f\n", v.c_str(),
                            static_cast<long long>(N), static_cast<long long>(d), static_cast<long long>(p.batch_heads),
                            tile.c_str(), t.time.median_ms, t.time.min_ms, t.time.max_ms, tflops,
                            static_cast<double>(model(v, p).bytes()) / 1e9);
                std::fflush(stdout);
            }
    return failures == 0 ? 0 : 1;
}
