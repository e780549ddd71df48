// The GPU module, opened at start (module_loader.h). [SECTION] index:
//   explanations   what a loader error or a driver version means, with what to install (pure)
//   loading        where the module is looked for, dlopen, the build check
//   entry points   backend.h's and gpu_memory_info.h's GPU functions, through the module
//
// Portability: the dlopen/dlsym/dlerror calls are the POSIX part. Windows would LoadLibraryExW
// fusionlab_gpu.dll from the program's folder (LOAD_LIBRARY_SEARCH_DEFAULT_DIRS), GetProcAddress
// the same entry, FormatMessage the error (which does not name the missing DLL: cublas64_13.dll
// would be checked with its own LoadLibrary first), and nvcuda.dll stands for libcuda.so.1. macOS
// has no CUDA: a build there never has a module and runs simulated.
#include "app/platform/module_loader.h"

#include "app/platform/platform.h"
#if defined(FUSIONLAB_GPU_MODULE)  // a build with CUDA: the module's interface and what it replaces
#include "kernels/profiling/dram_counters.h"
#include "kernels/gpu/gpu_module.h"
#endif

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <vector>

#if defined(__unix__) || defined(__APPLE__)
#include <dlfcn.h>
#endif

#ifndef FUSIONLAB_CUDA_VERSION  // set with the module's other facts in CMakeLists.txt
#define FUSIONLAB_CUDA_VERSION "13.0"
#define FUSIONLAB_CUDA_PKG_VERSION "13-0"
#endif
#ifndef FUSIONLAB_GPU_MODULE_NAME
#define FUSIONLAB_GPU_MODULE_NAME "libfusionlab_gpu.so"
#define FUSIONLAB_GPU_MODULE_FROM_BIN "../lib/fusionlab"
#endif

namespace fs = std::filesystem;

