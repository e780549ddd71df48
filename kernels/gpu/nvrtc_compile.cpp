// NVRTC through dlopen (nvrtc_compile.h). [SECTION] index:
//   library     where libnvrtc is looked for, the few functions used, the CUDA include folder
//   prelude     what comes before the student's source
//   log         the compiler's log, line by line, back to the student's lines
//   compile     one compilation
//
// Portability: dlopen/dlsym are the POSIX part; Windows would LoadLibraryW nvrtc64_130_0.dll from
// %CUDA_PATH%\bin and GetProcAddress the same names.
#include "kernels/gpu/nvrtc_compile.h"

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <sstream>

#if (defined(__unix__) || defined(__APPLE__)) && !defined(__EMSCRIPTEN__)
#define FL_NVRTC_DLOPEN 1
#include <dlfcn.h>
#endif

namespace kernels::nvrtc {

extern const char* const kPhiloxHeaderText;    // generated: kernels/gpu/nvrtc_headers.cpp.in
extern const char* const kGeluFastHeaderText;  // the same

namespace fs = std::filesystem;

// =============================================================================================
// [SECTION] library
// =============================================================================================
namespace {

// nvrtc.h's types, declared here so the program needs no CUDA header: nvrtcResult is an int-sized
// enum (0 = NVRTC_SUCCESS), nvrtcProgram an opaque pointer.
using Program = void*;
using CreateFn = int (*)(Program*, const char*, const char*, int, const char* const*, const char* const*);
using DestroyFn = int (*)(Program*);
using CompileFn = int (*)(Program, int, const char* const*);
using SizeFn = int (*)(Program, size_t*);
using TextFn = int (*)(Program, char*);
using VersionFn = int (*)(int*, int*);
using ErrorStringFn = const char* (*)(int);

struct Library {
    void* handle = nullptr;
    std::string path;
    std::string why_not;
    CreateFn create = nullptr;
    DestroyFn destroy = nullptr;
    CompileFn compile = nullptr;
    SizeFn log_size = nullptr, cubin_size = nullptr;
    TextFn log = nullptr, cubin = nullptr;
    VersionFn version = nullptr;
    ErrorStringFn error_string = nullptr;
    std::string include_dir;
};

#if defined(FL_NVRTC_DLOPEN)  // (the browser build looks for no library)
constexpr const char* kInstallHint =
    "install the CUDA toolkit's NVRTC (Debian/Ubuntu with NVIDIA's repository: apt install cuda-nvrtc-13-0 "
    "cuda-cudart-dev-13-0; or the whole toolkit), or point FUSIONLAB_NVRTC at libnvrtc.so and CUDA_HOME at the "
    "toolkit folder";

// The places libnvrtc is looked for, in order: FUSIONLAB_NVRTC, $CUDA_HOME/lib64, the usual toolkit
// folder, then the loader's own search (LD_LIBRARY_PATH, ld.so.cache).
// FUSIONLAB_NVRTC=none: none (the app runs as where NVRTC is not installed: a lab that wants
// exercises off, and the tests of that message).
bool nvrtc_turned_off() {
    const char* e = std::getenv("FUSIONLAB_NVRTC");
    return e && std::string(e) == "none";
}

std::vector<std::string> candidates() {
    std::vector<std::string> c;
    if (nvrtc_turned_off()) return c;
    if (const char* e = std::getenv("FUSIONLAB_NVRTC"); e && *e) c.emplace_back(e);
    for (const char* var : {"CUDA_HOME", "CUDA_PATH"})
        if (const char* e = std::getenv(var); e && *e) {
            c.push_back(std::string(e) + "/lib64/libnvrtc.so.13");
            c.push_back(std::string(e) + "/lib64/libnvrtc.so.12");
        }
    c.emplace_back("/usr/local/cuda/lib64/libnvrtc.so.13");
    c.emplace_back("/usr/local/cuda/lib64/libnvrtc.so.12");
    c.emplace_back("libnvrtc.so.13");
    c.emplace_back("libnvrtc.so.12");
    c.emplace_back("libnvrtc.so");
    return c;
}

// The toolkit's include folder: beside the library's lib64 folder, $CUDA_HOME/include, or the usual one.
std::string find_include_dir(const std::string& library_path) {
    std::vector<fs::path> tries;
    if (const char* e = std::getenv("CUDA_HOME"); e && *e) tries.emplace_back(fs::path(e) / "include");
    if (!library_path.empty() && library_path.find('/') != std::string::npos) {
        std::error_code ec;
        const fs::path real = fs::weakly_canonical(fs::path(library_path), ec);
        tries.push_back(real.parent_path().parent_path() / "include");
        tries.push_back(fs::path(library_path).parent_path().parent_path() / "include");
    }
    tries.emplace_back("/usr/local/cuda/include");
    tries.emplace_back("/usr/include");
    for (const fs::path& p : tries) {
        std::error_code ec;
        if (fs::exists(p / "cuda_fp16.h", ec) && fs::exists(p / "cuda_bf16.h", ec)) return p.string();
    }
    return "";
}
#endif

const Library& library() {
    static Library lib;
    static std::once_flag once;
    std::call_once(once, [] {
#if defined(FL_NVRTC_DLOPEN)
        std::string errors = nvrtc_turned_off() ? "FUSIONLAB_NVRTC=none" : "";
        for (const std::string& path : candidates()) {
            void* h = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
            if (!h) {
                if (errors.empty())
                    if (const char* e = dlerror()) errors = e;
                continue;
            }
            lib.handle = h;
            lib.path = path;
            break;
        }
        if (!lib.handle) {
            lib.why_not = "NVRTC (libnvrtc.so.13) was not found, so a kernel cannot be compiled here (" +
                          (errors.empty() ? std::string("no libnvrtc on the loader's path") : errors) + "); " + kInstallHint;
            return;
        }
        auto sym = [&](const char* name) { return dlsym(lib.handle, name); };
        lib.create = reinterpret_cast<CreateFn>(sym("nvrtcCreateProgram"));
        lib.destroy = reinterpret_cast<DestroyFn>(sym("nvrtcDestroyProgram"));
        lib.compile = reinterpret_cast<CompileFn>(sym("nvrtcCompileProgram"));
        lib.log_size = reinterpret_cast<SizeFn>(sym("nvrtcGetProgramLogSize"));
        lib.log = reinterpret_cast<TextFn>(sym("nvrtcGetProgramLog"));
        lib.cubin_size = reinterpret_cast<SizeFn>(sym("nvrtcGetCUBINSize"));
        lib.cubin = reinterpret_cast<TextFn>(sym("nvrtcGetCUBIN"));
        lib.version = reinterpret_cast<VersionFn>(sym("nvrtcVersion"));
        lib.error_string = reinterpret_cast<ErrorStringFn>(sym("nvrtcGetErrorString"));
        if (!lib.create || !lib.destroy || !lib.compile || !lib.log_size || !lib.log || !lib.cubin_size ||
            !lib.cubin || !lib.version || !lib.error_string) {
            lib.why_not = lib.path + " lacks nvrtcGetCUBIN or another function fusionlab calls (NVRTC 11.1 or newer "
                                     "is needed); " + kInstallHint;
            lib.handle = nullptr;
            return;
        }
        lib.include_dir = find_include_dir(lib.path);
#else
        lib.why_not = "kernels are compiled with NVRTC in the desktop app on Linux with a CUDA toolkit, not here";
#endif
    });
    return lib;
}

}  // namespace

std::string status() { return library().why_not; }
std::string cuda_include_dir() { return library().include_dir; }

// =============================================================================================
// [SECTION] prelude
// =============================================================================================
namespace {

// NVRTC has no C++ standard library headers: philox.h's <cstdint> is answered by this one.
constexpr const char* kCstdint =
    "#pragma once\n"
    "typedef signed char int8_t; typedef short int16_t; typedef int int32_t; typedef long long int64_t;\n"
    "typedef unsigned char uint8_t; typedef unsigned short uint16_t; typedef unsigned int uint32_t;\n"
    "typedef unsigned long long uint64_t;\n";

}  // namespace

std::string prelude(const CompileRequest& request) {
    std::string p = "#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n#include <cstdint>\n";
    p += "typedef " + (request.element_type.empty() ? std::string("float") : request.element_type) + " T;\n";
    for (const auto& [name, text] : request.headers) p += "#include \"" + name + "\"\n";
    p += "#line 1 \"" + request.source_name + "\"\n";
    return p;
}

// =============================================================================================
// [SECTION] log
// =============================================================================================
std::vector<Diagnostic> parse_log(const std::string& log, const std::string& source_name) {
    std::vector<Diagnostic> out;
    std::istringstream in(log);
    std::string line;
    const std::string head = source_name + "(";
    while (std::getline(in, line)) {
        if (line.compare(0, head.size(), head) != 0) continue;
        const size_t close = line.find("):", head.size());
        if (close == std::string::npos) continue;
        const std::string number = line.substr(head.size(), close - head.size());
        if (number.empty() || number.size() > 9 || number.find_first_not_of("0123456789") != std::string::npos) continue;
        Diagnostic d;
        d.line = std::stoi(number);
        std::string rest = line.substr(close + 2);
        while (!rest.empty() && rest.front() == ' ') rest.erase(rest.begin());
        for (const char* sev : {"catastrophic error", "error", "warning", "remark"}) {
            const std::string s = sev;
            if (rest.compare(0, s.size() + 1, s + ":") == 0) {
                d.severity = s == "catastrophic error" ? "error" : s;
                rest = rest.substr(s.size() + 1);
                break;
            }
        }
        if (d.severity.empty()) continue;
        while (!rest.empty() && rest.front() == ' ') rest.erase(rest.begin());
        d.message = rest;
        out.push_back(d);
    }
    return out;
}

// =============================================================================================
// [SECTION] compile
// =============================================================================================
CompileResult compile(const CompileRequest& request) {
    CompileResult r;
    r.arch = "sm_" + std::to_string(request.cc_major) + std::to_string(request.cc_minor);
    const Library& lib = library();
    if (!lib.why_not.empty()) {
        r.unavailable = lib.why_not;
        return r;
    }
    int major = 0, minor = 0;
    lib.version(&major, &minor);
    r.nvrtc_version = "NVRTC " + std::to_string(major) + "." + std::to_string(minor) + " (" + lib.path + ")";
    if (lib.include_dir.empty()) {
        r.unavailable = "NVRTC was found (" + lib.path + ") but not the CUDA headers it needs (cuda_fp16.h, cuda_bf16.h): "
                        "install cuda-cudart-dev-13-0 or set CUDA_HOME to the toolkit folder";
        return r;
    }
    std::vector<std::string> names{"cstdint", "philox.h", "gelu_fast.h"}, texts{kCstdint, kPhiloxHeaderText, kGeluFastHeaderText};
    for (const auto& [name, text] : request.headers) {
        names.push_back(name);
        texts.push_back(text);
    }
    std::vector<const char*> name_ptrs, text_ptrs;
    for (size_t i = 0; i < names.size(); ++i) {
        name_ptrs.push_back(names[i].c_str());
        text_ptrs.push_back(texts[i].c_str());
    }
    const std::string full = prelude(request) + request.source;
    Program prog = nullptr;
    if (int e = lib.create(&prog, full.c_str(), request.source_name.c_str(), static_cast<int>(names.size()),
                           text_ptrs.data(), name_ptrs.data());
        e != 0) {
        r.log = std::string("nvrtcCreateProgram failed: ") + lib.error_string(e);
        return r;
    }
    const std::string arch_opt = "--gpu-architecture=" + r.arch, include_opt = "-I" + lib.include_dir;
    const char* options[] = {arch_opt.c_str(), "-std=c++17", include_opt.c_str(), "-lineinfo", "-default-device"};
    const int result = lib.compile(prog, 5, options);
    size_t log_size = 0;
    if (lib.log_size(prog, &log_size) == 0 && log_size > 1) {
        std::string log(log_size, '\0');
        if (lib.log(prog, log.data()) == 0) {
            log.resize(log_size - 1);
            r.log = log;
        }
    }
    r.diagnostics = parse_log(r.log, request.source_name);
    if (result == 0) {
        size_t size = 0;
        if (lib.cubin_size(prog, &size) == 0 && size > 0) {
            r.cubin.resize(size);
            r.ok = lib.cubin(prog, r.cubin.data()) == 0;
        }
        if (!r.ok) r.log += "\nNVRTC compiled the kernel but gave no machine code for " + r.arch;
    } else if (r.log.empty()) {
        r.log = std::string("nvrtcCompileProgram failed: ") + lib.error_string(result);
    }
    lib.destroy(&prog);
    return r;
}

}  // namespace kernels::nvrtc
