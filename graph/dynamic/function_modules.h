// The modules without parameters, each registered for its layer type (module_factory.h):
//   pooling       nn.SpatialMaxPooling / SpatialAveragePooling with the layer's padding rule
//   global_avg_pool  nn.SpatialAveragePooling(W, H) over each whole plane: the pool op with
//                 models::global_pool_params
//   relu, tanh, sigmoid  nn.ReLU, nn.Tanh, nn.Sigmoid: every activation type
//   lrn           nn.SpatialCrossMapLRN
//   dropout       nn.Dropout (inverted; identity when evaluating)
//   log_softmax   nn.LogSoftMax
//   softmax_loss  nn.CrossEntropyCriterion (Caffe's SoftmaxWithLoss); a loss
//   nll_loss      nn.ClassNLLCriterion; a loss
#pragma once

#include "graph/dynamic/module.h"
#include "graph/dynamic/training_dropout.h"
#include "kernels/op_params.h"

namespace ablate::graph::dynamic {

class PoolingModule final : public Module {
 public:
  explicit PoolingModule(const models::LayerSpec& spec);
  const char* type() const override;
  Variable forward(const Variable& x, const ForwardContext& context) override;

 private:
  kernels::Pool2dParams params_;
  kernels::Shape params_input_;  // the input shape params_ was resolved for
};

class GlobalAvgPoolModule final : public Module {
 public:
  explicit GlobalAvgPoolModule(const models::LayerSpec& spec) : Module(spec, {}) {}
  const char* type() const override { return "SpatialAveragePooling"; }
  Variable forward(const Variable& x, const ForwardContext& context) override;

 private:
  kernels::Pool2dParams params_;
  kernels::Shape params_input_;  // the input shape params_ was resolved for
};

class ActivationModule final : public Module {
 public:
  // `backward_from_input`: models::LayerType::backward_reads_input.
  ActivationModule(const models::LayerSpec& spec, kernels::Activation activation, bool backward_from_input = false);
  const char* type() const override;
  Variable forward(const Variable& x, const ForwardContext& context) override;

 private:
  kernels::Activation activation_;
  bool backward_from_input_;
};

class LrnModule final : public Module {
 public:
  explicit LrnModule(const models::LayerSpec& spec);
  const char* type() const override { return "SpatialCrossMapLRN"; }
  Variable forward(const Variable& x, const ForwardContext& context) override;

 private:
  kernels::LrnParams params_;
};

// The mask is drawn under the layer's name (TrainingDropout: the same units as the other
// strategies, batched or one sample at a time).
class DropoutModule final : public Module {
 public:
  explicit DropoutModule(const models::LayerSpec& spec);
  const char* type() const override { return "Dropout"; }
  Variable forward(const Variable& x, const ForwardContext& context) override;

 private:
  TrainingDropout dropout_;
};

class LogSoftmaxModule final : public Module {
 public:
  explicit LogSoftmaxModule(const models::LayerSpec& spec) : Module(spec, {}) {}
  const char* type() const override { return "LogSoftMax"; }
  Variable forward(const Variable& x, const ForwardContext& context) override;
};

class LossModule final : public Module {
 public:
  enum class Kind { softmax_cross_entropy, nll };
  LossModule(const models::LayerSpec& spec, Kind kind) : Module(spec, {}), kind_(kind) {}
  const char* type() const override;
  Variable forward(const Variable& x, const ForwardContext& context) override;

 private:
  Kind kind_;
};

}  // namespace ablate::graph::dynamic
