// The ops of each layer type in the static graph, each registered for its type
// (ABLATE_STATIC_LAYER, model_builder.h), as a TensorFlow 1.x script writes them:
//   convolution    conv2d (+ bias_add)        conv_map  conv2d_map over a constant table (+ bias_add)
//   inner_product  linear (+ bias_add)        bias      bias_add
//   pooling        pool2d                     lrn       lrn
//   global_avg_pool  pool2d, one window over each whole plane
//   add            add (a chain of adds for more than two inputs)
//   concat         concat along the channel axis (gradient: one concat_grad of a slice per input)
//   dropout        x * dropout_mask in training; the identity when testing (inverted dropout)
//   batch_norm     batch_norm + batch_norm_update of the running statistics in training;
//                  batch_norm_inference on batch_norm_statistics when testing
//   log_softmax    log_softmax
//   softmax_loss   softmax_xent (batch mean)  nll_loss  nll (batch mean)
//   every activation type: one activation op of the type's Backend activation
// Geometry comes from models/layer_params.h, the rules every strategy reads; shapes were
// checked by the checked model.
#include "graph/static/model_builder.h"
#include "models/layer_params.h"

namespace ablate::graph::static_graph {
namespace {

using models::LayerSpec;
using models::LayerType;

Value convolution(ModelGraphBuilder& b, const LayerSpec& l, const LayerType&, const std::vector<Value>& xs) {
  const Value x = xs[0];
  const kernels::Shape& in = b.shape(x);
  const models::ConvGeometry geo = models::conv_geometry(l, static_cast<int>(in[2]), static_cast<int>(in[3]));
  Attrs a;
  a.conv = geo.params;
  Value w = b.parameter(l, "weight", {geo.outputs, in[1], geo.kernel_h, geo.kernel_w});
  return b.with_bias(l, b.op(OpKind::conv2d, l, {x, w}, a), geo.bias);
}

Value conv_map(ModelGraphBuilder& b, const LayerSpec& l, const LayerType&, const std::vector<Value>& xs) {
  const Value x = xs[0];
  const kernels::Shape& in = b.shape(x);
  const models::ConvGeometry geo = models::conv_geometry(l, static_cast<int>(in[2]), static_cast<int>(in[3]));
  const std::vector<std::int32_t> table = models::connection_table(l, static_cast<int>(in[1]));
  const std::int64_t pairs = static_cast<std::int64_t>(table.size() / 2);
  kernels::Tensor t({pairs, 2}, kernels::DType::i32);
  for (std::size_t i = 0; i < table.size(); ++i) t.data<std::int32_t>()[i] = table[i];
  Attrs a;
  a.conv = geo.params;
  a.outputs = geo.outputs;
  Value w = b.parameter(l, "weight", {pairs, geo.kernel_h, geo.kernel_w});
  Value tv = b.graph().out(b.graph().add_constant(l.name + "/table", t));
  return b.with_bias(l, b.op(OpKind::conv2d_map, l, {x, w, tv}, a), geo.bias);
}

Value inner_product(ModelGraphBuilder& b, const LayerSpec& l, const LayerType&, const std::vector<Value>& xs) {
  const Value x = xs[0];
  const kernels::Shape& in = b.shape(x);
  Value w = b.parameter(l, "weight", {models::layer_outputs(l), kernels::shape_numel(in) / in[0]});
  return b.with_bias(l, b.op(OpKind::linear, l, {x, w}), models::layer_has_bias(l));
}

Value bias(ModelGraphBuilder& b, const LayerSpec& l, const LayerType&, const std::vector<Value>& xs) {
  return b.with_bias(l, xs[0], true);
}

Value pooling(ModelGraphBuilder& b, const LayerSpec& l, const LayerType&, const std::vector<Value>& xs) {
  const Value x = xs[0];
  const kernels::Shape& in = b.shape(x);
  Attrs a;
  a.pool = models::pool_params(l, static_cast<int>(in[2]), static_cast<int>(in[3]));
  return b.op(OpKind::pool2d, l, {x}, a);
}

// global_avg_pool: pool2d averaging each whole plane (tf.reduce_mean over H and W; one window).
Value global_avg_pool(ModelGraphBuilder& b, const LayerSpec& l, const LayerType&, const std::vector<Value>& xs) {
  const kernels::Shape& in = b.shape(xs[0]);
  Attrs a;
  a.pool = models::global_pool_params(static_cast<int>(in[2]), static_cast<int>(in[3]));
  return b.op(OpKind::pool2d, l, {xs[0]}, a);
}

// add: x0 + x1 + ... as a chain of add ops (tf.add; TF's graph for tf.add_n is one AddN, whose
// gradient is the same dy to every input, as the chain's).
Value add(ModelGraphBuilder& b, const LayerSpec& l, const LayerType&, const std::vector<Value>& xs) {
  Value sum = xs[0];
  for (std::size_t k = 1; k < xs.size(); ++k)
    sum = b.op(OpKind::add, l, {sum, xs[k]}, {}, k + 1 == xs.size() ? nullptr : ("add_" + std::to_string(k)).c_str());
  return sum;
}

// concat: the inputs side by side along the channel axis (tf.concat(axis=3) in TF's NHWC, axis 1 here).
Value concat(ModelGraphBuilder& b, const LayerSpec& l, const LayerType&, const std::vector<Value>& xs) {
  return b.op(OpKind::concat, l, xs);
}

Value lrn(ModelGraphBuilder& b, const LayerSpec& l, const LayerType&, const std::vector<Value>& xs) {
  const Value x = xs[0];
  Attrs a;
  a.lrn = models::lrn_params(l);
  return b.op(OpKind::lrn, l, {x}, a);
}

Value dropout(ModelGraphBuilder& b, const LayerSpec& l, const LayerType&, const std::vector<Value>& xs) {
  const Value x = xs[0];
  if (b.phase() == Phase::test) return x;  // the identity at test time (inverted dropout)
  Attrs m;
  m.shape = b.shape(x);
  m.dtype = b.graph().dtype();
  m.alpha = models::dropout_keep(l);
  m.key = l.name;
  Value mask = b.graph().out(b.graph().add(OpKind::dropout_mask, l.name + "/mask", {}, m));
  return b.op(OpKind::mul, l, {x, mask});
}

// Training: batch_norm on the batch statistics, and batch_norm_update of the running
// statistics from them (a target); testing: batch_norm_inference on batch_norm_statistics of
// the running statistics. TF's tf.layers.batch_normalization writes the same two graphs.
Value batch_norm(ModelGraphBuilder& b, const LayerSpec& l, const LayerType&, const std::vector<Value>& xs) {
  const Value x = xs[0];
  Attrs a;
  a.batch_norm = models::batch_norm_params(l);
  const kernels::Shape in = b.shape(x);
  std::vector<Value> affine;
  if (a.batch_norm.affine) affine = {b.parameter(l, "weight", {in[1]}), b.parameter(l, "bias", {in[1]})};
  std::vector<Value> state;
  for (const models::StateShape& s : models::batch_norm_state(a.batch_norm, in[1])) state.push_back(b.state(l, s.suffix, s.shape));
  if (b.phase() == Phase::test) {
    const int statistics = b.graph().add(OpKind::batch_norm_statistics, l.name + "/batch_norm_statistics", state, a);
    std::vector<Value> inputs{x, b.graph().out(statistics, 0), b.graph().out(statistics, 1)};
    inputs.insert(inputs.end(), affine.begin(), affine.end());
    return b.op(OpKind::batch_norm_inference, l, std::move(inputs), a);
  }
  std::vector<Value> inputs{x};
  inputs.insert(inputs.end(), affine.begin(), affine.end());
  const Value y = b.op(OpKind::batch_norm, l, std::move(inputs), a);
  std::vector<Value> update{b.graph().out(y.node, 1), b.graph().out(y.node, 2)};
  update.insert(update.end(), state.begin(), state.end());
  Attrs u = a;
  u.shape = in;
  b.add_state_update(b.graph().add(OpKind::batch_norm_update, l.name + "/batch_norm_update", std::move(update), u));
  return y;
}

Value log_softmax(ModelGraphBuilder& b, const LayerSpec& l, const LayerType&, const std::vector<Value>& xs) {
  const Value x = xs[0];
  return b.op(OpKind::log_softmax, l, {x});
}

// A loss of op `kind` over the scores x and the labels.
LayerGraph loss(OpKind kind) {
  return [kind](ModelGraphBuilder& b, const LayerSpec& l, const LayerType&, const std::vector<Value>& xs) {
    const Value x = xs[0];
    const Value value = b.op(kind, l, {x, b.labels()});
    b.set_loss(x, value);
    return value;
  };
}

Value activation(ModelGraphBuilder& b, const LayerSpec& l, const LayerType& type, const std::vector<Value>& xs) {
  const Value x = xs[0];
  Attrs a;
  a.activation = type.activation(l);
  a.grad_from_input = type.backward_reads_input;
  return b.op(OpKind::activation, l, {x}, a, l.type.c_str());
}

}  // namespace

ABLATE_STATIC_LAYER(convolution, convolution);
ABLATE_STATIC_LAYER(conv_map, conv_map);
ABLATE_STATIC_LAYER(inner_product, inner_product);
ABLATE_STATIC_LAYER(bias, bias);
ABLATE_STATIC_LAYER(pooling, pooling);
ABLATE_STATIC_LAYER(global_avg_pool, global_avg_pool);
ABLATE_STATIC_LAYER(add, add);
ABLATE_STATIC_LAYER(concat, concat);
ABLATE_STATIC_LAYER(lrn, lrn);
ABLATE_STATIC_LAYER(dropout, dropout);
ABLATE_STATIC_LAYER(batch_norm, batch_norm);
ABLATE_STATIC_LAYER(log_softmax, log_softmax);
ABLATE_STATIC_LAYER(softmax_loss, loss(OpKind::softmax_xent));
ABLATE_STATIC_LAYER(nll_loss, loss(OpKind::nll));
ABLATE_REGISTER_ACTIVATION_BUILDER(layer_graph_registry(), activation);

}  // namespace ablate::graph::static_graph
