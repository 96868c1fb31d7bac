// Convolution + bias + activation fusion (see passes.h): the activation after a conv2d, and the
// bias_add between them, become the convolution's epilogue (Conv2dParams::activation), so the
// conv node writes y = f(conv(x, w) + b) in one pass over its output, as TensorFlow's grappler
// remapper turns Conv2D -> BiasAdd -> Relu into _FusedConv2D. Three forms fold:
//   conv2d(x, w) -> bias_add(., b) -> activation      becomes conv2d(x, w, b; f)
//   conv2d(x, w[, b]) -> activation                    becomes conv2d(x, w[, b]; f)
//   conv2d(x, w) -> fused_elementwise [bias_add, activation] (or [activation]), what
//   elementwise_fusion makes of the first two, likewise;
//   conv2d(x, w) -> bias_add(., b), with no activation after, becomes conv2d(x, w, b).
// Where a bias_add node folds, its gradient folds too: the bias_grad(dy) that the gradient
// built for it and the conv's conv2d_grad_filter(x, dy), reading the same dy, become one
// conv2d_grad_filter with outputs dw and db (the backend's conv2d_backward_weights with dbias,
// one pass over dy; TensorFlow 1.x's MKL builds rewrote Conv2DBackpropFilter and BiasAddGrad
// into Conv2DBackpropFilterWithBias the same way).
// Conditions: f is relu, tanh or sigmoid (GELU's gradient reads the pre-activation, which no
// longer exists); every intermediate (the conv's output, the bias_add's) has that one reader,
// is not fetched, and the folded nodes have no control inputs; a bias is folded only into a
// conv without one. The conv node takes the activation's place in the order (its output is
// read only by the folded nodes, so nothing between needs it earlier) and its output replaces
// the activation's everywhere: the gradient built before the passes reads the activation's
// output (activation_grad(y, dy)) and now reads the conv's, the same values. The gradient
// nodes of the conv (conv2d_grad_*) carry no activation.
// Pipeline position: after dce, before elementwise_fusion, so the convolution takes the bias
// and activation whole and elementwise fusion then chains what is left (dropout masks, the
// gradients); the fused form above is folded too, for a graph already fused.
#include <algorithm>
#include <optional>
#include <set>
#include <string>

#include "graph/static/passes.h"

namespace ablate::graph::static_graph {
namespace {

bool epilogue_activation(kernels::Activation a) {
  return a == kernels::Activation::relu || a == kernels::Activation::tanh || a == kernels::Activation::sigmoid;
}

// What follows one conv node and folds into it.
struct Epilogue {
  std::vector<int> folded;           // the nodes that die, in order; the last one's output is y
  Value bias;                        // invalid when no bias is folded
  std::optional<kernels::Activation> activation;  // f; none: a bias alone
  int bias_add = -1;                 // the bias_add node folded, if one (its gradient folds too)
};

class Folder {
 public:
  explicit Folder(Graph& g) : g_(g), uses_(g.uses()), fetched_(g.fetches.begin(), g.fetches.end()) {}

  // The epilogue after conv node `id`, or none.
  std::optional<Epilogue> match(int id) const {
    const Node& conv = g_.node(id);
    if (conv.op != OpKind::conv2d || conv.attrs.conv.activation) return std::nullopt;
    const bool has_bias = conv.inputs.size() > 2;
    const int next = sole_reader({id, 0});
    if (next < 0) return std::nullopt;
    const Node& n = g_.node(next);
    if (is_activation(n)) return Epilogue{{next}, {}, n.attrs.activation};
    if (n.op == OpKind::bias_add && !has_bias && n.inputs[0] == Value{id, 0}) {
      const int act = sole_reader({next, 0});
      if (act >= 0 && is_activation(g_.node(act))) return Epilogue{{next, act}, n.inputs[1], g_.node(act).attrs.activation, next};
      return Epilogue{{next}, n.inputs[1], std::nullopt, next};
    }
    if (n.op == OpKind::fused_elementwise && n.inputs[0] == Value{id, 0}) return match_fused(next, has_bias);
    return std::nullopt;
  }

