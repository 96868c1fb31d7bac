// The static graph's IR: nodes are Backend ops, edges are tensors with a shape and a dtype,
// as in a TensorFlow 1.x GraphDef or a Theano FunctionGraph. A node's outputs are typed when
// it is added (shape inference at build time, op_shapes.h), so a mismatch fails while the
// graph is built, naming both nodes and their shapes. Passes rewrite the graph in place:
// nodes are marked dead rather than erased, so node ids stay stable; a node's `order` key
// gives the execution order (every edge goes from a lower key to a higher one).
#pragma once

#include <string>
#include <vector>

#include "graph/optim/optimizer_config.h"
#include "graph/static/op_kind.h"
#include "kernels/op_params.h"
#include "kernels/tensor.h"
#include "models/layer_params.h"

namespace ablate::graph::static_graph {

struct TensorType {
  kernels::Shape shape;
  kernels::DType dtype = kernels::DType::f32;
  bool host = false;    // a host scalar f64 [1] (a loss, a gradient seed): computed on the CPU
  bool opaque = false;  // a backend workspace (pool argmax, LRN scale): sized by the backend
  int channel_block = 0;  // set by the blocked_layout pass: the value is nChw{B}c (kernels/tensor.h)
  std::int64_t bytes() const;
};

// Output `output` of node `node`: one edge of the graph.
struct Value {
  int node = -1;
  int output = 0;
  bool valid() const { return node >= 0; }
  bool operator==(const Value& o) const { return node == o.node && output == o.output; }
  bool operator!=(const Value& o) const { return !(*this == o); }
  bool operator<(const Value& o) const { return node != o.node ? node < o.node : output < o.output; }
};

// One step of a fused elementwise chain. The running value r starts as input 0 and each
// step replaces it: bias_add r += b[c]; activation r = f(r); activation_grad r = f'(y) r
// (y the extra operand, the activation's output); mul r = r * e; add r = r + e; scale r = a r.
struct FusedStep {
  OpKind op = OpKind::activation;
  kernels::Activation activation = kernels::Activation::relu;
  double alpha = 1.0;
  int extra = -1;  // index of the step's other operand among the fused node's inputs
};

struct Attrs {
  kernels::Conv2dParams conv;      // conv2d*, conv2d_map*
  kernels::Pool2dParams pool;      // pool2d, pool2d_grad
  kernels::LrnParams lrn;          // lrn, lrn_grad
  models::BatchNormParams batch_norm;  // batch_norm*: epsilon and the running statistics' rule
  kernels::Activation activation = kernels::Activation::relu;  // activation, activation_grad
  bool grad_from_input = false;    // activation: its gradient reads x, not y (GELU); activation_grad
                                   // then takes x as input 0
  double alpha = 1.0;              // scale, scalar_scale, gemm, batched_matmul and axpby factor;
                                   // dropout_mask keep probability; fill value; softmax_last(_grad)
                                   // scale; layer_norm(_grad) epsilon
  double beta = 0.0;               // gemm, axpby: the factor of the second term
  bool trans_a = false, trans_b = false;  // gemm, batched_matmul
  std::vector<int> perm;           // permute: y.shape[i] = x.shape[perm[i]]
  std::int64_t block = 0;          // fused_attention(_grad): keys per block of the online softmax
  int outputs = 0;                 // conv2d_map: output planes K (the weight [T, KH, KW] lacks it)
  bool bias = false;               // *_grad_filter, linear_grad_weight: also the bias gradient (output 1)
  kernels::Shape shape;            // sources and reshape: their shape; *_grad_input and nll_grad: dx's shape;
                                   // batch_norm_update: the layer input's (M values per channel)
  kernels::DType dtype = kernels::DType::f32;  // sources: their dtype
  std::string key;                 // variable: its store name; dropout_mask: the layer of its seed
  double lr_mult = 1.0, decay_mult = 1.0;      // apply_*: the parameter's multipliers
  std::vector<FusedStep> steps;    // fused_elementwise
  std::vector<std::int64_t> sizes; // concat_grad: the channels of each input of the concat (its outputs)
  kernels::Tensor value;           // constant: the host value
};

struct Node {
  OpKind op = OpKind::constant;
  std::string name;                 // "conv1/conv2d", "grad/ip1/linear_grad_weight"
  std::vector<Value> inputs;
  std::vector<int> control;         // nodes that must finish before this one (no data edge)
  std::vector<TensorType> outputs;
  Attrs attrs;
  double order = 0;                 // execution order key
  bool dead = false;
  int inplace_input = -1;           // set by the in-place pass: output 0 overwrites inputs[k]
};

// A reader of a value: input `slot` of node `node`.
struct Use {
  int node = -1;
  int slot = 0;
};

// t declared in type's channel layout (the buffer the session or the refcount allocator gave it).
kernels::Tensor with_layout(const kernels::Tensor& t, const TensorType& type);

class Graph {
 public:
  explicit Graph(kernels::DType dtype = kernels::DType::f32) : dtype_(dtype) {}

  kernels::DType dtype() const { return dtype_; }
  // Adds a node after typing its outputs (op_shapes.h); throws std::invalid_argument naming
  // the node, its inputs and their shapes when they do not fit. Returns its id.
  int add(OpKind op, const std::string& name, std::vector<Value> inputs, Attrs attrs = {});
  int add_constant(const std::string& name, const kernels::Tensor& value, bool host_scalar = false);
  Value out(int node, int output = 0) const;

  Node& node(int id);
  const Node& node(int id) const;
  int size() const { return static_cast<int>(nodes_.size()); }
  const TensorType& type(Value v) const;
  int live_count() const;
  // Live nodes sorted by (order, id): the sequential execution order.
  std::vector<int> execution_order() const;
  // For every node, for every output, its readers among the live nodes.
  std::vector<std::vector<std::vector<Use>>> uses() const;
  // Points every reader (and fetch) of `from` at `to`.
  void replace_uses(Value from, Value to);
  // "'conv1/conv2d' f32[4, 20, 24, 24]"
  std::string describe(Value v) const;

  // What a run needs: fetched values (kept, never overwritten) and target nodes (updates).
  std::vector<Value> fetches;
  std::vector<int> targets;
  // The optimizer of the apply_* nodes: learning-rate rule, momentum, betas, weight decay.
  OptimizerConfig optimizer;

 private:
  kernels::DType dtype_;
  std::vector<Node> nodes_;
};

}  // namespace ablate::graph::static_graph
