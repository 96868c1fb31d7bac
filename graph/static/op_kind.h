// The operations of the static graph: one kind per Backend op (forward, gradient and
// optimizer update), the graph's sources (placeholders, variables, constants) and the fused
// elementwise node the fusion pass makes. TensorFlow 1.x names the same ideas Placeholder,
// VariableV2, Const, Conv2D / Conv2DBackpropInput / Conv2DBackpropFilter, BiasAdd / BiasAddGrad,
// MaxPool / MaxPoolGrad, Relu / ReluGrad, LRN / LRNGrad, ApplyGradientDescent / ApplyAdam;
// Theano has the same split into ops and their grad ops, and its Composite for fused
// elementwise loops.
#pragma once

#include <cstddef>

namespace ablate::graph::static_graph {

enum class OpKind {
  // sources
  placeholder,   // fed at every run (the images x, the labels)
  variable,      // a persistent tensor of the VariableStore (parameters, optimizer slots)
  constant,      // a value fixed at build time (a connection table, a folded result)
  dropout_mask,  // mask = (u < keep) / keep from (seed, layer, iteration): Backend::dropout_mask
  fill,          // every element the constant attrs.alpha (Backend::fill), written at every run
  // forward ops
  conv2d, conv2d_map, linear, bias_add, pool2d, activation, lrn, mul, add, scale,
  concat,        // (x0, x1, ...) [N, Ck, ...] -> [N, C0 + C1 + ..., ...] side by side along axis 1
                 // (Backend::concat_forward; TF's ConcatV2 on the channel axis, Caffe's Concat)
  add_n,         // x0 + x1 + ... of one shape (TF's AddN: the gradient's sum where a value has
                 // several readers): Backend::add pairwise into the output, in input order.
                 // Not a fusion step: TF 1.x kept AddN a node of its own
  // attention (the Vision Transformer's; tokens [N, T, D]):
  reshape,         // (x) -> the same values in attrs.shape (tf.reshape; a copy here, no aliasing)
  permute,         // (x) -> x's axes in the order attrs.perm (tf.transpose; Backend::permute)
  batched_matmul,  // (a, b) -> alpha op(a) op(b) per batch index (tf.matmul of rank 3; Backend::batched_gemm)
  softmax_last,    // (x) -> softmax(attrs.alpha x) along the last axis (Backend::softmax_last_forward)
  layer_norm,      // (x, weight, bias) -> y, mean, rstd [R] over the last axis; attrs.alpha the epsilon
  fused_attention,  // (q, k, v) [B, T, d] -> o = softmax(attrs.alpha q k^T) v, lse [B, T]: made by the
                    // attention_fusion pass (Backend::fused_attention_forward, attrs.block keys a block)
  gemm,          // c = alpha op(a) op(b) + beta c0 (Backend::gemm; c0 read only when beta != 0)
  axpby,         // out = alpha x + beta y (Backend::axpy when beta is 1, else axpby)
  copy,          // out = x (Backend::copy)
  softmax,       // rows of [N, K] (Backend::softmax_forward); no gradient: the Backend has no
                 // softmax backward (softmax_xent and log_softmax carry theirs)
  sum, sum_squares,  // reductions to a host scalar (Backend::sum, sum_squares)
  broadcast,     // a tensor of attrs.shape filled with a host scalar's value (the gradient of sum)
  softmax_xent,  // outputs: loss (host scalar, batch mean), prob
  log_softmax,
  // batch normalisation (graph/batch_norm_statistics.h): batch_norm (x[, weight, bias]) -> y and
  // the batch's mean, var [C] (training); batch_norm_statistics (the running statistics'
  // variables) -> the mean, var the test forward reads; batch_norm_inference (x, mean, var[,
  // weight, bias]) -> y. TF's FusedBatchNorm with is_training true / false.
  batch_norm, batch_norm_statistics, batch_norm_inference,
  nll,           // output: loss (host scalar, batch mean)
  argmax,        // i32 [N]: top-1 class per row
  // gradient ops
  conv2d_grad_input, conv2d_grad_filter, conv2d_map_grad_input, conv2d_map_grad_filter,
  linear_grad_input, linear_grad_weight, bias_grad, pool2d_grad, activation_grad, lrn_grad,
  softmax_xent_grad, log_softmax_grad, nll_grad,
  softmax_last_grad,  // (y, dy) -> dx = s y (dy - sum dy y), s = attrs.alpha
  layer_norm_grad,    // (x, dy, mean, rstd, weight) -> dx, dweight, dbias (Backend::layer_norm_backward)
  fused_attention_grad,  // (q, k, v, o, lse, dout) -> dq, dk, dv (Backend::fused_attention_backward)
  concat_grad,   // (dy) -> dx0, dx1, ...: dy's channel slices of attrs.sizes channels each
                 // (Backend::concat_backward; TF's gradient of ConcatV2: a Slice per input)
  batch_norm_grad,  // (x, dy, mean, var[, weight]) -> dx[, dweight, dbias]: FusedBatchNormGrad
  scalar_scale,  // host scalar times a constant factor (the gradient of a batch mean)
  // TF's CheckNumerics on the loss: throws "loss is nan at iteration N" before any update runs
  check_numerics,
  // optimizer updates: write their variables in place, no outputs
  apply_caffe_sgd, apply_torch_sgd, apply_adam,
  // made by the update_fusion pass: (x, dy, w, the update's slots) -> [dbias]: linear_grad_weight
  // and the apply_* node of its weight in one, the gradient never whole in memory
  // (Backend::linear_backward_weights_update); writes w and the slots in place
  linear_grad_weight_update,
  // (mean, var, running statistics' variables): updates the variables in place by the layer's
  // momentum convention, no outputs (TF's AssignMovingAvg ops of the UPDATE_OPS collection)
  batch_norm_update,
  // made by the elementwise fusion pass: a chain of elementwise steps on one buffer
  fused_elementwise,
  // made by the conv_pool_fusion pass: (x, w[, bias]) -> y, workspace: a conv2d and the max
  // pool2d after it in one (attrs.conv, attrs.pool; Backend::conv2d_max_pool_forward), the
  // convolution's output never whole in memory; and its weight gradient (x, dy, workspace) ->
  // dw[, db] from the pooled gradient: the pool2d_grad and conv2d_grad_filter in one
  // (Backend::conv2d_max_pool_backward_weights)
  conv2d_max_pool, conv2d_max_pool_grad_filter,
  // data-parallel training (Horovod's HorovodAllreduce in a TF graph): (the gradients of one
  // bucket) -> their means over the ranks, in one all-reduce call of the packed values
  // (graph/distributed/data_parallel.h); stateful, so never merged, folded or fused
  allreduce_mean,
};

const char* op_name(OpKind op);  // "conv2d", "apply_adam", ...

// Sources have no inputs.
bool is_source(OpKind op);
// Ops whose result depends on more than their inputs (the run's feeds, the store, the
// iteration) or that write state: never merged by CSE nor evaluated by constant folding.
bool is_stateful(OpKind op);
// Ops that write their variable inputs in place: the optimizer updates and batch_norm_update.
bool is_update(OpKind op);
// Whether an update op writes its input `slot`: an apply node all of them (the variable, its
// gradient, which the Backend's update may modify, and its slots); batch_norm_update its
// running statistics (inputs 2...), not the batch statistics it reads.
bool writes_input(OpKind op, std::size_t slot);
// Elementwise ops a fused_elementwise node can hold as steps.
bool is_fusable_step(OpKind op);

}  // namespace ablate::graph::static_graph
