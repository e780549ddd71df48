// Recordings of real GPUs: every lesson step and the GUI's sweeps measured on one GPU by `fusionlab
// record` (scripts/record_gpu.sh) and shipped as assets/recordings/<card>-<date>/recording.json, so a
// teacher without a GPU can show real numbers. The recorded backend (app/recordings/recorded_backend.h)
// answers from a recording where it has the parameters and variant, and from the simulated GPU of
// the same kind elsewhere; every number says which.
//
// The file is a fusionlab export (app/files/export.h, read by app/files/results_import.h) with the
// device written once and a "recording" header:
//   {"tool": "fusionlab",
//    "recording": {"format": 1, "card": "H100", "date": "2026-11-25", "command": "...",
//                  "started_at": ..., "finished_at": ..., "reps": 5, "build_type": "Release",
//                  "points": 140, "cut": ["why something was left out", ...]},
//    "device": {export's device object: name, driver, runtime, clocks, memory, measured ceilings},
//    "measurements": [export's measurement objects, compact: no device, no modeled side]}
// A malformed or truncated file is refused whole with one message naming the file and the field;
// the app goes on without it.
//
// [SECTION] The recording
// [SECTION] Reading and writing
// [SECTION] Finding recordings
#pragma once

#include "kernels/core/types.h"

#include <map>
#include <memory>
#include <string>
#include <vector>

namespace app {

// =============================================================================================
// [SECTION] The recording
// =============================================================================================

// The version of the file format this build reads and writes.
inline constexpr int kRecordingFormat = 1;
// The file name inside a recording's folder.
inline constexpr const char* kRecordingFile = "recording.json";

struct Recording {
    std::string key;            // "h100-2026-11-27": lower-case card and date; --backend and settings name it
    std::string card;           // "H100": the simulated GPU (kernels::find_sim_gpu) the rest falls back to
    std::string date;           // "2026-11-25": the UTC day the recording was made
    std::string path;           // the file it was read from ("" when built in memory)
    std::string command;        // the command that made it
    std::string started_at, finished_at;  // UTC, ISO 8601
    std::string build_type;     // of the binary that recorded
    int reps = 0;               // timed repetitions per point
    int points = 0;             // parameter sets the recorder enumerated (recorded or cut)
    std::vector<std::string> cut;  // what the recording left out, and why
    // A rehearsal (`fusionlab record --sim`): simulated numbers in a recording's shape, to try the
    // recorder without a GPU. The app never loads one (parse_recording_json refuses it).
    bool rehearsal = false;
    kernels::DeviceInfo device;    // the GPU it was measured on (simulated = false)
    // Every measurement ran on `device`; each has recorded_date == date.
    std::vector<kernels::Measurement> measurements;

    // "H100 (recorded 2026-11-25)": the backend menu's entry and --backend's label.
    std::string label() const;
    // The recorded measurement of `variant` with exactly these parameters (workload, dtype and every
    // parameter the workload takes), or nullptr.
    const kernels::Measurement* find(const kernels::Params& p, const std::string& variant) const;
    // Builds the lookup find() uses; parse_recording_json calls it.
    void index();

private:
    std::map<std::string, size_t> by_point_;
};

// The lookup key of a parameter set and variant: workload, variant, dtype and each parameter the
// workload takes, by its spec order.
std::string point_key(const kernels::Params& p, const std::string& variant);

// "h100" + "-" + date.
std::string recording_key(const std::string& card, const std::string& date);

// The card a device name belongs to: the key of the simulated GPU whose key the name contains
// ("NVIDIA H100 80GB HBM3" -> "H100"); "" when none does.
std::string card_of_device(const std::string& device_name);

// =============================================================================================
// [SECTION] Reading and writing
// =============================================================================================

// The file's text (compact JSON, one measurement per line so diffs stay readable).
std::string recording_to_json(const Recording& r);

// Parses a recording. Returns "" and fills `out`, or the message: the JSON path of the bad field and
// what is wrong ("$.measurements[12].time.median_ms: expected a number"); `out` is untouched on error.
// allow_rehearsal: accept a rehearsal too (the recorder's check of what it wrote).
std::string parse_recording_json(const std::string& text, Recording& out, bool allow_rehearsal = false);
// Reads and parses a file; the message starts with the path ("F: not JSON: ...", "F: $.recording.date: ...").
std::string load_recording(const std::string& path, Recording& out, bool allow_rehearsal = false);

// =============================================================================================
// [SECTION] Finding recordings
// =============================================================================================

// The folder of recordings: $FUSIONLAB_RECORDINGS, else the installed share/fusionlab/assets/recordings
// beside the program's bin/, else the source tree's assets/recordings. "" with why_not when none exists.
std::string recordings_dir(std::string* why_not = nullptr);

struct RecordingCatalog {
    std::string dir;                                      // where they were looked for
    std::vector<std::shared_ptr<const Recording>> recordings;  // readable ones, by card, then date
    std::vector<std::string> errors;                      // one line per unreadable file: "F: field: what"
};

// Every DIR/*/recording.json, each read whole or refused whole with its message.
RecordingCatalog load_recordings(const std::string& dir);
// The recordings of recordings_dir(), read once per process (per value of $FUSIONLAB_RECORDINGS); the
// GUI, bench and the runner share them. Thread-safe.
std::shared_ptr<const RecordingCatalog> recordings();
// A recording by key ("h100-2026-11-27"), label ("H100 (recorded 2026-11-25)") or card ("h100": the
// newest of that card), case-insensitive; nullptr when none matches.
std::shared_ptr<const Recording> find_recording(const RecordingCatalog& catalog, const std::string& name);
// The same in recordings().
std::shared_ptr<const Recording> find_recording(const std::string& name);

}  // namespace app
