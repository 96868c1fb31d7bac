// Backend::batched_gemm_impl's default: one gemm_impl per batch index i on views of a[i], b[i]
// and c[i] ([B, M, K] -> [M, K] at offset i M K), so every backend that has a GEMM has the
// batched product (reference's loops, the CPU backends' BLAS, cuBLAS) without code of its own.
// As a loop of cblas_?gemm calls, it is what Caffe's and Torch7's batched products were.
#include "kernels/backend.h"

namespace ablate::kernels {
namespace {

// Item i of t [B, R, C] as a [R, C] view.
Tensor item(const Tensor& t, std::int64_t i) { return t.slice0(i, i + 1).reshaped({t.dim(1), t.dim(2)}); }

}  // namespace

void Backend::batched_gemm_impl(bool trans_a, bool trans_b, double alpha, const Tensor& a, const Tensor& b, double beta,
                                Tensor& c) {
  for (std::int64_t i = 0; i < a.dim(0); ++i) {
    Tensor ci = item(c, i);
    gemm_impl(trans_a, trans_b, alpha, item(a, i), item(b, i), beta, ci);
  }
}

}  // namespace ablate::kernels
