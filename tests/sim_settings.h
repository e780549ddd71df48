// The simulated backend and settings the app-core tests share: a resolved simulated H100 (or any
// datasheet GPU) and attention in fp16 selected on it.
#pragma once

#include "app/core/jobs.h"
#include "app/core/settings.h"
#include "kernels/sim/sim_backend.h"

#include <string>

namespace fl_test {

inline app::ResolvedBackend sim_backend(const std::string& key = "H100") {
    app::ResolvedBackend b;
    b.ready = true;
    b.kind = kernels::BackendKind::simulated;
    b.sim_key = key;
    b.device = kernels::find_sim_gpu(key)->info;
    return b;
}

inline app::Settings attention_settings() {
    app::Settings s;
    s.backend = "H100";
    s.params.workload = "attention";
    s.params.dtype = kernels::DType::f16;
    return s;
}

}  // namespace fl_test
