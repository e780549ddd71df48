// The diagnostic switches read from the environment (README, "diagnostic switches"), e.g.
// FUSIONLAB_TIMELINE=events, FUSIONLAB_COUNTERS=off, FUSIONLAB_CUPTI_DETACH=1. Read on every call:
// tests may set and unset them.
#pragma once

#include <cstdlib>
#include <string_view>

namespace kernels {

// True when the environment variable `name` is set to exactly `value`.
inline bool env_is(const char* name, std::string_view value) {
    const char* v = std::getenv(name);
    return v != nullptr && value == v;
}

}  // namespace kernels
