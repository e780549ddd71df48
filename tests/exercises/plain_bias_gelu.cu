// A correct bias_gelu submission written plainly: one 2-byte element per load, a strided loop per
// thread (few bytes in flight). It moves the fewest DRAM bytes but misses the exercise's time goal:
// the previous reference solution (2026-11-28 rounds: 1.78x fused on an H100, 2.16x on an H200).
extern "C" __global__ void bias_gelu_yours(const T* __restrict__ x, const T* __restrict__ bias, T* __restrict__ out,
                                           int64_t hidden) {
    const int64_t row = blockIdx.x;
    const T* xr = x + row * hidden;
    T* outr = out + row * hidden;
    for (int64_t c = threadIdx.x; c < hidden; c += blockDim.x)
        outr[c] = from_float<T>(gelu(to_float(xr[c]) + to_float(bias[c])));  // x in, out written once
}
