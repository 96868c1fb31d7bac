// NodeContext (op_mapping.h): what an op mapping reads of its node (inputs as values,
// attributes) and writes (layers, given values, outputs), and its refusals, which name the file,
// the node, its op type and the attribute or input at fault.
#include <algorithm>
#include <stdexcept>

#include "models/onnx/importer.h"
#include "models/onnx/naming.h"

namespace ablate::models::onnx_import {

NodeContext::NodeContext(Importer& importer, const onnx::NodeProto& node, int index)
    : importer_(importer), node_(node), index_(index) {}

int NodeContext::opset() const { return importer_.opset(); }
bool NodeContext::forward_only() const { return importer_.options().forward_only; }

bool NodeContext::has_input(int k) const { return k < node_.input_size() && !node_.input(k).empty(); }

const OnnxValue& NodeContext::input(int k) const {
  if (!has_input(k)) refuse("input " + std::to_string(k), "is required but absent");
  return importer_.values().at(node_.input(k));
}

const OnnxValue& NodeContext::activation(int k) const {
  const OnnxValue& v = input(k);
  if (v.is_constant())
    refuse("input " + std::to_string(k) + " ('" + node_.input(k) + "')",
           "is a constant; the mapping reads an activation there");
  return v;
}

const GivenValues& NodeContext::constant(int k) const {
  const OnnxValue& v = input(k);
  if (!v.is_constant())
    refuse("input " + std::to_string(k) + " ('" + node_.input(k) + "')",
           "is computed by the graph; the mapping needs a constant (an initializer) there");
  return *v.constant;
}

int NodeContext::readers(const std::string& name) const { return importer_.readers(name); }

int NodeContext::readers_of_output(int k) const {
  return k < node_.output_size() && !node_.output(k).empty() ? importer_.readers(node_.output(k)) : 0;
}

bool NodeContext::output_is_graph_output(int k) const {
  return k < node_.output_size() && importer_.is_graph_output(node_.output(k));
}

void NodeContext::only_first_output() const {
  for (int k = 1; k < node_.output_size(); ++k)
    if (readers_of_output(k) > 0)
      refuse("output " + std::to_string(k) + " ('" + node_.output(k) + "')",
             "is used; ablate maps only the first output of this op");
}

void NodeContext::refuse_unknown_attributes(const std::vector<std::string>& known) const {
  for (const auto& a : node_.attribute())
    if (std::find(known.begin(), known.end(), a.name()) == known.end()) {
      std::string list;
      for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
      refuse(a.name(), "is not supported (the mapping knows " + (list.empty() ? std::string("no attributes") : list) + ")");
    }
}

namespace {
const onnx::AttributeProto* find_attribute(const onnx::NodeProto& node, const std::string& name) {
  for (const auto& a : node.attribute())
    if (a.name() == name) return &a;
  return nullptr;
}
}  // namespace

bool NodeContext::has(const std::string& name) const { return find_attribute(node_, name) != nullptr; }

std::int64_t NodeContext::get_int(const std::string& name, std::int64_t fallback) const {
  const auto* a = find_attribute(node_, name);
  if (!a) return fallback;
  if (a->type() != onnx::AttributeProto::INT) refuse(name, "is not an integer");
  return a->i();
}

double NodeContext::get_float(const std::string& name, double fallback) const {
  const auto* a = find_attribute(node_, name);
  if (!a) return fallback;
  if (a->type() != onnx::AttributeProto::FLOAT) refuse(name, "is not a float");
  return a->f();
}

std::vector<std::int64_t> NodeContext::get_ints(const std::string& name) const {
  const auto* a = find_attribute(node_, name);
  if (!a) return {};
  if (a->type() != onnx::AttributeProto::INTS) refuse(name, "is not a list of integers");
  return {a->ints().begin(), a->ints().end()};
}

std::string NodeContext::get_string(const std::string& name, const std::string& fallback) const {
  const auto* a = find_attribute(node_, name);
  if (!a) return fallback;
  if (a->type() != onnx::AttributeProto::STRING) refuse(name, "is not a string");
  return a->s();
}

void NodeContext::refuse(const std::string& attribute, const std::string& problem) const {
  const bool is_input_or_output = attribute.rfind("input", 0) == 0 || attribute.rfind("output", 0) == 0;
  throw std::invalid_argument(importer_.source() + ": " + node_label(node_, index_) + ": " +
                              (is_input_or_output ? attribute : "attribute '" + attribute + "'") + " " + problem +
                              "; supported ONNX ops: " + supported_ops());
}

std::string NodeContext::add_layer(const std::string& type, std::map<std::string, std::string> params,
                                   std::vector<std::string> inputs, const std::string& suffix) {
  std::string base = !node_.name().empty() ? node_.name() : node_.output_size() > 0 ? node_.output(0) : "";
  if (sanitized(base).empty()) base = lowercase(node_.op_type());
  if (!suffix.empty()) base += "_" + suffix;
  LayerSpec layer;
  layer.name = importer_.unique_layer_name(base);
  layer.type = type;
  layer.inputs = std::move(inputs);
  layer.params = std::move(params);
  layer.source = importer_.source() + ": " + node_label(node_, index_);
  importer_.spec().layers.push_back(layer);
  ++layers_added_;
  return layer.name;
}

LayerSpec& NodeContext::layer(const std::string& name) {
  for (LayerSpec& l : importer_.spec().layers)
    if (l.name == name) return l;
  throw std::logic_error("ONNX import: no layer '" + name + "'");
}

Dims NodeContext::ablate_shape(const std::string& name) { return importer_.ablate_shape(name); }

void NodeContext::give(const std::string& tensor_name, GivenValues values) {
  importer_.spec().given[tensor_name] = std::move(values);
}

GivenValues* NodeContext::given(const std::string& tensor_name) {
  auto& g = importer_.spec().given;
  auto it = g.find(tensor_name);
  return it == g.end() ? nullptr : &it->second;
}

void NodeContext::set_output(int k, OnnxValue value) {
  if (k >= node_.output_size() || node_.output(k).empty()) return;
  importer_.values()[node_.output(k)] = std::move(value);
}

void NodeContext::set_end(ModelEnd end) { importer_.set_end(end); }

}  // namespace ablate::models::onnx_import
