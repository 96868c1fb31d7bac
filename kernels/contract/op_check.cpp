// The contract's argument checks and their one message format (see op_check.h).
#include "kernels/contract/op_check.h"

#include <stdexcept>

#include "kernels/backend.h"

namespace ablate::kernels {
namespace {

std::string text(std::int64_t v) { return std::to_string(v); }

}  // namespace

bool shares_memory(const Tensor& a, const Tensor& b) {
  const auto* pa = static_cast<const char*>(a.raw_data());
  const auto* pb = static_cast<const char*>(b.raw_data());
  return pa < pb + b.bytes() && pb < pa + a.bytes();
}

void OpCheck::fail(const std::string& message) const {
  throw std::invalid_argument(backend_.name() + " " + op_name(op_) + ": " + message);
}

void OpCheck::allocated(const char* arg, const Tensor& t) const {
  if (t.empty()) fail(std::string(arg) + " is empty, expected an allocated tensor");
  if (t.device() != Device::cpu && backend_.device() == Device::cpu)
    fail(std::string(arg) + " " + t.describe() + " is on " + device_name(t.device()) + ", expected host memory");
}

void OpCheck::floating(const char* arg, const Tensor& t) const {
  allocated(arg, t);
  if (t.dtype() != DType::f32 && t.dtype() != DType::f64)
    fail(std::string(arg) + " is " + t.describe() + ", expected f32 or f64");
}

void OpCheck::dtype(const char* arg, const Tensor& t, DType dtype) const {
  allocated(arg, t);
  if (t.dtype() != dtype) fail(std::string(arg) + " is " + t.describe() + ", expected dtype " + dtype_name(dtype));
}

void OpCheck::like(const char* arg, const Tensor& t, const Tensor& lead) const {
  allocated(arg, t);
  if (t.dtype() != lead.dtype())
    fail(std::string(arg) + " is " + t.describe() + ", expected dtype " + dtype_name(lead.dtype()) +
         " like the first input");
}

void OpCheck::ndim(const char* arg, const Tensor& t, int ndim) const {
  if (t.ndim() != ndim)
    fail(std::string(arg) + " is " + t.describe() + ", expected " + std::to_string(ndim) + " dimensions");
}

void OpCheck::shape(const char* arg, const Tensor& t, const Shape& expected) const {
  if (t.shape() != expected) fail(std::string(arg) + " is " + t.describe() + ", expected shape " + shape_string(expected));
}

void OpCheck::numel(const char* arg, const Tensor& t, std::int64_t numel) const {
  if (t.numel() != numel)
    fail(std::string(arg) + " is " + t.describe() + " with " + text(t.numel()) + " elements, expected " + text(numel));
}

void OpCheck::like_shape(const char* arg, const Tensor& t, const Tensor& lead, const Shape& expected) const {
  like(arg, t, lead);
  shape(arg, t, expected);
}

void OpCheck::rows(const char* arg, const Tensor& t) const {
  floating(arg, t);
  ndim(arg, t, 2);
  if (t.dim(1) < 1) fail(std::string(arg) + " is " + t.describe() + ", expected [N, K] with at least one class (K >= 1)");
}

void OpCheck::labels(const Tensor& labels, std::int64_t n, std::int64_t classes) const {
  dtype("labels", labels, DType::i32);
  shape("labels", labels, {n});
  if (labels.device() == Device::cpu) label_values(labels.data<std::int32_t>(), n, classes);
}

void OpCheck::label_values(const std::int32_t* labels, std::int64_t n, std::int64_t classes) const {
  for (std::int64_t i = 0; i < n; ++i)
    if (labels[i] < 0 || labels[i] >= classes)
      fail("labels: label " + std::to_string(labels[i]) + " of row " + text(i) + ", expected a class in [0, " +
           text(classes) + ")");
}

void OpCheck::table(const Tensor& table, std::int64_t t, std::int64_t inputs, std::int64_t outputs) const {
  dtype("table", table, DType::i32);
  shape("table", table, {t, 2});
  if (table.device() == Device::cpu) table_rows(table.data<std::int32_t>(), t, inputs, outputs);
}

void OpCheck::table_rows(const std::int32_t* rows, std::int64_t t, std::int64_t inputs, std::int64_t outputs) const {
  for (std::int64_t r = 0; r < t; ++r) {
    if (rows[2 * r] < 0 || rows[2 * r] >= inputs)
      fail("table row " + text(r) + " has input plane " + std::to_string(rows[2 * r]) + ", expected one in [0, " +
           text(inputs) + ")");
    if (rows[2 * r + 1] < 0 || rows[2 * r + 1] >= outputs)
      fail("table row " + text(r) + " has output plane " + std::to_string(rows[2 * r + 1]) + ", expected one in [0, " +
           text(outputs) + ")");
  }
}

Shape OpCheck::conv_output(const Shape& x, std::int64_t k, std::int64_t kh, std::int64_t kw,
                           const Conv2dParams& p) const {
  if (p.stride_h < 1 || p.stride_w < 1)
    fail("stride " + text(p.stride_h) + "x" + text(p.stride_w) + ", expected at least 1");
  if (p.pad_top < 0 || p.pad_left < 0 || p.pad_bottom < 0 || p.pad_right < 0)
    fail("padding (top " + text(p.pad_top) + ", left " + text(p.pad_left) + ", bottom " + text(p.pad_bottom) +
         ", right " + text(p.pad_right) + "), expected >= 0");
  if (kh < 1 || kw < 1) fail("kernel " + text(kh) + "x" + text(kw) + ", expected at least 1x1");
  if (p.activation) {  // the epilogue y = f(conv + bias): forward only, and f's gradient reads y
    const Activation a = *p.activation;
    if (op_ != Op::conv2d_forward)
      fail(std::string("activation ") + activation_name(a) +
           ": expected none (only conv2d_forward takes an activation epilogue; its gradient is activation_backward on y, "
           "run before the backward convolutions)");
    if (a != Activation::relu && a != Activation::tanh && a != Activation::sigmoid)
      fail(std::string("activation ") + activation_name(a) +
           ": expected relu, tanh or sigmoid (an epilogue's gradient reads the fused output y; GELU's reads x)");
  }
  const std::int64_t padded_h = x[2] + p.pad_top + p.pad_bottom, padded_w = x[3] + p.pad_left + p.pad_right;
  if (padded_h < kh || padded_w < kw)
    fail("padded input " + text(padded_h) + "x" + text(padded_w) + " is smaller than the kernel " + text(kh) + "x" +
         text(kw));
  return {x[0], k, (padded_h - kh) / p.stride_h + 1, (padded_w - kw) / p.stride_w + 1};
}

void OpCheck::pool_params(const Pool2dParams& p, std::int64_t h, std::int64_t w) const {
  auto named = [](const char* name, std::int64_t v) { return std::string(name) + " " + text(v); };
  if (p.kernel_h < 1 || p.kernel_w < 1 || p.stride_h < 1 || p.stride_w < 1)
    fail(named("kernel_h", p.kernel_h) + ", " + named("kernel_w", p.kernel_w) + ", " + named("stride_h", p.stride_h) +
         ", " + named("stride_w", p.stride_w) + ": expected all at least 1");
  if (p.pad_top < 0 || p.pad_left < 0 || p.pad_top >= p.kernel_h || p.pad_left >= p.kernel_w)
    fail(named("pad_top", p.pad_top) + ", " + named("pad_left", p.pad_left) + ": expected 0 <= pad < kernel");
  if (p.out_h < 1 || p.out_w < 1)
    fail(named("out_h", p.out_h) + ", " + named("out_w", p.out_w) + ": expected at least 1 (use make_pool2d_params)");
  if ((p.out_h - 1) * std::int64_t(p.stride_h) - p.pad_top >= h || (p.out_w - 1) * std::int64_t(p.stride_w) - p.pad_left >= w)
    fail("output " + text(p.out_h) + "x" + text(p.out_w) + " puts the last window past the input " + text(h) + "x" +
         text(w));
}

void OpCheck::lrn_params(const LrnParams& p) const {
  if (p.size < 1 || p.size % 2 == 0)
    fail("size " + text(p.size) + ", expected an odd number of channels (Caffe's local_size)");
  if (!(p.k > 0) || !(p.alpha >= 0))
    fail("k " + std::to_string(p.k) + ", alpha " + std::to_string(p.alpha) + ": expected k > 0 and alpha >= 0");
}

void OpCheck::argmax_workspace(const Tensor& workspace, const Shape& out) const {
  dtype("workspace (the argmax that pool2d_forward filled)", workspace, DType::i32);
  shape("workspace (the argmax that pool2d_forward filled)", workspace, out);
}

std::int64_t OpCheck::weight_gradient(const Tensor& x, const Tensor& dy, const char* w_name, const Tensor& w,
                                      const Tensor& dbias) const {
  floating("x", x);
  like("dy", dy, x);
  like(w_name, w, x);
  ndim("x", x, 2);
  ndim("dy", dy, 2);
  const std::int64_t n = x.dim(0), in = x.dim(1), out = dy.dim(1);
  shape("dy", dy, {n, out});
  shape(w_name, w, {out, in});
  if (!dbias.empty()) like_shape("dbias", dbias, x, {out});
  return n;
}

}  // namespace ablate::kernels
