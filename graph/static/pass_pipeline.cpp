// The pass pipeline, its names and the helpers the passes share (see passes.h).
#include <algorithm>
#include <cstdio>
#include <cstring>
#include <stdexcept>

#include "graph/static/memory_mode.h"
#include "graph/static/passes.h"

namespace ablate::graph::static_graph {

const std::vector<std::string>& pass_names() {
  static const std::vector<std::string> names = {
      "constant_folding", "cse", "dce", "attention_fusion", "conv_activation_fusion", "conv_pool_fusion", "elementwise_fusion", "update_fusion", "blocked_layout",
      "inplace",  // rewrites, in order
      "buffer_forwarding", "memory_planning", "session_buffers", "refcount_allocation"};  // memory_mode.h
  return names;
}

void validate_pass_names(const std::vector<std::string>& names) {
  for (const std::string& name : names)
    if (std::find(pass_names().begin(), pass_names().end(), name) == pass_names().end()) {
      std::string known;
      for (const std::string& p : pass_names()) known += (known.empty() ? "" : ", ") + p;
      throw std::invalid_argument("graph pass '" + name + "' in disabled_passes is not known; the passes are: " + known);
    }
}

bool pass_enabled(const std::vector<std::string>& disabled, const std::string& pass) {
  return std::find(disabled.begin(), disabled.end(), pass) == disabled.end();
}

bool pass_in_effect(const std::vector<std::string>& disabled, const std::string& pass) {
  if (!pass_enabled(disabled, pass)) return false;
  const MemorySettings memory = memory_settings(disabled);
  if (pass == "memory_planning") return memory.mode == MemoryMode::arena;
  if (pass == "session_buffers") return memory.mode == MemoryMode::session;
  if (pass == "refcount_allocation") return memory.mode == MemoryMode::refcount;
  if (pass == "buffer_forwarding") return memory.forwarding;
  return true;
}

PassReport run_passes(Graph& graph, const std::vector<std::string>& disabled, kernels::Backend& backend,
                      const AfterPass& after_pass) {
  PassReport report;
  report.nodes_before = graph.live_count();
  auto run = [&](const char* name, auto&& pass) {
    if (!pass_enabled(disabled, name)) return;
    report.rewrites.emplace_back(name, pass());
    if (after_pass) after_pass(name, graph);
  };
  run("constant_folding", [&] { return constant_folding_pass(graph, backend); });
  run("cse", [&] { return cse_pass(graph); });
  run("dce", [&] { return dce_pass(graph); });
  run("attention_fusion", [&] { return attention_fusion_pass(graph); });
  run("conv_activation_fusion", [&] { return conv_activation_fusion_pass(graph); });
  run("conv_pool_fusion", [&] { return conv_pool_fusion_pass(graph, backend); });
  run("elementwise_fusion", [&] { return elementwise_fusion_pass(graph); });
  run("update_fusion", [&] { return update_fusion_pass(graph); });
  run("blocked_layout", [&] { return blocked_layout_pass(graph, backend); });
  run("inplace", [&] { return inplace_pass(graph); });
  report.nodes_after = graph.live_count();
  return report;
}

namespace {
std::string number(double v) {
  char text[40];
  std::snprintf(text, sizeof text, "%a", v);  // exact
  return text;
}
}  // namespace

std::string attribute_signature(const Node& n) {
  const Attrs& a = n.attrs;
  std::string s = op_name(n.op);
  const auto& c = a.conv;
  s += "|conv " + std::to_string(c.stride_h) + "," + std::to_string(c.stride_w) + "," + std::to_string(c.pad_top) + "," +
       std::to_string(c.pad_left) + "," + std::to_string(c.pad_bottom) + "," + std::to_string(c.pad_right) + "," +
       (c.activation ? kernels::activation_name(*c.activation) : "none");
  const auto& p = a.pool;
  s += "|pool " + std::to_string(static_cast<int>(p.kind)) + "," + std::to_string(p.kernel_h) + "," +
       std::to_string(p.kernel_w) + "," + std::to_string(p.stride_h) + "," + std::to_string(p.stride_w) + "," +
       std::to_string(p.pad_top) + "," + std::to_string(p.pad_left) + "," + std::to_string(p.out_h) + "," +
       std::to_string(p.out_w) + "," + std::to_string(p.avg_count_padding) + "," + std::to_string(p.pad_bottom_limit) +
       "," + std::to_string(p.pad_right_limit);
  s += "|lrn " + std::to_string(a.lrn.size) + "," + number(a.lrn.alpha) + "," + number(a.lrn.beta) + "," + number(a.lrn.k);
  const auto& bn = a.batch_norm;
  s += "|bn " + std::to_string(static_cast<int>(bn.style)) + "," + number(bn.epsilon) + "," + std::to_string(bn.affine) +
       "," + number(bn.momentum) + "," + number(bn.moving_average_fraction);
  s += "|act " + std::string(kernels::activation_name(a.activation)) + (a.grad_from_input ? ",x" : "") + "|alpha " + number(a.alpha) + "|beta " +
       number(a.beta) + "|trans " + std::to_string(a.trans_a) + std::to_string(a.trans_b);
  s += "|block " + std::to_string(a.block) + "|outputs " + std::to_string(a.outputs) + "|bias " + std::to_string(a.bias);
  s += "|shape " + kernels::shape_string(a.shape) + kernels::dtype_name(a.dtype) + "|key " + a.key;
  s += "|mult " + number(a.lr_mult) + "," + number(a.decay_mult);
  if (!a.perm.empty()) {
    s += "|perm";
    for (int k : a.perm) s += " " + std::to_string(k);
  }
  if (!a.sizes.empty()) {
    s += "|sizes";
    for (std::int64_t k : a.sizes) s += " " + std::to_string(k);
  }
  for (const FusedStep& f : a.steps)
    s += "|step " + std::string(op_name(f.op)) + "," + kernels::activation_name(f.activation) + "," + number(f.alpha) +
         "," + std::to_string(f.extra);
  if (!a.value.empty()) {
    s += "|value " + a.value.describe() + ":";
    s.append(static_cast<const char*>(a.value.raw_data()), a.value.bytes());
  }
  return s;
}

std::vector<int> chain_slots(const Node& n) {
  switch (n.op) {
    case OpKind::activation:
    case OpKind::bias_add:
    case OpKind::scale:
    case OpKind::fused_elementwise: return {0};
    case OpKind::activation_grad: return {1};  // dy; input 0 is the activation's output
    case OpKind::mul:
    case OpKind::add: return {0, 1};
    case OpKind::axpby: return {1};  // y; not a fusion step
    case OpKind::add_n: return {0, 1};  // x0 + x1 is the first write; x2... are read after it. Not a fusion step
    default: return {};
  }
}

std::string last_segment(const std::string& name) {
  const auto slash = name.rfind('/');
  return slash == std::string::npos ? name : name.substr(slash + 1);
}

void replace_control(Graph& graph, int from, int to) {
  for (int id = 0; id < graph.size(); ++id)
    for (int& c : graph.node(id).control)
      if (c == from) c = to;
}

}  // namespace ablate::graph::static_graph
