// The cuBLASLt GEMMs of ffn's epilogue variants (kernels/ffn/ffn.cu): one GEMM with its descriptors
// and the algorithm cuBLASLt's heuristic picked (LtGemm), and the variant's pair of them, with or
// without their epilogues (LtPair). Host code over cuBLASLt's C API, no device code of ours: ffn.cu's
// GpuWorkload runs the pair with epilogues; tests/gpu_ffn_lt_test.cpp times the same pair without
// them beside it (kernels/PERF.md's goal: the epilogues cost < 5 % at M >= 2048), which no variant runs.
#pragma once

#include "kernels/core/types.h"
#include "kernels/ffn/ffn.h"

#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <stdexcept>
#include <string>

namespace kernels::ffn::gpu {

constexpr size_t kLtWorkspaceBytes = size_t{32} << 20;  // ffn_def.cpp's refusal counts it

inline void check_cublas(cublasStatus_t s, const char* what) {
    if (s != CUBLAS_STATUS_SUCCESS)
        throw std::runtime_error(std::string(what) + ": " + cublasGetStatusName(s) + " (" + cublasGetStatusString(s) + ")");
}

inline cudaDataType_t cuda_type(DType t) {
    switch (t) {
    case DType::f32: return CUDA_R_32F;
    case DType::f16: return CUDA_R_16F;
    case DType::bf16: return CUDA_R_16BF;
    }
    return CUDA_R_32F;
}

// One cuBLASLt GEMM C (rows x N) = A (rows x K) · B (K x N) row-major with an epilogue, its
// descriptors and the algorithm the heuristic picked for them (kept while the shapes stay).
class LtGemm {
public:
    LtGemm(cublasLtHandle_t lt, DType t, int64_t rows, int64_t K, int64_t N, cublasLtEpilogue_t epilogue) : lt_(lt) {
        const cudaDataType_t ct = cuda_type(t);
        check_cublas(cublasLtMatmulDescCreate(&desc_, CUBLAS_COMPUTE_32F, CUDA_R_32F), "cublasLtMatmulDescCreate");
        const cublasOperation_t n = CUBLAS_OP_N;
        check_cublas(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_TRANSA, &n, sizeof n), "transa");
        check_cublas(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_TRANSB, &n, sizeof n), "transb");
        check_cublas(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof epilogue),
                     "epilogue");
        if (epilogue != CUBLASLT_EPILOGUE_DEFAULT)
            check_cublas(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &ct, sizeof ct),
                         "bias data type");
        // Column-major views: B is N x K (ld N), A is K x rows (ld K), C is N x rows (ld N).
        check_cublas(cublasLtMatrixLayoutCreate(&b_, ct, static_cast<uint64_t>(N), static_cast<uint64_t>(K), N), "layout B");
        check_cublas(cublasLtMatrixLayoutCreate(&a_, ct, static_cast<uint64_t>(K), static_cast<uint64_t>(rows), K),
                     "layout A");
        check_cublas(cublasLtMatrixLayoutCreate(&c_, ct, static_cast<uint64_t>(N), static_cast<uint64_t>(rows), N),
                     "layout C");
        cublasLtMatmulPreference_t pref = nullptr;
        check_cublas(cublasLtMatmulPreferenceCreate(&pref), "cublasLtMatmulPreferenceCreate");
        const size_t ws = kLtWorkspaceBytes;
        cublasStatus_t st = cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws, sizeof ws);
        cublasLtMatmulHeuristicResult_t result{};
        int found = 0;
        if (st == CUBLAS_STATUS_SUCCESS)
            st = cublasLtMatmulAlgoGetHeuristic(lt_, desc_, b_, a_, c_, c_, pref, 1, &result, &found);
        (void)cublasLtMatmulPreferenceDestroy(pref);
        check_cublas(st, "cublasLtMatmulAlgoGetHeuristic");
        if (found == 0)
            throw std::runtime_error("cuBLASLt offers no kernel for a " + std::to_string(rows) + " x " + std::to_string(N) +
                                     " x " + std::to_string(K) + " " + to_string(t) + " GEMM with this epilogue");
        algo_ = result.algo;
    }
    ~LtGemm() {
        if (c_) (void)cublasLtMatrixLayoutDestroy(c_);
        if (a_) (void)cublasLtMatrixLayoutDestroy(a_);
        if (b_) (void)cublasLtMatrixLayoutDestroy(b_);
        if (desc_) (void)cublasLtMatmulDescDestroy(desc_);
    }
    LtGemm(const LtGemm&) = delete;
    LtGemm& operator=(const LtGemm&) = delete;

    // Loads A and B tiles into shared memory, accumulates in registers, applies the epilogue (bias,
    // GELU) to the accumulator tile in registers, stores C to HBM once.
    void run(const void* A, const void* B, void* C, const void* bias, void* workspace, cudaStream_t s) {
        if (bias)
            check_cublas(cublasLtMatmulDescSetAttribute(desc_, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias),
                         "bias pointer");
        const float alpha = 1.0f, beta = 0.0f;
        check_cublas(cublasLtMatmul(lt_, desc_, &alpha, B, b_, A, a_, &beta, C, c_, C, c_, &algo_, workspace,
                                    kLtWorkspaceBytes, s),
                     "cublasLtMatmul");
    }

private:
    cublasLtHandle_t lt_;
    cublasLtMatmulDesc_t desc_ = nullptr;
    cublasLtMatrixLayout_t a_ = nullptr, b_ = nullptr, c_ = nullptr;
    cublasLtMatmulAlgo_t algo_{};
};

// The epilogue variant's two GEMMs for one parameter set (with or without their epilogues).
struct LtPair {
    std::unique_ptr<LtGemm> gemm1, gemm2;
    LtPair(cublasLtHandle_t lt, const FfnParams& p, bool epilogues)
        : gemm1(std::make_unique<LtGemm>(lt, p.dtype, p.M, p.d_model, p.d_ff,
                                         epilogues ? CUBLASLT_EPILOGUE_GELU_BIAS : CUBLASLT_EPILOGUE_DEFAULT)),
          gemm2(std::make_unique<LtGemm>(lt, p.dtype, p.M, p.d_ff, p.d_model,
                                         epilogues ? CUBLASLT_EPILOGUE_BIAS : CUBLASLT_EPILOGUE_DEFAULT)) {}
};

}  // namespace kernels::ffn::gpu
