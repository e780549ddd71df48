// A correct chain submission written plainly: 2-byte loads, three passes over the row, one Philox
// call per element. Fewest DRAM bytes, but 3.05x fused's time on an H100 and 3.27x on an H200
// (the previous reference solution, 2026-11-28): what the exercise's time goal must turn away.
// The sum of v over the block, returned to every thread. scratch: one float per warp.
__device__ float block_sum(float v, float* scratch) {
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xFFFFFFFFu, v, offset);
    __syncthreads();  // the previous call's readers are done with scratch
    if ((threadIdx.x & 31) == 0) scratch[threadIdx.x >> 5] = v;
    __syncthreads();
    float total = 0.0f;
    for (int w = 0; w < (int)(blockDim.x >> 5); ++w) total += scratch[w];
    return total;
}

extern "C" __global__ void chain_yours(const T* __restrict__ x, const T* __restrict__ residual,
                                       const T* __restrict__ gamma, const T* __restrict__ beta, T* __restrict__ out,
                                       int64_t hidden, uint64_t seed, uint32_t threshold, float keep_scale) {
    __shared__ float scratch[32];
    const int64_t row = blockIdx.x, start = row * hidden;
    const T* xr = x + start;
    float sum = 0.0f;
    for (int64_t c = threadIdx.x; c < hidden; c += blockDim.x) sum += to_float(xr[c]);  // x from DRAM
    const float mean = block_sum(sum, scratch) / (float)hidden;
    float sq = 0.0f;
    for (int64_t c = threadIdx.x; c < hidden; c += blockDim.x) {  // x again: from L1/L2
        const float d = to_float(xr[c]) - mean;
        sq += d * d;
    }
    const float rstd = rsqrtf(block_sum(sq, scratch) / (float)hidden + FL_LAYERNORM_EPS);
    for (int64_t c = threadIdx.x; c < hidden; c += blockDim.x) {
        float h = (to_float(xr[c]) - mean) * rstd * to_float(gamma[c]) + to_float(beta[c]);
        h = gelu(h);
        h = dropout_keep(seed, (uint64_t)(start + c), threshold) ? h * keep_scale : 0.0f;
        out[start + c] = from_float<T>(h + to_float(residual[start + c]));  // out written once
    }
}
