// The GPU module's entry point (kernels/gpu/gpu_module.h): the table of everything the program
// calls in GPU code. Built only into libfusionlab_gpu.so, never into the program.
#include "kernels/gpu/gpu_module.h"

#include "kernels/profiling/cupti_lazy.h"
#include "kernels/profiling/dram_counters.h"

#include <cuda_runtime_api.h>

namespace kernels {
namespace {

// "CUDA 13.0" from 13000.
std::string cuda_version_text(int v) {
    return "CUDA " + std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10);
}

std::string describe_libraries() {
    std::string s = cuda_version_text(CUDART_VERSION) + " runtime linked in, cuBLAS " + std::to_string(CUDART_VERSION / 1000);
    int driver = 0;
    if (cudaDriverGetVersion(&driver) == cudaSuccess && driver > 0)
        s += "; the NVIDIA driver supports " + cuda_version_text(driver);
    else
        s += "; no NVIDIA driver found";
    return s;
}

const GpuModuleApi& module_api() {
    static const GpuModuleApi api = [] {
        static const std::string build_id = gpu_module_build_id();
        GpuModuleApi a;
        a.build_id = build_id.c_str();
        a.cuda_runtime_version = CUDART_VERSION;
        a.cupti_library = cupti_library_name();
        a.make_gpu_backend = &make_gpu_backend;
        a.gpu_memory_use = &gpu_memory_use;
        a.cublas_gemm_configs_issued = &cublas_gemm_configs_issued;
        a.probe_hardware_counters = [](int device) -> std::string {
            // Without libcupti the probe would only repeat a CUPTI call's failure: say why directly.
            if (std::string why = cupti_status(); !why.empty()) return "unavailable: " + why;
            return probe_hardware_counters(device);
        };
        a.cupti_status = &cupti_status;
        a.describe_libraries = &describe_libraries;
        return a;
    }();
    return api;
}

}  // namespace
}  // namespace kernels

extern "C" __attribute__((visibility("default"))) const kernels::GpuModuleApi* fusionlab_gpu_module_v1() {
    return &kernels::module_api();
}
