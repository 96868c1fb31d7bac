// Subgraph patterns applied before the graph walk (see fusion.h).
#include "models/onnx/patterns/fusion.h"

#include <algorithm>
#include <cmath>
#include <set>
#include <stdexcept>

namespace ablate::models::onnx_import::patterns {

std::string common_name(const std::vector<const onnx::NodeProto*>& nodes, const std::string& fallback) {
  if (nodes.empty()) return fallback;
  std::string prefix = nodes[0]->name();
  for (const auto* n : nodes) {
    std::size_t k = 0;
    while (k < prefix.size() && k < n->name().size() && prefix[k] == n->name()[k]) ++k;
    prefix.resize(k);
  }
  const std::size_t slash = prefix.find_last_of('/');
  prefix = slash == std::string::npos ? "" : prefix.substr(0, slash);
  return prefix.empty() ? fallback : prefix;
}

bool close_to(double a, double b, double relative) { return std::fabs(a - b) <= relative * std::fabs(b); }

FusedGraph fuse_patterns(const onnx::GraphProto& graph, const std::string& source) {
  FusedGraph fused;
  fused.nodes.assign(graph.node().begin(), graph.node().end());
  fused.from_pattern.assign(fused.nodes.size(), false);
  for (const Pattern& pattern : std::vector<Pattern>{find_gelu_erf, find_layer_norm, find_attention}) {
    std::vector<PatternMatch> matches;
    {
      const GraphIndex index(graph, fused.nodes, source);
      matches = pattern(index, source);
    }
    if (matches.empty()) continue;
    std::map<int, std::size_t> placed_at;  // the last replaced node -> its match
    std::set<int> dropped;
    for (std::size_t m = 0; m < matches.size(); ++m) {
      const auto& r = matches[m].replaced;
      const int last = *std::max_element(r.begin(), r.end());
      for (int i : r) {
        if (dropped.count(i) || placed_at.count(i))
          throw std::logic_error("ONNX import: two pattern matches share node " + std::to_string(i));
        if (i == last)
          placed_at[i] = m;
        else
          dropped.insert(i);
      }
      for (auto& [name, values] : matches[m].constants) fused.constants[name] = std::move(values);
    }
    FusedGraph next;
    next.constants = std::move(fused.constants);
    for (int i = 0; i < static_cast<int>(fused.nodes.size()); ++i) {
      if (dropped.count(i)) continue;
      auto at = placed_at.find(i);
      next.nodes.push_back(at == placed_at.end() ? fused.nodes[static_cast<std::size_t>(i)] : matches[at->second].node);
      next.from_pattern.push_back(at != placed_at.end() || fused.from_pattern[static_cast<std::size_t>(i)]);
    }
    fused = std::move(next);
  }
  return fused;
}

}  // namespace ablate::models::onnx_import::patterns
