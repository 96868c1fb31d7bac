// ReLU, tanh and sigmoid, elementwise (Caffe's ReLULayer with negative_slope 0, TanHLayer,
// SigmoidLayer). Backward reads the output y, so forward may run in place:
//   relu: dx = dy * (y > 0);  tanh: dx = dy * (1 - y^2);  sigmoid: dx = dy * y * (1 - y).
// GELU (kernels/gelu_math.h) reads x: dx = dy * GELU'(x), in the tensor's precision.
#include <cmath>

#include "kernels/gelu_math.h"

#include "kernels/cpu/cpu_backend.h"
#include "kernels/cpu/dtype_dispatch.h"
#include "kernels/cpu/parallel_for.h"

namespace ablate::kernels::cpu {
void CpuBackend::activation_forward_impl(Activation a, const Tensor& x, Tensor& y) {
  dispatch_float(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* in = x.data<T>();
    T* out = y.data<T>();
    switch (a) {
      case Activation::relu:
        parallel_each(threads_, x.numel(), [=](std::int64_t i) { out[i] = in[i] > T(0) ? in[i] : T(0); });
        break;
      case Activation::tanh:
        parallel_each(threads_, x.numel(), [=](std::int64_t i) { out[i] = std::tanh(in[i]); });
        break;
      case Activation::sigmoid:
        parallel_each(threads_, x.numel(), [=](std::int64_t i) { out[i] = T(1) / (T(1) + std::exp(-in[i])); });
        break;
      case Activation::gelu:
      case Activation::gelu_tanh: break;  // run as gelu_forward by Backend::activation_forward
    }
  });
}

void CpuBackend::activation_backward_impl(Activation a, const Tensor& y, const Tensor& dy, Tensor& dx) {
  dispatch_float(y.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* out = y.data<T>();
    const T* g = dy.data<T>();
    T* d = dx.data<T>();
    switch (a) {
      case Activation::relu:
        parallel_each(threads_, y.numel(), [=](std::int64_t i) { d[i] = out[i] > T(0) ? g[i] : T(0); });
        break;
      case Activation::tanh:
        parallel_each(threads_, y.numel(), [=](std::int64_t i) { d[i] = g[i] * (T(1) - out[i] * out[i]); });
        break;
      case Activation::sigmoid:
        parallel_each(threads_, y.numel(), [=](std::int64_t i) { d[i] = g[i] * out[i] * (T(1) - out[i]); });
        break;
      case Activation::gelu:
      case Activation::gelu_tanh: break;  // run as gelu_backward, from x
    }
  });
}

void CpuBackend::gelu_forward_impl(const Tensor& x, Tensor& y, GeluApprox approx) {
  dispatch_float(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* in = x.data<T>();
    T* out = y.data<T>();
    parallel_each(threads_, x.numel(), [=](std::int64_t i) { out[i] = gelu_value(in[i], approx); });
  });
}

void CpuBackend::gelu_backward_impl(const Tensor& x, const Tensor& dy, Tensor& dx, GeluApprox approx) {
  dispatch_float(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *in = x.data<T>(), *g = dy.data<T>();
    T* d = dx.data<T>();
    parallel_each(threads_, x.numel(), [=](std::int64_t i) { d[i] = g[i] * gelu_derivative(in[i], approx); });
  });
}

}  // namespace ablate::kernels::cpu
