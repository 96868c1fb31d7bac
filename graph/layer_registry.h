// LayerRegistry: one strategy's builders by layer type name, as Caffe's LayerRegistry. Each
// builder registers itself at start-up from the file that defines it, with
// ABLATE_REGISTER_LAYER_BUILDER (Caffe's REGISTER_LAYER_CLASS); the registry is a
// function-local static of the strategy, so registrations from any file's static initializer
// find it built, and it is read only once main() runs. A catalogued type that describes an
// element-wise activation (models::LayerType::activation) and has no builder of its own takes
// the strategy's one activation builder, so a new activation needs no builder anywhere.
// The libraries are linked whole (CMakeLists.txt), so no registration is dropped by the
// linker; missing_builders() lists the catalogued types a strategy cannot build, which the
// strategy table checks before building any engine and tests/graph checks for every strategy.
#pragma once

#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "models/layer_catalog.h"

namespace ablate::graph {

template <class Builder>
class LayerRegistry {
 public:
  explicit LayerRegistry(std::string strategy) : strategy_(std::move(strategy)) {}

  // A second builder for a type is a logic_error (thrown at start-up).
  bool add(const std::string& type, Builder builder) {
    if (!builders_.emplace(type, std::move(builder)).second)
      throw std::logic_error("the " + strategy_ + " strategy registers a builder for layer type '" + type + "' twice");
    return true;
  }
  bool set_activation_builder(Builder builder) {
    if (activation_) throw std::logic_error("the " + strategy_ + " strategy registers its activation builder twice");
    activation_ = std::move(builder);
    return true;
  }

  // The builder of a type: its own, else the activation builder for an activation type.
  const Builder* find(const std::string& type) const {
    if (auto it = builders_.find(type); it != builders_.end()) return &it->second;
    const models::LayerType* info = models::find_layer_type(type);
    if (info && info->activation && activation_) return &*activation_;
    return nullptr;
  }
  // Throws std::logic_error naming the layer and the strategy when its type has no builder
  // (the model was checked, so the type is catalogued: this build lacks the builder).
  const Builder& at(const models::LayerSpec& layer) const {
    if (const Builder* builder = find(layer.type)) return *builder;
    throw std::logic_error(layer.where() + ": the " + strategy_ + " strategy has no builder for layer type '" +
                           layer.type + "'");
  }

  // The catalogued types without a builder, in catalogue order.
  std::vector<std::string> missing_builders() const {
    std::vector<std::string> missing;
    for (const models::LayerType* type : models::layer_catalog())
      if (!find(type->name)) missing.push_back(type->name);
    return missing;
  }

 private:
  std::string strategy_;
  std::map<std::string, Builder> builders_;
  std::optional<Builder> activation_;
};

}  // namespace ablate::graph

// Registers `builder` for layer type `type` (a bare name: convolution) in `registry` (an
// expression giving the strategy's LayerRegistry), at start-up.
#define ABLATE_REGISTER_LAYER_BUILDER(registry, type, builder) \
  [[maybe_unused]] static const bool ablate_layer_builder_##type = (registry).add(#type, builder)
// Registers the activation builder of a strategy, at start-up.
#define ABLATE_REGISTER_ACTIVATION_BUILDER(registry, builder) \
  [[maybe_unused]] static const bool ablate_activation_builder = (registry).set_activation_builder(builder)
