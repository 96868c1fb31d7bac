// The one place that maps model-file layer types to the dynamic strategy's modules.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "graph/dynamic/module.h"

namespace ablate::graph::dynamic {

// The layer types that have a module, in models/layer_catalog.cpp's order.
std::vector<std::string> module_types();
// Throws std::invalid_argument naming the layer when its type has no module.
void check_module_type(const models::LayerSpec& spec);
// The module of a layer with its parameters (weight, then bias, as the layer's spec says).
std::unique_ptr<Module> make_module(const models::LayerSpec& spec, std::vector<Variable> parameters);

}  // namespace ablate::graph::dynamic
