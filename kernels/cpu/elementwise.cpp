// Elementwise BLAS-1 style ops over any shape (Caffe's caffe_set / caffe_copy / caffe_scal /
// caffe_axpy / caffe_cpu_axpby / caffe_add / caffe_mul). Tensors that meet have the same
// dtype and number of elements; inputs and outputs may alias (in-place layers). fill and copy
// also take i32 and u8 tensors (labels, masks).
#include <cstring>

#include "kernels/cpu/cpu_backend.h"
#include "kernels/cpu/dtype_dispatch.h"
#include "kernels/cpu/parallel_for.h"

namespace ablate::kernels::cpu {

void CpuBackend::fill_impl(Tensor& x, double value) {
  if (x.dtype() != DType::f32 && x.dtype() != DType::f64) {  // i32 or u8: element by element, converted
    for (std::int64_t i = 0; i < x.numel(); ++i) x.set(i, value);
    return;
  }
  dispatch_float(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* p = x.data<T>();
    const T v = static_cast<T>(value);
    parallel_each(loop_threads_, x.numel(), [=](std::int64_t i) { p[i] = v; });
  });
}

// Same dtype: a (parallel) memcpy; otherwise converts between f32, f64, i32 and u8.
void CpuBackend::copy_impl(const Tensor& src, Tensor& dst) {
  if (src.dtype() != dst.dtype() || src.raw_data() == dst.raw_data()) {
    if (src.raw_data() != dst.raw_data()) dst.copy_from(src);
    return;
  }
  const auto* from = static_cast<const char*>(src.raw_data());
  auto* to = static_cast<char*>(dst.raw_data());
  const std::int64_t bytes = static_cast<std::int64_t>(src.bytes());
  parallel_for(loop_threads_, bytes, kElementwiseGrain * 8, [&](std::int64_t b, std::int64_t e) {
    std::memcpy(to + b, from + b, static_cast<std::size_t>(e - b));
  });
}

void CpuBackend::scale_impl(Tensor& x, double alpha) {
  dispatch_float(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T* p = x.data<T>();
    const T a = static_cast<T>(alpha);
    parallel_each(loop_threads_, x.numel(), [=](std::int64_t i) { p[i] *= a; });
  });
}

void CpuBackend::axpy_impl(double alpha, const Tensor& x, Tensor& y) {
  dispatch_float(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* px = x.data<T>();
    T* py = y.data<T>();
    const T a = static_cast<T>(alpha);
    parallel_each(loop_threads_, x.numel(), [=](std::int64_t i) { py[i] += a * px[i]; });
  });
}

void CpuBackend::axpby_impl(double alpha, const Tensor& x, double beta, Tensor& y) {
  dispatch_float(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* px = x.data<T>();
    T* py = y.data<T>();
    const T a = static_cast<T>(alpha), b = static_cast<T>(beta);
    parallel_each(loop_threads_, x.numel(), [=](std::int64_t i) { py[i] = a * px[i] + b * py[i]; });
  });
}

namespace {
// out[i] = f(a[i], b[i]) over tensors of equal numel and dtype.
template <class F>
void binary_map(int threads, const Tensor& a, const Tensor& b, Tensor& out, F f) {
  dispatch_float(a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *pa = a.data<T>(), *pb = b.data<T>();
    T* po = out.data<T>();
    parallel_each(threads, a.numel(), [=](std::int64_t i) { po[i] = f(pa[i], pb[i]); });
  });
}
}  // namespace

void CpuBackend::add_impl(const Tensor& a, const Tensor& b, Tensor& out) {
  binary_map(loop_threads_, a, b, out, [](auto x, auto y) { return x + y; });
}

void CpuBackend::mul_impl(const Tensor& a, const Tensor& b, Tensor& out) {
  binary_map(loop_threads_, a, b, out, [](auto x, auto y) { return x * y; });
}

}  // namespace ablate::kernels::cpu
