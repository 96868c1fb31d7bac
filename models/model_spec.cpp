// Parser of the model text format (models/README.md) and the typed getters of LayerSpec.
// Every problem is an std::invalid_argument naming "file:line", the layer, the key, the
// value and what was expected.
#include "models/model_spec.h"

#include <cctype>
#include <climits>
#include <stdexcept>

#include "models/checked_model.h"
#include "models/layer_catalog.h"
#include "models/number_parse.h"
#include "models/onnx/onnx_import.h"
#include "models/source_resolver.h"
#include "models/text_lines.h"

namespace ablate::models {
namespace {

std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + items[i];
  return out;
}

std::string where(const std::string& source, int line) { return source + ":" + std::to_string(line); }

[[noreturn]] void fail(const std::string& source, int line, const std::string& what) {
  throw std::invalid_argument(where(source, line) + ": " + what);
}

std::vector<std::string> split_names(const std::string& list) {
  std::vector<std::string> names;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = list.find(',', start);
    names.push_back(list.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
    if (comma == std::string::npos) return names;
    start = comma + 1;
  }
}

bool valid_name(const std::string& name) {
  if (name.empty()) return false;
  for (char c : name)
    if (!(std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == '-')) return false;
  return true;
}

// Tracks the `model`, `input` and `classes` lines: each exactly once.
struct Header {
  bool has_model = false, has_input = false, has_classes = false;
};

void parse_header_line(const TextLine& line, const std::string& source, Header& seen, ModelSpec& spec) {
  const std::string& word = line.tokens[0];
  const std::size_t args = line.tokens.size() - 1;
  auto positive = [&](const std::string& token, const char* what) {
    auto v = parse_integer(token);
    if (!v || *v < 1 || *v > INT_MAX)
      fail(source, line.number, std::string(what) + " expects a positive integer, got '" + token + "'" +
                                    (v ? "" : " (not an integer)"));
    return static_cast<int>(*v);
  };
  auto once = [&](bool& flag) {
    if (flag) fail(source, line.number, "'" + word + "' is given twice");
    flag = true;
  };
  if (word == "model") {
    once(seen.has_model);
    if (args != 1 || !valid_name(line.tokens[1]))
      fail(source, line.number, "expected 'model NAME' (letters, digits, '_' or '-'), got '" + line.rest + "'");
    spec.name = line.tokens[1];
  } else if (word == "input") {
    once(seen.has_input);
    if (args != 3) fail(source, line.number, "expected 'input C H W', got 'input " + line.rest + "'");
    for (std::size_t i = 1; i <= 3; ++i) spec.input_shape.push_back(positive(line.tokens[i], "input"));
  } else {  // classes
    once(seen.has_classes);
    if (args != 1) fail(source, line.number, "expected 'classes K', got 'classes " + line.rest + "'");
    spec.classes = positive(line.tokens[1], "classes");
  }
}

LayerSpec parse_layer_line(const TextLine& line, const std::string& source) {
  if (line.tokens.size() < 3) fail(source, line.number, "expected 'layer NAME TYPE key=value...', got 'layer " + line.rest + "'");
  LayerSpec layer;
  layer.name = line.tokens[1];
  layer.type = line.tokens[2];
  layer.line = line.number;
  layer.source = where(source, line.number);
  if (!valid_name(layer.name))
    fail(source, line.number, "layer name '" + layer.name + "' must be letters, digits, '_' or '-'");
  if (layer.name == kModelInput)
    fail(source, line.number, "layer name '" + layer.name + "' is reserved: input=" + kModelInput + " names the model input");
  const LayerType* info = &layer_type_of(layer);
  std::string prefix = "layer '" + layer.name + "' (" + layer.type + "): ";
  for (std::size_t i = 3; i < line.tokens.size(); ++i) {
    const std::string& token = line.tokens[i];
    std::size_t eq = token.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == token.size())
      fail(source, line.number, prefix + "expected key=value, got '" + token + "'");
    std::string key = token.substr(0, eq), value = token.substr(eq + 1);
    check_key_value(layer, *info, key, value);
    if (layer.params.count(key) || (key == "input" && !layer.inputs.empty()))
      fail(source, line.number, prefix + "key '" + key + "' is given twice");
    if (key == "input")
      layer.inputs = split_names(value);
    else
      layer.params[key] = value;
  }
  if (info->check_keys) info->check_keys(layer);
  return layer;
}

