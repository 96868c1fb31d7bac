// The dynamic strategy's registry of modules by layer type: each module file registers the
// maker of its types with ABLATE_DYNAMIC_MODULE (as Caffe's REGISTER_LAYER_CLASS);
// ActivationModule serves every activation type (graph/layer_registry.h).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "graph/dynamic/module.h"
#include "graph/layer_registry.h"

namespace ablate::graph::dynamic {

using ModuleMaker = std::function<std::unique_ptr<Module>(const models::LayerSpec&, const models::LayerType&,
                                                          std::vector<Variable> parameters,
                                                          std::vector<kernels::Tensor> state)>;
LayerRegistry<ModuleMaker>& module_registry();

// The module of a checked layer spec of type `type` with its parameters (weight, then bias,
// as its shapes say) and its state tensors on the backend's device (BatchNorm's running
// statistics, models::LayerShapes::state; empty for most types).
std::unique_ptr<Module> make_module(const models::LayerSpec& spec, const models::LayerType& type,
                                    std::vector<Variable> parameters, std::vector<kernels::Tensor> state = {});

// The maker of a module constructed as M(spec, parameters, state), M(spec, parameters), or
// M(spec) for one without either.
template <class M>
ModuleMaker module_maker() {
  return [](const models::LayerSpec& spec, const models::LayerType&, std::vector<Variable> parameters,
            std::vector<kernels::Tensor> state) {
    using Parameters = std::vector<Variable>;
    if constexpr (std::is_constructible_v<M, const models::LayerSpec&, Parameters, std::vector<kernels::Tensor>>)
      return std::unique_ptr<Module>(std::make_unique<M>(spec, std::move(parameters), std::move(state)));
    else if constexpr (std::is_constructible_v<M, const models::LayerSpec&, Parameters>)
      return std::unique_ptr<Module>(std::make_unique<M>(spec, std::move(parameters)));
    else
      return std::unique_ptr<Module>(std::make_unique<M>(spec));
  };
}

}  // namespace ablate::graph::dynamic

// Registers `maker` (a ModuleMaker) for model-file type `type`, at start-up.
#define ABLATE_DYNAMIC_MODULE(type, maker) \
  ABLATE_REGISTER_LAYER_BUILDER(::ablate::graph::dynamic::module_registry(), type, maker)
