// Elementwise ops and reductions on tensors of any shape (two tensors that meet need the same
// number of elements and dtype; outputs may alias inputs, as Caffe's caffe_axpy/caffe_add and
// Torch's in-place methods allow). Reductions accumulate in double. fill and copy also take
// i32 and u8 tensors (labels, masks), and copy converts between dtypes; the arithmetic is for
// f32 and f64.
#include <cstring>

#include "kernels/reference/reference_backend_impl.h"
#include "kernels/reference/reference_loops.h"

namespace ablate::kernels::reference {
namespace {

// out[i] = f(a[i], b[i]) over float tensors of equal numel; out may alias a or b.
template <class F> void zip_into(const Tensor& a, const Tensor& b, Tensor& out, F&& f) {
  with_float_type(a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *pa = a.data<T>(), *pb = b.data<T>();
    T* po = out.data<T>();
    for (std::int64_t i = 0; i < a.numel(); ++i) po[i] = static_cast<T>(f(double(pa[i]), double(pb[i])));
  });
}

// sum_i f(x[i]) in double.
template <class F> double reduce(const Tensor& x, F&& f) {
  return with_float_type(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* p = x.data<T>();
    double total = 0;
    for (std::int64_t i = 0; i < x.numel(); ++i) total += f(double(p[i]));
    return total;
  });
}

}  // namespace

void ReferenceBackend::fill_impl(Tensor& x, double value) {
  for (std::int64_t i = 0; i < x.numel(); ++i) x.set(i, value);  // converts to x's dtype
}

void ReferenceBackend::copy_impl(const Tensor& src, Tensor& dst) {
  if (src.dtype() != dst.dtype()) return dst.copy_from(src);  // converts, as Tensor::copy_from does
  std::memmove(dst.raw_data(), src.raw_data(), src.bytes());
}

void ReferenceBackend::scale_impl(Tensor& x, double alpha) {
  zip_into(x, x, x, [&](double v, double) { return alpha * v; });
}

void ReferenceBackend::axpy_impl(double alpha, const Tensor& x, Tensor& y) {
  zip_into(x, y, y, [&](double xv, double yv) { return alpha * xv + yv; });
}

void ReferenceBackend::axpby_impl(double alpha, const Tensor& x, double beta, Tensor& y) {
  zip_into(x, y, y, [&](double xv, double yv) { return alpha * xv + beta * yv; });
}

void ReferenceBackend::add_impl(const Tensor& a, const Tensor& b, Tensor& out) {
  zip_into(a, b, out, [](double av, double bv) { return av + bv; });
}

void ReferenceBackend::mul_impl(const Tensor& a, const Tensor& b, Tensor& out) {
  zip_into(a, b, out, [](double av, double bv) { return av * bv; });
}

double ReferenceBackend::sum_impl(const Tensor& x) {
  return reduce(x, [](double v) { return v; });
}

double ReferenceBackend::sum_squares_impl(const Tensor& x) {
  return reduce(x, [](double v) { return v * v; });
}

void ReferenceBackend::argmax_rows_impl(const Tensor& x, Tensor& out) {
  std::int64_t N = x.dim(0), K = x.dim(1);
  with_float_type(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* p = x.data<T>();
    std::int32_t* best = out.data<std::int32_t>();
    for (std::int64_t n = 0; n < N; ++n) {
      std::int64_t b = 0;
      for (std::int64_t k = 1; k < K; ++k)
        if (p[n * K + k] > p[n * K + b]) b = k;  // strictly greater: the lowest k wins a tie
      best[n] = static_cast<std::int32_t>(b);
    }
  });
}

}  // namespace ablate::kernels::reference
