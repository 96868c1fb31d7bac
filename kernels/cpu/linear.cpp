// Fully connected layer as Caffe's InnerProductLayer: one GEMM each way.
//   forward          y [N,O]  = x [N,I] x w^T [I,O]  (+ bias [O] on every row)
//   backward data    dx [N,I] = dy [N,O] x w [O,I]
//   backward weights dw [O,I] = dy^T [O,N] x x [N,I];  dbias[o] = sum_n dy[n,o]
#include "kernels/cpu/bias_loops.h"
#include "kernels/cpu/cpu_backend.h"
#include "kernels/cpu/dtype_dispatch.h"
#include "kernels/cpu/op_checks.h"

namespace ablate::kernels::cpu {
namespace {

struct LinearSizes {
  int n, in, out;
};

// x [N,I] (or dx), w [O,I] (or dw), y [N,O] (or dy), all one float dtype.
LinearSizes linear_sizes(const Tensor& x, const Tensor& w, const Tensor& y, const char* op, const char* x_arg,
                         const char* w_arg, const char* y_arg) {
  check_float(x, op, x_arg);
  check_ndim(x, 2, op, x_arg);
  check_same_dtype(w, x, op, w_arg);
  check_ndim(w, 2, op, w_arg);
  check_same_dtype(y, x, op, y_arg);
  check_shape(w, {w.dim(0), x.dim(1)}, op, w_arg);
  check_shape(y, {x.dim(0), w.dim(0)}, op, y_arg);
  return {static_cast<int>(x.dim(0)), static_cast<int>(x.dim(1)), static_cast<int>(w.dim(0))};
}

void check_bias(const Tensor& bias, const Tensor& like, std::int64_t out, const char* op, const char* arg) {
  if (bias.empty()) return;
  check_same_dtype(bias, like, op, arg);
  check_shape(bias, {out}, op, arg);
}

}  // namespace

void CpuBackend::linear_forward(const Tensor& x, const Tensor& w, const Tensor& bias, Tensor& y) {
  const char* op = "linear_forward";
  const LinearSizes s = linear_sizes(x, w, y, op, "x", "w", "y");
  check_bias(bias, x, s.out, op, "bias");
  dispatch_float(x.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    run_gemm<T>(false, true, s.n, s.out, s.in, T(1), x.data<T>(), s.in, w.data<T>(), s.in, T(0), y.data<T>(), s.out);
    if (!bias.empty()) add_channel_bias(threads_, y.data<T>(), bias.data<T>(), s.n, s.out, 1);
  });
}

void CpuBackend::linear_backward_data(const Tensor& dy, const Tensor& w, Tensor& dx) {
  const char* op = "linear_backward_data";
  const LinearSizes s = linear_sizes(dx, w, dy, op, "dx", "w", "dy");
  dispatch_float(dx.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    run_gemm<T>(false, false, s.n, s.in, s.out, T(1), dy.data<T>(), s.out, w.data<T>(), s.in, T(0), dx.data<T>(), s.in);
  });
}

void CpuBackend::linear_backward_weights(const Tensor& x, const Tensor& dy, Tensor& dw, Tensor& dbias) {
  const char* op = "linear_backward_weights";
  const LinearSizes s = linear_sizes(x, dw, dy, op, "x", "dw", "dy");
  check_bias(dbias, x, s.out, op, "dbias");
  dispatch_float(x.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    run_gemm<T>(true, false, s.out, s.in, s.n, T(1), dy.data<T>(), s.out, x.data<T>(), s.in, T(0), dw.data<T>(), s.in);
    if (!dbias.empty()) channel_bias_grad(threads_, dy.data<T>(), s.n, s.out, 1, dbias.data<T>());
  });
}

}  // namespace ablate::kernels::cpu
