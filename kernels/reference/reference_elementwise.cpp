// Elementwise ops and reductions on tensors of any shape (two tensors that meet need the same
// number of elements and dtype; outputs may alias inputs, as Caffe's caffe_axpy/caffe_add and
// Torch's in-place methods allow). Reductions accumulate in double. fill and copy also take
// i32 and u8 tensors (labels, masks); the arithmetic is for f32 and f64.
#include <cstring>

#include "kernels/reference/reference_backend_impl.h"
#include "kernels/reference/reference_checks.h"

namespace ablate::kernels::reference {
namespace {

// out[i] = f(a[i], b[i]) over float tensors of equal numel; out may alias a or b.
// `names` are the arguments' names for error messages.
struct ArgNames {
  const char *a, *b, *out;
};
template <class F>
void zip_into(const char* op, ArgNames names, const Tensor& a, const Tensor& b, Tensor& out, F&& f) {
  require_float(op, names.a, a);
  require_like(op, names.b, b, a);
  require_like(op, names.out, out, a);
  require_numel(op, names.b, b, a.numel());
  require_numel(op, names.out, out, a.numel());
  with_float_type(a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T *pa = a.data<T>(), *pb = b.data<T>();
    T* po = out.data<T>();
    for (std::int64_t i = 0; i < a.numel(); ++i) po[i] = static_cast<T>(f(double(pa[i]), double(pb[i])));
  });
}

// sum_i f(x[i]) in double.
template <class F> double reduce(const char* op, const Tensor& x, F&& f) {
  require_float(op, "x", x);
  return with_float_type(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const T* p = x.data<T>();
    double total = 0;
    for (std::int64_t i = 0; i < x.numel(); ++i) total += f(double(p[i]));
    return total;
  });
}

}  // namespace

void ReferenceBackend::fill(Tensor& x, double value) {
  const char* op = "fill";
  if (x.empty()) fail(op, "x is empty, expected an allocated tensor");
  for (std::int64_t i = 0; i < x.numel(); ++i) x.set(i, value);  // converts to x's dtype
}

void ReferenceBackend::copy(const Tensor& src, Tensor& dst) {
  const char* op = "copy";
  if (src.empty()) fail(op, "src is empty, expected an allocated tensor");
  require_dtype(op, "dst", dst, src.dtype());
  require_numel(op, "dst", dst, src.numel());
  std::memmove(dst.raw_data(), src.raw_data(), src.bytes());
}

void ReferenceBackend::scale(Tensor& x, double alpha) {
  zip_into("scale", {"x", "x", "x"}, x, x, x, [&](double v, double) { return alpha * v; });
}

void ReferenceBackend::axpy(double alpha, const Tensor& x, Tensor& y) {
  zip_into("axpy", {"x", "y", "y"}, x, y, y, [&](double xv, double yv) { return alpha * xv + yv; });
}

void ReferenceBackend::axpby(double alpha, const Tensor& x, double beta, Tensor& y) {
  zip_into("axpby", {"x", "y", "y"}, x, y, y, [&](double xv, double yv) { return alpha * xv + beta * yv; });
}

void ReferenceBackend::add(const Tensor& a, const Tensor& b, Tensor& out) {
  zip_into("add", {"a", "b", "out"}, a, b, out, [](double av, double bv) { return av + bv; });
}

void ReferenceBackend::mul(const Tensor& a, const Tensor& b, Tensor& out) {
  zip_into("mul", {"a", "b", "out"}, a, b, out, [](double av, double bv) { return av * bv; });
}

double ReferenceBackend::sum(const Tensor& x) {
  return reduce("sum", x, [](double v) { return v; });
}

double ReferenceBackend::sum_squares(const Tensor& x) {
  return reduce("sum_squares", x, [](double v) { return v * v; });
}

void ReferenceBackend::argmax_rows(const Tensor& x, Tensor& out) {
  const char* op = "argmax_rows";
  require_float(op, "x", x);
  require_ndim(op, "x", x, 2);
  std::int64_t N = x.dim(0), K = x.dim(1);
  if (K < 1) fail(op, "x is " + x.describe() + ", expected at least one column");
  require_dtype(op, "out", out, DType::i32);
  require_shape(op, "out", out, {N});
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
