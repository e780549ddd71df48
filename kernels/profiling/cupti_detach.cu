// detach_cupti() (cupti_detach.h): cuptiFinalize, counted so CUPTI's users know to set up again.
#include "kernels/profiling/cupti_detach.h"

#include "kernels/core/env.h"

#include <atomic>

#if FUSIONLAB_HAVE_CUPTI
#include <cupti_activity.h>
#include <cupti_result.h>
#endif

namespace kernels {

namespace {
std::atomic<uint64_t> g_detaches{0};
}

// Off unless FUSIONLAB_CUPTI_DETACH=1 (cupti_detach.h: detaching was measured to keep more).
bool cupti_detach_enabled() { return env_is("FUSIONLAB_CUPTI_DETACH", "1"); }

std::string detach_cupti() {
#if FUSIONLAB_HAVE_CUPTI
    // Activity records still buffered would be lost: hand them over first (the trace does this
    // already; this keeps the call safe on its own).
    (void)cuptiActivityFlushAll(1);
    if (const CUptiResult r = cuptiFinalize(); r != CUPTI_SUCCESS) {
        const char* text = nullptr;
        cuptiGetResultString(r, &text);
        return std::string("cuptiFinalize failed: ") + (text ? text : "unknown CUPTI error");
    }
    g_detaches.fetch_add(1);
#endif
    return "";
}

uint64_t cupti_detach_count() { return g_detaches.load(); }

}  // namespace kernels
