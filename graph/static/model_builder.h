// Builds the forward graph of a checked model, layer by layer, the way a TensorFlow 1.x
// script writes it: tf.nn.conv2d then tf.nn.bias_add, tf.matmul then bias_add, relu,
// max_pool, lrn, dropout as x * mask, softmax cross-entropy with the batch mean. Placeholders
// "x" [N, C, H, W] and "labels" i32 [N]; one variable per parameter, named and ordered as
// models::make_initial_parameters makes them (layers in file order, weight then bias), and one
// per state tensor, as models::make_initial_state names them.
// A model may be a DAG (a layer names its inputs, `input=a,b`): a value read by several
// layers gets its gradients summed by the differentiation (autodiff.h: TF's AddN). Each layer type's ops are its registered LayerGraph
// (layer_graphs.cpp; every activation type shares one).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "graph/layer_registry.h"
#include "graph/static/graph_ir.h"
#include "models/checked_model.h"

namespace ablate::graph::static_graph {

enum class Phase { train, test };  // test: dropout is the identity

struct GraphParameter {
  std::string name;  // "conv1.weight"
  Value value;       // the variable node's output
  double lr_mult = 1.0, decay_mult = 1.0;
};

// A state variable of the graph (BatchNorm's running statistics: graph::StateTensor).
struct GraphState {
  std::string name;  // "bn1.running_mean"
  Value value;       // the variable node's output
};

struct ModelGraph {
  Graph graph;
  Value x, labels;  // placeholders "x" and "labels"
  Value scores;     // the loss layer's input [N, classes]
  Value loss;       // host scalar: the batch mean of the loss
  Value output;     // the last layer's output (the loss for a model that ends in one)
  std::vector<GraphParameter> parameters;
  std::vector<GraphState> state;
  // Train phase: the nodes that update state variables (batch_norm_update), for the training
  // graph's targets, as a TF script runs its UPDATE_OPS with the train op.
  std::vector<int> state_updates;
};

// What a layer's graph builder adds its ops through.
class ModelGraphBuilder {
 public:
  ModelGraphBuilder(const models::CheckedModel& model, std::int64_t batch, kernels::DType dtype, Phase phase);
  ModelGraph build();

  Graph& graph() { return m_.graph; }
  Phase phase() const { return phase_; }
  Value labels() const { return m_.labels; }
  const kernels::Shape& shape(Value v) { return m_.graph.type(v).shape; }
  // An op of layer `l` named "<layer>/<suffix>" (the op's name when no suffix).
  Value op(OpKind kind, const models::LayerSpec& l, std::vector<Value> inputs, Attrs a = {},
           const char* suffix = nullptr);
  // The variable of parameter "<layer>.<suffix>" with the layer's multipliers.
  Value parameter(const models::LayerSpec& l, const char* suffix, const kernels::Shape& shape);
  // The variable of state tensor "<layer>.<suffix>" (models::LayerShapes::state).
  Value state(const models::LayerSpec& l, const std::string& suffix, const kernels::Shape& shape);
  // A node that updates state variables in the train phase (a target of the training graph).
  void add_state_update(int node) { m_.state_updates.push_back(node); }
  // y + the layer's bias [C] (a new parameter) when `bias`, else y.
  Value with_bias(const models::LayerSpec& l, Value y, bool bias);
  // A loss layer's builder reports its input (the scores) and its loss value.
  void set_loss(Value scores, Value loss);

 private:
  Value source(OpKind op, const std::string& name, kernels::Shape shape, kernels::DType dtype);

  const models::CheckedModel& model_;
  Phase phase_;
  ModelGraph m_;
};

// The ops of one layer of type `type` reading `x` (its inputs in order: one for most types,
// two or more for add and concat); returns its output (a loss layer: its loss).
using LayerGraph = std::function<Value(ModelGraphBuilder&, const models::LayerSpec&, const models::LayerType&,
                                       const std::vector<Value>& x)>;
LayerRegistry<LayerGraph>& layer_graph_registry();

ModelGraph build_model_graph(const models::CheckedModel& model, std::int64_t batch, kernels::DType dtype, Phase phase);

}  // namespace ablate::graph::static_graph

// Registers the LayerGraph of model-file type `type`, at start-up.
#define ABLATE_STATIC_LAYER(type, builder) \
  ABLATE_REGISTER_LAYER_BUILDER(::ablate::graph::static_graph::layer_graph_registry(), type, builder)
