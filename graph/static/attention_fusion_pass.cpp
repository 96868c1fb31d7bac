// Attention fusion (see passes.h): softmax(a s q k^T) v and, in a training graph, the gradient
// nodes the symbolic gradient built for it, become one fused_attention node and one
// fused_attention_grad node, as XLA fuses a transformer's attention into one kernel and
// FlashAttention (Dao et al. 2022) computes it block by block. Before:
//   S = batched_matmul(Q, K; trans_b, alpha a)    [B, T, T]
//   P = softmax_last(S; scale s)                  [B, T, T]
//   O = batched_matmul(P, V)                      [B, T, d]
// and, when the loss depends on them (gradient_rules.cpp's products with dO the gradient at O):
//   dP = batched_matmul(dO, V; trans_b)    dV = batched_matmul(P, dO; trans_a)
//   dS = softmax_last_grad(P, dP)          dQ = batched_matmul(dS, K; alpha a)
//   dK = batched_matmul(dS, Q; trans_a, alpha a)
// After:
//   O, lse = fused_attention(Q, K, V; scale a s)          (no [T, T] tensor)
//   dQ, dK, dV = fused_attention_grad(Q, K, V, O, lse, dO) (recomputes the scores by blocks)
// Conditions: Q, K, V of one shape [B, T, d]; S, P, dP and dS are not fetched and have no other
// readers; the context product has alpha 1 and no transposition; none of the replaced nodes has
// control inputs. dQ, dK or dV may be missing (an input without a gradient); then that output of
// the gradient node has no reader. The fused node takes the context product's place in the
// order, the gradient node the earlier of dP's and dV's; each reader of O, dQ, dK, dV reads the
// fused node's output instead. attrs.block keys per block (kAttentionBlock).
// Pipeline position: after dce (the gradient graph is final), before the fusions of
// elementwise chains; the memory plan then sees no [T, T] buffer of attention.
#include <algorithm>
#include <optional>
#include <set>

#include "graph/static/passes.h"

namespace ablate::graph::static_graph {
namespace {

// The nodes of one attention and its gradient; -1 where a gradient node is absent.
struct Match {
  int scores = -1, softmax = -1, context = -1;               // S, P, O
  int dp = -1, dv = -1, softmax_grad = -1, dq = -1, dk = -1;  // the gradient nodes
  Value q, k, v, dout;
  double scale = 1;
};

class Matcher {
 public:
  explicit Matcher(const Graph& g) : g_(g), uses_(g.uses()), fetched_(g.fetches.begin(), g.fetches.end()) {}

  std::optional<Match> match(int id) const {
    const Node& sm = g_.node(id);
    if (sm.op != OpKind::softmax_last || !sm.control.empty()) return std::nullopt;
    Match m;
    m.softmax = id;
    m.scores = sm.inputs[0].node;
    const Node& s = g_.node(m.scores);
    if (s.op != OpKind::batched_matmul || s.attrs.trans_a || !s.attrs.trans_b || !s.control.empty()) return std::nullopt;
    if (only_readers({m.scores, 0}).value_or(std::vector<Use>{}).size() != 1) return std::nullopt;
    m.q = s.inputs[0];
    m.k = s.inputs[1];
    m.scale = s.attrs.alpha * sm.attrs.alpha;
    const TensorType& q = g_.type(m.q);
    if (q.shape.size() != 3 || g_.type(m.k).shape != q.shape) return std::nullopt;
    // P's readers: the context product (slot 0), and in a training graph dV (slot 0) and the
    // softmax gradient (slot 0).
    const auto p_readers = only_readers({id, 0});
    if (!p_readers) return std::nullopt;
    for (const Use& u : *p_readers) {
      const Node& r = g_.node(u.node);
      if (u.slot != 0 || !r.control.empty()) return std::nullopt;
      if (r.op == OpKind::batched_matmul && !r.attrs.trans_a && !r.attrs.trans_b && r.attrs.alpha == 1.0 && m.context < 0)
        m.context = u.node;
      else if (r.op == OpKind::batched_matmul && r.attrs.trans_a && !r.attrs.trans_b && r.attrs.alpha == 1.0 && m.dv < 0)
        m.dv = u.node;
      else if (r.op == OpKind::softmax_last_grad && r.attrs.alpha == sm.attrs.alpha && m.softmax_grad < 0)
        m.softmax_grad = u.node;
      else
        return std::nullopt;
    }
    if (m.context < 0) return std::nullopt;
    m.v = g_.node(m.context).inputs[1];
    if (g_.type(m.v).shape != q.shape) return std::nullopt;
    if (m.dv >= 0) m.dout = g_.node(m.dv).inputs[1];
    if (m.softmax_grad >= 0 && !match_softmax_grad(m)) return std::nullopt;
    if (m.dv >= 0 && m.softmax_grad < 0) return std::nullopt;  // half a gradient: not the rule's
    return m;
  }

