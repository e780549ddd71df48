// A correct skip_epilogue submission written plainly: one 2-byte element per load and store (the
// previous reference solution, 1.05-1.06x two_pass's time on an H100 and an H200, 2026-11-28).
extern "C" __global__ void skip_epilogue_yours(const T* __restrict__ attn_out, const T* __restrict__ x,
                                               T* __restrict__ out, int N, int d, int heads, int batch, float t,
                                               float sigma_d) {
    const int64_t r = blockIdx.x;
    const int b = (int)(r / N), n = (int)(r % N);
    float c_skip, c_out;
    skip_coefficients(t, sigma_d, b, batch, c_skip, c_out);
    const int64_t C = (int64_t)heads * d;
    for (int64_t col = threadIdx.x; col < C; col += blockDim.x) {
        const int h = (int)(col / d), c = (int)(col % d);
        const float o = to_float(attn_out[(((int64_t)b * heads + h) * N + n) * d + c]);  // attn_out from DRAM
        const float xv = to_float(x[r * C + col]);                                      // x from DRAM
        out[r * C + col] = from_float<T>(c_out == 0.0f ? c_skip * xv : fmaf(c_out, o, c_skip * xv));
    }
}
