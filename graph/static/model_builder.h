// Builds the forward graph of a ModelSpec, layer by layer, the way a TensorFlow 1.x script
// writes it: tf.nn.conv2d then tf.nn.bias_add, tf.matmul then bias_add, relu, max_pool, lrn,
// dropout as x * mask, softmax cross-entropy with the batch mean. Placeholders "x" [N, C, H, W]
// and "labels" i32 [N]; one variable per parameter, named and ordered as
// models::make_initial_parameters makes them (layers in file order, weight then bias).
// A model may be a DAG (a layer names its `input`): a value read twice gets its gradients
// summed by the differentiation.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "graph/static/graph_ir.h"
#include "models/model_spec.h"

namespace ablate::graph::static_graph {

enum class Phase { train, test };  // test: dropout is the identity

struct GraphParameter {
  std::string name;  // "conv1.weight"
  Value value;       // the variable node's output
  double lr_mult = 1.0, decay_mult = 1.0;
};

struct ModelGraph {
  Graph graph;
  Value x, labels;  // placeholders "x" and "labels"
  Value scores;     // the loss layer's input [N, classes]
  Value loss;       // host scalar: the batch mean of the loss
  std::vector<GraphParameter> parameters;
};

// Throws std::invalid_argument naming the layer for a model the graph cannot express (the
// first error of a layer, or a shape mismatch naming both nodes).
ModelGraph build_model_graph(const models::ModelSpec& spec, std::int64_t batch, kernels::DType dtype, Phase phase);

}  // namespace ablate::graph::static_graph
