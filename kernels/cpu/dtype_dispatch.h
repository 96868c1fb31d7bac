// Runs one templated loop for the dtype of a tensor: f32 -> float, f64 -> double. Each op's
// loop is written once as a template and instantiated for both precisions here.
#pragma once

#include <stdexcept>
#include <string>

#include "kernels/tensor.h"

namespace ablate::kernels::cpu {

// Calls f(float{}) or f(double{}); the body reads the type with `using T = decltype(tag)`.
template <class F> decltype(auto) dispatch_float(DType dtype, const char* op, F&& f) {
  switch (dtype) {
    case DType::f32: return f(float{});
    case DType::f64: return f(double{});
    default:
      throw std::invalid_argument(std::string(op) + ": expected dtype f32 or f64, got " + dtype_name(dtype));
  }
}

}  // namespace ablate::kernels::cpu
