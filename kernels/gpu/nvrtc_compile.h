// Run-time compilation of a student's kernel (exercises/) with NVRTC, for the variant `yours`.
// NVRTC is opened at run time (dlopen of libnvrtc), never linked: a machine without the CUDA
// toolkit's NVRTC still runs the app, and every answer says why a kernel cannot be compiled there
// and how to install what is missing. Plain C++, no CUDA header: the program (the editor's compile
// errors, `fusionlab exercises check`) and the GPU module (the run) both use it.
#pragma once

#include <string>
#include <utility>
#include <vector>

namespace kernels::nvrtc {

// One diagnostic of the student's file: its line (1-based, in the student's own file: the prelude
// is numbered away with #line), "error" or "warning", and the compiler's words.
struct Diagnostic {
    int line = 0;
    std::string severity;
    std::string message;
};

struct CompileRequest {
    std::string source;       // the student's file as typed
    std::string source_name;  // its name in messages ("yours.cu")
    std::string element_type; // what T is: "float", "__half" or "__nv_bfloat16"
    // Headers the source may #include by name (the exercise header), besides the CUDA toolkit's.
    std::vector<std::pair<std::string, std::string>> headers;
    int cc_major = 9, cc_minor = 0;  // the device's compute capability: machine code for it alone
};

struct CompileResult {
    bool ok = false;
    std::string unavailable;             // NVRTC cannot be used here: why, and how to install it ("" when it can)
    std::string log;                     // the compiler's whole log, prelude lines included
    std::vector<Diagnostic> diagnostics; // the log's lines about the student's file
    std::vector<char> cubin;             // machine code for cc_major.cc_minor when ok
    std::string arch;                    // "sm_90"
    std::string nvrtc_version;           // "NVRTC 13.0"
};

// "" when libnvrtc can be opened (opens it on the first call), else why not and how to install it.
std::string status();
// Where the CUDA headers NVRTC needs (cuda_fp16.h, cuda_bf16.h) were found ("" when not found).
std::string cuda_include_dir();

CompileResult compile(const CompileRequest& request);

// The diagnostics of an NVRTC log that name `source_name`: "yours.cu(12): error: ..." lines.
// Pure (tested without NVRTC).
std::vector<Diagnostic> parse_log(const std::string& log, const std::string& source_name);

// The text put before the student's source: the CUDA element types, T, the exercise header, and a
// #line that makes the student's first line line 1. Pure.
std::string prelude(const CompileRequest& request);

}  // namespace kernels::nvrtc
