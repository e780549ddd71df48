// A deliberately wrong bias_gelu submission: it forgets the bias (out = GELU(x)).
extern "C" __global__ void bias_gelu_yours(const T* x, const T* bias, T* out, int64_t hidden) {
    const int64_t row = blockIdx.x;
    for (int64_t c = threadIdx.x; c < hidden; c += blockDim.x)
        out[row * hidden + c] = from_float<T>(gelu(to_float(x[row * hidden + c])));
}
