// Minimal form of elementwise v9's leader handover: is racecheck's report about the pattern itself?
#include <cstdio>
__device__ __forceinline__ void bar_arrive(int id, int n) { asm volatile("bar.arrive %0, %1;" :: "r"(id), "r"(n) : "memory"); }
__device__ __forceinline__ void bar_sync(int id, int n) { asm volatile("bar.sync %0, %1;" :: "r"(id), "r"(n) : "memory"); }
// mode 0: v9 (others arrive at 1, leader arrives at 2); 1: the leader syncs at 2; 2: everyone syncs at both
template <int kMode>
__global__ void handover(const float* x, float* out, int rows) {
    __shared__ float scratch[8];
    __shared__ float total;
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, n = blockDim.x;
    for (int row = blockIdx.x; row < rows; row += gridDim.x) {
        float v = x[row * n + threadIdx.x];
        for (int o = 16; o > 0; o >>= 1) v += __shfl_xor_sync(0xffffffffu, v, o);
        if (lane == 0) scratch[warp] = v;                // this warp's partial -> shared
        if (warp != 0) {
            if (kMode == 2) bar_sync(1, n); else bar_arrive(1, n);  // partials written
            bar_sync(2, n);                              // the leader has written the total
            v = total;                                   // shared -> registers
        } else {
            bar_sync(1, n);                              // every partial written
            float t = 0;
            for (int w = 0; w < n / 32; ++w) t += scratch[w];
            if (lane == 0) total = t;                    // registers -> shared
            if (kMode >= 1) bar_sync(2, n); else bar_arrive(2, n);
            v = t;
        }
        out[row * n + threadIdx.x] = v;
    }
}
#include <cstring>
int main(int argc, char** argv) {
    const char* which = argc > 1 ? argv[1] : "both";
    const int rows = 64, n = 256;
    float *x, *out;
    cudaMalloc(&x, rows * n * 4); cudaMalloc(&out, rows * n * 4);
    float h[rows * n]; for (int i = 0; i < rows * n; ++i) h[i] = float(i % 7);
    cudaMemcpy(x, h, sizeof h, cudaMemcpyHostToDevice);
    if (!strcmp(which, "0") || !strcmp(which, "both")) handover<0><<<8, n>>>(x, out, rows);
    if (!strcmp(which, "1") || !strcmp(which, "both")) handover<1><<<8, n>>>(x, out, rows);
    if (!strcmp(which, "2") || !strcmp(which, "both")) handover<2><<<8, n>>>(x, out, rows);
    cudaError_t e = cudaDeviceSynchronize();
    float r[rows * n]; cudaMemcpy(r, out, sizeof r, cudaMemcpyDeviceToHost);
    double want = 0; for (int i = 0; i < n; ++i) want += h[i];
    printf("%s %s: out[0] %.1f want %.1f\n", which, cudaGetErrorString(e), r[0], want);
    return 0;
}
