// The blocked_layout pass (see passes.h): activations stay in the backend's channel-blocked
// layout (nChw16c on AVX-512, kernels/tensor.h) between the ops that run in it, instead of
// being reordered from NCHW and back around every convolution. TensorFlow 1.x's MKL builds
// did this with MklLayoutRewritePass: their _MklConv2D, _MklFusedBatchNorm, _MklRelu and
// _MklAdd passed the MKL layout along, and a _MklToTf node converted where a plain op read it.
//
// Which values become blocked (in execution order, 4-D f32 of C a multiple of the block B):
//   sources   conv2d and conv2d_grad_input outputs, when some reader can take them blocked: in
//             B, or where B does not divide C (LeNet's 20 and 50 channels) channels-last (NHWC,
//             a block of all C), which the same backends run (kernels/contract/layout_check.h)
//   followers batch_norm / batch_norm_inference, pool2d, lrn, bias_add (x), batch_norm_grad (x, dy) and
//             the elementwise ops (activation and its gradient, add, add_n, mul, scale, axpby,
//             copy, a fused chain without a bias step; their 4-D operands) when one of those
//             inputs is blocked and all could be: their output takes the layout
//   pool2d_grad, lrn_grad: the layout of their x, as their forward ran (the workspace it left
//             is in that layout); y and dy are converted to it where they differ
// Then a conversion copy (Backend::copy converts layouts) wherever a value meets a reader that
// needs the other layout: a blocked value read by an op that needs NCHW (pooling, linear, a
// bias step, a fetch), a plain operand of a blocked follower (the pool's gradient entering the
// last block); one per value and direction, placed right before its first such reader.
// Nothing changes when the backend has no blocked layout (Backend::channel_block is 0: every
// backend but oneDNN's in f32). The block is asked per node's layer (channel_block_for): under
// a per-layer plan (kernels/planned_backend.h) only the layers the plan keeps blocked run in
// it; a convolution, batch norm, pooling, LRN or bias of another layer reads its input plain
// (converted where needed), while the elementwise ops take any one layout.
#include <algorithm>
#include <map>

#include "graph/blocked_layers.h"
#include "graph/static/node_label.h"
#include "graph/static/passes.h"

