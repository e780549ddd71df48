// CUPTI opened when first needed (dlopen), not linked: the GPU module starts on a machine where
// libcupti is missing, and only the hardware counters and the CUPTI timeline say they are
// unavailable (why: cupti_status()). cupti_lazy.cpp defines every CUPTI function the module calls
// as a forwarder to the library; without it each returns CUPTI_ERROR_NOT_INITIALIZED and
// cuptiGetResultString says which library could not be opened and how to install it.
// GPU module only.
#pragma once

#include <string>

namespace kernels {

// "libcupti.so.13": the CUPTI of the toolkit this module was built with.
const char* cupti_library_name();
// "" when libcupti is (or can be) opened; else why not, with what to install. Opens it on first call.
std::string cupti_status();

}  // namespace kernels
