// Batch normalisation ops of the tape (F.batch_norm): the training form, whose node keeps x,
// the weight and the batch statistics for Backend::batch_norm_backward (dx, dweight, dbias
// in one call), and the inference form over given statistics, which has no gradient here
// (the engines evaluate without recording).
#include <stdexcept>
#include <string>

#include "graph/dynamic/op_record.h"
#include "graph/dynamic/ops.h"

namespace ablate::graph::dynamic {
namespace {

struct BatchNormNode final : Node {
  kernels::Tensor x, weight, mean, var;
  double epsilon = 1e-5;
  const char* name() const override { return "batch_norm"; }
  void backward(const kernels::Tensor& dy, InputGrads& g) override {
    kernels::Tensor no_dx, no_dweight, no_dbias;  // empty: not computed
    kernels::Tensor& dx = g.wanted(0) ? g.out(0, x) : no_dx;
    kernels::Tensor& dweight = g.wanted(1) ? g.out(1, weight) : no_dweight;
    kernels::Tensor& dbias = g.wanted(2) ? g.out(2, weight) : no_dbias;
    g.backend().batch_norm_backward(x, dy, weight, mean, var, epsilon, dx, dweight, dbias);
  }
  std::vector<kernels::Tensor*> saved() override { return {&x, &weight, &mean, &var}; }
};

// Checks x [N, C] or [N, C, H, W] and an optional weight and bias [C]; returns C.
std::int64_t check_inputs(const char* op, const Variable& x, const Variable& weight, const Variable& bias) {
  const kernels::Tensor& v = x.value();
  require(v.ndim() == 2 || v.ndim() == 4, op, "input", v, "[N, C] or [N, C, H, W]");
  const std::int64_t channels = v.dim(1);
  for (const Variable* p : {&weight, &bias})
    require(!p->defined() || p->shape() == kernels::Shape{channels}, op, p == &weight ? "weight" : "bias",
            value_or_none(*p), [&] { return "[" + std::to_string(channels) + "] for input " + v.describe(); });
  require(weight.defined() == bias.defined(), op, "weight", value_or_none(weight), "given with a bias, or neither");
  return channels;
}

}  // namespace

Variable batch_norm(const Variable& x, const Variable& weight, const Variable& bias, double epsilon,
                    kernels::Tensor& mean, kernels::Tensor& var) {
  Context& c = op_context("batch_norm", {&x, &weight, &bias});
  const std::int64_t channels = check_inputs("batch_norm", x, weight, bias);
  kernels::Tensor y = c.empty_like(x.value());  // in x's layout (context.h)
  mean = c.empty({channels}, x.dtype());
  var = c.empty({channels}, x.dtype());
  c.backend().batch_norm_forward_training(x.value(), value_or_none(weight), value_or_none(bias), epsilon, y, mean, var);
  return op_output(c, std::move(y), {&x, &weight, &bias}, [&] {
    auto node = std::make_shared<BatchNormNode>();
    node->x = x.value();
    node->weight = value_or_none(weight);
    node->mean = mean;
    node->var = var;
    node->epsilon = epsilon;
    return node;
  });
}

Variable batch_norm_inference(const Variable& x, const Variable& weight, const Variable& bias,
                              const kernels::Tensor& mean, const kernels::Tensor& var, double epsilon) {
  Context& c = op_context("batch_norm_inference", {&x, &weight, &bias});
  check_inputs("batch_norm_inference", x, weight, bias);
  if (should_record(c, {&x, &weight, &bias}))
    throw std::logic_error("batch_norm_inference: recorded with gradients on; its gradient is not built (evaluate "
                           "under NoGradGuard, or train with batch statistics)");
  kernels::Tensor y = c.empty_like(x.value());
  c.backend().batch_norm_forward_inference(x.value(), value_or_none(weight), value_or_none(bias), mean, var, epsilon, y);
  return Variable(c, std::move(y));
}

}  // namespace ablate::graph::dynamic
