// Moved to kernels/cuda/gpu_memory.cuh (the CUDA basics below the harness and profiling). This forward
// keeps branches written before the move building; include kernels/cuda/gpu_memory.cuh in new code.
#pragma once

#include "kernels/cuda/gpu_memory.cuh"
