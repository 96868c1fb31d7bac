// Entry checks of the reference backend (see reference_checks.h).
#include "kernels/reference/reference_checks.h"

#include <stdexcept>

namespace ablate::kernels::reference {

void fail(const char* op, const std::string& message) {
  throw std::invalid_argument(std::string("reference ") + op + ": " + message);
}

namespace {
void require_host(const char* op, const char* arg, const Tensor& t) {
  if (t.empty()) fail(op, std::string(arg) + " is empty, expected an allocated tensor");
  if (t.device() != Device::cpu)
    fail(op, std::string(arg) + " " + t.describe() + " is on " + device_name(t.device()) + ", expected host memory");
}
}  // namespace

void require_float(const char* op, const char* arg, const Tensor& t) {
  require_host(op, arg, t);
  if (t.dtype() != DType::f32 && t.dtype() != DType::f64)
    fail(op, std::string(arg) + " is " + t.describe() + ", expected f32 or f64");
}

void require_like(const char* op, const char* arg, const Tensor& t, const Tensor& lead) {
  require_host(op, arg, t);
  if (t.dtype() != lead.dtype())
    fail(op, std::string(arg) + " is " + t.describe() + ", expected dtype " + dtype_name(lead.dtype()) +
                 " like the first input");
}

void require_dtype(const char* op, const char* arg, const Tensor& t, DType dtype) {
  require_host(op, arg, t);
  if (t.dtype() != dtype) fail(op, std::string(arg) + " is " + t.describe() + ", expected dtype " + dtype_name(dtype));
}

void require_ndim(const char* op, const char* arg, const Tensor& t, int ndim) {
  if (t.ndim() != ndim)
    fail(op, std::string(arg) + " is " + t.describe() + ", expected " + std::to_string(ndim) + " dimensions");
}

void require_shape(const char* op, const char* arg, const Tensor& t, const Shape& expected) {
  if (t.shape() != expected)
    fail(op, std::string(arg) + " is " + t.describe() + ", expected shape " + shape_string(expected));
}

void require_like_shape(const char* op, const char* arg, const Tensor& t, const Tensor& lead, const Shape& expected) {
  require_like(op, arg, t, lead);
  require_shape(op, arg, t, expected);
}

void require_numel(const char* op, const char* arg, const Tensor& t, std::int64_t numel) {
  if (t.numel() != numel)
    fail(op, std::string(arg) + " is " + t.describe() + " with " + std::to_string(t.numel()) + " elements, expected " +
                 std::to_string(numel));
}

}  // namespace ablate::kernels::reference
