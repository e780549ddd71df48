// The commands' runners, one file each (app/cli/info.cpp, bench_sweep.cpp, lessons.cpp; `record`
// is app/cli/record.h's run_record), called by run_command (app/cli/entry.cpp). Each takes
// its parsed options (app/cli/cli.h) and returns the exit code.
#pragma once

#include "app/cli/cli.h"

#include <iosfwd>

namespace app::cli {

// `fusionlab info`: the build, the GPU (or why none), counters, lessons, recordings, simulated GPUs.
int run_info(const InfoOptions& o, std::ostream& out);
// `fusionlab bench`: the sweep through the runner, a table row per measurement, then the exports.
int run_bench(const BenchOptions& o, std::ostream& out, std::ostream& err);

}  // namespace app::cli
