// Reading measurements back from a JSON export (app/files/export.cpp writes it): so numbers measured on
// a GPU machine — `fusionlab bench --json F` there — can be drawn on a laptop without one
// (`fusionlab shot --results F`, `fusionlab --results F`), labelled with the device they came from.
#pragma once

#include "kernels/core/types.h"

#include <nlohmann/json_fwd.hpp>

#include <string>
#include <vector>

namespace app {

// Parses an export's text. Returns "" and fills `out`, or a message naming what is wrong
// ("measurements[2].params.N: 0 is out of range ..."); `out` is left empty on error. Measurements
// that failed or were refused come back with ok == false and their error, as exported.
std::string parse_measurements_json(const std::string& text, std::vector<kernels::Measurement>& out);

// Reads and parses a file; the message names the path ("F: cannot read: No such file").
std::string load_measurements_json(const std::string& path, std::vector<kernels::Measurement>& out);

// For documents that embed measurements (a recording, app/recordings/recording_file.h). Each returns "" or the
// JSON path of the bad field and what is wrong ("$.device.sm_count: expected a whole number"), and
// leaves `out` as it was on error.
// A device object as export's device_json writes it; `path` names it in messages.
std::string read_device_json(const nlohmann::json& j, const std::string& path, kernels::DeviceInfo& out);
// A list of measurement objects (full or compact, export.h's measurement_json). Objects without a
// "device" take `device` (nullptr: each must have its own).
std::string read_measurement_list(const nlohmann::json& list, const std::string& path,
                                  const kernels::DeviceInfo* device, std::vector<kernels::Measurement>& out);

}  // namespace app
