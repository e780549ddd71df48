// The variant `yours` on the GPU (student_kernel.cuh). [SECTION] index:
//   driver API     the few driver functions, through the runtime's entry points
//   arguments      the signature's types against the workload's
//   StudentLaunch  compile, load, guard, launch, check
#include "kernels/gpu/student_kernel.cuh"

#include "kernels/core/format.h"
#include "kernels/gpu/nvrtc_compile.h"

#include <cuda.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <stdexcept>

namespace kernels::gpu {

// =============================================================================================
// [SECTION] driver API
// =============================================================================================
namespace {

struct Driver {
    CUresult (*module_load_data)(CUmodule*, const void*) = nullptr;
    CUresult (*module_unload)(CUmodule) = nullptr;
    CUresult (*module_get_function)(CUfunction*, CUmodule, const char*) = nullptr;
    CUresult (*launch_kernel)(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                              CUstream, void**, void**) = nullptr;
    CUresult (*func_get_attribute)(int*, CUfunction_attribute, CUfunction) = nullptr;
    CUresult (*func_set_attribute)(CUfunction, CUfunction_attribute, int) = nullptr;
    CUresult (*func_get_param_info)(CUfunction, size_t, size_t*, size_t*) = nullptr;  // CUDA 12.4+: may be absent
    CUresult (*get_error_string)(CUresult, const char**) = nullptr;
    std::string why_not;
};

template <typename F> void entry(const char* name, F& fn, std::string& why_not, bool required = true) {
    void* p = nullptr;
    cudaDriverEntryPointQueryResult found{};
    const cudaError_t e = cudaGetDriverEntryPointByVersion(name, &p, 12000, cudaEnableDefault, &found);
    if (e != cudaSuccess || found != cudaDriverEntryPointSuccess || !p) {
        (void)cudaGetLastError();
        if (required && why_not.empty())
            why_not = std::string("the NVIDIA driver does not give ") + name + " (cudaGetDriverEntryPointByVersion)";
        return;
    }
    fn = reinterpret_cast<F>(p);
}

const Driver& driver() {
    static const Driver d = [] {
        Driver x;
        entry("cuModuleLoadData", x.module_load_data, x.why_not);
        entry("cuModuleUnload", x.module_unload, x.why_not);
        entry("cuModuleGetFunction", x.module_get_function, x.why_not);
        entry("cuLaunchKernel", x.launch_kernel, x.why_not);
        entry("cuFuncGetAttribute", x.func_get_attribute, x.why_not);
        entry("cuFuncSetAttribute", x.func_set_attribute, x.why_not);
        entry("cuFuncGetParamInfo", x.func_get_param_info, x.why_not, false);
        entry("cuGetErrorString", x.get_error_string, x.why_not);
        return x;
    }();
    return d;
}

std::string driver_error(CUresult r) {
    const char* s = nullptr;
    if (driver().get_error_string) driver().get_error_string(r, &s);
    return std::string(s ? s : "unknown driver error") + " (CUresult " + std::to_string(static_cast<int>(r)) + ")";
}

// =============================================================================================
// [SECTION] arguments
// =============================================================================================
// One spelling per type: "const T*" and "T*" stay apart (an output must not be const); scalars by
// their size and kind.
std::string canonical_type(std::string t) {
    for (const char* drop : {"__restrict__ ", " __restrict__", "__restrict__"}) {
        for (size_t at; (at = t.find(drop)) != std::string::npos;) t.erase(at, std::string(drop).size());
    }
    static const std::map<std::string, std::string> same{
        {"int", "int"},           {"int32_t", "int"},          {"unsigned", "uint32_t"}, {"unsigned int", "uint32_t"},
        {"uint32_t", "uint32_t"}, {"long long", "int64_t"},    {"int64_t", "int64_t"},   {"unsigned long long", "uint64_t"},
        {"uint64_t", "uint64_t"}, {"float", "float"},          {"const T*", "const T*"}, {"T*", "T*"}};
    const auto it = same.find(t);
    return it == same.end() ? t : it->second;
}

bool type_fits(const std::string& declared, const std::string& offered) {
    const std::string d = canonical_type(declared), o = canonical_type(offered);
    if (d == o) return true;
    return d == "T*" && o == "const T*" ? false : (d == "const T*" && o == "T*");  // reading an output is fine
}

std::string join_names(const std::vector<std::string>& v) {
    std::string s;
    for (const std::string& x : v) s += (s.empty() ? "" : ", ") + x;
    return s;
}

}  // namespace

// =============================================================================================
// [SECTION] StudentLaunch
// =============================================================================================
struct StudentLaunch::Impl {
    CUmodule module = nullptr;
    CUfunction function = nullptr;
    StudentKernel kernel;
    std::vector<std::vector<unsigned char>> values;  // one per argument, as launched
    std::vector<void*> pointers;                      // into values
    struct Guarded {
        std::string name;
        void* workload_buffer = nullptr;
        uint64_t bytes = 0;
        DeviceMemory memory;  // guard | output | guard
        char* inner() const { return static_cast<char*>(memory.get()) + kGuardBytes; }
    };
    std::vector<Guarded> outputs;
};

StudentLaunch::StudentLaunch(const StudentKernel& k, const GpuWorkload& w, const DeviceInfo& device, DType dtype)
    : impl_(std::make_unique<Impl>()) {
    impl_->kernel = k;
    const Driver& drv = driver();
    if (!drv.why_not.empty()) throw std::runtime_error("your kernel cannot be loaded: " + drv.why_not);

    // Arguments first: a signature the workload cannot serve is said before any compiling.
    if (k.argument_names.size() != k.argument_types.size())
        throw std::logic_error("a student kernel's argument names and types differ in number");
    for (size_t i = 0; i < k.argument_names.size(); ++i) {
        const std::string& name = k.argument_names[i];
        std::optional<StudentArgument> a = w.student_argument(name);
        if (!a)
            throw std::runtime_error("the signature's argument '" + name + "' is not one this workload passes (it passes: " +
                                     join_names(w.student_argument_names()) + ")");
        if (!type_fits(k.argument_types[i], a->type))
            throw std::runtime_error("the signature declares " + name + " as '" + k.argument_types[i] + "', but it is '" +
                                     a->type + "' in this workload");
        if (a->output_bytes > 0) {
            Impl::Guarded g;
            g.name = name;
            std::memcpy(&g.workload_buffer, a->bytes.data(), sizeof(void*));
            g.bytes = a->output_bytes;
            g.memory = DeviceMemory(static_cast<size_t>(a->output_bytes) + 2 * kGuardBytes, "your kernel's " + name + " with guard zones");
            void* inner = g.inner();
            std::memcpy(a->bytes.data(), &inner, sizeof(void*));  // the kernel writes the guarded copy
            impl_->outputs.push_back(std::move(g));
        }
        impl_->values.push_back(std::move(a->bytes));
    }
    for (std::vector<unsigned char>& v : impl_->values) impl_->pointers.push_back(v.data());

    nvrtc::CompileRequest req;
    req.source = k.source;
    req.source_name = k.source_name.empty() ? "yours.cu" : k.source_name;
    req.headers = k.headers;
    req.cc_major = device.cc_major;
    req.cc_minor = device.cc_minor;
    req.element_type = dtype == DType::f32 ? "float" : dtype == DType::f16 ? "__half" : "__nv_bfloat16";  // T
    const nvrtc::CompileResult c = nvrtc::compile(req);
    if (!c.unavailable.empty()) throw std::runtime_error("your kernel cannot be compiled here: " + c.unavailable);
    if (!c.ok) {
        std::string msg = "your kernel does not compile (" + c.nvrtc_version + ", " + c.arch + "):";
        int shown = 0;
        for (const nvrtc::Diagnostic& d : c.diagnostics) {
            if (d.severity != "error") continue;
            if (++shown > 10) break;
            msg += "\n  " + req.source_name + ":" + std::to_string(d.line) + ": error: " + d.message;
        }
        if (shown == 0) msg += "\n" + c.log;
        throw std::runtime_error(msg);
    }
    if (const CUresult r = drv.module_load_data(&impl_->module, c.cubin.data()); r != CUDA_SUCCESS)
        throw std::runtime_error("your compiled kernel could not be loaded (cuModuleLoadData): " + driver_error(r));
    if (const CUresult r = drv.module_get_function(&impl_->function, impl_->module, k.entry.c_str()); r != CUDA_SUCCESS)
        throw std::runtime_error("your file has no kernel named " + k.entry + ": declare it extern \"C\" __global__ void " +
                                 k.entry + "(...) (" + driver_error(r) + ")");
    // The compiled parameter list against the arguments (CUDA 12.4+ drivers can tell).
    if (drv.func_get_param_info) {
        for (size_t i = 0; i <= impl_->values.size(); ++i) {
            size_t offset = 0, size = 0;
            const CUresult r = drv.func_get_param_info(impl_->function, i, &offset, &size);
            if (i == impl_->values.size()) {
                if (r == CUDA_SUCCESS)
                    throw std::runtime_error("your kernel " + k.entry + " takes more parameters than the signature's " +
                                             std::to_string(impl_->values.size()));
                break;
            }
            if (r != CUDA_SUCCESS)
                throw std::runtime_error("your kernel " + k.entry + " takes " + std::to_string(i) +
                                         " parameters; the signature has " + std::to_string(impl_->values.size()));
            if (size != impl_->values[i].size())
                throw std::runtime_error("parameter " + std::to_string(i + 1) + " (" + k.argument_names[i] + ") of your kernel is " +
                                         std::to_string(size) + " bytes; the signature's " + k.argument_types[i] + " is " +
                                         std::to_string(impl_->values[i].size()));
        }
    }
    if (k.shared_bytes > 48 * 1024)
        if (const CUresult r = drv.func_set_attribute(impl_->function, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
                                                      k.shared_bytes);
            r != CUDA_SUCCESS)
            throw std::runtime_error("the exercise's " + std::to_string(k.shared_bytes) +
                                     " B of dynamic shared memory is refused on this device: " + driver_error(r));
    int registers = 0, local = 0;
    drv.func_get_attribute(&registers, CU_FUNC_ATTRIBUTE_NUM_REGS, impl_->function);
    drv.func_get_attribute(&local, CU_FUNC_ATTRIBUTE_LOCAL_SIZE_BYTES, impl_->function);
    description_ = k.entry + ": grid " + std::to_string(k.grid[0]) + "x" + std::to_string(k.grid[1]) + "x" +
                   std::to_string(k.grid[2]) + ", block " + std::to_string(k.block[0]) + "x" + std::to_string(k.block[1]) +
                   "x" + std::to_string(k.block[2]) + ", " + std::to_string(k.shared_bytes) +
                   " B dynamic shared memory; " + c.nvrtc_version + " for " + c.arch + ", " + std::to_string(registers) +
                   " registers, " + std::to_string(local) + " B local memory per thread";
}

StudentLaunch::~StudentLaunch() {
    if (impl_ && impl_->module && driver().module_unload) (void)driver().module_unload(impl_->module);
}

void StudentLaunch::abandon() {
    for (Impl::Guarded& g : impl_->outputs) g.memory.abandon();
    impl_->module = nullptr;
}

void StudentLaunch::poison(cudaStream_t s) {
    for (Impl::Guarded& g : impl_->outputs) {
        check(cudaMemsetAsync(g.memory.get(), 0xA5, kGuardBytes, s), "filling the guard zone before " + g.name);
        check(cudaMemsetAsync(g.inner(), 0xFF, static_cast<size_t>(g.bytes), s), "poisoning " + g.name);
        check(cudaMemsetAsync(g.inner() + g.bytes, 0xA5, kGuardBytes, s), "filling the guard zone after " + g.name);
    }
}

void StudentLaunch::launch(cudaStream_t s) {
    const StudentKernel& k = impl_->kernel;
    const CUresult r = driver().launch_kernel(
        impl_->function, static_cast<unsigned>(k.grid[0]), static_cast<unsigned>(k.grid[1]), static_cast<unsigned>(k.grid[2]),
        static_cast<unsigned>(k.block[0]), static_cast<unsigned>(k.block[1]), static_cast<unsigned>(k.block[2]),
        static_cast<unsigned>(k.shared_bytes), reinterpret_cast<CUstream>(s), impl_->pointers.data(), nullptr);
    if (r != CUDA_SUCCESS) throw std::runtime_error("your kernel could not be launched (cuLaunchKernel): " + driver_error(r));
}

std::string StudentLaunch::check_guards() {
    std::vector<unsigned char> host(kGuardBytes);
    std::string report;
    for (Impl::Guarded& g : impl_->outputs) {
        for (int side = 0; side < 2; ++side) {
            const char* at = side == 0 ? static_cast<const char*>(g.memory.get()) : g.inner() + g.bytes;
            check(cudaMemcpy(host.data(), at, kGuardBytes, cudaMemcpyDeviceToHost), "reading the guard zone of " + g.name);
            size_t changed = 0, first = kGuardBytes, last = 0;
            for (size_t i = 0; i < kGuardBytes; ++i)
                if (host[i] != 0xA5) {
                    ++changed;
                    first = std::min(first, i);
                    last = i;
                }
            if (changed == 0) continue;
            if (!report.empty()) report += "; ";
            if (side == 0)
                report += "your kernel wrote before the start of its output " + g.name + ": " + std::to_string(changed) +
                          " bytes changed in the " + format_bytes(static_cast<double>(kGuardBytes)) +
                          " guard zone, the farthest " + std::to_string(kGuardBytes - first) + " bytes before element 0";
            else
                report += "your kernel wrote past the end of its output " + g.name + " (" +
                          format_bytes(static_cast<double>(g.bytes)) + "): " + std::to_string(changed) +
                          " bytes changed in the guard zone after it, from byte " + std::to_string(first) + " to byte " +
                          std::to_string(last) + " past the end";
        }
    }
    return report;
}

void StudentLaunch::copy_outputs_back(cudaStream_t s) {
    for (Impl::Guarded& g : impl_->outputs)
        check(cudaMemcpyAsync(g.workload_buffer, g.inner(), static_cast<size_t>(g.bytes), cudaMemcpyDeviceToDevice, s),
              "copying your " + g.name + " to the workload's buffer");
}

}  // namespace kernels::gpu
