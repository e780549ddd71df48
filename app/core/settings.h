// What the GUI remembers between runs: projector settings (font scale, theme), the last workload,
// parameters, variants and backend, repetitions and the export folder. Stored as JSON in
// platform::config_dir()/settings.json, written atomically. A missing file gives defaults
// silently; a corrupt or partly wrong file gives defaults for what is wrong plus a message.
#pragma once

#include "kernels/core/types.h"
#include "viz/theme_id.h"

#include <map>
#include <string>
#include <vector>

namespace app {

using viz::Theme;

using kernels::kMaxReps;
using kernels::kMinReps;

// Projector font scale: 1x..3x, for the GUI control, --font-scale and the settings file.
inline constexpr float kMinFontScale = 1.0f;
inline constexpr float kMaxFontScale = 3.0f;

struct Settings {
    float font_scale = 1.0f;
    Theme theme = Theme::dark;
    kernels::Params params;                                  // includes the workload
    std::map<std::string, std::vector<std::string>> variants; // workload name -> selected variants
    std::string backend;     // "gpu", a simulated GPU key ("H100") or "recorded:" + a recording's key; "" = GPU if present
    int reps = 50;
    std::string export_dir;  // "" = current folder

    bool operator==(const Settings&) const = default;
};

// Selected variants for the settings' current workload; every variant when none was saved.
std::vector<std::string> selected_variants(const Settings& s);

std::string settings_to_json(const Settings& s);
// Parses text into `out`, starting from defaults. Returns "" when everything was understood,
// else a message naming what was ignored (the rest is still applied).
std::string settings_from_json(const std::string& text, Settings& out);

// Default settings file path ("" when there is no config folder).
std::string default_settings_path();

// Loads `path`. A missing file is not an error. Returns the message to show (or "").
std::string load_settings(const std::string& path, Settings& out);
// Creates the folder if needed and writes atomically. Returns "" or the error.
std::string save_settings(const std::string& path, const Settings& s);

}  // namespace app
