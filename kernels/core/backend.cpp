// What kernels/core/backend.h defines beside the interface: the build type compiled in.
#include "kernels/core/backend.h"

#ifndef FUSIONLAB_BUILD_TYPE
#define FUSIONLAB_BUILD_TYPE "unknown"
#endif

namespace kernels {

const char* build_type() { return FUSIONLAB_BUILD_TYPE; }

}  // namespace kernels
