// libFuzzer target: the settings file (app::settings_from_json), the one file the app reads
// back that a person may have edited by hand. Any bytes must give settings plus at most a
// message, never a crash or an exception.
//
// Properties: whatever was accepted is legal (parameters validate, font scale and reps in
// range, the backend known: the GPU, a simulated GPU or a recording found at start-up), and what
// is accepted survives a save and a load unchanged with no message (what the GUI writes it can
// read back).
#include "app/core/jobs.h"
#include "app/core/settings.h"
#include "kernels/sim/sim_backend.h"
#include "kernels/core/registry.h"

#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

[[noreturn]] void fail(const std::string& what, const std::string& input) {
    std::fprintf(stderr, "fuzz_settings: %s\n  input: [%s]\n", what.c_str(), input.c_str());
    std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    app::Settings s;
    (void)app::settings_from_json(text, s);

    if (std::string why = kernels::validate(s.params); !why.empty()) fail("accepted invalid parameters: " + why, text);
    if (!(s.font_scale >= app::kMinFontScale && s.font_scale <= app::kMaxFontScale)) fail("font scale out of range", text);
    if (s.reps < app::kMinReps || s.reps > app::kMaxReps) fail("reps out of range", text);
    const bool recorded = s.backend.rfind(app::kRecordedBackendPrefix, 0) == 0 && !app::backend_setting(s.backend, nullptr).empty();
    if (!s.backend.empty() && s.backend != "gpu" && !kernels::find_sim_gpu(s.backend) && !recorded)
        fail("unknown backend kept", text);

    app::Settings again;
    const std::string note = app::settings_from_json(app::settings_to_json(s), again);
    if (!note.empty()) fail("saved settings do not load cleanly: " + note, text);
    if (!(again == s)) fail("settings change across save and load", text);
    return 0;
}
