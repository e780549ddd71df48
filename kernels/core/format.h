// Human-readable numbers shared by the CLI table, the GUI panels and the exports' notes.
#pragma once

#include <cstdint>
#include <string>

namespace kernels {

std::string format_bytes(double bytes);      // "384.0 MiB", "1.50 GiB", "512 B"
std::string format_time_ms(double ms);       // "91.4 us", "1.234 ms", "2.10 s"
std::string format_gbps(double gbps);        // "3912 GB/s", "1.20 GB/s"
std::string format_flops(double flops);      // "1.07 GFLOP", "3.4 TFLOP"
std::string format_rate_flops(double flop_per_s);  // "285 TFLOP/s"
std::string format_count(int64_t n);         // "1,048,576"

}  // namespace kernels
