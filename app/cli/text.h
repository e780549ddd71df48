// Small text helpers the commands share: formatting numbers and padding table cells (counting
// terminal columns, not bytes), quoting what was typed on one line, the shape of a configuration.
#pragma once

#include "kernels/core/types.h"

#include <cstddef>
#include <string>
#include <vector>

namespace app::cli {

std::string printf_string(const char* format, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
std::string join(const std::vector<std::string>& items, const std::string& separator);
std::string trim(const std::string& s);
// Control characters (a newline or escape pasted into a value) shown as \n, \t, \xNN, so an
// error message that quotes what was typed stays one line on the terminal.
std::string printable(const std::string& s);
// Display width in terminal columns: count UTF-8 code points, not bytes, so "µs" pads right.
size_t display_width(const std::string& s);
std::string pad_right(const std::string& s, size_t width);
std::string pad_left(const std::string& s, size_t width);
// A whole number without a decimal point ("4096"), anything else as %g.
std::string number_text(double v);
// "1755 MHz", or "n/a" when the clock is unknown (0).
std::string clock_text(int mhz);
// The shape of one configuration for tables and messages, from the workload's definition:
// "4096 x 4096", "64 heads, N=4096, d=64, causal, tile 128x64" (the tile the variant's kernel
// really uses: naive has none, flash_tc a fixed one whatever --br/--bc say).
std::string shape_text(const kernels::Params& p, const std::string& variant);

}  // namespace app::cli
