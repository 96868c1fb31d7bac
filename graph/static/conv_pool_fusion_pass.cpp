// Convolution + max pooling fusion (see passes.h): a conv2d whose output c only a max pool2d
// reads (and that pooling's gradient, where the convolution's data gradient is not needed: the
// first layer, whose input is the images) becomes one conv2d_max_pool node, and the pooling's
// gradient with the convolution's weight gradient one conv2d_max_pool_grad_filter node:
//   conv2d(x, w[, b]) -> c;  pool2d(c) -> y, ws;                becomes conv2d_max_pool(x, w[, b]) -> y, ws
//   pool2d_grad(c, y, dy, ws) -> dc;  conv2d_grad_filter(x, dc) -> dw[, db]
//                                                               becomes conv2d_max_pool_grad_filter(x, dy, ws) -> dw[, db]
// so that neither c nor dc exists for the whole batch: the backend runs each pair over a few
// images at a time, c and dc in cache (kernels/cpu/conv_max_pool.cpp). Caffe's max pooling keeps
// an argmax mask for its backward, which is what lets c go; no framework of the study fused
// the pair (cuDNN and oneDNN fuse a convolution's epilogue, not a pooling after it).
// Conditions: the backend fuses the pair (Backend::fuses_conv_max_pool: a host backend, max
// pooling with the gradient to the first maximum; Theano's `all` gradient compares c with y),
// and does not run the layer channel-blocked (oneDNN's f32 layouts: the blocked_layout pass
// keeps those activations in the block between its primitives); the conv has no activation (its gradient would read c); c has exactly those two readers (or
// the pooling alone: a test graph, whose forward folds) and dc the one, neither is fetched, and
// the pooling nodes have no control inputs. The fused
// forward takes the pooling's place in the order, the fused gradient the pooling gradient's.
// Pipeline position: after conv_activation_fusion (the conv has taken its bias, and its weight
// gradient the bias gradient) and dce (the first layer's data gradient is gone).
#include <optional>
#include <set>

#include "graph/static/node_label.h"
#include "graph/static/passes.h"

namespace ablate::graph::static_graph {
namespace {

struct Pair {
  int conv, pool, pool_grad = -1, filter = -1;  // no gradient nodes in a forward (test) graph
};

class Matcher {
 public:
  Matcher(const Graph& g, const kernels::Backend& backend)
      : g_(g), backend_(backend), uses_(g.uses()), fetched_(g.fetches.begin(), g.fetches.end()) {}

  // The pair around conv node `id`, or none.
  std::optional<Pair> match(int id) const {
    const Node& conv = g_.node(id);
    if (conv.op != OpKind::conv2d || conv.attrs.conv.activation) return std::nullopt;
    if (backend_.channel_block_for(g_.dtype(), node_label(conv).layer) > 0) return std::nullopt;
    const std::vector<Use>& readers = readers_of({id, 0});
    if (readers.empty() || readers.size() > 2 || fetched_.count({id, 0})) return std::nullopt;
    int pool = -1, pool_grad = -1;
    for (const Use& u : readers) {
      const Node& r = g_.node(u.node);
      if (u.slot != 0 || !r.control.empty()) return std::nullopt;
      if (r.op == OpKind::pool2d) pool = u.node;
      else if (r.op == OpKind::pool2d_grad) pool_grad = u.node;
    }
    if (pool < 0 || !backend_.fuses_conv_max_pool(g_.node(pool).attrs.pool)) return std::nullopt;
    if (readers.size() == 1) return Pair{id, pool};
    if (pool_grad < 0) return std::nullopt;
    const Node& pg = g_.node(pool_grad);
    if (pg.inputs[1] != Value{pool, 0} || pg.inputs[3] != Value{pool, 1}) return std::nullopt;
    const std::vector<Use>& dc = readers_of({pool_grad, 0});
    if (dc.size() != 1 || fetched_.count({pool_grad, 0}) || dc[0].slot != 1) return std::nullopt;
    const Node& filter = g_.node(dc[0].node);
    if (filter.op != OpKind::conv2d_grad_filter || filter.inputs[0] != conv.inputs[0]) return std::nullopt;
    return Pair{id, pool, pool_grad, dc[0].node};
  }

 private:
  const std::vector<Use>& readers_of(Value v) const {
    return uses_[static_cast<std::size_t>(v.node)][static_cast<std::size_t>(v.output)];
  }

  const Graph& g_;
  const kernels::Backend& backend_;
  std::vector<std::vector<std::vector<Use>>> uses_;
  std::set<Value> fetched_;
};

// Folds one pair; false when none is left.
bool fold_one(Graph& g, const kernels::Backend& backend) {
  const Matcher matcher(g, backend);
  for (int id : g.execution_order()) {
    const std::optional<Pair> m = matcher.match(id);
    if (!m) continue;
    Node& conv = g.node(id);
    Node& pool = g.node(m->pool);
    conv.op = OpKind::conv2d_max_pool;
    conv.attrs.pool = pool.attrs.pool;
    conv.outputs = pool.outputs;  // y, the workspace
    conv.order = pool.order;
    conv.name += "+" + last_segment(pool.name);
    pool.dead = true;
    g.replace_uses({m->pool, 0}, {id, 0});
    g.replace_uses({m->pool, 1}, {id, 1});
    replace_control(g, m->pool, id);
    if (m->pool_grad < 0) return true;
    Node& pool_grad = g.node(m->pool_grad);
    Node& filter = g.node(m->filter);
    const Value x = conv.inputs[0], dy = pool_grad.inputs[2];
    filter.op = OpKind::conv2d_max_pool_grad_filter;
    filter.attrs.pool = pool.attrs.pool;
    filter.inputs = {x, dy, {id, 1}};
    filter.order = pool_grad.order;
    filter.name += "+" + last_segment(pool_grad.name);
    pool_grad.dead = true;
    replace_control(g, m->pool_grad, m->filter);
    return true;
  }
  return false;
}

}  // namespace

int conv_pool_fusion_pass(Graph& g, const kernels::Backend& backend) {
  int folded = 0;
  while (fold_one(g, backend)) ++folded;
  return folded;
}

}  // namespace ablate::graph::static_graph
