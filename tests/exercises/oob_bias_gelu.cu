// A bias_gelu submission that is right everywhere but also writes 8 elements past the end of out
// (the last block's first threads write one row too far).
extern "C" __global__ void bias_gelu_yours(const T* x, const T* bias, T* out, int64_t hidden) {
    const int64_t row = blockIdx.x;
    for (int64_t c = threadIdx.x; c < hidden; c += blockDim.x)
        out[row * hidden + c] = from_float<T>(gelu(to_float(x[row * hidden + c]) + to_float(bias[c])));
    if (row == gridDim.x - 1 && threadIdx.x < 8) out[(row + 1) * hidden + threadIdx.x] = from_float<T>(1.0f);
}
