// The frameworks' geometry rules behind the op parameters: how Caffe (ceil), TensorFlow (SAME)
// and Torch/Theano (valid, floor) turn an input size, kernel, stride and padding into an
// output size and padding, and the names of the enums as they appear in model files.
#include "kernels/op_params.h"

#include <climits>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>

namespace ablate::kernels {

const char* pool_padding_name(PoolPadding p) {
  switch (p) {
    case PoolPadding::caffe_ceil: return "caffe_ceil";
    case PoolPadding::tf_same: return "tf_same";
    case PoolPadding::valid: return "valid";
  }
  return "?";
}

PoolPadding parse_pool_padding(const std::string& name) {
  for (PoolPadding p : {PoolPadding::caffe_ceil, PoolPadding::tf_same, PoolPadding::valid})
    if (name == pool_padding_name(p)) return p;
  throw std::invalid_argument("pooling padding '" + name + "' is not known; expected caffe_ceil, tf_same or valid");
}

const char* pool_gradient_name(PoolGradient g) { return g == PoolGradient::all ? "all" : "first"; }

PoolGradient parse_pool_gradient(const std::string& name) {
  for (PoolGradient g : {PoolGradient::first, PoolGradient::all})
    if (name == pool_gradient_name(g)) return g;
  throw std::invalid_argument("max-pool gradient '" + name + "' is not known; expected first or all");
}

const char* chain_op_name(ChainOp op) {
  switch (op) {
    case ChainOp::bias_add: return "bias_add";
    case ChainOp::activation: return "activation";
    case ChainOp::activation_grad: return "activation_grad";
    case ChainOp::mul: return "mul";
    case ChainOp::add: return "add";
    case ChainOp::scale: return "scale";
  }
  return "?";
}

const char* activation_name(Activation a) {
  switch (a) {
    case Activation::relu: return "relu";
    case Activation::tanh: return "tanh";
    case Activation::sigmoid: return "sigmoid";
    case Activation::gelu: return "gelu";
    case Activation::gelu_tanh: return "gelu_tanh";
  }
  return "?";
}

bool is_gelu(Activation a) { return a == Activation::gelu || a == Activation::gelu_tanh; }

GeluApprox gelu_approx_of(Activation a) {
  if (!is_gelu(a))
    throw std::invalid_argument(std::string("activation ") + activation_name(a) + " is not a GELU; expected gelu or gelu_tanh");
  return a == Activation::gelu ? GeluApprox::exact : GeluApprox::tanh;
}

const char* gelu_approx_name(GeluApprox a) { return a == GeluApprox::exact ? "exact" : "tanh"; }

GeluApprox parse_gelu_approx(const std::string& name) {
  for (GeluApprox a : {GeluApprox::exact, GeluApprox::tanh})
    if (name == gelu_approx_name(a)) return a;
  throw std::invalid_argument("GELU approximation '" + name + "' is not known; expected exact or tanh");
}

namespace {

void require_at_least(const char* what, const char* field, int value, int minimum) {
  if (value < minimum)
    throw std::invalid_argument(std::string(what) + ": " + field + " " + std::to_string(value) +
                                ", expected at least " + std::to_string(minimum));
}

// in + before + after, computed in 64 bits; throws unless it fits an int. Every window index
// of the kernels lies within the padded extent, so bounding it keeps their int arithmetic
// exact (a model file may write any int for a size, a pad or a stride).
std::int64_t padded_extent(const std::string& what, int in, std::int64_t before, std::int64_t after) {
  const std::int64_t padded = std::int64_t{in} + before + after;
  if (padded > INT_MAX)
    throw std::invalid_argument(what + ": input size " + std::to_string(in) + " padded by " + std::to_string(before) +
                                "+" + std::to_string(after) + " is " + std::to_string(padded) +
                                ", expected at most " + std::to_string(INT_MAX));
  return padded;
}

// One axis of a pooling window grid: output size, padding before, and how far past the
// input the average divisor may count (the "pad after" limit).
struct PoolAxis {
  int out = 0, pad_before = 0, pad_after_limit = 0;
};

// Caffe's PoolingLayer::Reshape: out = ceil((in + 2 pad - k) / s) + 1; with padding, a last
// window that would start at or past in + pad (entirely in the bottom padding) is dropped.
// Average pooling (Forward_cpu) divides by the window clipped to [-pad, in + pad).
PoolAxis caffe_ceil_axis(const std::string& what, int in, int k, int s, int pad) {
  const std::int64_t span = padded_extent(what, in, pad, pad) - k;
  std::int64_t out = (span + s - 1) / s + 1;  // span >= 0 here, so this is ceil(span / s) + 1
  if (pad > 0 && (out - 1) * s >= std::int64_t{in} + pad) --out;
  PoolAxis a;
  a.out = static_cast<int>(out);  // <= span + 1 <= padded extent
  a.pad_before = pad;
  a.pad_after_limit = pad;
  return a;
}

// TensorFlow's SAME (GetWindowedOutputSize): out = ceil(in / s), total padding
// max((out - 1) s + k - in, 0), of which total / 2 goes before and the rest after.
// Average pooling divides by the real cells only, so the limit is the padding after.
PoolAxis tf_same_axis(const std::string& what, int in, int k, int s) {
  const std::int64_t out = (std::int64_t{in} + s - 1) / s;
  std::int64_t total = (out - 1) * s + k - in;  // < k, as (out - 1) s < in
  if (total < 0) total = 0;
  padded_extent(what, in, total / 2, total - total / 2);
  PoolAxis a;
  a.out = static_cast<int>(out);  // <= in
  a.pad_before = static_cast<int>(total / 2);
  a.pad_after_limit = static_cast<int>(total - total / 2);
  return a;
}

// Torch's SpatialMaxPooling / SpatialAveragePooling without ceil mode and Theano's
// pool_2d(ignore_border=True): out = floor((in + 2 pad - k) / s) + 1.
PoolAxis valid_axis(const std::string& what, int in, int k, int s, int pad) {
  PoolAxis a;
  a.out = static_cast<int>((padded_extent(what, in, pad, pad) - k) / s + 1);
  a.pad_before = pad;
  a.pad_after_limit = pad;
  return a;
}

}  // namespace

Pool2dParams make_pool2d_params(PoolKind kind, int kernel, int stride, int pad, PoolPadding padding,
                                int in_h, int in_w) {
  const std::string what = std::string("pooling (") + pool_padding_name(padding) + ")";
  require_at_least(what.c_str(), "kernel", kernel, 1);
  require_at_least(what.c_str(), "stride", stride, 1);
  require_at_least(what.c_str(), "pad", pad, 0);
  require_at_least(what.c_str(), "input height", in_h, 1);
  require_at_least(what.c_str(), "input width", in_w, 1);
  if (padding == PoolPadding::tf_same && pad != 0)
    throw std::invalid_argument(what + ": pad " + std::to_string(pad) +
                                ", expected 0 (SAME computes its own padding)");
  if (pad >= kernel)
    throw std::invalid_argument(what + ": pad " + std::to_string(pad) + " with kernel " + std::to_string(kernel) +
                                ", expected pad < kernel (a window would hold only padding)");
  if (padding != PoolPadding::tf_same) {
    for (int in : {in_h, in_w})
      if (padded_extent(what, in, pad, pad) < kernel)
        throw std::invalid_argument(what + ": input size " + std::to_string(in) + " with pad " + std::to_string(pad) +
                                    " is smaller than kernel " + std::to_string(kernel));
  }

  auto axis = [&](int in) {
    switch (padding) {
      case PoolPadding::caffe_ceil: return caffe_ceil_axis(what, in, kernel, stride, pad);
      case PoolPadding::tf_same: return tf_same_axis(what, in, kernel, stride);
      case PoolPadding::valid: return valid_axis(what, in, kernel, stride, pad);
    }
    return PoolAxis{};
  };
  PoolAxis h = axis(in_h), w = axis(in_w);
  // Caffe applies its last-window fix only with padding; with stride > kernel and no padding
  // its last window can start past the input and hold nothing (Caffe outputs -FLT_MAX there).
  for (auto [in, a] : {std::pair{in_h, h}, std::pair{in_w, w}})
    if (std::int64_t{a.out - 1} * stride - a.pad_before >= in)
      throw std::invalid_argument(what + ": input size " + std::to_string(in) + ", kernel " + std::to_string(kernel) +
                                  ", stride " + std::to_string(stride) +
                                  " put the last window outside the input; expected stride <= kernel or padding");

  Pool2dParams p;
  p.kind = kind;
  p.kernel_h = p.kernel_w = kernel;
  p.stride_h = p.stride_w = stride;
  p.pad_top = h.pad_before;
  p.pad_left = w.pad_before;
  p.out_h = h.out;
  p.out_w = w.out;
  p.avg_count_padding = padding != PoolPadding::tf_same;
  p.pad_bottom_limit = h.pad_after_limit;
  p.pad_right_limit = w.pad_after_limit;
  return p;
}

Conv2dParams make_same_conv2d_params(int kernel_h, int kernel_w, int stride, int in_h, int in_w) {
  require_at_least("SAME convolution", "kernel height", kernel_h, 1);
  require_at_least("SAME convolution", "kernel width", kernel_w, 1);
  require_at_least("SAME convolution", "stride", stride, 1);
  require_at_least("SAME convolution", "input height", in_h, 1);
  require_at_least("SAME convolution", "input width", in_w, 1);
  PoolAxis h = tf_same_axis("SAME convolution", in_h, kernel_h, stride);
  PoolAxis w = tf_same_axis("SAME convolution", in_w, kernel_w, stride);
  Conv2dParams p;
  p.stride_h = p.stride_w = stride;
  p.pad_top = h.pad_before;
  p.pad_bottom = h.pad_after_limit;
  p.pad_left = w.pad_before;
  p.pad_right = w.pad_after_limit;
  return p;
}

int conv2d_out_size(int in, int kernel, int stride, int pad_before, int pad_after) {
  require_at_least("convolution", "kernel", kernel, 1);
  require_at_least("convolution", "stride", stride, 1);
  require_at_least("convolution", "pad before", pad_before, 0);
  require_at_least("convolution", "pad after", pad_after, 0);
  const std::int64_t padded = padded_extent("convolution", in, pad_before, pad_after);
  if (padded < kernel)
    throw std::invalid_argument("convolution: input size " + std::to_string(in) + " padded by " +
                                std::to_string(pad_before) + "+" + std::to_string(pad_after) +
                                " is smaller than kernel " + std::to_string(kernel));
  return static_cast<int>((padded - kernel) / stride + 1);
}

std::size_t update_state_count(const UpdateParams& p) { return std::holds_alternative<AdamParams>(p) ? 2 : 1; }

}  // namespace ablate::kernels