namespace app::gpu_module {

// =============================================================================================
// [SECTION] explanations
// =============================================================================================
namespace {

const std::string kCudaVersion = FUSIONLAB_CUDA_VERSION;      // "13.0"
const std::string kCudaPackage = FUSIONLAB_CUDA_PKG_VERSION;  // "13-0", as NVIDIA's packages spell it
const std::string kCudaMajor = kCudaVersion.substr(0, kCudaVersion.find('.'));

// The oldest Linux driver of each CUDA major version (NVIDIA's CUDA release notes, table 3).
std::string minimum_driver(int cuda_major) {
    switch (cuda_major) {
        case 13: return "580";
        case 12: return "525";
        case 11: return "450";
        default: return "";
    }
}

std::string where_to_get_it() {
    return " (NVIDIA's CUDA apt repository, https://developer.nvidia.com/cuda-downloads), or the CUDA " + kCudaVersion +
           " toolkit; a toolkit installed from NVIDIA's .run file needs its lib folder in /etc/ld.so.conf.d/ and "
           "`sudo ldconfig`, or LD_LIBRARY_PATH (README, Install for a classroom)";
}

}  // namespace

std::string explain_load_error(const std::string& loader_error, const std::string& module_path) {
    // glibc: "<file>: cannot open shared object file: No such file or directory" for a library the
    // module needs; "<module>: <lib>: version `X' not found" or "undefined symbol: S" for one too old.
    const std::string missing_marker = ": cannot open shared object file";
    if (const size_t at = loader_error.find(missing_marker); at != std::string::npos) {
        std::string lib = loader_error.substr(0, at);
        if (const size_t colon = lib.rfind(": "); colon != std::string::npos) lib = lib.substr(colon + 2);
        const std::string name = fs::path(lib).filename().string();
        if (lib == module_path || name == FUSIONLAB_GPU_MODULE_NAME)
            return "GPU module unreadable (" + loader_error + "); reinstall the fusionlab-gpu package";
        if (name.rfind("libcublas", 0) == 0)
            return "cuBLAS " + kCudaMajor + " not installed (" + loader_error + "); the GPU module needs " + name +
                   " from CUDA " + kCudaVersion + " or a later " + kCudaMajor + ".x: install NVIDIA's libcublas-" +
                   kCudaPackage + " package" + where_to_get_it();
        return name + " not installed (" + loader_error + "); the GPU module needs it (CUDA " + kCudaVersion +
               "): install the package that provides it" + where_to_get_it();
    }
    if (loader_error.find("version `") != std::string::npos || loader_error.find("undefined symbol") != std::string::npos)
        return "a library of the GPU module is too old (" + loader_error + "); it needs CUDA " + kCudaVersion +
               "'s cuBLAS (libcublas-" + kCudaPackage + ") and the C++ library of the system it was built on: "
               "install those, or build fusionlab on this machine";
    if (loader_error.find("wrong ELF class") != std::string::npos ||
        loader_error.find("invalid ELF header") != std::string::npos)
        return "GPU module for another processor or damaged (" + loader_error + "); reinstall fusionlab-gpu for this machine";
    return "GPU module not loaded (" + loader_error + ")";
}

namespace {

std::string cuda_version_text(int v) { return std::to_string(v / 1000) + "." + std::to_string((v % 1000) / 10); }

std::string install_driver(int runtime_version) {
    const std::string minimum = minimum_driver(runtime_version / 1000);
    return "install the NVIDIA driver" + (minimum.empty() ? std::string() : " " + minimum + " or newer") +
           " (Debian: cuda-drivers from NVIDIA's CUDA apt repository, or the driver from nvidia.com)";
}

}  // namespace

std::string driver_too_old(int driver_version, int runtime_version) {
    if (driver_version / 1000 >= runtime_version / 1000) return "";
    return "NVIDIA driver too old (it supports CUDA " + cuda_version_text(driver_version) +
           "; the GPU module's runtime is CUDA " + cuda_version_text(runtime_version) + "): " +
           install_driver(runtime_version);
}

std::string driver_problem(int runtime_version) {
#if defined(__unix__)
    // The driver's user-space library: the CUDA runtime in the module opens it the same way.
    void* cuda = dlopen("libcuda.so.1", RTLD_NOW | RTLD_LOCAL);
    if (!cuda) {
        const char* e = dlerror();
        return "no NVIDIA driver (" + std::string(e ? e : "libcuda.so.1 not found") + "); the GPU module's CUDA " +
               cuda_version_text(runtime_version) + " runtime needs one: " + install_driver(runtime_version);
    }
    using DriverGetVersion = int (*)(int*);  // CUresult cuDriverGetVersion(int*), CUDA_SUCCESS = 0
    auto get_version = reinterpret_cast<DriverGetVersion>(dlsym(cuda, "cuDriverGetVersion"));
    int version = 0;
    // The handle stays open: the module's runtime opens the same library next. A driver that
    // cannot say its version is left to the runtime, whose error the backend reports.
    if (!get_version || get_version(&version) != 0 || version <= 0) return "";
    return driver_too_old(version, runtime_version);
#else
    (void)runtime_version;
    return "";
#endif
}

// =============================================================================================
// [SECTION] loading
// =============================================================================================
namespace {

#if defined(FUSIONLAB_GPU_MODULE) && (defined(__unix__) || defined(__APPLE__))
Status load() {
    Status s;
    s.built = true;
    // $FUSIONLAB_GPU_MODULE (a file), else beside the program (the build tree), else the installed
    // place relative to the program's bin/ (../lib/fusionlab: any prefix, the .deb).
    std::vector<fs::path> candidates;
    std::error_code ec;
    if (const char* env = std::getenv("FUSIONLAB_GPU_MODULE"); env && *env) {
        if (!fs::is_regular_file(env, ec)) {
            s.path = env;
            s.why_not = "GPU module not found ($FUSIONLAB_GPU_MODULE is '" + std::string(env) +
                        "', which is not a file); unset it to use the installed module";
            return s;
        }
        candidates.push_back(env);
    } else if (const fs::path exe = platform::executable_path(); !exe.empty()) {
        candidates.push_back(exe.parent_path() / FUSIONLAB_GPU_MODULE_NAME);
        candidates.push_back((exe.parent_path() / FUSIONLAB_GPU_MODULE_FROM_BIN / FUSIONLAB_GPU_MODULE_NAME).lexically_normal());
    }
    const fs::path* found = nullptr;
    for (const fs::path& c : candidates)
        if (fs::is_regular_file(c, ec)) {
            found = &c;
            break;
        }
    if (!found) {
        std::string looked;
        for (const fs::path& c : candidates) looked += (looked.empty() ? "" : " and ") + c.string();
        s.path = candidates.empty() ? std::string(FUSIONLAB_GPU_MODULE_NAME) : candidates.back().string();
        s.why_not = "GPU module not installed (" + std::string(FUSIONLAB_GPU_MODULE_NAME) + " not found in " +
                    (looked.empty() ? std::string("the program's folder, which is unknown") : looked) +
                    "); install the fusionlab-gpu package (README, Install for a classroom) to measure an NVIDIA GPU";
        return s;
    }
    s.path = found->string();
    // RTLD_LOCAL: the module's symbols (its own copy of the kernel library's CPU code among them)
    // stay out of the program's way; RTLD_NOW: a missing CUDA symbol shows now, not mid-run.
    void* handle = dlopen(s.path.c_str(), RTLD_NOW | RTLD_LOCAL);
    if (!handle) {
        const char* e = dlerror();
        s.why_not = explain_load_error(e ? e : "unknown error", s.path);
        return s;
    }
    using Entry = const kernels::GpuModuleApi* (*)();
    auto entry = reinterpret_cast<Entry>(dlsym(handle, kernels::kGpuModuleEntry));
    const kernels::GpuModuleApi* api = entry ? entry() : nullptr;
    if (!api) {
        s.why_not = "GPU module without its entry point (" + std::string(kernels::kGpuModuleEntry) + " missing in " +
                    s.path + "); reinstall the fusionlab-gpu package";
        return s;
    }
    if (const std::string ours = kernels::gpu_module_build_id(); !api->build_id || ours != api->build_id) {
        s.why_not = "GPU module from another build (" + s.path + " is '" + (api->build_id ? api->build_id : "?") +
                    "', this program '" + ours + "'); install fusionlab and fusionlab-gpu of the same version";
        return s;
    }
    s.api = api;
    s.loaded = true;
    s.libraries = api->describe_libraries ? api->describe_libraries() : "";
    return s;
}
#else
Status load() {
    Status s;
    s.why_not = "this build has no GPU module (nvcc was not found when it was configured); install the CUDA "
                "toolkit and rebuild to measure a real GPU";
    return s;
}
#endif

}  // namespace

const Status& status() {
    static Status s;
    static std::once_flag once;
    std::call_once(once, [] { s = load(); });
    return s;
}

}  // namespace app::gpu_module

