// A bias_gelu submission that never ends: it spins on a value that never changes (volatile loads,
// so the compiler cannot drop the loop).
extern "C" __global__ void bias_gelu_yours(const T* x, const T* bias, T* out, int64_t hidden) {
    const volatile unsigned short* bits = reinterpret_cast<const volatile unsigned short*>(x);
    while (bits[0] == bits[0]) {
    }
    out[blockIdx.x * hidden] = from_float<T>(0.0f);
}
