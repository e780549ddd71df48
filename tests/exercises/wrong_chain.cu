// A deliberately wrong chain submission: dropout keeps the right elements but forgets to scale them
// by keep_scale = 1 / (1 - p).
__device__ float block_sum(float v, float* scratch) {
    for (int offset = 16; offset > 0; offset >>= 1) v += __shfl_xor_sync(0xFFFFFFFFu, v, offset);
    __syncthreads();
    if ((threadIdx.x & 31) == 0) scratch[threadIdx.x >> 5] = v;
    __syncthreads();
    float total = 0.0f;
    for (int w = 0; w < (int)(blockDim.x >> 5); ++w) total += scratch[w];
    return total;
}

extern "C" __global__ void chain_yours(const T* x, const T* residual, const T* gamma, const T* beta, T* out,
                                       int64_t hidden, uint64_t seed, uint32_t threshold, float keep_scale) {
    __shared__ float scratch[32];
    const int64_t start = (int64_t)blockIdx.x * hidden;
    float sum = 0.0f;
    for (int64_t c = threadIdx.x; c < hidden; c += blockDim.x) sum += to_float(x[start + c]);
    const float mean = block_sum(sum, scratch) / (float)hidden;
    float sq = 0.0f;
    for (int64_t c = threadIdx.x; c < hidden; c += blockDim.x) {
        const float d = to_float(x[start + c]) - mean;
        sq += d * d;
    }
    const float rstd = rsqrtf(block_sum(sq, scratch) / (float)hidden + FL_LAYERNORM_EPS);
    for (int64_t c = threadIdx.x; c < hidden; c += blockDim.x) {
        float h = gelu((to_float(x[start + c]) - mean) * rstd * to_float(gamma[c]) + to_float(beta[c]));
        h = dropout_keep(seed, (uint64_t)(start + c), threshold) ? h : 0.0f;  // missing: * keep_scale
        out[start + c] = from_float<T>(h + to_float(residual[start + c]));
    }
}