// =============================================================================================
// [SECTION] entry points
// =============================================================================================
// With a module, the program's GPU functions (declared in kernels/core/backend.h, gpu_memory_info.h,
// dram_counters.h) are these forwarders; a simulated-only build has kernels/gpu/gpu_backend_none.cpp.
#if defined(FUSIONLAB_GPU_MODULE)
namespace kernels {

bool built_with_cuda() { return true; }

std::unique_ptr<Backend> make_gpu_backend(std::string* why_not) {
    const app::gpu_module::Status& s = app::gpu_module::status();
    if (!s.loaded) {
        if (why_not) *why_not = s.why_not;
        return nullptr;
    }
    if (std::string driver = app::gpu_module::driver_problem(s.api->cuda_runtime_version); !driver.empty()) {
        if (why_not) *why_not = driver;
        return nullptr;
    }
    return s.api->make_gpu_backend(why_not);
}

GpuMemoryUse gpu_memory_use() {
    const app::gpu_module::Status& s = app::gpu_module::status();
    if (s.loaded) return s.api->gpu_memory_use();
    GpuMemoryUse use;
    use.why_not = "no GPU (" + s.why_not + ")";
    return use;
}

int64_t cublas_gemm_configs_issued() {
    const app::gpu_module::Status& s = app::gpu_module::status();
    return s.loaded ? s.api->cublas_gemm_configs_issued() : 0;
}

std::string probe_hardware_counters(int device) {
    const app::gpu_module::Status& s = app::gpu_module::status();
    if (!s.loaded) return "unavailable: " + s.why_not;
    return s.api->probe_hardware_counters(device);
}

}  // namespace kernels
#endif
