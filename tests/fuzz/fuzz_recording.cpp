// libFuzzer target: the recording parser (app::parse_recording_json), what the app reads at start-up
// from assets/recordings and what a teacher may copy from another machine, cut short or edited.
//
// Properties checked beyond "no crash": a refusal is one line that starts with the JSON path of the
// field ("$...") or says the text is not JSON, and leaves the output untouched (nothing half-loaded);
// an accepted recording has a known card, a date, a command, a real (not simulated) device and at
// least one measurement, each valid, recorded on that date and found again by its own point; and
// what is accepted writes out and reads back to the same text.
#include "app/recordings/recording_file.h"
#include "kernels/sim/sim_backend.h"
#include "kernels/core/registry.h"

#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

[[noreturn]] void fail(const std::string& what, const std::string& input) {
    std::fprintf(stderr, "fuzz_recording: %s\n  input: [%s]\n", what.c_str(), input.substr(0, 4000).c_str());
    std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    app::Recording r;
    r.key = "untouched";
    const std::string why = app::parse_recording_json(text, r);
    if (!why.empty()) {
        if (why.find('\n') != std::string::npos) fail("message spans several lines: " + why, text);
        if (why.rfind("$", 0) != 0 && why.rfind("not JSON", 0) != 0 && why.rfind("malformed: ", 0) != 0)
            fail("message names no field: " + why, text);
        if (r.key != "untouched" || !r.measurements.empty()) fail("refused but half-loaded: " + why, text);
        return 0;
    }
    if (!kernels::find_sim_gpu(r.card)) fail("accepted an unknown card " + r.card, text);
    if (r.date.size() != 10 || r.command.empty()) fail("accepted without a date or a command", text);
    if (r.device.simulated || r.device.name.empty()) fail("accepted a simulated or unnamed device", text);
    if (r.measurements.empty()) fail("accepted without measurements", text);
    for (const kernels::Measurement& m : r.measurements) {
        if (!m.ok || m.recorded_date != r.date) fail("accepted a measurement that did not run or has no date", text);
        if (std::string bad = kernels::validate(m.job.params); !bad.empty()) fail("accepted invalid parameters: " + bad, text);
        if (r.find(m.job.params, m.job.variant) != &m) fail("a measurement is not found by its own point", text);
    }
    const std::string written = app::recording_to_json(r);
    app::Recording again;
    if (std::string back = app::parse_recording_json(written, again); !back.empty())
        fail("what was accepted does not read back: " + back, text);
    if (app::recording_to_json(again) != written) fail("the text changes across a write and a read", text);
    return 0;
}