[[noreturn]] void bad_value(const LayerSpec& layer, const std::string& key, const std::string& value, const char* expected) {
  throw std::invalid_argument(layer.source + ": layer '" + layer.name + "': key '" + key + "' expects " + expected +
                              ", got '" + value + "'");
}

[[noreturn]] void missing_key(const LayerSpec& layer, const std::string& key) {
  throw std::invalid_argument(layer.source + ": layer '" + layer.name + "' (" + layer.type + ") needs key '" + key + "'");
}

}  // namespace

int LayerSpec::get_int(const std::string& key, int fallback) const {
  auto it = params.find(key);
  if (it == params.end()) return fallback;
  auto v = parse_integer(it->second);
  if (!v || *v < INT_MIN || *v > INT_MAX) bad_value(*this, key, it->second, "an integer");
  return static_cast<int>(*v);
}

double LayerSpec::get_double(const std::string& key, double fallback) const {
  auto it = params.find(key);
  if (it == params.end()) return fallback;
  auto v = parse_real(it->second);
  if (!v) bad_value(*this, key, it->second, "a number");
  return *v;
}

std::string LayerSpec::get_string(const std::string& key, const std::string& fallback) const {
  auto it = params.find(key);
  return it == params.end() ? fallback : it->second;
}

int LayerSpec::require_int(const std::string& key) const {
  if (!has(key)) missing_key(*this, key);
  return get_int(key, 0);
}

double LayerSpec::require_double(const std::string& key) const {
  if (!has(key)) missing_key(*this, key);
  return get_double(key, 0);
}

std::string LayerSpec::where() const {
  return (source.empty() ? "" : source + ": ") + "layer '" + name + "' (" + type + ")";
}

void LayerSpec::fail(const std::string& what) const { throw std::invalid_argument(where() + ": " + what); }

const LayerSpec& ModelSpec::layer(const std::string& layer_name) const {
  for (const auto& l : layers)
    if (l.name == layer_name) return l;
  std::vector<std::string> names;
  for (const auto& l : layers) names.push_back(l.name);
  throw std::invalid_argument("model '" + name + "' (" + source + ") has no layer '" + layer_name +
                              "' (layers: " + join(names) + ")");
}

ModelSpec parse_model(const std::string& text, const std::string& source) {
  ModelSpec spec;
  spec.source = source;
  Header seen;
  for (const TextLine& line : split_text_lines(text)) {
    const std::string& word = line.tokens[0];
    if (word == "model" || word == "input" || word == "classes")
      parse_header_line(line, source, seen, spec);
    else if (word == "layer")
      spec.layers.push_back(parse_layer_line(line, source));
    else
      fail(source, line.number, "unknown statement '" + word + "' (expected model, input, classes or layer)");
  }
  const int end = last_line_number(text);
  if (!seen.has_model) fail(source, end, "missing 'model NAME' line");
  if (!seen.has_input) fail(source, end, "missing 'input C H W' line");
  if (!seen.has_classes) fail(source, end, "missing 'classes K' line");
  if (spec.layers.empty()) fail(source, end, "model '" + spec.name + "' has no layers");
  link_layers(spec);
  return spec;
}

ModelSpec load_model(const std::string& path_or_name) {
  if (onnx_import::is_onnx_path(path_or_name)) {
    onnx_import::ImportResult imported = onnx_import::import_file(path_or_name);
    imported.spec.note = imported.note;
    return std::move(imported.spec);
  }
  SourceText found = resolve_source(path_or_name, "zoo", ".model", "model");
  return parse_model(found.text, found.source);
}

}  // namespace ablate::models
