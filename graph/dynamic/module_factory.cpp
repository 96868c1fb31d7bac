// The dynamic strategy's registry of modules (see module_factory.h).
#include "graph/dynamic/module_factory.h"

namespace ablate::graph::dynamic {

LayerRegistry<ModuleMaker>& module_registry() {
  static LayerRegistry<ModuleMaker> registry("dynamic");
  return registry;
}

std::unique_ptr<Module> make_module(const models::LayerSpec& spec, const models::LayerType& type,
                                    std::vector<Variable> parameters) {
  return module_registry().at(spec)(spec, type, std::move(parameters));
}

}  // namespace ablate::graph::dynamic
