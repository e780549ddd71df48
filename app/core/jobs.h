// What the settings ask to be measured, with no GUI state: the backend they resolve to, one runner
// job per selected variant, and where the next export goes. The live loop (app/core/panels_state.h)
// and the sweep (app/core/sweep.h) both build their batches here.
#pragma once

#include "app/core/runner.h"
#include "app/core/settings.h"
#include "kernels/core/types.h"

#include <string>
#include <vector>

namespace app {

// The live loop on a GPU: when the parameters settle, a quick pass (kQuickReps timed reps, no
// hardware counters, so N <= 8192 answers within ~300 ms) and, once it has answered for every
// variant, a full pass with the user's reps and the counters. Simulated GPUs answer at once:
// one full pass.
inline constexpr int kQuickReps = kernels::kQuickReps;
// The simulated GPU used when nothing else is chosen and no CUDA device exists.
inline constexpr const char* kDefaultSimGpu = "H100";

// Where jobs go, as chosen in the settings and allowed by what the runner found.
struct ResolvedBackend {
    bool ready = false;                   // false while the GPU probe is still running
    kernels::BackendKind kind = kernels::BackendKind::simulated;
    std::string sim_key;                  // when simulated; when recorded, the GPU it falls back to
    kernels::DeviceInfo device;           // what the numbers will come from (recorded: the recording's GPU)
    std::string recording;                // when recorded: the recording's key ("h100-2026-11-27")
    std::string recording_date;           // and its date
};

ResolvedBackend resolve_backend(const Settings& s, const Runner& runner);

// Settings::backend of a recording: this prefix and the recording's key ("recorded:h100-2026-11-27").
inline constexpr const char* kRecordedBackendPrefix = "recorded:";
// The Settings::backend a --backend word names, or "" with why_not:
//   "gpu"; a simulated GPU ("H100", any case, or "sim:H100"); a recording by key
//   ("h100-2026-11-27"), label ("H100 (recorded 2026-11-25)") or "recorded:" + key, label or card
//   (the card's newest recording).
std::string backend_setting(const std::string& word, std::string* why_not);
// Every backend a user may name, for messages: "gpu, V100, ..., H200, h100-2026-11-27".
std::string backend_names_text();
// What a --backend setting names, in a few words: "GPU", "simulated H100", "H100 (recorded 2026-11-25)".
std::string backend_setting_label(const std::string& setting);

// Device name without the " (simulated)" suffix, for banners that already say so.
using kernels::plain_device_name;

// One job per selected variant of the current workload.
std::vector<kernels::Job> make_batch(const Settings& s, const ResolvedBackend& backend);
// The same batch as the live loop's quick pass: kQuickReps reps, no counters, job.quick set.
std::vector<kernels::Job> make_quick_batch(const Settings& s, const ResolvedBackend& backend);

// File path for a new export of this extension ("csv", "json", "png").
std::string export_path(const Settings& s, const std::string& extension);

}  // namespace app
