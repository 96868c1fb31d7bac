// The layer types a model file may use, each with the keys it accepts and the rule its
// values follow (documented in models/README.md). layer_types() in model_spec.h is a view
// of this table.
#pragma once

#include <string>
#include <vector>

#include "models/value_rules.h"

namespace ablate::models {

struct KeyRule {
  std::string key;
  ValueRule rule;
};

struct LayerTypeInfo {
  std::string type;
  std::vector<KeyRule> keys;
  bool loss = false;  // ends the model: output [1], the mean loss of the batch
};

const std::vector<LayerTypeInfo>& layer_catalog();
const LayerTypeInfo* find_layer_type(const std::string& type);  // nullptr if unknown
const KeyRule* find_key(const LayerTypeInfo& info, const std::string& key);  // nullptr if not accepted
bool is_loss_type(const std::string& type);

}  // namespace ablate::models
