// A bias_gelu submission that faults: it writes far outside any allocation.
extern "C" __global__ void bias_gelu_yours(const T* x, const T* bias, T* out, int64_t hidden) {
    out[blockIdx.x * hidden + threadIdx.x - (int64_t{1} << 40)] = from_float<T>(to_float(x[0]) + to_float(bias[0]));
}
