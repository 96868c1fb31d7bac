// Training and evaluation graphs (see training_graph.h).
#include "graph/static/training_graph.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "graph/static/autodiff.h"

namespace ablate::graph::static_graph {

std::vector<std::string> slot_names(const std::string& optimizer, const std::string& param) {
  if (optimizer == "caffe_sgd") return {param + "/history"};
  if (optimizer == "adam" || optimizer == "adamw") return {param + "/m", param + "/v"};
  return {param + "/velocity"};  // torch_sgd, gd
}

namespace {

// The gradients averaged over the ranks: one allreduce_mean node per bucket. The nodes are
// chained by control edges from the last bucket to the first, the order in which the backward
// pass completes their gradients (the last layers' first), so under the inter-op pool an
// all-reduce can run while the earlier layers' gradients are still being computed.
std::vector<Value> add_allreduce(Graph& g, const std::vector<Value>& grads, const ParameterRanges& buckets) {
  std::vector<Value> averaged(grads);
  int later = -1;  // the node of the bucket after this one
  for (std::size_t b = buckets.size(); b-- > 0;) {
    const auto [first, last] = buckets[b];
    if (first >= last || last > grads.size() || (b > 0 && first != buckets[b - 1].second) || (b == 0 && first != 0) ||
        (b + 1 == buckets.size() && last != grads.size()))
      throw std::logic_error("static graph: all-reduce bucket " + std::to_string(b) + " [" + std::to_string(first) + ", " +
                             std::to_string(last) + ") does not tile the " + std::to_string(grads.size()) + " gradients");
    const int node = g.add(OpKind::allreduce_mean, "allreduce/bucket" + std::to_string(b),
                           {grads.begin() + static_cast<std::ptrdiff_t>(first), grads.begin() + static_cast<std::ptrdiff_t>(last)});
    if (later >= 0) g.node(node).control.push_back(later);
    for (std::size_t i = first; i < last; ++i) averaged[i] = g.out(node, static_cast<int>(i - first));
    later = node;
  }
  return averaged;
}

}  // namespace

TrainingGraph build_training_graph(const models::CheckedModel& model, std::int64_t batch, const EngineOptions& options,
                                   const ParameterRanges& allreduce_buckets) {
  validate(options.optimizer);
  ModelGraph m = build_model_graph(model, batch, options.dtype, Phase::train);
  Graph& g = m.graph;
  g.optimizer = options.optimizer;
  std::vector<Value> wrt;
  for (const GraphParameter& p : m.parameters) wrt.push_back(p.value);
  const std::vector<Value> grads = add_allreduce(g, add_gradients(g, m.loss, wrt), allreduce_buckets);

  g.fetches.push_back(m.loss);
  for (const Value& grad : grads) g.fetches.push_back(grad);
  const int check = g.add(OpKind::check_numerics, "check_loss", {m.loss});
  // It runs as soon as the loss is known (as TF's executor runs a node once its inputs are
  // ready), before the gradients: an update folded into the backward pass (update_fusion)
  // waits for it as the apply nodes do.
  double after_loss = g.node(check).order;
  for (int id : g.execution_order())
    if (g.node(id).order > g.node(m.loss.node).order) after_loss = std::min(after_loss, g.node(id).order);
  g.node(check).order = (g.node(m.loss.node).order + after_loss) / 2;
  g.targets.push_back(check);
  g.targets.insert(g.targets.end(), m.state_updates.begin(), m.state_updates.end());  // running statistics

  const std::string& type = options.optimizer.type;
  const OpKind apply = type == "caffe_sgd" ? OpKind::apply_caffe_sgd
                       : type == "adam" || type == "adamw" ? OpKind::apply_adam
                                           : OpKind::apply_torch_sgd;
  for (std::size_t i = 0; i < m.parameters.size(); ++i) {
    const GraphParameter& p = m.parameters[i];
    std::vector<Value> inputs{p.value, grads[i]};
    for (const std::string& slot : slot_names(type, p.name)) {
      Attrs s;
      s.shape = g.type(p.value).shape;
      s.dtype = g.dtype();
      s.key = slot;
      inputs.push_back(g.out(g.add(OpKind::variable, slot, {}, s)));
    }
    Attrs a;
    a.lr_mult = p.lr_mult;
    a.decay_mult = p.decay_mult;
    const int update = g.add(apply, "update/" + p.name, inputs, a);
    g.node(update).control.push_back(check);  // no update after a NaN loss, as Caffe's solver
    g.targets.push_back(update);
  }
  return {std::move(g), std::move(m.parameters)};
}

Graph build_evaluation_graph(const models::CheckedModel& model, std::int64_t batch, kernels::DType dtype) {
  ModelGraph m = build_model_graph(model, batch, dtype, Phase::test);
  Graph& g = m.graph;
  const Value predictions = g.out(g.add(OpKind::argmax, "predictions", {m.scores}));
  g.fetches = {m.loss, predictions};
  return std::move(g);
}

}  // namespace ablate::graph::static_graph