 private:
  // The readers of v when it is not fetched; none when it is.
  std::optional<std::vector<Use>> only_readers(Value v) const {
    if (fetched_.count(v)) return std::nullopt;
    return uses_[static_cast<std::size_t>(v.node)][static_cast<std::size_t>(v.output)];
  }

  // dS = softmax_last_grad(P, dP) with dP = batched_matmul(dO, V; trans_b) read only there, and
  // dS read only by dQ = batched_matmul(dS, K) and dK = batched_matmul(dS, Q; trans_a).
  bool match_softmax_grad(Match& m) const {
    const Node& sg = g_.node(m.softmax_grad);
    m.dp = sg.inputs[1].node;
    const Node& dp = g_.node(m.dp);
    if (dp.op != OpKind::batched_matmul || dp.attrs.trans_a || !dp.attrs.trans_b || dp.attrs.alpha != 1.0 ||
        dp.inputs[1] != m.v || !dp.control.empty())
      return false;
    if (m.dout.valid() && dp.inputs[0] != m.dout) return false;
    m.dout = dp.inputs[0];
    const auto dp_readers = only_readers({m.dp, 0});
    if (!dp_readers || dp_readers->size() != 1) return false;
    const auto ds_readers = only_readers({m.softmax_grad, 0});
    if (!ds_readers) return false;
    const double a = g_.node(m.scores).attrs.alpha;
    for (const Use& u : *ds_readers) {
      const Node& r = g_.node(u.node);
      if (u.slot != 0 || r.op != OpKind::batched_matmul || r.attrs.trans_b || r.attrs.alpha != a || !r.control.empty())
        return false;
      if (!r.attrs.trans_a && r.inputs[1] == m.k && m.dq < 0)
        m.dq = u.node;
      else if (r.attrs.trans_a && r.inputs[1] == m.q && m.dk < 0)
        m.dk = u.node;
      else
        return false;
    }
    return true;
  }

  const Graph& g_;
  std::vector<std::vector<std::vector<Use>>> uses_;
  std::set<Value> fetched_;
};

std::string layer_prefix(const std::string& name) {
  const auto slash = name.rfind('/');
  return slash == std::string::npos ? std::string() : name.substr(0, slash + 1);
}

void retire(Graph& g, int dead, int replacement) {
  if (dead < 0) return;
  replace_control(g, dead, replacement);
  g.node(dead).dead = true;
}

// Fuses one attention; false when none is left.
bool fuse_one(Graph& g) {
  const Matcher matcher(g);
  for (int id : g.execution_order()) {
    const std::optional<Match> found = matcher.match(id);
    if (!found) continue;
    const Match m = *found;
    Attrs a;
    a.alpha = m.scale;
    a.block = kAttentionBlock;
    const double context_order = g.node(m.context).order;
    const int fused = g.add(OpKind::fused_attention, layer_prefix(g.node(m.softmax).name) + "fused_attention",
                            {m.q, m.k, m.v}, a);
    g.node(fused).order = context_order;
    g.replace_uses({m.context, 0}, {fused, 0});
    for (int dead : {m.scores, m.softmax, m.context}) retire(g, dead, fused);
    if (m.softmax_grad < 0) return true;
    const double order = m.dv >= 0 ? std::min(g.node(m.dp).order, g.node(m.dv).order) : g.node(m.dp).order;
    const int grad = g.add(OpKind::fused_attention_grad, "grad/" + g.node(fused).name + "/fused_attention_grad",
                           {m.q, m.k, m.v, {fused, 0}, {fused, 1}, m.dout}, a);
    g.node(grad).order = order;
    const int outputs[3] = {m.dq, m.dk, m.dv};
    for (int k = 0; k < 3; ++k)
      if (outputs[k] >= 0) g.replace_uses({outputs[k], 0}, {grad, k});
    for (int dead : {m.dp, m.dv, m.softmax_grad, m.dq, m.dk}) retire(g, dead, grad);
    return true;
  }
  return false;
}

}  // namespace

int attention_fusion_pass(Graph& g) {
  int fused = 0;
  while (fuse_one(g)) ++fused;
  return fused;
}

}  // namespace ablate::graph::static_graph
