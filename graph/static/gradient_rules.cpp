// The gradient rules of the differentiable ops (see gradient_rules.h).
#include "graph/static/gradient_rules.h"

#include <stdexcept>

namespace ablate::graph::static_graph {
namespace {

class Rule {
 public:
  Rule(Graph& g, int id, const std::vector<Value>& dout, const std::vector<bool>& wanted)
      : g_(g), id_(id), n_(g.node(id)), dout_(dout), wanted_(wanted), grads_(n_.inputs.size()) {}

  std::vector<Value> run();

 private:
  Value x(std::size_t k) const { return n_.inputs[k]; }
  Value y(int k = 0) const { return {id_, k}; }
  Value dy() const { return dout_[0]; }
  bool want(std::size_t k) const { return k < wanted_.size() && wanted_[k]; }
  Value emit(OpKind op, std::vector<Value> inputs, Attrs a = {}, int output = 0) {
    return g_.out(g_.add(op, "grad/" + n_.name + "/" + op_name(op), std::move(inputs), std::move(a)), output);
  }
  Attrs with_shape(Value v) const {
    Attrs a = n_.attrs;
    a.shape = g_.type(v).shape;
    a.dtype = g_.type(v).dtype;
    return a;
  }
  // Weight (and bias) gradients of conv2d, conv2d_map and linear: one node, outputs dw[, db].
  void weights(OpKind op, std::vector<Value> inputs, std::size_t bias_slot) {
    if (!want(1) && !want(bias_slot)) return;
    Attrs a = with_shape(x(1));
    a.bias = n_.inputs.size() > bias_slot;
    const int id = g_.add(op, "grad/" + n_.name + "/" + op_name(op), std::move(inputs), a);
    grads_[1] = g_.out(id, 0);
    if (a.bias) grads_[bias_slot] = g_.out(id, 1);
  }
  // C = alpha A' B' + beta C0 with A' = op(A), B' = op(B):
  //   dA = alpha dC B'^T (A not transposed), alpha B' dC^T (transposed);
  //   dB = alpha A'^T dC (B not transposed), alpha dC^T A' (transposed); dC0 = beta dC.
  // `op` is gemm, or batched_matmul (the same per batch index; no C0).
  void gemm(OpKind op) {
    const Attrs& f = n_.attrs;
    auto product = [&](Value a, Value b, bool ta, bool tb) {
      Attrs p;
      p.alpha = f.alpha;
      p.trans_a = ta;
      p.trans_b = tb;
      return emit(op, {a, b}, p);
    };
    if (want(0)) grads_[0] = f.trans_a ? product(x(1), dy(), f.trans_b, true) : product(dy(), x(1), false, !f.trans_b);
    if (want(1)) grads_[1] = f.trans_b ? product(dy(), x(0), true, f.trans_a) : product(x(0), dy(), !f.trans_a, false);
    if (want(2)) {
      Attrs s;
      s.alpha = f.beta;
      grads_[2] = emit(OpKind::scale, {dy()}, s);
    }
  }
  // layer_norm(x, weight, bias) -> y, mean, rstd: one layer_norm_grad node from x, dy and the row
  // statistics; the statistics outputs have no readers but the gradient.
  void layer_norm() {
    for (std::size_t k = 1; k < dout_.size(); ++k)
      if (dout_[k].valid())
        throw std::invalid_argument("static graph: node '" + n_.name + "': the gradient of its row statistics is not built");
    const int id = g_.add(OpKind::layer_norm_grad, "grad/" + n_.name + "/layer_norm_grad", {x(0), dy(), y(1), y(2), x(1)},
                          n_.attrs);
    for (std::size_t k = 0; k < 3; ++k) grads_[k] = g_.out(id, static_cast<int>(k));
  }
  // batch_norm(x[, weight, bias]) -> y, mean, var: one batch_norm_grad node from x, dy and the
  // batch statistics (and the weight), outputs dx[, dweight, dbias]. The statistics outputs
  // feed only the running statistics' update, which no loss reads.
  void batch_norm() {
    for (std::size_t k = 1; k < dout_.size(); ++k)
      if (dout_[k].valid())
        throw std::invalid_argument("static graph: node '" + n_.name + "': the gradient of its batch statistics is not built");
    const bool affine = n_.inputs.size() == 3;
    std::vector<Value> inputs{x(0), dy(), y(1), y(2)};
    if (affine) inputs.push_back(x(1));
    const int id = g_.add(OpKind::batch_norm_grad, "grad/" + n_.name + "/batch_norm_grad", std::move(inputs), n_.attrs);
    grads_[0] = g_.out(id, 0);
    if (affine) {
      grads_[1] = g_.out(id, 1);
      grads_[2] = g_.out(id, 2);
    }
  }
  // The gradient of a batch-mean loss: g / N.
  Value mean_gradient() {
    Attrs a;
    a.alpha = 1.0 / static_cast<double>(g_.type(x(0)).shape[0]);
    return g_.out(g_.add(OpKind::scalar_scale, "grad/" + n_.name + "/mean", {dout_[0]}, a));
  }

