// Export of measurements (CSV, JSON) and images (PNG). Every write is atomic: the data goes to a
// temporary file in the target's folder, then is renamed over the target, so a failure leaves
// no half-written file. Errors come back as text for the GUI and the CLI.
#pragma once

#include "kernels/core/types.h"

#include <nlohmann/json_fwd.hpp>

#include <cstdint>
#include <string>
#include <vector>

namespace app {

// The bandwidth a measurement's "% of ceiling" is relative to: the measured device-to-device copy
// when the backend measured one, else the datasheet/theoretical peak. `source` says which.
struct BandwidthCeiling {
    double gbps = 0;
    std::string source;  // "measured copy" | "datasheet peak" | "unavailable"
};
BandwidthCeiling bandwidth_ceiling(const kernels::DeviceInfo& d);
// 100 * gbps / ceiling, or 0 when there is no ceiling.
double percent_of_ceiling(double gbps, const BandwidthCeiling& c);

// Checks, before any long run, that `path` could be written: its folder exists and accepts a new
// file (a probe file is created and removed). Returns "" or the same message write_file_atomic
// would give.
std::string check_writable(const std::string& path);

// Writes `bytes` to `path` atomically. Returns "" on success, else a message naming the path
// and the reason ("cannot write /x/y.csv: Permission denied").
std::string write_file_atomic(const std::string& path, const std::string& bytes);

// One row per measurement: device, driver, clocks, build type, backend, workload, variant,
// parameters, time stats, modeled bytes and FLOPs, achieved rates, error vs reference.
std::string measurements_csv(const std::vector<kernels::Measurement>& ms);
std::string measurements_json(const std::vector<kernels::Measurement>& ms);  // pretty-printed

// The JSON objects measurements_json writes, for documents that embed measurements (a recording,
// app/recordings/recording_file.h). `compact` leaves out the device (the document carries it once), the job id,
// the build type, and what a reader recomputes from this build's model (modeled bytes and FLOPs,
// achieved rates, ceilings, the simulated limiter): results_import reads both forms.
nlohmann::ordered_json measurement_json_object(const kernels::Measurement& m, bool compact = false);
nlohmann::ordered_json device_json_object(const kernels::DeviceInfo& d);

std::string export_csv(const std::string& path, const std::vector<kernels::Measurement>& ms);
std::string export_json(const std::string& path, const std::vector<kernels::Measurement>& ms);
// RGBA8 pixels, rows top to bottom. Encodes PNG in memory, then write_file_atomic.
std::string export_png(const std::string& path, int width, int height, const std::vector<uint8_t>& rgba);

}  // namespace app
