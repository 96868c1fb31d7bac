// Forward of the modules with parameters (see parameter_modules.h).
#include "graph/dynamic/parameter_modules.h"

#include <algorithm>

#include "graph/dynamic/module_factory.h"
#include "graph/dynamic/ops.h"

namespace ablate::graph::dynamic {
namespace {

const Variable& bias_or_none(const std::vector<Variable>& parameters) {
  static const Variable none;
  return parameters.size() > 1 ? parameters[1] : none;
}

}  // namespace

ConvolutionModule::ConvolutionModule(const models::LayerSpec& spec, std::vector<Variable> parameters)
    : Module(spec, std::move(parameters)) {
  expect_parameters(models::layer_has_bias(spec) ? 2 : 1);
}

Variable ConvolutionModule::forward(const Variable& x, const ForwardContext&) {
  if (x.value().ndim() != 4) fail("expects an input [N, C, H, W], got " + x.value().describe());
  if (x.shape() != geometry_input_) {
    geometry_ = models::conv_geometry(spec_, static_cast<int>(x.shape()[2]), static_cast<int>(x.shape()[3]));
    geometry_input_ = x.shape();
  }
  return conv2d(x, parameter(0), bias_or_none(parameters_), geometry_.params);
}

ConvMapModule::ConvMapModule(const models::LayerSpec& spec, std::vector<Variable> parameters)
    : Module(spec, std::move(parameters)) {
  expect_parameters(models::layer_has_bias(spec) ? 2 : 1);
}

Variable ConvMapModule::forward(const Variable& x, const ForwardContext&) {
  if (x.value().ndim() != 4) fail("expects an input [N, C, H, W], got " + x.value().describe());
  if (x.shape() != geometry_input_) {
    geometry_ = models::conv_geometry(spec_, static_cast<int>(x.shape()[2]), static_cast<int>(x.shape()[3]));
    if (geometry_input_.empty() || geometry_input_[1] != x.shape()[1]) {
      const std::vector<std::int32_t> pairs = models::connection_table(spec_, static_cast<int>(x.shape()[1]));
      kernels::Tensor host({static_cast<std::int64_t>(pairs.size() / 2), 2}, kernels::DType::i32);
      std::copy(pairs.begin(), pairs.end(), host.data<std::int32_t>());
      table_ = x.context().to_device(host, kernels::DType::i32);
    }
    geometry_input_ = x.shape();
  }
  return conv2d_map(x, parameter(0), bias_or_none(parameters_), table_, geometry_.outputs, geometry_.params);
}

InnerProductModule::InnerProductModule(const models::LayerSpec& spec, std::vector<Variable> parameters, bool last_axis)
    : Module(spec, std::move(parameters)), last_axis_(last_axis) {
  expect_parameters(models::layer_has_bias(spec) ? 2 : 1);
}

Variable InnerProductModule::forward(const Variable& x, const ForwardContext&) {
  if (x.value().ndim() < 2) fail("expects an input [N, ...], got " + x.value().describe());
  if (last_axis_ && x.value().ndim() > 2) {
    const kernels::Shape& in = x.shape();
    kernels::Shape out = in;
    out.back() = parameter(0).shape()[0];
    return reshape(linear(reshape(x, {x.value().numel() / in.back(), in.back()}), parameter(0), bias_or_none(parameters_)),
                   out);
  }
  return linear(x.value().ndim() == 2 ? x : flatten(x), parameter(0), bias_or_none(parameters_));
}

BiasModule::BiasModule(const models::LayerSpec& spec, std::vector<Variable> parameters)
    : Module(spec, std::move(parameters)) {
  expect_parameters(1);
}

Variable BiasModule::forward(const Variable& x, const ForwardContext&) { return bias_add(x, parameter(0)); }

ABLATE_DYNAMIC_MODULE(convolution, module_maker<ConvolutionModule>());
ABLATE_DYNAMIC_MODULE(conv_map, module_maker<ConvMapModule>());
ABLATE_DYNAMIC_MODULE(inner_product, module_maker<InnerProductModule>());
ABLATE_DYNAMIC_MODULE(bias, module_maker<BiasModule>());
ABLATE_DYNAMIC_MODULE(linear, [](const models::LayerSpec& spec, const models::LayerType&, std::vector<Variable> parameters,
                                 std::vector<kernels::Tensor>) -> std::unique_ptr<Module> {
  return std::make_unique<InnerProductModule>(spec, std::move(parameters), /*last_axis=*/true);
});

}  // namespace ablate::graph::dynamic
