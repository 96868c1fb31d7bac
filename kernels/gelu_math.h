// GELU and its derivative for one element, the definition every backend computes (the
// reference in double, the CPU loops and the CUDA kernels in the tensor's precision); see
// GeluApprox in op_params.h. With Phi the standard normal CDF and phi its density:
//   exact: y = x Phi(x) = 0.5 x (1 + erf(x / sqrt 2))         dy/dx = Phi(x) + x phi(x)
//   tanh:  u = sqrt(2/pi) (x + 0.044715 x^3), t = tanh(u)
//          y = 0.5 x (1 + t)                                    dy/dx = 0.5 (1 + t) + 0.5 x (1 - t^2) du/dx,
//          du/dx = sqrt(2/pi) (1 + 3 * 0.044715 x^2)
// Plain C++ that nvcc also compiles for the device (ABLATE_HOST_DEVICE): the C math library's
// float and double functions exist on both sides.
#pragma once

#include <math.h>

#include "kernels/op_params.h"

#include "kernels/host_device.h"

namespace ablate::kernels {
namespace gelu_detail {

ABLATE_HOST_DEVICE inline float erf_of(float v) { return erff(v); }
ABLATE_HOST_DEVICE inline double erf_of(double v) { return erf(v); }
ABLATE_HOST_DEVICE inline float tanh_of(float v) { return tanhf(v); }
ABLATE_HOST_DEVICE inline double tanh_of(double v) { return tanh(v); }
ABLATE_HOST_DEVICE inline float exp_of(float v) { return expf(v); }
ABLATE_HOST_DEVICE inline double exp_of(double v) { return exp(v); }

constexpr double kSqrtHalf = 0.70710678118654752440;       // 1 / sqrt 2
constexpr double kSqrtTwoOverPi = 0.79788456080286535588;  // sqrt(2 / pi)
constexpr double kInvSqrtTwoPi = 0.39894228040143267794;   // 1 / sqrt(2 pi)
constexpr double kCubic = 0.044715;

}  // namespace gelu_detail

template <class T> ABLATE_HOST_DEVICE inline T gelu_value(T x, GeluApprox approx) {
  using namespace gelu_detail;
  const T half(0.5), one(1);
  if (approx == GeluApprox::exact) return half * x * (one + erf_of(x * T(kSqrtHalf)));
  return half * x * (one + tanh_of(T(kSqrtTwoOverPi) * (x + T(kCubic) * x * x * x)));
}

template <class T> ABLATE_HOST_DEVICE inline T gelu_derivative(T x, GeluApprox approx) {
  using namespace gelu_detail;
  const T half(0.5), one(1);
  if (approx == GeluApprox::exact)
    return half * (one + erf_of(x * T(kSqrtHalf))) + x * T(kInvSqrtTwoPi) * exp_of(-half * x * x);
  const T t = tanh_of(T(kSqrtTwoOverPi) * (x + T(kCubic) * x * x * x));
  return half * (one + t) + half * x * (one - t * t) * T(kSqrtTwoOverPi) * (one + T(3 * kCubic) * x * x);
}

}  // namespace ablate::kernels
