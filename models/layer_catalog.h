// The catalogue of layer types: one LayerType per type name (models/layer_type.h), each
// registered by its own file in models/layers/. layer_types() in model_spec.h is a view of it.
#pragma once

#include <string>
#include <vector>

#include "models/layer_type.h"

namespace ablate::models {

// Every registered type, ordered by name.
const std::vector<const LayerType*>& layer_catalog();
const LayerType* find_layer_type(const std::string& type);  // nullptr if unknown
// The type of a layer; throws naming the layer and listing the known types when unknown.
const LayerType& layer_type_of(const LayerSpec& layer);
const KeyRule* find_key(const LayerType& info, const std::string& key);  // nullptr if not accepted
bool is_loss_type(const std::string& type);
// Throws naming the layer when its type does not accept `key` ("unknown key 'k' (accepted:
// ...)") or `value` breaks the key's rule ("key 'k' expects ..., got ...").
void check_key_value(const LayerSpec& layer, const LayerType& type, const std::string& key, const std::string& value);
// Every key of the layer (check_key_value), then its type's check of keys that go together.
void check_layer_keys(const LayerSpec& layer, const LayerType& type);
// "nll_loss or softmax_loss": the loss types, for messages.
std::string loss_type_names();
// "bias, conv_map, convolution, ...": every type name, for messages.
std::string layer_type_names();

}  // namespace ablate::models
