// Fully connected layer as Caffe's InnerProductLayer: one GEMM each way.
//   forward          y [N,O]  = x [N,I] x w^T [I,O]  (+ bias [O] on every row)
//   backward data    dx [N,I] = dy [N,O] x w [O,I]
//   backward weights dw [O,I] = dy^T [O,N] x x [N,I];  dbias[o] = sum_n dy[n,o]
#include "kernels/cpu/bias_loops.h"
#include "kernels/cpu/cpu_backend.h"
#include "kernels/cpu/dtype_dispatch.h"

namespace ablate::kernels::cpu {
namespace {

struct LinearSizes {
  int n, in, out;
};

// x [N,I] (or dx), w [O,I] (or dw), as checked by the contract.
LinearSizes linear_sizes(const Tensor& x, const Tensor& w) {
  return {static_cast<int>(x.dim(0)), static_cast<int>(x.dim(1)), static_cast<int>(w.dim(0))};
}

}  // namespace

void CpuBackend::linear_forward_impl(const Tensor& x, const Tensor& w, const Tensor& bias, Tensor& y) {
  const LinearSizes s = linear_sizes(x, w);
  dispatch_float(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    run_gemm<T>(false, true, s.n, s.out, s.in, T(1), x.data<T>(), s.in, w.data<T>(), s.in, T(0), y.data<T>(), s.out);
    if (!bias.empty()) add_channel_bias(loop_threads_, y.data<T>(), bias.data<T>(), s.n, s.out, 1);
  });
}

void CpuBackend::linear_backward_data_impl(const Tensor& dy, const Tensor& w, Tensor& dx) {
  const LinearSizes s = linear_sizes(dx, w);
  dispatch_float(dx.dtype(), [&](auto tag) {
    using T = decltype(tag);
    run_gemm<T>(false, false, s.n, s.in, s.out, T(1), dy.data<T>(), s.out, w.data<T>(), s.in, T(0), dx.data<T>(), s.in);
  });
}

void CpuBackend::linear_backward_weights_impl(const Tensor& x, const Tensor& dy, Tensor& dw, Tensor& dbias) {
  const LinearSizes s = linear_sizes(x, dw);
  dispatch_float(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    run_gemm<T>(true, false, s.out, s.in, s.n, T(1), dy.data<T>(), s.out, x.data<T>(), s.in, T(0), dw.data<T>(), s.in);
    if (!dbias.empty()) channel_bias_grad(loop_threads_, dy.data<T>(), s.n, s.out, 1, dbias.data<T>());
  });
}

}  // namespace ablate::kernels::cpu
