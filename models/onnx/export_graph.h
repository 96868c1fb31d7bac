// The parts every ONNX export writer shares (models/onnx/onnx_export.h): the graph being
// written (nodes, float32 and int64 initializers, the opset its operators need), the attribute
// helpers, and what a layer writer sees of its layer (LayerContext). Internal to the export.
#pragma once

#include <algorithm>
#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "models/checked_model.h"
#include "models/model_spec.h"
#include "models/onnx/onnx_export.h"

namespace ablate::models::onnx_export {

inline std::string dims_text(const Dims& d) {
  std::string s = "[";
  for (std::size_t i = 0; i < d.size(); ++i) s += (i ? ", " : "") + std::to_string(d[i]);
  return s + "]";
}

inline void set_type(onnx::ValueInfoProto& info, const std::string& name, const std::vector<std::string>& symbolic,
              const Dims& dims) {
  info.set_name(name);
  auto* tensor = info.mutable_type()->mutable_tensor_type();
  tensor->set_elem_type(onnx::TensorProto::FLOAT);
  auto* shape = tensor->mutable_shape();
  for (const std::string& s : symbolic) shape->add_dim()->set_dim_param(s);
  for (std::int64_t d : dims) shape->add_dim()->set_dim_value(d);
}

// The graph being written: nodes, float32 initializers, and the values it takes weights from.
class GraphWriter {
 public:
  GraphWriter(onnx::GraphProto& graph, const std::map<std::string, GivenValues>& values)
      : graph_(graph), values_(values) {}

  onnx::NodeProto& node(const std::string& op, const std::string& name, const std::vector<std::string>& inputs,
                        const std::string& output) {
    onnx::NodeProto* n = graph_.add_node();
    n->set_op_type(op);
    n->set_name(name);
    for (const std::string& in : inputs) n->add_input(in);
    n->add_output(output);
    return *n;
  }

  void initializer(const std::string& name, const GivenValues& v) { *graph_.add_initializer() = float_tensor(name, v); }
  // An int64 initializer [values.size()] (a Reshape's shape); returns its name.
  std::string int64s(const std::string& name, const std::vector<std::int64_t>& values) {
    onnx::TensorProto* t = graph_.add_initializer();
    t->set_name(name);
    t->set_data_type(onnx::TensorProto::INT64);
    t->add_dims(static_cast<std::int64_t>(values.size()));
    for (std::int64_t v : values) t->add_int64_data(v);
    return name;
  }
  // The graph uses an operator first defined at `opset` (LayerNormalization: 17).
  void require_opset(int opset) { opset_ = std::max(opset_, opset); }
  int opset() const { return opset_; }
  std::string scalar(const std::string& name, double value) {
    initializer(name, GivenValues{{}, {value}});
    return name;
  }

  // The value of tensor `name`, whose shape must be `shape`; `layer` names it in errors.
  const GivenValues& value(const std::string& name, const Dims& shape, const LayerSpec& layer) const {
    auto it = values_.find(name);
    if (it == values_.end()) layer.fail("no value for its tensor '" + name + "' to export");
    if (it->second.shape != shape)
      layer.fail("tensor '" + name + "' is " + dims_text(it->second.shape) + ", expected " + dims_text(shape));
    return it->second;
  }

 private:
  onnx::GraphProto& graph_;
  const std::map<std::string, GivenValues>& values_;
  int opset_ = kExportOpset;
};

inline void attribute(onnx::NodeProto& n, const std::string& name, std::int64_t v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}
inline void attribute(onnx::NodeProto& n, const std::string& name, const std::vector<std::int64_t>& v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (std::int64_t x : v) a->add_ints(x);
}
inline void float_attribute(onnx::NodeProto& n, const std::string& name, double v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::FLOAT);
  a->set_f(static_cast<float>(v));
}

// What a layer writer sees: the layer, its shapes at batch 1, the tensors holding its inputs.
struct LayerContext {
  const LayerSpec& layer;
  const LayerShapes& shapes;
  std::vector<std::string> inputs;  // tensor names
  GraphWriter& graph;

  const std::string& x() const { return inputs.front(); }
  const Dims& in() const { return shapes.input; }
  std::string name() const { return layer.name; }
  // The initializer "<layer>.<suffix>" of parameter `suffix`, written; returns its name.
  std::string param(const std::string& suffix) const {
    for (std::size_t i = 0; i < shapes.param_names.size(); ++i)
      if (shapes.param_names[i] == suffix) {
        const std::string tensor = layer.name + "." + suffix;
        graph.initializer(tensor, graph.value(tensor, shapes.params[i], layer));
        return tensor;
      }
    layer.fail("has no parameter '" + suffix + "'");
  }
  bool has_param(const std::string& suffix) const {
    for (const std::string& s : shapes.param_names)
      if (s == suffix) return true;
    return false;
  }
  const GivenValues& state(const std::string& suffix) const {
    for (const StateShape& s : shapes.state)
      if (s.suffix == suffix) return graph.value(layer.name + "." + suffix, s.shape, layer);
    layer.fail("has no state tensor '" + suffix + "'");
  }
  [[noreturn]] void refuse(const std::string& what) const { layer.fail("cannot be exported to ONNX: " + what); }
};

// Returns the name of the tensor that holds the layer's output.
using LayerWriter = std::function<std::string(LayerContext&)>;

inline void string_attribute(onnx::NodeProto& n, const std::string& name, const std::string& v) {
  auto* a = n.add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::STRING);
  a->set_s(v);
}

// The writers of the token and attention layers (export_tokens.cpp): tokens, pos_embed,
// layer_norm, attention, linear, token_mean.
const std::map<std::string, LayerWriter>& token_writers();

}  // namespace ablate::models::onnx_export
