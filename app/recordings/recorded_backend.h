// The recorded backend: a thin kernels::Backend over a recording (app/recordings/recording_file.h). Where the
// recording has the job's parameters and variant it answers with the recorded measurement (the time,
// kernel times, DRAM counter bytes, error against the reference and timeline measured on the
// recording's GPU; the modeled side from this build's model for that GPU), labelled recorded with the
// device and date (Measurement::recorded_date). Elsewhere it answers with the simulated GPU of the
// same kind (the calibrated simulator, labelled simulated), and the timing note says the recording
// lacks the point. The harness knows nothing of it: the runner makes one per recording.
#pragma once

#include "app/recordings/recording_file.h"
#include "kernels/core/backend.h"

#include <memory>

namespace app {

// nullptr with `why_not` when the recording's card has no simulated GPU in this build.
std::unique_ptr<kernels::Backend> make_recorded_backend(std::shared_ptr<const Recording> recording,
                                                        std::string* why_not = nullptr);

}  // namespace app
