// `fusionlab bench`'s table: the header (what the numbers are: simulated, recorded or measured,
// the device, the ceiling), one row per measurement (and per kernel with --kernels), and the
// PyTorch reference rows under it. app/cli/bench_sweep.cpp prints through these as results come.
#pragma once

#include "app/files/reference.h"
#include "kernels/core/types.h"

#include <cstddef>
#include <iosfwd>
#include <vector>

namespace app::cli {

// shape_width: the widest shape of the sweep (the shape column is that wide).
void print_header(std::ostream& out, const kernels::Measurement& first, size_t shape_width);
void print_measurement(std::ostream& out, const kernels::Measurement& m, bool per_kernel, size_t shape_width);
// The reference rows under the table: one line per PyTorch row that matches a measured parameter
// set (on the same GPU, or any device when the table is simulated), labelled as not ours.
void print_reference(std::ostream& out, const ReferenceFile& file, const std::vector<kernels::Measurement>& all);

}  // namespace app::cli
