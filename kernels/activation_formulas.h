// The activation formulas in double that the reference backend computes, shared by its
// activation ops (reference_activation.cpp), its fused elementwise loop (reference_fused.cpp)
// and the CUDA fused kernel (cuda/cuda_fused.cu), so that a fused chain gives the numbers of
// the reference ops it replaces. Plain C++ that nvcc also compiles for the device:
//   relu:    y = max(x, 0)          f'(x) = (y > 0)
//   tanh:    y = tanh(x)            f'(x) = 1 - y^2
//   sigmoid: y = 1 / (1 + e^-x)     f'(x) = y (1 - y)
#pragma once

#include <math.h>

#include "kernels/op_params.h"

#include "kernels/host_device.h"

namespace ablate::kernels {

ABLATE_HOST_DEVICE inline double activate(Activation a, double x) {
  switch (a) {
    case Activation::relu: return x > 0 ? x : 0.0;
    case Activation::tanh: return tanh(x);
    case Activation::sigmoid: return 1.0 / (1.0 + exp(-x));
    case Activation::gelu:
    case Activation::gelu_tanh: break;  // run as gelu_forward by Backend::activation_forward
  }
  return 0;
}

// f'(x) written in terms of y = f(x).
ABLATE_HOST_DEVICE inline double derivative_from_output(Activation a, double y) {
  switch (a) {
    case Activation::relu: return y > 0 ? 1.0 : 0.0;
    case Activation::tanh: return 1.0 - y * y;
    case Activation::sigmoid: return y * (1.0 - y);
    case Activation::gelu:
    case Activation::gelu_tanh: break;  // run as gelu_backward, from x
  }
  return 0;
}

}  // namespace ablate::kernels
