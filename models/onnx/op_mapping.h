// The table of ONNX op mappings (one file per op in models/onnx/ops/, each registering itself
// with ABLATE_ONNX_OP) and what a mapping sees of the import: its node, its inputs as values
// (an activation held by an ablate layer's output, or a constant), its attributes, and the
// ablate layers and given values it adds. A mapping refuses what it cannot map with
// NodeContext::refuse, which names the node, its op type, the attribute and the supported ops.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "models/model_spec.h"

namespace ablate::models::onnx_import {

using Dims = std::vector<std::int64_t>;

// An ONNX value as the importer knows it.
struct OnnxValue {
  Dims shape;         // its ONNX shape, the batch dimension at the import's batch
  std::string layer;  // an activation: the ablate layer whose output holds it (kModelInput: the model input)
  std::optional<GivenValues> constant;  // a constant: an initializer, a Constant node, a given input
  bool is_constant() const { return constant.has_value(); }
};

class Importer;

// What the importer appends at the end (a training import) or reports (forward_only).
enum class ModelEnd {
  logits,                  // softmax_loss appended
  dropped_softmax,         // a final Softmax dropped, softmax_loss appended
  log_softmax,             // a final LogSoftmax (log_softmax layer), nll_loss appended
  softmax_as_log_softmax,  // forward_only: a final Softmax run as log_softmax
};

class NodeContext {
 public:
  NodeContext(Importer& importer, const onnx::NodeProto& node, int index);

  const onnx::NodeProto& node() const { return node_; }
  int opset() const;
  bool forward_only() const;

  // --- inputs: k counts ONNX's inputs; an empty name is an absent optional input ---
  bool has_input(int k) const;
  const OnnxValue& input(int k) const;          // refuses when absent
  const OnnxValue& activation(int k) const;     // refuses a constant
  const GivenValues& constant(int k) const;     // refuses an activation
  int input_count() const { return node_.input_size(); }
  // How many nodes (and graph outputs) read output k of this node.
  int readers_of_output(int k) const;
  // How many nodes (and graph outputs) read the value `name`.
  int readers(const std::string& name) const;
  // Whether output k feeds the graph output.
  bool output_is_graph_output(int k) const;
  // Refuses outputs beyond the first that a reader uses (MaxPool's Indices, Dropout's mask).
  void only_first_output() const;

  // --- attributes: refuse_unknown_attributes first, naming the ones the mapping reads ---
  void refuse_unknown_attributes(const std::vector<std::string>& known) const;
  bool has(const std::string& name) const;
  std::int64_t get_int(const std::string& name, std::int64_t fallback) const;
  double get_float(const std::string& name, double fallback) const;
  std::vector<std::int64_t> get_ints(const std::string& name) const;  // empty when absent
  std::string get_string(const std::string& name, const std::string& fallback) const;

  // Throws std::invalid_argument: "<file>: node 'n' (Op): attribute 'a' <problem>; supported
  // ONNX ops: ..." (`attribute` may name an input: "input 2 (C)").
  [[noreturn]] void refuse(const std::string& attribute, const std::string& problem) const;

  // --- output ---
  // Adds an ablate layer named after the node (suffixed when the node adds several) reading
  // `inputs` (layer names; kModelInput for the model input); returns its name.
  std::string add_layer(const std::string& type, std::map<std::string, std::string> params,
                        std::vector<std::string> inputs, const std::string& suffix = "");
  LayerSpec& layer(const std::string& name);  // a layer added before
  // The ablate shape of layer `name`'s output (kModelInput: the model input) at the import's batch.
  Dims ablate_shape(const std::string& name);
  void give(const std::string& tensor_name, GivenValues values);
  GivenValues* given(const std::string& tensor_name);  // null when none
  void set_output(int k, OnnxValue value);
  // How the model ends, set by the Softmax / LogSoftmax mappings (which check that their
  // output is the graph output).
  void set_end(ModelEnd end);

 private:
  Importer& importer_;
  const onnx::NodeProto& node_;
  int index_;
  int layers_added_ = 0;
};

struct OpMapping {
  std::string op_type;    // "Conv"
  std::function<void(NodeContext&)> map;
  // Maps only a node standing for a recognised subgraph (patterns/fusion.h), no ONNX op; not
  // listed among the supported ops.
  bool pattern_only = false;
};

bool register_op_mapping(OpMapping mapping);
const OpMapping* find_op_mapping(const std::string& op_type);

// The subgraphs the importer recognises as one layer (patterns/fusion.h), for error messages.
std::string recognised_subgraphs();

// A number as a model file writes it, exactly (%.17g).
std::string number(double value);
// "[2, 3, 4]"
std::string dims_string(const Dims& dims);

}  // namespace ablate::models::onnx_import

#define ABLATE_ONNX_OP(op_type, function)                                                            \
  [[maybe_unused]] static const bool ablate_onnx_op_registered_##function =                        \
      ::ablate::models::onnx_import::register_op_mapping({op_type, function})
// A mapping of a node that a subgraph pattern made (OpMapping::pattern_only).
#define ABLATE_ONNX_PATTERN_OP(op_type, function)                                                    \
  [[maybe_unused]] static const bool ablate_onnx_op_registered_##function =                        \
      ::ablate::models::onnx_import::register_op_mapping({op_type, function, true})
