// GEMM and the fully connected layer (Caffe's InnerProduct, Torch's nn.Linear) as the triple
// loop of reference_loops.h. Shapes: x [N,I], w [O,I], bias [O] or empty, y [N,O].
//   forward:         y  = x w^T + bias
//   backward data:   dx = dy w            ([N,O] x [O,I])
//   backward weights dw = dy^T x          ([O,N] x [N,I]),  dbias = sum over n of dy
#include "kernels/reference/reference_backend_impl.h"
#include "kernels/reference/reference_loops.h"

namespace ablate::kernels::reference {

void ReferenceBackend::gemm_impl(bool trans_a, bool trans_b, double alpha, const Tensor& a, const Tensor& b,
                                 double beta, Tensor& c) {
  std::int64_t M = trans_a ? a.dim(1) : a.dim(0), K = trans_a ? a.dim(0) : a.dim(1);
  std::int64_t N = trans_b ? b.dim(0) : b.dim(1);
  with_float_type(a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    gemm_loops<T>(trans_a, trans_b, M, N, K, alpha, a.data<T>(), b.data<T>(), beta, c.data<T>());
  });
}

void ReferenceBackend::linear_forward_impl(const Tensor& x, const Tensor& w, const Tensor& bias, Tensor& y) {
  std::int64_t N = x.dim(0), I = x.dim(1), O = w.dim(0);
  with_float_type(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    gemm_loops<T>(false, true, N, O, I, 1.0, x.data<T>(), w.data<T>(), 0.0, y.data<T>());
    if (!bias.empty()) add_channel_bias<T>(y.data<T>(), N, O, 1, bias.data<T>());
  });
}

void ReferenceBackend::linear_backward_data_impl(const Tensor& dy, const Tensor& w, Tensor& dx) {
  std::int64_t N = dy.dim(0), O = dy.dim(1), I = w.dim(1);
  with_float_type(dy.dtype(), [&](auto tag) {
    using T = decltype(tag);
    gemm_loops<T>(false, false, N, I, O, 1.0, dy.data<T>(), w.data<T>(), 0.0, dx.data<T>());
  });
}

void ReferenceBackend::linear_backward_weights_impl(const Tensor& x, const Tensor& dy, Tensor& dw, Tensor& dbias) {
  std::int64_t N = x.dim(0), I = x.dim(1), O = dy.dim(1);
  with_float_type(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    gemm_loops<T>(true, false, O, I, N, 1.0, dy.data<T>(), x.data<T>(), 0.0, dw.data<T>());
    if (!dbias.empty()) channel_sums<T>(dy.data<T>(), N, O, 1, dbias.data<T>());
  });
}

}  // namespace ablate::kernels::reference
