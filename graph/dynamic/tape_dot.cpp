// The recorded tape as Graphviz dot (see tape_dot.h).
#include "graph/dynamic/tape_dot.h"

#include <map>
#include <vector>

#include "graph/dynamic/node.h"
#include "graph/dynamic/sequential.h"

namespace ablate::graph::dynamic {

std::string tape_dot(const Variable& loss, const std::string& title) {
  std::string dot = "digraph tape {\n  rankdir=BT;\n  label=\"" + title + "\";\n  node [fontname=\"sans-serif\"];\n";
  if (loss.is_leaf()) return dot + "}\n";
  std::map<const Node*, std::string> ids;
  std::map<const VariableImpl*, std::string> leaves;
  std::vector<Node*> stack{loss.node().get()};
  ids[stack.back()] = "n0";
  while (!stack.empty()) {
    Node* n = stack.back();
    stack.pop_back();
    const std::string id = ids[n];
    std::string saved;
    std::int64_t saved_bytes = 0;
    for (const kernels::Tensor* t : n->saved())
      if (!t->empty()) {
        saved += "\\nsaved " + t->describe();
        saved_bytes += static_cast<std::int64_t>(t->bytes());
      }
    dot += "  " + id + " [shape=box, style=filled, fillcolor=\"#fde2c8\", label=\"#" + std::to_string(n->sequence) +
           " " + n->name() + " (" + std::string(n->layer) + ")" + saved + "\\n" + std::to_string(saved_bytes) +
           " bytes saved\"];\n";
    for (const Edge& e : n->edges) {
      if (e.node) {
        auto [it, fresh] = ids.try_emplace(e.node.get(), "n" + std::to_string(ids.size()));
        if (fresh) stack.push_back(e.node.get());
        dot += "  " + id + " -> " + it->second + ";\n";
      } else if (e.leaf) {
        auto [it, fresh] = leaves.try_emplace(e.leaf.get(), "p" + std::to_string(leaves.size()));
        if (fresh)
          dot += "  " + it->second + " [shape=ellipse, label=\"leaf " + e.leaf->value.describe() + "\"];\n";
        dot += "  " + id + " -> " + it->second + " [style=dashed];\n";
      }
    }
  }
  return dot + "}\n";
}

std::string recorded_tape_dot(const models::CheckedModel& model, kernels::Backend& backend,
                              const EngineOptions& options, const kernels::Tensor& x, const kernels::Tensor& labels) {
  Context context(backend, backend.allocator(), backend.allocator());
  Sequential net(model, context, options.dtype, options.seed);
  ForwardContext fc;
  fc.seed = options.seed;
  fc.labels = context.to_device(labels, kernels::DType::i32);
  const Sequential::Output out = net.forward(Variable(context, context.to_device(x, options.dtype)), fc);
  return tape_dot(out.loss, model.name() + ", batch " + std::to_string(x.dim(0)) + ": the tape of one forward");
}

}  // namespace ablate::graph::dynamic
