// Runs one templated loop for the dtype of a tensor: f32 -> float, f64 -> double. Each op's
// loop is written once as a template and instantiated for both precisions here. The contract
// (kernels/contract/) has checked that an op's tensors are f32 or f64.
#pragma once

#include <stdexcept>
#include <string>

#include "kernels/tensor.h"

namespace ablate::kernels::cpu {

// Calls f(float{}) or f(double{}); the body reads the type with `using T = decltype(tag)`.
template <class F> decltype(auto) dispatch_float(DType dtype, F&& f) {
  switch (dtype) {
    case DType::f32: return f(float{});
    case DType::f64: return f(double{});
    default:
      throw std::logic_error(std::string("dispatch_float: dtype ") + dtype_name(dtype) + " reached a float loop");
  }
}

}  // namespace ablate::kernels::cpu
