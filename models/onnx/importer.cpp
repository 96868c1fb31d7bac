// The ONNX importer's run (see onnx_import.h, importer.h): reading the file, the opset, the
// readers of every value, the graph walk that hands each node to its op's mapping, unique layer
// names, the ablate shapes the mappings ask for, and the checks before the result is returned.
#include <fstream>
#include <sstream>
#include <stdexcept>

#include "models/checked_model.h"
#include "models/onnx/importer.h"
#include "models/onnx/naming.h"
#include "models/parameters.h"

namespace ablate::models::onnx_import {

void Importer::read_opset() {
  for (const auto& o : model_.opset_import())
    if (o.domain().empty() || o.domain() == "ai.onnx") opset_ = static_cast<int>(o.version());
  if (opset_ == 0) fail("the model imports no opset of the default ONNX domain (not an ONNX model?)");
  if (opset_ > kMaxOpset)
    fail("opset " + std::to_string(opset_) + " is not supported: the importer follows ONNX opsets " +
         std::to_string(kMinTestedOpset) + " to " + std::to_string(kMaxOpset));
}

void Importer::count_readers() {
  for (const auto& node : fused_.nodes)
    for (const auto& in : node.input())
      if (!in.empty()) ++readers_[in];
  for (const auto& out : graph_.output()) {
    ++readers_[out.name()];
    graph_outputs_.insert(out.name());
  }
}

std::string Importer::unique_layer_name(const std::string& base_name) {
  std::string base = sanitized(base_name);
  if (base.empty()) base = "layer";
  std::string name = base;
  for (int k = 2; layer_names_.count(name) || name == kModelInput || name == "loss"; ++k) name = base + "_" + std::to_string(k);
  layer_names_.insert(name);
  return name;
}

Dims Importer::ablate_shape(const std::string& layer) {
  if (layer == kModelInput) return {batch_, spec_.input_shape[0], spec_.input_shape[1], spec_.input_shape[2]};
  if (shapes_.size() != spec_.layers.size()) shapes_ = infer_shapes(spec_, batch_);
  for (const LayerShapes& s : shapes_)
    if (s.name == layer) return s.output;
  throw std::logic_error("ONNX import: no layer '" + layer + "'");
}

void Importer::walk() {
  for (int i = 0; i < static_cast<int>(fused_.nodes.size()); ++i) {
    const onnx::NodeProto& node = fused_.nodes[static_cast<std::size_t>(i)];
    if (!node.domain().empty() && node.domain() != "ai.onnx")
      fail(node_label(node, i) + ": domain '" + node.domain() + "' is not supported (the default ONNX domain only); supported ONNX ops: " +
           supported_ops());
    const OpMapping* mapping = find_op_mapping(node.op_type());
    if (!mapping || (mapping->pattern_only && !fused_.from_pattern[static_cast<std::size_t>(i)]))
      fail(node_label(node, i) + ": op type '" + node.op_type() + "' is not supported; supported ONNX ops: " + supported_ops() +
           "; and as parts of recognised subgraphs: " + recognised_subgraphs());
    for (const auto& in : node.input())
      if (!in.empty() && !values_.count(in))
        fail(node_label(node, i) + ": input '" + in + "' is neither a graph input, an initializer nor an earlier node's output");
    NodeContext context(*this, node, i);
    mapping->map(context);
    for (int k = 0; k < node.output_size(); ++k)
      if (!node.output(k).empty() && !values_.count(node.output(k)) && readers(node.output(k)) > 0)
        fail(node_label(node, i) + ": output '" + node.output(k) + "' is read but the mapping did not produce it");
  }
}

ImportResult Importer::run() {
  if (!model_.has_graph() || model_.ir_version() <= 0)
    fail("not an ONNX model (no graph or no IR version in the ModelProto)");
  read_opset();
  spec_.source = source_;
  std::string stem = source_;
  if (auto slash = stem.find_last_of('/'); slash != std::string::npos) stem = stem.substr(slash + 1);
  if (is_onnx_path(stem)) stem = stem.substr(0, stem.size() - 5);
  spec_.name = sanitized(stem).empty() ? (sanitized(graph_.name()).empty() ? "onnx" : sanitized(graph_.name())) : sanitized(stem);
  fused_ = patterns::fuse_patterns(graph_, source_);
  read_constants_and_input();
  for (auto& [name, constant] : fused_.constants) {
    OnnxValue v;
    v.shape = constant.shape;
    v.constant = std::move(constant);
    values_[name] = std::move(v);
  }
  count_readers();
  walk();
  ImportResult result;
  finish(result);
  // Nothing half-built: every model check, and every given value against its tensor's shape.
  CheckedModel checked(spec_);
  make_initial_parameters(spec_, kernels::DType::f32, 1);
  make_initial_state(spec_, kernels::DType::f32);
  result.spec = std::move(spec_);
  return result;
}

ImportResult import_model(const onnx::ModelProto& model, const std::string& source, const ImportOptions& options) {
  return Importer(model, source, options).run();
}

ImportResult import_file(const std::string& path, const ImportOptions& options) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::invalid_argument(path + ": cannot read the ONNX file");
  std::stringstream buffer;
  buffer << in.rdbuf();
  const std::string bytes = buffer.str();
  onnx::ModelProto model;
  if (bytes.empty() || !model.ParseFromString(bytes))
    throw std::invalid_argument(path + ": not an ONNX model (the file does not parse as an ONNX ModelProto: truncated, "
                                       "or another format)");
  if (!model.has_graph() || model.ir_version() <= 0 || model.opset_import_size() == 0)
    throw std::invalid_argument(path + ": not an ONNX model (it parses, but has no graph, IR version or opset)");
  return import_model(model, path, options);
}

}  // namespace ablate::models::onnx_import
