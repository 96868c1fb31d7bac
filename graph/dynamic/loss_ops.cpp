// The ops of the tape that end in a host scalar (f64 [1]): the losses (mean over the batch,
// as Torch's sizeAverage criteria, Caffe's normalised loss and TF's reduce_mean) and sum.
// Their backward reads the scalar gradient dy (1 for a loss run backward alone; 1/B per sample
// in Torch's one-sample-at-a-time mode) and scales the per-sample gradient by dy / N.
#include <string>

#include "graph/dynamic/op_record.h"
#include "graph/dynamic/ops.h"

namespace ablate::graph::dynamic {
namespace {

double scalar(const kernels::Tensor& dy) { return dy.data<double>()[0]; }

struct SoftmaxXentNode final : Node {
  kernels::Tensor prob, labels;
  const char* name() const override { return "softmax_cross_entropy"; }
  void backward(const kernels::Tensor& dy, InputGrads& g) override {
    g.backend().softmax_xent_backward(prob, labels, scalar(dy) / static_cast<double>(prob.dim(0)), g.out(0, prob));
  }
  std::vector<kernels::Tensor*> saved() override { return {&prob, &labels}; }
};

struct NllNode final : Node {
  kernels::Tensor labels;
  kernels::Shape shape;  // of logp
  kernels::DType dtype = kernels::DType::f32;
  const char* name() const override { return "nll_loss"; }
  void backward(const kernels::Tensor& dy, InputGrads& g) override {
    g.backend().nll_backward(labels, scalar(dy) / static_cast<double>(shape[0]), g.out(0, shape, dtype));
  }
  std::vector<kernels::Tensor*> saved() override { return {&labels}; }
};

struct SumNode final : Node {
  kernels::Shape shape;
  kernels::DType dtype = kernels::DType::f32;
  const char* name() const override { return "sum"; }
  void backward(const kernels::Tensor& dy, InputGrads& g) override {
    g.backend().fill(g.out(0, shape, dtype), scalar(dy));
  }
};

void check_scores(const char* op, const Variable& x, const kernels::Tensor& labels) {
  require(x.value().ndim() == 2, op, "scores", x.value(), "[N, K]");
  require(labels.dtype() == kernels::DType::i32 && labels.numel() == x.shape()[0], op, "labels", labels,
          [&] { return "i32[" + std::to_string(x.shape()[0]) + "] for scores " + x.value().describe(); });
}

}  // namespace

Variable softmax_cross_entropy(const Variable& logits, const kernels::Tensor& labels) {
  Context& c = op_context("softmax_cross_entropy", {&logits});
  check_scores("softmax_cross_entropy", logits, labels);
  kernels::Tensor prob = c.empty(logits.shape(), logits.dtype());
  const double loss = c.backend().softmax_xent_forward(logits.value(), labels, prob);
  return op_output(c, c.host_scalar(loss), {&logits}, [&] {
    auto node = std::make_shared<SoftmaxXentNode>();
    node->prob = std::move(prob);
    node->labels = labels;
    return node;
  });
}

Variable nll_loss(const Variable& logp, const kernels::Tensor& labels) {
  Context& c = op_context("nll_loss", {&logp});
  check_scores("nll_loss", logp, labels);
  const double loss = c.backend().nll_forward(logp.value(), labels);
  return op_output(c, c.host_scalar(loss), {&logp}, [&] {
    auto node = std::make_shared<NllNode>();
    node->labels = labels;
    node->shape = logp.shape();
    node->dtype = logp.dtype();
    return node;
  });
}

Variable sum(const Variable& x) {
  Context& c = op_context("sum", {&x});
  return op_output(c, c.host_scalar(c.backend().sum(x.value())), {&x}, [&] {
    auto node = std::make_shared<SumNode>();
    node->shape = x.shape();
    node->dtype = x.dtype();
    return node;
  });
}

}  // namespace ablate::graph::dynamic
