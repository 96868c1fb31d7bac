// The Backend calls of every op kind (see op_execute.h). Shapes as in op_shapes.cpp; linear
// ops view their [N, ...] input as [N, I] as Caffe's InnerProduct does.
#include "graph/static/op_execute.h"

#include <cmath>
#include <optional>
#include <stdexcept>
#include <string>

#include "graph/batch_norm_statistics.h"
#include "graph/distributed/data_parallel.h"
#include "graph/dropout_seed.h"
#include "graph/optim/divergence_error.h"
#include "graph/optim/update_rule.h"

namespace ablate::graph::static_graph {
namespace {

using kernels::Tensor;

Tensor flat(const Tensor& t) { return t.reshaped({t.dim(0), t.numel() / t.dim(0)}); }

// A fused chain as one Backend call: the backend applies every step per element in one pass
// (Backend::fused_elementwise). When the node runs in place, out already holds input 0.
kernels::ChainOp chain_op(OpKind op) {
  switch (op) {
    case OpKind::bias_add: return kernels::ChainOp::bias_add;
    case OpKind::activation: return kernels::ChainOp::activation;
    case OpKind::activation_grad: return kernels::ChainOp::activation_grad;
    case OpKind::mul: return kernels::ChainOp::mul;
    case OpKind::add: return kernels::ChainOp::add;
    case OpKind::scale: return kernels::ChainOp::scale;
    default: throw std::logic_error(std::string("fused step ") + op_name(op) + " is not elementwise");
  }
}

void run_fused(const Node& n, kernels::Backend& b, NodeIO& io) {
  std::vector<kernels::ChainStep> steps;
  for (const FusedStep& s : n.attrs.steps) steps.push_back({chain_op(s.op), s.activation, s.alpha, s.extra});
  std::vector<const Tensor*> inputs(io.in.begin(), io.in.end());
  if (io.aliased) inputs[0] = io.out[0];
  b.fused_elementwise(inputs, steps, *io.out[0]);
}

// Elementwise ops on host scalars (a loss plus a weight-decay term): plain double math.
void run_host(const Node& n, NodeIO& io) {
  const double x = io.in[0]->at(0), y = io.in.size() > 1 ? io.in[1]->at(0) : 0.0;
  double out = x;
  switch (n.op) {
    case OpKind::add: out = x + y; break;
    case OpKind::add_n:
      out = x + y;
      for (std::size_t k = 2; k < io.in.size(); ++k) out += io.in[k]->at(0);
      break;
    case OpKind::mul: out = x * y; break;
    case OpKind::scale:
    case OpKind::scalar_scale: out = n.attrs.alpha * x; break;
    case OpKind::axpby: out = n.attrs.alpha * x + n.attrs.beta * y; break;
    case OpKind::copy: break;
    default: throw std::logic_error("static graph: node '" + n.name + "' (" + op_name(n.op) + ") has no host form");
  }
  io.out[0]->set(0, out);
}

// An apply node: the shared update rule on its variable, gradient and slots (inputs 2...).
void run_update(const Graph& g, const Node& n, kernels::Backend& b, NodeIO& io, const RunContext& run) {
  const OptimizerConfig& o = g.optimizer;
  const UpdateStep step{learning_rate(o.lr, run.iteration), run.iteration, run.updates_done == 0};
  apply_update(b, o, step, n.attrs.lr_mult, n.attrs.decay_mult, *io.in[0], *io.in[1], io.in.data() + 2);
}

// A weight gradient folded into its update (update_fusion): the band-wise product and update of
// Backend::linear_backward_weights_update. A band with NaN or inf in its gradient is left
// unapplied and, under check_gradients, stops the run as check_finite_gradients would.
void run_gradient_update(const Graph& g, const Node& n, kernels::Backend& b, NodeIO& io, const RunContext& run) {
  const OptimizerConfig& o = g.optimizer;
  const UpdateStep step{learning_rate(o.lr, run.iteration), run.iteration, run.updates_done == 0};
  const std::optional<kernels::UpdateParams> p = update_params(o, step, n.attrs.lr_mult, n.attrs.decay_mult);
  if (!p) throw std::logic_error("static graph: node '" + n.name + "' fuses an update that is not one op (" + o.type + " with weight decay)");
  const std::vector<Tensor*> state(io.in.begin() + 3, io.in.end());
  Tensor none;
  const std::int64_t bad = b.linear_backward_weights_update(flat(*io.in[0]), *io.in[1], *io.in[2], state, none, *p,
                                                            o.check_gradients);  // the graph's biases are bias_add nodes
  if (bad > 0) {
    const std::string& param = g.node(n.inputs[2].node).attrs.key;
    throw DivergenceError("gradient of " + param + " is not finite at iteration " + std::to_string(run.iteration) +
                          " (0-based; the loss was finite): " + std::to_string(bad) + " NaN or inf among its " +
                          std::to_string(io.in[2]->numel()) + " values (computed band by band inside its update, "
                          "update_fusion: the bands holding them were not applied)");
  }
}

// The batch normalisation ops (op_kind.h); absent weight and bias are the Backend's "none".
void run_batch_norm(const Node& n, kernels::Backend& b, NodeIO& io) {
  const models::BatchNormParams& p = n.attrs.batch_norm;
  auto in = [&](std::size_t k) -> Tensor& { return *io.in[k]; };
  auto out = [&](std::size_t k) -> Tensor& { return *io.out[k]; };
  Tensor none, no_dweight, no_dbias;
  switch (n.op) {
    case OpKind::batch_norm: {  // (x[, weight, bias])
      const bool affine = io.in.size() == 3;
      b.batch_norm_forward_training(in(0), affine ? in(1) : none, affine ? in(2) : none, p.epsilon, out(0), out(1), out(2));
      return;
    }
    case OpKind::batch_norm_grad: {  // (x, dy, mean, var[, weight])
      const bool affine = io.in.size() == 5;
      b.batch_norm_backward(in(0), in(1), affine ? in(4) : none, in(2), in(3), p.epsilon, out(0),
                            affine ? out(1) : no_dweight, affine ? out(2) : no_dbias);
      return;
    }
    case OpKind::batch_norm_inference: {  // (x, mean, var[, weight, bias])
      const bool affine = io.in.size() == 5;
      b.batch_norm_forward_inference(in(0), affine ? in(3) : none, affine ? in(4) : none, in(1), in(2), p.epsilon, out(0));
      return;
    }
    case OpKind::batch_norm_statistics:
      inference_statistics(b, p, {io.in.begin(), io.in.end()}, out(0), out(1));
      return;
    default:  // batch_norm_update
      update_running_statistics(b, p, values_per_channel(n.attrs.shape), in(0), in(1), {io.in.begin() + 2, io.in.end()});
      return;
  }
}

}  // namespace

void execute_node(const Graph& g, const Node& n, kernels::Backend& b, NodeIO& io, const RunContext& run) {
  const Attrs& a = n.attrs;
  auto in = [&](std::size_t k) -> Tensor& { return *io.in[k]; };
  auto out = [&](std::size_t k) -> Tensor& { return *io.out[k]; };
  Tensor none;
  if (!n.outputs.empty() && n.outputs[0].host && !n.inputs.empty() && n.op != OpKind::sum && n.op != OpKind::sum_squares &&
      n.op != OpKind::softmax_xent && n.op != OpKind::nll) {
    run_host(n, io);
    return;
  }
  switch (n.op) {
    case OpKind::placeholder:
    case OpKind::variable:
    case OpKind::constant: return;  // bound buffers
    case OpKind::fill: b.fill(out(0), a.alpha); return;
    case OpKind::broadcast: b.fill(out(0), in(0).at(0)); return;
    case OpKind::gemm:
      if (a.beta != 0) b.copy(in(2), out(0));
      b.gemm(a.trans_a, a.trans_b, a.alpha, in(0), in(1), a.beta, out(0));
      return;
    case OpKind::axpby:
      if (!io.aliased) b.copy(in(1), out(0));
      if (a.beta == 1.0)
        b.axpy(a.alpha, in(0), out(0));
      else
        b.axpby(a.alpha, in(0), a.beta, out(0));
      return;
    case OpKind::copy:
    case OpKind::reshape: b.copy(in(0), out(0)); return;
    case OpKind::permute: b.permute(in(0), a.perm, out(0)); return;
    case OpKind::batched_matmul: b.batched_gemm(a.trans_a, a.trans_b, a.alpha, in(0), in(1), 0.0, out(0)); return;
    case OpKind::softmax_last: b.softmax_last_forward(in(0), a.alpha, out(0)); return;
    case OpKind::softmax_last_grad: b.softmax_last_backward(in(0), in(1), a.alpha, out(0)); return;
    case OpKind::layer_norm: b.layer_norm_forward(in(0), in(1), in(2), a.alpha, out(0), out(1), out(2)); return;
    case OpKind::layer_norm_grad:
      b.layer_norm_backward(in(0), in(1), in(4), in(2), in(3), out(0), out(1), out(2));
      return;
    case OpKind::fused_attention:
      b.fused_attention_forward(in(0), in(1), in(2), a.alpha, a.block, out(0), out(1));
      return;
    case OpKind::fused_attention_grad:
      b.fused_attention_backward(in(0), in(1), in(2), in(3), in(4), in(5), a.alpha, a.block, out(0), out(1), out(2));
      return;
    case OpKind::softmax: b.softmax_forward(in(0), out(0)); return;
    case OpKind::sum: out(0).set(0, b.sum(in(0))); return;
    case OpKind::sum_squares: out(0).set(0, b.sum_squares(in(0))); return;
    case OpKind::dropout_mask:
      b.dropout_mask(out(0), a.alpha, dropout_seed(run.seed, a.key, run.iteration),
                     dropout_first_index(run.first_sample, out(0)));
      return;
    case OpKind::conv2d: b.conv2d_forward(in(0), in(1), io.in.size() > 2 ? in(2) : none, out(0), a.conv); return;
    case OpKind::conv2d_map:
      b.conv2d_map_forward(in(0), in(1), io.in.size() > 3 ? in(3) : none, in(2), out(0), a.conv);
      return;
    case OpKind::linear: b.linear_forward(flat(in(0)), in(1), io.in.size() > 2 ? in(2) : none, out(0)); return;
    case OpKind::bias_add:
      if (!io.aliased) b.copy(in(0), out(0));
      b.bias_add(out(0), in(1));
      return;
    case OpKind::pool2d: b.pool2d_forward(in(0), out(0), out(1), a.pool); return;
    case OpKind::conv2d_max_pool:
      b.conv2d_max_pool_forward(in(0), in(1), io.in.size() > 2 ? in(2) : none, out(0), out(1), a.conv, a.pool);
      return;
    case OpKind::activation: b.activation_forward(a.activation, in(0), out(0)); return;
    case OpKind::lrn: b.lrn_forward(in(0), out(0), out(1), a.lrn); return;
    case OpKind::mul: b.mul(in(0), in(1), out(0)); return;
    case OpKind::add: b.add(in(0), in(1), out(0)); return;
    case OpKind::concat: b.concat_forward({io.in.begin(), io.in.end()}, out(0)); return;
    case OpKind::concat_grad: b.concat_backward(in(0), io.out); return;
    case OpKind::add_n:  // ((x0 + x1) + x2) + ...; in place over x0 or x1 (then no later input is the same)
      b.add(in(0), in(1), out(0));
      for (std::size_t k = 2; k < io.in.size(); ++k) b.add(out(0), in(k), out(0));
      return;
    case OpKind::scale:
      if (!io.aliased) b.copy(in(0), out(0));
      b.scale(out(0), a.alpha);
      return;
    case OpKind::softmax_xent: out(0).set(0, b.softmax_xent_forward(in(0), in(1), out(1))); return;
    case OpKind::log_softmax: b.log_softmax_forward(in(0), out(0)); return;
    case OpKind::nll: out(0).set(0, b.nll_forward(in(0), in(1))); return;
    case OpKind::argmax: b.argmax_rows(in(0), out(0)); return;
    case OpKind::conv2d_grad_input: b.conv2d_backward_data(in(0), in(1), out(0), a.conv); return;
    case OpKind::conv2d_grad_filter: b.conv2d_backward_weights(in(0), in(1), out(0), a.bias ? out(1) : none, a.conv); return;
    case OpKind::conv2d_map_grad_input: b.conv2d_map_backward_data(in(0), in(1), in(2), out(0), a.conv); return;
    case OpKind::conv2d_map_grad_filter:
      b.conv2d_map_backward_weights(in(0), in(1), in(2), out(0), a.bias ? out(1) : none, a.conv);
      return;
    case OpKind::linear_grad_input: {
      Tensor dx = flat(out(0));
      b.linear_backward_data(in(0), in(1), dx);
      return;
    }
    case OpKind::linear_grad_weight: b.linear_backward_weights(flat(in(0)), in(1), out(0), a.bias ? out(1) : none); return;
    case OpKind::bias_grad: b.bias_backward(in(0), out(0)); return;
    case OpKind::pool2d_grad: b.pool2d_backward(in(0), in(1), in(2), in(3), out(0), a.pool); return;
    case OpKind::conv2d_max_pool_grad_filter:
      b.conv2d_max_pool_backward_weights(in(0), in(1), in(2), out(0), a.bias ? out(1) : none, a.conv, a.pool);
      return;
    case OpKind::activation_grad: b.activation_backward(a.activation, in(0), in(1), out(0)); return;
    case OpKind::lrn_grad: b.lrn_backward(in(0), in(1), in(2), in(3), out(0), a.lrn); return;
    case OpKind::softmax_xent_grad: b.softmax_xent_backward(in(0), in(1), in(2).at(0), out(0)); return;
    case OpKind::log_softmax_grad: b.log_softmax_backward(in(0), in(1), out(0)); return;
    case OpKind::nll_grad: b.nll_backward(in(0), in(1).at(0), out(0)); return;
    case OpKind::scalar_scale: run_host(n, io); return;
    case OpKind::check_numerics: {
      check_finite_loss(in(0).at(0), run.iteration);
      return;
    }
    case OpKind::apply_caffe_sgd:
    case OpKind::apply_torch_sgd:
    case OpKind::apply_adam: run_update(g, n, b, io, run); return;
    case OpKind::linear_grad_weight_update: run_gradient_update(g, n, b, io, run); return;
    case OpKind::fused_elementwise: run_fused(n, b, io); return;
    case OpKind::allreduce_mean: {
      if (!run.allreduce) throw std::logic_error("static graph: all-reduce node '" + n.name + "' run without an averager");
      b.synchronize();  // the gradients are complete before they are packed
      run.allreduce->mean({io.in.begin(), io.in.end()}, io.out);
      return;
    }
    case OpKind::batch_norm:
    case OpKind::batch_norm_grad:
    case OpKind::batch_norm_inference:
    case OpKind::batch_norm_statistics:
    case OpKind::batch_norm_update: run_batch_norm(n, b, io); return;
  }
  throw std::logic_error("static graph: node '" + n.name + "' has an op the executor does not know");
}

}  // namespace ablate::graph::static_graph
