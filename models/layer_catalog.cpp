// The catalogue of layer types (see layer_catalog.h). Types register at start-up, from
// static initializers in models/layers/*.cpp; the catalogue is read only after main() begins,
// so the order in which the files register does not matter: it is kept sorted by name.
#include "models/layer_catalog.h"

#include <map>
#include <stdexcept>

namespace ablate::models {
namespace {

// The registered types by name, and the same as a list in name order. Function-local, so
// that registrations from any file's static initializer find it built.
struct Catalogue {
  std::map<std::string, LayerType> types;
  std::vector<const LayerType*> ordered;
};

Catalogue& catalogue() {
  static Catalogue c;
  return c;
}

std::string join(const std::vector<std::string>& items, const char* separator) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? separator : "") + items[i];
  return out;
}

}  // namespace

bool register_layer_type(LayerType type) {
  if (type.name.empty() || !type.shape)
    throw std::logic_error("layer type '" + type.name + "': a layer type needs a name and a shape rule");
  if (type.backward_reads_input && (type.in_place || !type.activation))
    throw std::logic_error("layer type '" + type.name + "': only an activation's backward reads its input, and it cannot run in place");
  type.keys.push_back({"input", ValueRule{ValueKind::name_list, {}}});  // every type names its inputs
  const std::string name = type.name;
  Catalogue& c = catalogue();
  if (!c.types.emplace(name, std::move(type)).second)
    throw std::logic_error("layer type '" + name + "' is registered twice");
  c.ordered.clear();
  for (const auto& [key, registered] : c.types) c.ordered.push_back(&registered);
  return true;
}

const std::vector<const LayerType*>& layer_catalog() { return catalogue().ordered; }

const LayerType* find_layer_type(const std::string& type) {
  for (const LayerType* info : layer_catalog())
    if (info->name == type) return info;
  return nullptr;
}

const LayerType& layer_type_of(const LayerSpec& layer) {
  if (const LayerType* info = find_layer_type(layer.type)) return *info;
  throw std::invalid_argument((layer.source.empty() ? "" : layer.source + ": ") + "layer '" + layer.name +
                              "': unknown layer type '" + layer.type + "' (known types: " + layer_type_names() + ")");
}

const KeyRule* find_key(const LayerType& info, const std::string& key) {
  for (const auto& rule : info.keys)
    if (rule.key == key) return &rule;
  return nullptr;
}

bool is_loss_type(const std::string& type) {
  const LayerType* info = find_layer_type(type);
  return info && info->loss;
}

void check_key_value(const LayerSpec& layer, const LayerType& type, const std::string& key, const std::string& value) {
  const KeyRule* rule = find_key(type, key);
  if (!rule) {
    std::vector<std::string> accepted;
    for (const KeyRule& r : type.keys) accepted.push_back(r.key);
    layer.fail("unknown key '" + key + "' (accepted: " + join(accepted, ", ") + ")");
  }
  const std::string problem = value_problem(rule->rule, value);
  if (!problem.empty()) layer.fail("key '" + key + "' " + problem);
}

void check_layer_keys(const LayerSpec& layer, const LayerType& type) {
  for (const auto& [key, value] : layer.params) check_key_value(layer, type, key, value);
  if (type.check_keys) type.check_keys(layer);
}

std::string loss_type_names() {
  std::vector<std::string> names;
  for (const LayerType* info : layer_catalog())
    if (info->loss) names.push_back(info->name);
  return join(names, " or ");
}

std::string layer_type_names() {
  std::vector<std::string> names;
  for (const LayerType* info : layer_catalog()) names.push_back(info->name);
  return join(names, ", ");
}

const std::map<std::string, std::vector<std::string>>& layer_types() {
  static const std::map<std::string, std::vector<std::string>> types = [] {
    std::map<std::string, std::vector<std::string>> out;
    for (const LayerType* info : layer_catalog())
      for (const auto& rule : info->keys) out[info->name].push_back(rule.key);
    return out;
  }();
  return types;
}

}  // namespace ablate::models
