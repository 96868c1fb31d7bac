// Parser of preset files (models/presets/*.preset): one "key value" per line, '#' comments,
// each key's value checked against its rule so that a typo stops the run at file:line.
#include "models/preset.h"

#include <stdexcept>

#include "models/number_parse.h"
#include "models/source_resolver.h"
#include "models/text_lines.h"
#include "models/value_rules.h"

namespace ablate::models {
namespace {

struct PresetKey {
  const char* key;
  ValueRule rule;
};

ValueRule kind(ValueKind k) { return ValueRule{k, {}}; }
ValueRule choice(std::vector<std::string> choices) { return ValueRule{ValueKind::choice, std::move(choices)}; }

// Choices follow the interfaces that consume them: graph/engine.h (strategy),
// kernels/registry.h (backend), graph/optim/optimizer_config.h (optimizer, lr_policy).
const std::vector<PresetKey>& preset_table() {
  static const std::vector<PresetKey> table = {
      {"framework", kind(ValueKind::word)},
      {"dataset_family", kind(ValueKind::word)},
      {"model", kind(ValueKind::word)},
      {"strategy", choice({"static", "dynamic", "layerwise"})},
      {"backend", choice({"reference", "eigen", "openblas", "onednn", "cuda"})},
      {"threads", kind(ValueKind::thread_count)},
      {"precision", choice({"f32", "f64"})},
      {"optimizer", choice({"caffe_sgd", "torch_sgd", "adam", "adamw", "gd"})},
      {"base_lr", kind(ValueKind::positive_real)},
      {"lr_policy", choice({"fixed", "inv", "step", "multistep", "exp_staircase", "torch_decay", "warmup_cosine"})},
      {"warmup", kind(ValueKind::non_negative_integer)},
      {"max_iter", kind(ValueKind::positive_integer)},
      {"gamma", kind(ValueKind::non_negative_real)},
      {"power", kind(ValueKind::non_negative_real)},
      {"stepsize", kind(ValueKind::positive_integer)},
      {"stepvalues", kind(ValueKind::integer_list)},
      {"momentum", kind(ValueKind::non_negative_real)},
      {"weight_decay", kind(ValueKind::non_negative_real)},
      {"dampening", kind(ValueKind::non_negative_real)},
      {"batch", kind(ValueKind::positive_integer)},
      {"iterations", kind(ValueKind::non_negative_integer)},
      {"epochs", kind(ValueKind::non_negative_real)},
      {"test_interval", kind(ValueKind::non_negative_integer)},
      {"test_batch", kind(ValueKind::positive_integer)},
      {"test_iterations", kind(ValueKind::non_negative_integer)},
      {"test_interval_epochs", kind(ValueKind::non_negative_real)},
      {"transform", kind(ValueKind::text)},
      {"test_transform", kind(ValueKind::text)},
      {"shuffle", kind(ValueKind::boolean)},
      {"validation_count", kind(ValueKind::non_negative_integer)},
      {"validation_interval", kind(ValueKind::non_negative_integer)},
      {"patience", kind(ValueKind::non_negative_integer)},
      {"patience_increase", kind(ValueKind::non_negative_real)},
      {"improvement_threshold", kind(ValueKind::non_negative_real)},
      {"target_accuracy", kind(ValueKind::non_negative_real)},
      {"weight_average_decay", kind(ValueKind::non_negative_real)},
      {"per_sample", kind(ValueKind::boolean)},
      {"caching_allocator", kind(ValueKind::boolean)},
      {"blocked_layout", kind(ValueKind::boolean)},
      {"malloc", choice({"system", "keep"})},
      {"huge_pages", choice({"system", "madvise"})},
      {"executor", choice({"sequential", "parallel"})},
      {"inter_op_threads", kind(ValueKind::thread_count)},
      {"passes", kind(ValueKind::text)},
      {"conv_mode", choice({"per_image", "batched", "omp_per_image", "omp_batched"})},
      {"conv_lowering", choice({"per_image_gemm", "batched_gemm", "eigen_spatial", "direct", "omp_per_image"})},
      {"threading", choice({"library", "openmp_images", "openmp_frames", "intra_inter"})},
      {"pool_gradient", choice({"first", "all"})},
      {"onednn_conv_layout", choice({"autotune", "plain", "nhwc", "blocked"})},
      {"seed", kind(ValueKind::non_negative_integer)},
      {"notes", kind(ValueKind::text)},
  };
  return table;
}

const PresetKey* find_preset_key(const std::string& key) {
  for (const auto& entry : preset_table())
    if (key == entry.key) return &entry;
  return nullptr;
}

std::string known_keys() {
  std::string out;
  for (const auto& key : preset_keys()) out += (out.empty() ? "" : ", ") + key;
  return out;
}

[[noreturn]] void fail(const std::string& source, int line, const std::string& what) {
  throw std::invalid_argument(source + ":" + std::to_string(line) + ": " + what);
}

}  // namespace

const std::vector<std::string>& preset_keys() {
  static const std::vector<std::string> keys = [] {
    std::vector<std::string> out;
    for (const auto& entry : preset_table()) out.push_back(entry.key);
    return out;
  }();
  return keys;
}

std::string Preset::get(const std::string& key) const {
  auto it = values.find(key);
  if (it == values.end()) throw std::invalid_argument(source + ": preset has no key '" + key + "'");
  return it->second;
}

double Preset::get_double(const std::string& key) const {
  const std::string value = get(key);
  auto v = parse_real(value);
  if (!v) fail(source, lines.at(key), "key '" + key + "' expects a number, got '" + value + "'");
  return *v;
}

long long Preset::get_int(const std::string& key) const {
  const std::string value = get(key);
  auto v = parse_integer(value);
  if (!v) fail(source, lines.at(key), "key '" + key + "' expects an integer, got '" + value + "'");
  return *v;
}

Preset parse_preset(const std::string& text, const std::string& source) {
  Preset preset;
  preset.source = source;
  for (const TextLine& line : split_text_lines(text)) {
    const std::string& key = line.tokens[0];
    const PresetKey* entry = find_preset_key(key);
    if (!entry) fail(source, line.number, "unknown key '" + key + "' (known keys: " + known_keys() + ")");
    if (preset.has(key))
      fail(source, line.number, "key '" + key + "' is given twice (first at line " + std::to_string(preset.lines[key]) + ")");
    if (line.rest.empty()) fail(source, line.number, "key '" + key + "' has no value (expects " + describe(entry->rule) + ")");
    std::string problem = value_problem(entry->rule, line.rest);
    if (!problem.empty()) fail(source, line.number, "key '" + key + "' " + problem);
    preset.values[key] = line.rest;
    preset.lines[key] = line.number;
  }
  return preset;
}

Preset load_preset(const std::string& path_or_name) {
  SourceText found = resolve_source(path_or_name, "presets", ".preset", "preset");
  return parse_preset(found.text, found.source);
}

std::string preset_name(const std::string& framework, const std::string& dataset_family) {
  return framework + "-" + dataset_family;
}

}  // namespace ablate::models
