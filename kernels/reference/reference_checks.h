// Entry checks and dtype dispatch of the reference backend. Every op checks its tensors
// before touching them; a failure throws std::invalid_argument naming the op, the argument,
// what it is and what was expected:
//   "reference conv2d_forward: y is f32[2, 4, 5, 5], expected shape [2, 4, 3, 3]".
#pragma once

#include <cstdint>
#include <string>

#include "kernels/tensor.h"

namespace ablate::kernels::reference {

[[noreturn]] void fail(const char* op, const std::string& message);

// A non-empty f32 or f64 tensor in host memory.
void require_float(const char* op, const char* arg, const Tensor& t);
// A float tensor of the same dtype as `lead` (the op's first input, which fixes T).
void require_like(const char* op, const char* arg, const Tensor& t, const Tensor& lead);
// A non-empty host tensor of exactly this dtype (labels, argmax indices are i32).
void require_dtype(const char* op, const char* arg, const Tensor& t, DType dtype);
void require_ndim(const char* op, const char* arg, const Tensor& t, int ndim);
void require_shape(const char* op, const char* arg, const Tensor& t, const Shape& expected);
// require_like then require_shape: a float tensor of lead's dtype and exactly this shape
// (an output, a bias, a saved workspace).
void require_like_shape(const char* op, const char* arg, const Tensor& t, const Tensor& lead, const Shape& expected);
void require_numel(const char* op, const char* arg, const Tensor& t, std::int64_t numel);

// Calls f(T{}) with T = float for f32 and double for f64 and returns what it returns; the
// dtype has been checked by require_float before.
template <class F> auto with_float_type(DType dtype, F&& f) {
  return dtype == DType::f32 ? f(float{}) : f(double{});
}

}  // namespace ablate::kernels::reference