 private:
  // The one live reader of v, when v is not fetched and that reader has no control inputs; else -1.
  int sole_reader(Value v) const {
    const auto& readers = uses_[static_cast<std::size_t>(v.node)][static_cast<std::size_t>(v.output)];
    if (readers.size() != 1 || fetched_.count(v)) return -1;
    const Node& r = g_.node(readers[0].node);
    return r.control.empty() ? readers[0].node : -1;
  }

  static bool is_activation(const Node& n) {
    return n.op == OpKind::activation && !n.attrs.grad_from_input && epilogue_activation(n.attrs.activation);
  }

  // [activation] or [bias_add(b), activation] on the conv's output.
  std::optional<Epilogue> match_fused(int id, bool has_bias) const {
    const Node& n = g_.node(id);
    const std::vector<FusedStep>& s = n.attrs.steps;
    const FusedStep& last = s.back();
    if (last.op != OpKind::activation || !epilogue_activation(last.activation)) return std::nullopt;
    if (s.size() == 1) return Epilogue{{id}, {}, last.activation};
    if (s.size() == 2 && s[0].op == OpKind::bias_add && !has_bias && s[0].extra > 0)
      return Epilogue{{id}, n.inputs[static_cast<std::size_t>(s[0].extra)], last.activation};
    return std::nullopt;
  }

  Graph& g_;
  std::vector<std::vector<std::vector<Use>>> uses_;
  std::set<Value> fetched_;
};

// The live node named `name`, or -1.
int live_named(const Graph& g, const std::string& name) {
  for (int id = 0; id < g.size(); ++id)
    if (!g.node(id).dead && g.node(id).name == name) return id;
  return -1;
}

// The gradient of a folded bias_add into the conv's weight gradient (see above): the conv's
// conv2d_grad_filter (named "grad/<conv>/conv2d_grad_filter", reading x, dy) takes a second
// output db in place of bias_grad ("grad/<bias_add>/bias_grad", reading the same dy), and runs
// no later than it did.
void fold_bias_grad(Graph& g, const std::string& conv_name, const Value& x, const std::string& bias_add_name) {
  const int filter = live_named(g, "grad/" + conv_name + "/" + op_name(OpKind::conv2d_grad_filter));
  const int bias = live_named(g, "grad/" + bias_add_name + "/" + op_name(OpKind::bias_grad));
  if (filter < 0 || bias < 0) return;
  Node& f = g.node(filter);
  const Node& b = g.node(bias);
  if (f.op != OpKind::conv2d_grad_filter || f.attrs.bias || f.inputs[0] != x || b.inputs[0] != f.inputs[1]) return;
  f.attrs.bias = true;
  f.outputs.push_back(b.outputs[0]);
  f.order = std::min(f.order, b.order);
  f.name += "+" + last_segment(b.name);
  g.replace_uses({bias, 0}, {filter, 1});
  replace_control(g, bias, filter);
  g.node(bias).dead = true;
}

// Folds one epilogue into its conv; false when none is left.
bool fold_one(Graph& g) {
  const Folder folder(g);
  for (int id : g.execution_order()) {
    const std::optional<Epilogue> e = folder.match(id);
    if (!e) continue;
    Node& conv = g.node(id);
    const std::string conv_name = conv.name;
    if (e->bias_add >= 0) fold_bias_grad(g, conv_name, conv.inputs[0], g.node(e->bias_add).name);
    if (e->bias.valid()) conv.inputs.push_back(e->bias);
    conv.attrs.conv.activation = e->activation;
    const int last = e->folded.back();
    conv.order = g.node(last).order;
    for (int f : e->folded) conv.name += "+" + last_segment(g.node(f).name);
    g.replace_uses({last, 0}, {id, 0});
    for (int f : e->folded) {
      replace_control(g, f, id);
      g.node(f).dead = true;
    }
    return true;
  }
  return false;
}

}  // namespace

int conv_activation_fusion_pass(Graph& g) {
  int folded = 0;
  while (fold_one(g)) ++folded;
  return folded;
}

}  // namespace ablate::graph::static_graph
