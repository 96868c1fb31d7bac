// Convolution ops of the tape: conv2d (Torch's SpatialConvolutionMM, Caffe's Convolution)
// and conv2d_map (Torch's SpatialConvolutionMap over a connection table), forward through the
// Backend now, backward recorded: weights (and bias) first, then data, as Caffe's layer does.
#include <string>

#include "graph/dynamic/op_record.h"
#include "graph/dynamic/ops.h"

namespace ablate::graph::dynamic {
namespace {

kernels::Shape conv_output_shape(const char* op, const Variable& x, const Variable& w, std::int64_t outputs,
                                 std::int64_t kernel_h, std::int64_t kernel_w, const kernels::Conv2dParams& p) {
  require(x.value().ndim() == 4, op, "input", x.value(), "[N, C, H, W]");
  const int out_h = kernels::conv2d_out_size(static_cast<int>(x.shape()[2]), static_cast<int>(kernel_h), p.stride_h,
                                             p.pad_top, p.pad_bottom);
  const int out_w = kernels::conv2d_out_size(static_cast<int>(x.shape()[3]), static_cast<int>(kernel_w), p.stride_w,
                                             p.pad_left, p.pad_right);
  if (out_h <= 0 || out_w <= 0)
    throw std::invalid_argument(std::string(op) + ": kernel " + w.value().describe() + " does not fit input " +
                                x.value().describe());
  return {x.shape()[0], outputs, out_h, out_w};
}

// The backward shared by both convolutions (inputs x, w, b): dw and db through `weights` (db
// alone through bias_backward), then dx through `data`.
template <class Weights, class Data>
void conv_backward(InputGrads& g, const kernels::Tensor& dy, const kernels::Tensor& x, const kernels::Tensor& w,
                   const kernels::Tensor& b, Weights&& weights, Data&& data) {
  if (g.wanted(1)) {
    kernels::Tensor none;
    kernels::Tensor& dw = g.out(1, w);
    weights(dw, g.wanted(2) ? g.out(2, b) : none);
  } else if (g.wanted(2)) {
    g.backend().bias_backward(dy, g.out(2, b));
  }
  if (g.wanted(0)) data(g.out(0, x));
}

struct Conv2dNode final : Node {
  kernels::Tensor x, w, b;
  kernels::Conv2dParams p;
  const char* name() const override { return "conv2d"; }
  void backward(const kernels::Tensor& dy, InputGrads& g) override {
    kernels::Backend& be = g.backend();
    conv_backward(
        g, dy, x, w, b, [&](kernels::Tensor& dw, kernels::Tensor& db) { be.conv2d_backward_weights(x, dy, dw, db, p); },
        [&](kernels::Tensor& dx) { be.conv2d_backward_data(dy, w, dx, p); });
  }
  std::vector<kernels::Tensor*> saved() override { return {&x, &w, &b}; }
};

struct Conv2dMapNode final : Node {
  kernels::Tensor x, w, b, table;
  kernels::Conv2dParams p;
  const char* name() const override { return "conv2d_map"; }
  void backward(const kernels::Tensor& dy, InputGrads& g) override {
    kernels::Backend& be = g.backend();
    conv_backward(
        g, dy, x, w, b,
        [&](kernels::Tensor& dw, kernels::Tensor& db) { be.conv2d_map_backward_weights(x, dy, table, dw, db, p); },
        [&](kernels::Tensor& dx) { be.conv2d_map_backward_data(dy, w, table, dx, p); });
  }
  std::vector<kernels::Tensor*> saved() override { return {&x, &w, &b, &table}; }
};

}  // namespace

Variable conv2d(const Variable& x, const Variable& w, const Variable& b, const kernels::Conv2dParams& p) {
  Context& c = op_context("conv2d", {&x, &w, &b});
  require(w.defined() && w.value().ndim() == 4, "conv2d", "weight", value_or_none(w), "[K, C, KH, KW]");
  const kernels::Shape& ws = w.shape();
  const kernels::Shape out = conv_output_shape("conv2d", x, w, ws[0], ws[2], ws[3], p);
  kernels::Tensor y = c.empty(out, x.dtype(), c.conv_output_block(x.dtype(), out[1]));  // blocked layout: context.h
  c.backend().conv2d_forward(x.value(), w.value(), value_or_none(b), y, p);
  return op_output(c, std::move(y), {&x, &w, &b}, [&] {
    auto node = std::make_shared<Conv2dNode>();
    node->x = x.value();
    node->w = w.value();
    node->b = value_or_none(b);
    node->p = p;
    return node;
  });
}

Variable conv2d_map(const Variable& x, const Variable& w, const Variable& b, const kernels::Tensor& table,
                    int outputs, const kernels::Conv2dParams& p) {
  Context& c = op_context("conv2d_map", {&x, &w, &b});
  require(w.defined() && w.value().ndim() == 3, "conv2d_map", "weight", value_or_none(w), "[T, KH, KW]");
  require(table.ndim() == 2 && table.dim(1) == 2 && table.dim(0) == w.shape()[0] &&
              table.dtype() == kernels::DType::i32,
          "conv2d_map", "connection table", table,
          [&] { return "i32[" + std::to_string(w.shape()[0]) + ", 2], one row per kernel"; });
  const kernels::Shape& ws = w.shape();
  kernels::Tensor y = c.empty(conv_output_shape("conv2d_map", x, w, outputs, ws[1], ws[2], p), x.dtype());
  c.backend().conv2d_map_forward(x.value(), w.value(), value_or_none(b), table, y, p);
  return op_output(c, std::move(y), {&x, &w, &b}, [&] {
    auto node = std::make_shared<Conv2dMapNode>();
    node->x = x.value();
    node->w = w.value();
    node->b = value_or_none(b);
    node->table = table;
    node->p = p;
    return node;
  });
}

}  // namespace ablate::graph::dynamic
