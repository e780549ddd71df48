// `auto` parameters (issue 34, point 3): a parameter whose spec offers auto (ParamSpec::auto_choice,
// attention's and skip's tile Br x Bc) is resolved, per variant and device, to the candidate the
// simulator prices fastest on that device, with the recorded measurements of the same card where a
// recording has the shape. The choice and the numbers behind it travel with every result
// (Measurement::auto_choice) and are shown in the parameters panel and under `bench`'s rows.
//
// How the candidates are compared: each candidate's simulated time (price_run on the device's
// calibration). Where a recording of the card has some candidates at this shape, those use their
// recorded medians and the others their simulated times scaled by the recorded candidates' median
// recorded / simulated ratio, so a recorded time never competes with a differently biased estimate.
//
// [SECTION] Auto values
// [SECTION] The pick
#pragma once

#include "kernels/core/types.h"

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace kernels {

// =============================================================================================
// [SECTION] Auto values
// =============================================================================================

// The number an auto parameter holds for "auto" (settings, exports and lessons store it; the CLI,
// the GUI and lesson files say "auto").
inline constexpr double kAutoValue = 0;

// True when some parameter of p that offers auto is at auto.
bool has_auto(const Params& p);

// =============================================================================================
// [SECTION] The pick
// =============================================================================================

struct AutoCandidate {
    Params params;
    std::string label;        // "128 x 64"
    double simulated_ms = 0;  // the model on the device
    std::optional<double> recorded_ms;  // the card's recording at this shape, when it has it
    double compared_ms = 0;   // what the pick compared (recorded, or simulated x the recording's ratio)
};

struct AutoPick {
    Params params;            // p with every auto parameter set; p itself when none is auto
    bool resolved = false;    // some parameter was auto and a candidate runs on the device
    std::string label;        // the chosen candidate's ("128 x 64")
    // One line: "auto tile 128 x 64: 0.812 ms recorded on this card; next 128 x 128 0.850 ms (simulated x 1.04)"
    std::string why;
    std::string error;        // auto, but no candidate runs on the device: why (each refusal's reason)
    std::vector<AutoCandidate> candidates;  // fastest first
};

// A recorded median for (params, variant) on the device's card, or nothing.
using RecordedTime = std::function<std::optional<double>(const Params&, const std::string& variant)>;

// Resolves p's auto parameters for `variant` on `device` (its calibration: calibration_for). The
// recorded lookup is optional; `recorded_key` names what it reads (a recording's key) so that
// picks are cached per device, recording and point. only_recorded (the recorded backend, which can
// show only what was recorded): where some candidates are recorded, the pick is among those.
AutoPick pick_auto(const std::string& variant, const Params& p, const DeviceInfo& device,
                   const RecordedTime& recorded = {}, const std::string& recorded_key = "", bool only_recorded = false);

}  // namespace kernels
