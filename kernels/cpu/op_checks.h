// Argument checks shared by the CPU ops: every op checks dtypes and shapes at entry and
// throws std::invalid_argument naming the op, the argument, what was expected and what came.
#pragma once

#include <cstdint>

#include "kernels/tensor.h"

namespace ablate::kernels::cpu {

// A host tensor with storage, of dtype f32 or f64.
void check_float(const Tensor& t, const char* op, const char* arg);
// A host tensor with storage, of exactly `dtype`.
void check_dtype(const Tensor& t, DType dtype, const char* op, const char* arg);
// Same dtype as `like` (which is already checked).
void check_same_dtype(const Tensor& t, const Tensor& like, const char* op, const char* arg);
void check_ndim(const Tensor& t, int ndim, const char* op, const char* arg);
void check_shape(const Tensor& t, const Shape& shape, const char* op, const char* arg);
void check_numel(const Tensor& t, std::int64_t numel, const char* op, const char* arg);
// labels: i32 [n] with every value in [0, classes).
void check_labels(const Tensor& labels, std::int64_t n, std::int64_t classes, const char* op);
// A scalar argument outside its range: "op: argument name = value, expected <expected>".
[[noreturn]] void fail_value(const char* op, const char* arg, double value, const char* expected);

}  // namespace ablate::kernels::cpu