namespace ablate::graph::static_graph {
namespace {

// Elementwise ops whose result does not depend on the order of the elements, as long as
// every 4-D operand has the same layout (kernels/contract/layout_check.h).
bool layout_free(const Node& n) {
  switch (n.op) {
    case OpKind::activation:
    case OpKind::activation_grad:
    case OpKind::add:
    case OpKind::add_n:
    case OpKind::mul:
    case OpKind::scale:
    case OpKind::axpby:
    case OpKind::copy: return true;
    case OpKind::fused_elementwise:
      return std::none_of(n.attrs.steps.begin(), n.attrs.steps.end(),
                          [](const FusedStep& s) { return s.op == OpKind::bias_add; });
    default: return false;
  }
}

// Whether input `slot` of n may be a blocked value (before the same-layout rule of followers).
bool takes_blocked(const Node& n, int slot) {
  switch (n.op) {
    case OpKind::conv2d:
    case OpKind::conv2d_grad_input:
    case OpKind::batch_norm:
    case OpKind::batch_norm_inference:
    case OpKind::pool2d:
    case OpKind::lrn:
    case OpKind::bias_add:
    case OpKind::bias_grad: return slot == 0;
    case OpKind::conv2d_grad_filter:
    case OpKind::batch_norm_grad: return slot == 0 || slot == 1;
    case OpKind::pool2d_grad:
    case OpKind::lrn_grad: return slot <= 2;  // x, y, dy; not the workspace
    default: return layout_free(n);
  }
}

// The inputs of n that must share one layout with its output: the 4-D operands of an
// elementwise op, x (and dy) of a batch norm, x of a pooling or LRN.
std::vector<int> layout_group(const Graph& g, const Node& n) {
  std::vector<int> slots;
  if (n.op == OpKind::batch_norm || n.op == OpKind::batch_norm_inference || n.op == OpKind::pool2d ||
      n.op == OpKind::lrn || n.op == OpKind::bias_add)
    return {0};
  if (n.op == OpKind::batch_norm_grad) return {0, 1};
  if (n.op == OpKind::pool2d_grad || n.op == OpKind::lrn_grad) return {0, 1, 2};
  if (!layout_free(n)) return {};
  for (std::size_t k = 0; k < n.inputs.size(); ++k)
    if (g.type(n.inputs[k]).shape.size() == 4) slots.push_back(static_cast<int>(k));
  return slots;
}

}  // namespace

int blocked_layout_pass(Graph& g, kernels::Backend& backend) {
  // The block each node's backend runs in (0: none), by the node's layer.
  std::vector<int> node_block(static_cast<std::size_t>(g.size()), 0);
  bool any = false;
  for (int id = 0; id < g.size(); ++id) {
    node_block[static_cast<std::size_t>(id)] = backend.channel_block_for(g.dtype(), node_label(g.node(id)).layer);
    any = any || node_block[static_cast<std::size_t>(id)] != 0;
  }
  if (!any) return 0;
  auto block_of = [&](const Node& n) { return node_block[static_cast<std::size_t>(&n - &g.node(0))]; };
  auto fits = [&](const TensorType& t, int block) {
    return block != 0 && !t.host && !t.opaque && t.dtype == kernels::DType::f32 && t.shape.size() == 4 &&
           t.shape[1] % block == 0;
  };
  // Whether n's backend runs layout `block` for a value of `channels` channels: its own block,
  // or channels-last (a block of all the channels) where it has a block.
  auto runs = [&](const Node& n, int block, std::int64_t channels) {
    return block != 0 && (block == block_of(n) || (block_of(n) > 0 && block == channels));
  };
  auto channels_of = [&](Value v) { return g.type(v).shape.size() == 4 ? g.type(v).shape[1] : 0; };
  // Whether input `slot` of n may be a value of block `block` and `channels` channels: an
  // elementwise op takes any layout; the others only what their own backend runs.
  auto reads_blocked = [&](const Node& n, int slot, int block, std::int64_t channels) {
    return takes_blocked(n, slot) && (layout_free(n) || runs(n, block, channels));
  };
  const std::vector<int> order = g.execution_order();
  const auto uses = g.uses();
  auto blocked = [&](Value v) { return g.type(v).channel_block != 0; };
  int made = 0;
  // 1. The layout of every output, in execution order (a node's inputs are decided before it).
  for (int id : order) {
    Node& n = g.node(id);
    if (n.outputs.empty()) continue;
    int block = 0;  // the layout its output takes
    if (n.op == OpKind::conv2d || n.op == OpKind::conv2d_grad_input) {
      // the backend's block where it divides the channels, else channels-last
      const std::int64_t channels = channels_of(g.out(id));
      const int own = conv_output_block(block_of(n), channels);
      const auto& readers = uses[static_cast<std::size_t>(id)][0];
      if (std::any_of(readers.begin(), readers.end(),
                      [&](const Use& u) { return reads_blocked(g.node(u.node), u.slot, own, channels); }))
        block = own;
    } else if (n.op == OpKind::pool2d_grad || n.op == OpKind::lrn_grad) {
      // the layout its forward ran in (x's, where its layer's backend runs that block), whose
      // workspace it reads: y and dy follow it
      block = g.type(n.inputs[0]).channel_block;
      if (!runs(n, block, channels_of(n.inputs[0]))) block = 0;
    } else if (const std::vector<int> group = layout_group(g, n); !group.empty()) {
      auto input = [&](int k) { return g.type(n.inputs[static_cast<std::size_t>(k)]); };
      for (int k : group) block = std::max(block, input(k).channel_block);
      const bool all_fit = std::all_of(group.begin(), group.end(), [&](int k) { return fits(input(k), block); });
      if (!all_fit || (!layout_free(n) && !runs(n, block, channels_of(n.inputs[static_cast<std::size_t>(group[0])]))))
        block = 0;
    }
    if (block != 0 && fits(n.outputs[0], block)) {
      n.outputs[0].channel_block = block;
      ++made;
    }
  }
  // 2. A conversion where a value meets a reader that needs the other layout: a blocked value
  // read by an op that needs it plain, a plain one joining blocked operands (the gradient from
  // the pool into the last block); one per value and direction, right before its first reader.
  auto wants = [&](const Node& n, int slot) {  // the layout input `slot` of n needs
    const std::vector<int> group = layout_group(g, n);
    if (std::find(group.begin(), group.end(), slot) != group.end()) return n.outputs[0].channel_block;
    const Value v = n.inputs[static_cast<std::size_t>(slot)];
    const int has = g.type(v).channel_block;
    return reads_blocked(n, slot, has, channels_of(v)) ? has : 0;
  };
  std::vector<int> position(static_cast<std::size_t>(g.size()), -1);
  for (std::size_t i = 0; i < order.size(); ++i) position[static_cast<std::size_t>(order[i])] = static_cast<int>(i);
  std::map<std::pair<Value, int>, Value> converted;  // (value, its new block) -> the conversion's output
  auto convert = [&](Value v, int to, double at_order) {
    if (auto it = converted.find({v, to}); it != converted.end()) return it->second;
    const int c = g.add(OpKind::copy, g.node(v.node).name + (to ? "/to_blocked" : "/to_plain"), {v});
    g.node(c).outputs[0].channel_block = to;
    g.node(c).order = at_order;
    return converted[{v, to}] = g.out(c);
  };
  for (int id : order) {
    const int at = position[static_cast<std::size_t>(id)];
    const double before = at > 0 ? g.node(order[static_cast<std::size_t>(at - 1)]).order : g.node(id).order - 1;
    for (std::size_t k = 0; k < g.node(id).inputs.size(); ++k) {
      const Value v = g.node(id).inputs[k];
      const int want = wants(g.node(id), static_cast<int>(k));
      if (g.type(v).channel_block != want) g.node(id).inputs[k] = convert(v, want, (before + g.node(id).order) / 2);
    }
  }
  const double end = g.node(order.back()).order + 1;  // after every node: a fetch may be the last output
  for (Value& f : g.fetches)
    if (f.valid() && blocked(f)) f = convert(f, 0, end);
  return made;
}

}  // namespace ablate::graph::static_graph
