// Argument checks of the CPU ops (see op_checks.h); messages name op, argument, expected, got.
#include "kernels/cpu/op_checks.h"

#include <sstream>
#include <stdexcept>
#include <string>

namespace ablate::kernels::cpu {
namespace {

[[noreturn]] void fail(const char* op, const char* arg, const std::string& expected, const std::string& got) {
  throw std::invalid_argument(std::string(op) + ": argument " + arg + ": expected " + expected + ", got " + got);
}

std::string got_of(const Tensor& t) { return t.empty() ? std::string("an empty tensor") : t.describe(); }

void check_host(const Tensor& t, const char* op, const char* arg) {
  if (t.empty()) fail(op, arg, "a tensor with storage", "an empty tensor");
  if (t.device() != Device::cpu) fail(op, arg, "a host (cpu) tensor", std::string("a ") + device_name(t.device()) + " tensor");
}

}  // namespace

void check_float(const Tensor& t, const char* op, const char* arg) {
  check_host(t, op, arg);
  if (t.dtype() != DType::f32 && t.dtype() != DType::f64) fail(op, arg, "dtype f32 or f64", got_of(t));
}

void check_dtype(const Tensor& t, DType dtype, const char* op, const char* arg) {
  check_host(t, op, arg);
  if (t.dtype() != dtype) fail(op, arg, std::string("dtype ") + dtype_name(dtype), got_of(t));
}

void check_same_dtype(const Tensor& t, const Tensor& like, const char* op, const char* arg) {
  check_dtype(t, like.dtype(), op, arg);
}

void check_ndim(const Tensor& t, int ndim, const char* op, const char* arg) {
  if (t.ndim() != ndim) fail(op, arg, std::to_string(ndim) + " dimensions", got_of(t));
}

void check_shape(const Tensor& t, const Shape& shape, const char* op, const char* arg) {
  if (t.shape() != shape) fail(op, arg, std::string("shape ") + shape_string(shape), got_of(t));
}

void check_numel(const Tensor& t, std::int64_t numel, const char* op, const char* arg) {
  if (t.numel() != numel) fail(op, arg, std::to_string(numel) + " elements", got_of(t) + " with " + std::to_string(t.numel()));
}

void check_labels(const Tensor& labels, std::int64_t n, std::int64_t classes, const char* op) {
  check_dtype(labels, DType::i32, op, "labels");
  check_shape(labels, {n}, op, "labels");
  const std::int32_t* l = labels.data<std::int32_t>();
  for (std::int64_t i = 0; i < n; ++i) {
    if (l[i] < 0 || l[i] >= classes) {
      std::ostringstream what;
      what << "labels[" << i << "]";
      fail(op, what.str().c_str(), "a class in [0, " + std::to_string(classes) + ")", std::to_string(l[i]));
    }
  }
}

void fail_value(const char* op, const char* arg, double value, const char* expected) {
  std::ostringstream got;
  got << value;
  fail(op, arg, expected, got.str());
}

}  // namespace ablate::kernels::cpu
