// `auto` parameters resolved with the recordings (kernels/sim/auto_choice.h): the model on the device,
// and the recorded medians of the same card where a recording has the point. The runner resolves every
// job through it (so every backend runs a concrete tile and every result says what it picked and why),
// and the parameters panel, bench and the lessons ask it what a variant will run.
#pragma once

#include "kernels/core/backend.h"
#include "kernels/core/types.h"
#include "kernels/sim/auto_choice.h"

#include <string>

namespace app {

// The pick for `variant` at p on `device`. Recorded times come from the recording `recording_key`
// when given (the recorded backend's: the pick is then among the recorded tiles where the recording
// has any at this shape, since that backend shows only what was recorded), else from the newest
// recording of the device's card (a GPU or a simulated GPU of a recorded kind), else none: the model
// alone.
kernels::AutoPick pick_auto_for(const std::string& variant, const kernels::Params& p, const kernels::DeviceInfo& device,
                                const std::string& recording_key = "");

// Runs `backend` on job as the runner does: parameters left at auto resolved for job's variant on the
// backend's device (the recorded backend: among its recording's tiles), and the result says what ran and
// why (Measurement::auto_params, auto_choice); job.params stays as asked.
kernels::Measurement run_resolved(kernels::Backend& backend, const kernels::Job& job, const kernels::CancelToken& cancel);

}  // namespace app
