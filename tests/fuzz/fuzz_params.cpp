// libFuzzer target: the number and name parsers behind every option and settings field:
// app::cli::parse_param_list (comma lists of a spec'd parameter for a set of workloads),
// app::cli::parse_size ("1280x720"), kernels::parse_dtype and kernels::parse_workload.
// The first byte picks the parser; for parameter lists the next bytes pick the parameter and
// the workloads, and the rest, one item per line, is the text typed.
//
// Properties checked beyond "no crash": an accepted value is legal for every selected workload
// that takes the parameter (so a sweep never runs an illegal shape), values are not repeated,
// a rejected one gets a one-line message that names the option; a parsed name prints back as a
// name that parses to the same value.
#include "app/cli/cli.h"
#include "kernels/core/registry.h"
#include "tests/fuzz/fuzz_input.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

namespace {

[[noreturn]] void fail(const std::string& what, const std::string& input) {
    std::fprintf(stderr, "fuzz_params: %s\n  input: [%s]\n", what.c_str(), input.c_str());
    std::abort();
}

void check_message(const std::string& option, const std::string& message, const std::string& input) {
    if (message.rfind(option, 0) != 0) fail("message does not start with the option name: " + message, input);
    if (message.find('\n') != std::string::npos) fail("message spans several lines: " + message, input);
}

void fuzz_param_list(fuzz::ByteReader& in) {
    const auto& specs = kernels::all_param_specs();
    const kernels::ParamSpec& spec = specs[in.next() % specs.size()];
    const uint8_t mask = in.next();
    std::vector<std::string> workloads;
    size_t bit = 0;
    for (const std::string& w : kernels::workload_names())
        if (mask & (1u << (bit++ % 8))) workloads.push_back(w);
    if (workloads.empty()) workloads = kernels::workload_names();

    const std::string text = in.rest();
    const std::string option = std::string("--") + spec.name;
    std::vector<double> values;
    const std::string problem = app::cli::parse_param_list(option, fuzz::split_lines(text), spec.name, workloads, values);
    if (!problem.empty()) {
        check_message(option, problem, text);
        return;
    }
    if (values.empty()) fail("accepted an empty list", text);
    for (size_t i = 0; i < values.size(); ++i) {
        if (std::find(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(i), values[i]) !=
            values.begin() + static_cast<std::ptrdiff_t>(i))
            fail("a value is repeated", text);
        for (const std::string& w : workloads)
            if (const kernels::ParamSpec* own = kernels::find_param_spec(w, spec.name))
                if (std::string why = kernels::check_param_value(*own, values[i]); !why.empty())
                    fail("accepted an illegal value for " + w + ": " + why, text);
    }
}

void fuzz_size(const std::string& text) {
    int width = -1, height = -1;
    const std::string problem = app::cli::parse_size("--size", text, width, height);
    if (!problem.empty()) {
        check_message("--size", problem, text);
        return;
    }
    if (width < app::cli::kMinShotSide || width > app::cli::kMaxShotSide || height < app::cli::kMinShotSide ||
        height > app::cli::kMaxShotSide)
        fail("accepted a size out of range", text);
}

void fuzz_names(const std::string& text) {
    kernels::DType t{};
    if (kernels::parse_dtype(text, t)) {
        kernels::DType back{};
        if (!kernels::parse_dtype(kernels::to_string(t), back) || back != t) fail("dtype does not round-trip", text);
    }
    std::string w;
    if (kernels::parse_workload(text, w)) {
        std::string back;
        if (!kernels::parse_workload(w, back) || back != w) fail("workload does not round-trip", text);
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    fuzz::ByteReader in{data, size};
    switch (in.next() % 3) {
        case 0: fuzz_param_list(in); break;
        case 1: fuzz_size(in.rest()); break;
        default: fuzz_names(in.rest()); break;
    }
    return 0;
}
