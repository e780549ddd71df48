// An exercise's reference solution as measured on real GPUs, for where nothing can run (no GPU;
// the simulated and recorded backends): exercises/measured/NAME.CARD.json beside the exercise
// files, each the --json of `fusionlab exercises run NAME --solution` on one card (written by
// scripts/device_exercises_run.sh on a lent GPU, copied in after the round). The pane and
// `exercises run` without a GPU show what the reference solution did there: its time and DRAM
// bytes beside the compared variants of the same run, and each goal's verdict.
#pragma once

#include "app/exercises/exercise.h"

#include <string>
#include <vector>

namespace app::exercises {

struct MeasuredReference {
    std::string file;                // the JSON's path
    std::string device;              // the card it ran on ("NVIDIA H100 80GB HBM3")
    std::vector<std::string> lines;  // the reference's row against the compared variants, then each goal's verdict
    std::string error;               // why the file could not be used ("" when it was)
};

// Every measured file of `ex` (sorted by name); none where the folder does not exist.
std::vector<MeasuredReference> measured_references(const Exercise& ex);

}  // namespace app::exercises
