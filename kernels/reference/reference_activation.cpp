// Pointwise activations. Forward y = f(x); backward reads the output y, as Caffe's in-place
// ReLU/TanH/Sigmoid layers and Torch's modules do, so x and y may be one tensor, and dx may
// alias dy:
//   relu:    y = max(x, 0)          dx = dy * (y > 0)
//   tanh:    y = tanh(x)            dx = dy * (1 - y^2)
//   sigmoid: y = 1 / (1 + e^-x)     dx = dy * y (1 - y)
// GELU (kernels/gelu_math.h) reads x instead: dx = dy * GELU'(x).
// Each element is computed in double and rounded once.
#include <cmath>

#include "kernels/gelu_math.h"
#include "kernels/activation_formulas.h"
#include "kernels/reference/reference_backend_impl.h"
#include "kernels/reference/reference_loops.h"

namespace ablate::kernels::reference {

void ReferenceBackend::activation_forward_impl(Activation a, const Tensor& x, Tensor& y) {
  with_float_type(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* in = x.data<T>();
    T* out = y.data<T>();
    for (std::int64_t i = 0; i < x.numel(); ++i) out[i] = static_cast<T>(activate(a, in[i]));
  });
}

void ReferenceBackend::activation_backward_impl(Activation a, const Tensor& y, const Tensor& dy, Tensor& dx) {
  with_float_type(y.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* out = y.data<T>();
    const T* d_out = dy.data<T>();
    T* d_in = dx.data<T>();
    for (std::int64_t i = 0; i < y.numel(); ++i)
      d_in[i] = static_cast<T>(double(d_out[i]) * derivative_from_output(a, out[i]));
  });
}

void ReferenceBackend::gelu_forward_impl(const Tensor& x, Tensor& y, GeluApprox approx) {
  with_float_type(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* in = x.data<T>();
    T* out = y.data<T>();
    for (std::int64_t i = 0; i < x.numel(); ++i) out[i] = static_cast<T>(gelu_value(double(in[i]), approx));
  });
}

void ReferenceBackend::gelu_backward_impl(const Tensor& x, const Tensor& dy, Tensor& dx, GeluApprox approx) {
  with_float_type(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *in = x.data<T>(), *d_out = dy.data<T>();
    T* d_in = dx.data<T>();
    for (std::int64_t i = 0; i < x.numel(); ++i)
      d_in[i] = static_cast<T>(double(d_out[i]) * gelu_derivative(double(in[i]), approx));
  });
}

}  // namespace ablate::kernels::reference
