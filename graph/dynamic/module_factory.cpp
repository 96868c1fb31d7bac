// The dynamic strategy's registry of modules (see module_factory.h).
#include "graph/dynamic/module_factory.h"

namespace ablate::graph::dynamic {

LayerRegistry<ModuleMaker>& module_registry() {
  static LayerRegistry<ModuleMaker> registry("dynamic");
  return registry;
}

std::unique_ptr<Module> make_module(const models::LayerSpec& spec, const models::LayerType& type,
                                    std::vector<Variable> parameters, std::vector<kernels::Tensor> state) {
  return module_registry().at(spec)(spec, type, std::move(parameters), std::move(state));
}

}  // namespace ablate::graph::dynamic
