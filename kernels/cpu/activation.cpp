// ReLU, tanh and sigmoid, elementwise (Caffe's ReLULayer with negative_slope 0, TanHLayer,
// SigmoidLayer). Backward reads the output y, so forward may run in place:
//   relu: dx = dy * (y > 0);  tanh: dx = dy * (1 - y^2);  sigmoid: dx = dy * y * (1 - y).
// GELU (kernels/gelu_math.h) reads x: dx = dy * GELU'(x), in the tensor's precision.
#include <cmath>

#include "kernels/gelu_math.h"

#include "kernels/cpu/activation_math.h"
#include "kernels/cpu/cpu_backend.h"
#include "kernels/cpu/dtype_dispatch.h"
#include "kernels/cpu/parallel_for.h"

namespace ablate::kernels::cpu {
void CpuBackend::activation_forward_impl(Activation a, const Tensor& x, Tensor& y) {
  dispatch_float(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* in = x.data<T>();
    T* out = y.data<T>();
    for_activation<T>(a, [&](auto f) { parallel_each(loop_threads_, x.numel(), [=](std::int64_t i) { out[i] = f(in[i]); }); });
  });
}

void CpuBackend::activation_backward_impl(Activation a, const Tensor& y, const Tensor& dy, Tensor& dx) {
  dispatch_float(y.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* out = y.data<T>();
    const T* g = dy.data<T>();
    T* d = dx.data<T>();
    for_activation_grad<T>(a, [&](auto f) {
      parallel_each(loop_threads_, y.numel(), [=](std::int64_t i) { d[i] = f(out[i], g[i]); });
    });
  });
}

void CpuBackend::gelu_forward_impl(const Tensor& x, Tensor& y, GeluApprox approx) {
  dispatch_float(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* in = x.data<T>();
    T* out = y.data<T>();
    parallel_each(loop_threads_, x.numel(), [=](std::int64_t i) { out[i] = gelu_value(in[i], approx); });
  });
}

void CpuBackend::gelu_backward_impl(const Tensor& x, const Tensor& dy, Tensor& dx, GeluApprox approx) {
  dispatch_float(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *in = x.data<T>(), *g = dy.data<T>();
    T* d = dx.data<T>();
    parallel_each(loop_threads_, x.numel(), [=](std::int64_t i) { d[i] = g[i] * gelu_derivative(in[i], approx); });
  });
}

}  // namespace ablate::kernels::cpu
