// The graph passes of the static strategy, each a rewrite of the graph with a name that
// EngineOptions::disabled_passes (and `--passes` on the command line) can switch off, as
// Theano's optimizer flags (optimizer_excluding=...) and TensorFlow's grappler options do.
// Pipeline order, each returning how many rewrites it made:
//   constant_folding    a node whose inputs are all constants is evaluated once at compile
//                       time and becomes a constant (TF's ConstantFolding, Theano's
//                       constant_folding); the batch-mean gradient 1/N is the usual case
//   cse                 nodes with the same op, attributes and inputs are merged, equal
//                       constants too (Theano's MergeOptimizer, grappler's
//                       ArithmeticOptimizer dedup)
//   dce                 nodes no fetch or target needs are removed (the input images'
//                       gradient, constants left behind by folding)
//   attention_fusion    softmax(a s q k^T) v (batched_matmul, softmax_last, batched_matmul) and
//                       its gradient nodes become fused_attention and fused_attention_grad:
//                       online softmax over blocks of keys, no [T, T] tensor (XLA's fused
//                       attention, FlashAttention); before the other fusions
//   conv_activation_fusion  conv2d -> bias_add -> relu/tanh/sigmoid (or conv2d -> the fused
//                       [bias_add, activation]) becomes one conv2d whose epilogue adds the bias
//                       and applies the activation (Conv2dParams::activation; grappler's
//                       remapper making _FusedConv2D); a bias_add alone folds too, and a
//                       folded bias_add's bias_grad becomes a second output of the conv's
//                       conv2d_grad_filter (MKL TF's Conv2DBackpropFilterWithBias); before
//                       elementwise_fusion, which then chains what is left
//   conv_pool_fusion    a convolution whose output only a max pooling reads, in the first layer
//                       (no data gradient), becomes one conv2d_max_pool node, and the pooling's
//                       gradient with the weight gradient one conv2d_max_pool_grad_filter: the
//                       backend runs each pair a few images at a time, the convolution's output
//                       and its gradient never whole in memory (Caffe's argmax mask is what lets
//                       them go); where the backend fuses the pair (Backend::
//                       fuses_conv_max_pool); after conv_activation_fusion
//   elementwise_fusion  chains of elementwise ops (bias + activation, scalar ops, the
//                       dropout mask and the activation gradient) become one fused node
//                       whose steps run in place on one buffer (Theano's elemwise fusion
//                       into a Composite; grappler's remapper for bias + activation)
//   update_fusion       a fully connected layer's weight gradient whose one reader is its
//                       update becomes one node with it: the gradient computed a band of rows
//                       at a time and each band applied at once, never whole in memory (PyTorch's
//                       optimizer in backward); the gradient is no longer fetched
//                       (update_fusion_pass.cpp)
//   blocked_layout      activations stay in the backend's channel-blocked layout (nChw16c)
//                       between the convolutions, batch norms and elementwise ops that run in
//                       it, with one conversion where an op needs NCHW (TensorFlow 1.x MKL
//                       builds' MklLayoutRewritePass and _MklToTf); only where the backend has
//                       such a layout (oneDNN in f32), blocked_layout_pass.cpp
//   inplace             an elementwise op that is the last reader of its input writes over
//                       it (Theano's inplace optimizers with the destroy handler's orderings;
//                       Caffe's in-place ReLU)
// Not rewrites: how the compiled graph gets memory (memory_mode.h says which one wins).
//   buffer_forwarding   at run time, an elementwise op writes over an input no other reader
//                       still needs (TensorFlow's forward_input_or_allocate_output); only
//                       with refcount_allocation (refcount_memory.h)
//   memory_planning     buffers are assigned by liveness in one arena before the first run
//                       (ggml's graph allocator); see memory_plan.h
//   session_buffers     every tensor keeps a buffer of its own (Theano's allow_gc=False)
//   refcount_allocation each tensor is allocated when its producer runs and freed after its
//                       last reader (TensorFlow 1.x's executor, Theano's allow_gc=True)
#pragma once

#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "graph/static/graph_ir.h"
#include "kernels/backend.h"

namespace ablate::graph::static_graph {

int constant_folding_pass(Graph& graph, kernels::Backend& backend);
int cse_pass(Graph& graph);
int dce_pass(Graph& graph);
int attention_fusion_pass(Graph& graph);
int conv_activation_fusion_pass(Graph& graph);
int conv_pool_fusion_pass(Graph& graph, const kernels::Backend& backend);

// Keys per block of the fused attention nodes: 8, so that vit-tiny's 16 tokens take two blocks
// and the running max and sum carry over a block boundary in every training step.
inline constexpr std::int64_t kAttentionBlock = 8;
int elementwise_fusion_pass(Graph& graph);
int update_fusion_pass(Graph& graph);
// Returns how many values it made channel-blocked.
int blocked_layout_pass(Graph& graph, kernels::Backend& backend);
int inplace_pass(Graph& graph);

// The pass names: the rewrites in pipeline order, then the memory passes.
const std::vector<std::string>& pass_names();
// Throws std::invalid_argument naming an unknown pass and listing the known ones. The one
// check of pass names, run by the table of strategies (static_engine.h check_static_options)
// before any static engine builds; the pipeline trusts the names it is given.
void validate_pass_names(const std::vector<std::string>& names);
bool pass_enabled(const std::vector<std::string>& disabled, const std::string& pass);
// Enabled and not superseded: of the memory passes only the one that decides the memory
// mode is in effect, buffer_forwarding only in the refcount mode (memory_mode.h). What the
// engine reports as passes_on.
bool pass_in_effect(const std::vector<std::string>& disabled, const std::string& pass);

struct PassReport {
  int nodes_before = 0, nodes_after = 0;
  std::vector<std::pair<std::string, int>> rewrites;  // per pass that ran: its count
};
// Called with a pass's name and the graph right after that pass ran.
using AfterPass = std::function<void(const std::string& pass, const Graph& graph)>;
// Runs the rewriting passes not in `disabled` (validated names), in pipeline order, telling
// `after_pass` (if set) after each.
PassReport run_passes(Graph& graph, const std::vector<std::string>& disabled, kernels::Backend& backend,
                      const AfterPass& after_pass = {});

// Shared by the passes: the canonical text of a node's op and attributes (not its inputs).
std::string attribute_signature(const Node& node);
// The operand slots an elementwise node can run in place over or chain through (fusion;
// axpby runs in place over y but is not a fusion step).
std::vector<int> chain_slots(const Node& node);
// Replaces `from` by `to` in every control list.
void replace_control(Graph& graph, int from, int to);
// The part of a node name after its last '/' ("relu1/relu" -> "relu"): what a fused node's name
// appends for each node it took in.
std::string last_segment(const std::string& name);

}  // namespace ablate::graph::static_graph
