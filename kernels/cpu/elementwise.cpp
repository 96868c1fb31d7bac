// Elementwise BLAS-1 style ops over any shape (Caffe's caffe_set / caffe_copy / caffe_scal /
// caffe_axpy / caffe_cpu_axpby / caffe_add / caffe_mul). Tensors that meet have the same
// dtype and number of elements; inputs and outputs may alias (in-place layers).
#include <cstring>

#include "kernels/cpu/cpu_backend.h"
#include "kernels/cpu/dtype_dispatch.h"
#include "kernels/cpu/op_checks.h"
#include "kernels/cpu/parallel_for.h"

namespace ablate::kernels::cpu {
namespace {

void check_pair(const Tensor& a, const Tensor& b, const char* op, const char* a_arg, const char* b_arg) {
  check_float(a, op, a_arg);
  check_same_dtype(b, a, op, b_arg);
  check_numel(b, a.numel(), op, b_arg);
}

}  // namespace

void CpuBackend::fill(Tensor& x, double value) {
  const char* op = "fill";
  check_float(x, op, "x");
  dispatch_float(x.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    T* p = x.data<T>();
    const T v = static_cast<T>(value);
    parallel_each(threads_, x.numel(), [=](std::int64_t i) { p[i] = v; });
  });
}

// Same dtype: a (parallel) memcpy; otherwise converts between f32, f64, i32 and u8.
void CpuBackend::copy(const Tensor& src, Tensor& dst) {
  const char* op = "copy";
  if (src.empty()) check_float(src, op, "src");
  if (dst.empty()) check_float(dst, op, "dst");
  check_numel(dst, src.numel(), op, "dst");
  if (src.dtype() != dst.dtype() || src.raw_data() == dst.raw_data()) {
    if (src.raw_data() != dst.raw_data()) dst.copy_from(src);
    return;
  }
  const auto* from = static_cast<const char*>(src.raw_data());
  auto* to = static_cast<char*>(dst.raw_data());
  const std::int64_t bytes = static_cast<std::int64_t>(src.bytes());
  parallel_for(threads_, bytes, kElementwiseGrain * 8, [&](std::int64_t b, std::int64_t e) {
    std::memcpy(to + b, from + b, static_cast<std::size_t>(e - b));
  });
}

void CpuBackend::scale(Tensor& x, double alpha) {
  const char* op = "scale";
  check_float(x, op, "x");
  dispatch_float(x.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    T* p = x.data<T>();
    const T a = static_cast<T>(alpha);
    parallel_each(threads_, x.numel(), [=](std::int64_t i) { p[i] *= a; });
  });
}

void CpuBackend::axpy(double alpha, const Tensor& x, Tensor& y) {
  const char* op = "axpy";
  check_pair(x, y, op, "x", "y");
  dispatch_float(x.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    const T* px = x.data<T>();
    T* py = y.data<T>();
    const T a = static_cast<T>(alpha);
    parallel_each(threads_, x.numel(), [=](std::int64_t i) { py[i] += a * px[i]; });
  });
}

void CpuBackend::axpby(double alpha, const Tensor& x, double beta, Tensor& y) {
  const char* op = "axpby";
  check_pair(x, y, op, "x", "y");
  dispatch_float(x.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    const T* px = x.data<T>();
    T* py = y.data<T>();
    const T a = static_cast<T>(alpha), b = static_cast<T>(beta);
    parallel_each(threads_, x.numel(), [=](std::int64_t i) { py[i] = a * px[i] + b * py[i]; });
  });
}

namespace {
// out[i] = f(a[i], b[i]) over tensors of equal numel and dtype.
template <class F>
void binary_map(int threads, const Tensor& a, const Tensor& b, Tensor& out, const char* op, F f) {
  check_pair(a, b, op, "a", "b");
  check_pair(a, out, op, "a", "out");
  dispatch_float(a.dtype(), op, [&](auto tag) {
    using T = decltype(tag);
    const T *pa = a.data<T>(), *pb = b.data<T>();
    T* po = out.data<T>();
    parallel_each(threads, a.numel(), [=](std::int64_t i) { po[i] = f(pa[i], pb[i]); });
  });
}
}  // namespace

void CpuBackend::add(const Tensor& a, const Tensor& b, Tensor& out) {
  binary_map(threads_, a, b, out, "add", [](auto x, auto y) { return x + y; });
}

void CpuBackend::mul(const Tensor& a, const Tensor& b, Tensor& out) {
  binary_map(threads_, a, b, out, "mul", [](auto x, auto y) { return x * y; });
}

}  // namespace ablate::kernels::cpu
