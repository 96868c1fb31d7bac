// Forward of the modules without parameters (see function_modules.h).
#include "graph/dynamic/function_modules.h"

#include "graph/dynamic/module_factory.h"
#include "graph/dynamic/ops.h"
#include "models/layer_params.h"

namespace ablate::graph::dynamic {

PoolingModule::PoolingModule(const models::LayerSpec& spec) : Module(spec, {}) {}

const char* PoolingModule::type() const {
  return spec_.get_string("mode", "max") == "avg" ? "SpatialAveragePooling" : "SpatialMaxPooling";
}

Variable PoolingModule::forward(const Variable& x, const ForwardContext&) {
  if (x.value().ndim() != 4) fail("expects an input [N, C, H, W], got " + x.value().describe());
  if (x.shape() != params_input_) {
    params_ = models::pool_params(spec_, static_cast<int>(x.shape()[2]), static_cast<int>(x.shape()[3]));
    params_input_ = x.shape();
  }
  return pool2d(x, params_);
}

Variable GlobalAvgPoolModule::forward(const Variable& x, const ForwardContext&) {
  if (x.value().ndim() != 4) fail("expects an input [N, C, H, W], got " + x.value().describe());
  if (x.shape() != params_input_) {
    params_ = models::global_pool_params(static_cast<int>(x.shape()[2]), static_cast<int>(x.shape()[3]));
    params_input_ = x.shape();
  }
  return pool2d(x, params_);
}

ActivationModule::ActivationModule(const models::LayerSpec& spec, kernels::Activation activation,
                                   bool backward_from_input)
    : Module(spec, {}), activation_(activation), backward_from_input_(backward_from_input) {}

const char* ActivationModule::type() const {
  switch (activation_) {
    case kernels::Activation::relu: return "ReLU";
    case kernels::Activation::tanh: return "Tanh";
    case kernels::Activation::sigmoid: return "Sigmoid";
    default: return kernels::activation_name(activation_);
  }
}

Variable ActivationModule::forward(const Variable& x, const ForwardContext&) {
  return activation(x, activation_, backward_from_input_);
}

LrnModule::LrnModule(const models::LayerSpec& spec) : Module(spec, {}), params_(models::lrn_params(spec)) {}

Variable LrnModule::forward(const Variable& x, const ForwardContext&) {
  if (x.value().ndim() != 4) fail("expects an input [N, C, H, W], got " + x.value().describe());
  return lrn(x, params_);
}

DropoutModule::DropoutModule(const models::LayerSpec& spec)
    : Module(spec, {}), dropout_(models::dropout_keep(spec), spec.name, spec_) {}

Variable DropoutModule::forward(const Variable& x, const ForwardContext& context) { return dropout_.apply(x, context); }

Variable LogSoftmaxModule::forward(const Variable& x, const ForwardContext&) {
  if (x.value().ndim() != 2) fail("expects an input [N, K], got " + x.value().describe());
  return log_softmax(x);
}

const char* LossModule::type() const {
  return kind_ == Kind::nll ? "ClassNLLCriterion" : "CrossEntropyCriterion";
}

Variable LossModule::forward(const Variable& x, const ForwardContext& context) {
  if (context.labels.empty()) fail("forward without labels");
  return kind_ == Kind::nll ? nll_loss(x, context.labels) : softmax_cross_entropy(x, context.labels);
}

ABLATE_DYNAMIC_MODULE(pooling, module_maker<PoolingModule>());
ABLATE_DYNAMIC_MODULE(global_avg_pool, module_maker<GlobalAvgPoolModule>());
ABLATE_DYNAMIC_MODULE(lrn, module_maker<LrnModule>());
ABLATE_DYNAMIC_MODULE(dropout, module_maker<DropoutModule>());
ABLATE_DYNAMIC_MODULE(log_softmax, module_maker<LogSoftmaxModule>());
ABLATE_DYNAMIC_MODULE(softmax_loss, [](const models::LayerSpec& spec, const models::LayerType&, std::vector<Variable>,
                                       std::vector<kernels::Tensor>) {
  return std::unique_ptr<Module>(std::make_unique<LossModule>(spec, LossModule::Kind::softmax_cross_entropy));
});
ABLATE_DYNAMIC_MODULE(nll_loss, [](const models::LayerSpec& spec, const models::LayerType&, std::vector<Variable>,
                                   std::vector<kernels::Tensor>) {
  return std::unique_ptr<Module>(std::make_unique<LossModule>(spec, LossModule::Kind::nll));
});
ABLATE_REGISTER_ACTIVATION_BUILDER(module_registry(), [](const models::LayerSpec& spec, const models::LayerType& type,
                                                         std::vector<Variable>, std::vector<kernels::Tensor>) {
  return std::unique_ptr<Module>(
      std::make_unique<ActivationModule>(spec, type.activation(spec), type.backward_reads_input));
});

}  // namespace ablate::graph::dynamic