  Graph& g_;
  int id_;
  Node n_;  // a copy: adding nodes may move the graph's storage
  const std::vector<Value>& dout_;
  const std::vector<bool>& wanted_;
  std::vector<Value> grads_;
};

std::vector<Value> Rule::run() {
  const OpKind op = n_.op;
  switch (op) {
    case OpKind::conv2d:
      if (want(0)) grads_[0] = emit(OpKind::conv2d_grad_input, {dy(), x(1)}, with_shape(x(0)));
      weights(OpKind::conv2d_grad_filter, {x(0), dy()}, 2);
      break;
    case OpKind::conv2d_map:
      if (want(0)) grads_[0] = emit(OpKind::conv2d_map_grad_input, {dy(), x(1), x(2)}, with_shape(x(0)));
      weights(OpKind::conv2d_map_grad_filter, {x(0), dy(), x(2)}, 3);
      break;
    case OpKind::linear:
      if (want(0)) grads_[0] = emit(OpKind::linear_grad_input, {dy(), x(1)}, with_shape(x(0)));
      weights(OpKind::linear_grad_weight, {x(0), dy()}, 2);
      break;
    case OpKind::bias_add:
      grads_[0] = dy();
      if (want(1)) grads_[1] = emit(OpKind::bias_grad, {dy()});
      break;
    case OpKind::pool2d: grads_[0] = emit(OpKind::pool2d_grad, {x(0), y(0), dy(), y(1)}, n_.attrs); break;
    case OpKind::lrn: grads_[0] = emit(OpKind::lrn_grad, {x(0), y(0), dy(), y(1)}, n_.attrs); break;
    case OpKind::activation:
      grads_[0] = emit(OpKind::activation_grad, {n_.attrs.grad_from_input ? x(0) : y(), dy()}, n_.attrs);
      break;
    case OpKind::log_softmax: grads_[0] = emit(OpKind::log_softmax_grad, {y(), dy()}); break;
    case OpKind::mul:
      if (want(0)) grads_[0] = emit(OpKind::mul, {dy(), x(1)});
      if (want(1)) grads_[1] = emit(OpKind::mul, {dy(), x(0)});
      break;
    case OpKind::add:
    case OpKind::add_n:
      for (Value& g : grads_) g = dy();
      break;
    case OpKind::scale: grads_[0] = emit(OpKind::scale, {dy()}, n_.attrs); break;
    case OpKind::scalar_scale: grads_[0] = emit(OpKind::scalar_scale, {dy()}, n_.attrs); break;
    case OpKind::copy: grads_[0] = dy(); break;
    case OpKind::axpby: {
      Attrs a, b;
      a.alpha = n_.attrs.alpha;
      b.alpha = n_.attrs.beta;
      if (want(0)) grads_[0] = emit(OpKind::scale, {dy()}, a);
      if (want(1)) grads_[1] = emit(OpKind::scale, {dy()}, b);
      break;
    }
    case OpKind::gemm:
    case OpKind::batched_matmul: gemm(op); break;
    case OpKind::layer_norm: layer_norm(); break;
    case OpKind::fused_attention: {
      if (dout_.size() > 1 && dout_[1].valid())
        throw std::invalid_argument("static graph: node '" + n_.name + "': the gradient of its log-sum-exp is not built");
      const int id = g_.add(OpKind::fused_attention_grad, "grad/" + n_.name + "/fused_attention_grad",
                            {x(0), x(1), x(2), y(0), y(1), dy()}, n_.attrs);
      for (std::size_t k = 0; k < 3; ++k) grads_[k] = g_.out(id, static_cast<int>(k));
      break;
    }
    case OpKind::softmax_last: grads_[0] = emit(OpKind::softmax_last_grad, {y(), dy()}, n_.attrs); break;
    case OpKind::reshape: grads_[0] = emit(OpKind::reshape, {dy()}, with_shape(x(0))); break;
    case OpKind::permute: {
      Attrs inverse;
      inverse.perm.resize(n_.attrs.perm.size());
      for (std::size_t i = 0; i < n_.attrs.perm.size(); ++i) inverse.perm[static_cast<std::size_t>(n_.attrs.perm[i])] = static_cast<int>(i);
      grads_[0] = emit(OpKind::permute, {dy()}, inverse);
      break;
    }
    case OpKind::concat: {
      Attrs a;
      for (const Value& v : n_.inputs) a.sizes.push_back(g_.type(v).shape[1]);
      const int id = g_.add(OpKind::concat_grad, "grad/" + n_.name + "/concat_grad", {dy()}, a);
      for (std::size_t k = 0; k < grads_.size(); ++k) grads_[k] = g_.out(id, static_cast<int>(k));
      break;
    }
    case OpKind::sum: grads_[0] = emit(OpKind::broadcast, {dy()}, with_shape(x(0))); break;
    case OpKind::sum_squares: {  // d sum(x^2) = 2 g x
      Attrs twice;
      twice.alpha = 2.0;
      const Value g2 = emit(OpKind::scalar_scale, {dy()}, twice);
      grads_[0] = emit(OpKind::mul, {x(0), emit(OpKind::broadcast, {g2}, with_shape(x(0)))});
      break;
    }
    case OpKind::broadcast: grads_[0] = emit(OpKind::sum, {dy()}); break;
    case OpKind::softmax_xent:
      if (dout_.size() > 1 && dout_[1].valid())
        throw std::invalid_argument("static graph: node '" + n_.name + "': the gradient of its prob output is not built");
      grads_[0] = emit(OpKind::softmax_xent_grad, {y(1), x(1), mean_gradient()});
      break;
    case OpKind::nll: grads_[0] = emit(OpKind::nll_grad, {x(1), mean_gradient()}, with_shape(x(0))); break;
    case OpKind::batch_norm: batch_norm(); break;
    default:
      throw std::invalid_argument("static graph: node '" + n_.name + "' (" + op_name(op) + ") has no gradient rule");
  }
  for (std::size_t k = 0; k < grads_.size(); ++k)
    if (!want(k)) grads_[k] = {};
  return grads_;
}

}  // namespace

std::vector<Value> input_gradients(Graph& graph, int node, const std::vector<Value>& dout,
                                   const std::vector<bool>& wanted) {
  return Rule(graph, node, dout, wanted).run();
}

}  // namespace ablate::graph::static_graph
