// Layered SVG drawing of ablate's own dot text (see dot_svg.h).
#include "bench/experiments/dot_svg.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <regex>
#include <sstream>
#include <vector>

#include "graph/static/memory_plan_svg.h"

namespace ablate::bench::experiments {
namespace {

struct DrawnNode {
  std::vector<std::string> lines;
  std::string fill = "white";
  int rank = 0;
  double x = 0, y = 0, w = 0, h = 0;
};

struct DrawnEdge {
  std::string from, to;
  bool dashed = false;
  bool ranks = true;  // false for constraint=false (Graphviz: not used for ranking), a back edge
};

std::string attribute(const std::string& attrs, const std::string& key) {
  const std::regex quoted(key + "=\"((?:[^\"\\\\]|\\\\.)*)\""), bare(key + "=([#A-Za-z0-9]+)");
  std::smatch m;
  if (std::regex_search(attrs, m, quoted)) return m[1];
  if (std::regex_search(attrs, m, bare)) return m[1];
  return "";
}

}  // namespace

std::string dot_to_svg(const std::string& dot) {
  std::map<std::string, DrawnNode> nodes;
  std::vector<std::string> order;
  std::vector<DrawnEdge> edges;
  const std::regex node_line(R"(^\s*(\w+) \[(.*)\];\s*$)"), edge_line(R"(^\s*(\w+) -> (\w+)(.*)$)");
  std::istringstream in(dot);
  std::string line;
  std::smatch m;
  while (std::getline(in, line)) {
    if (std::regex_match(line, m, edge_line)) {
      const std::string attrs = m[3];
      edges.push_back({m[1], m[2], attrs.find("dashed") != std::string::npos, attrs.find("constraint=false") == std::string::npos});
    } else if (std::regex_match(line, m, node_line) && m[1] != "node" && m[1] != "edge" && m[1] != "graph") {
      DrawnNode n;
      std::string label = attribute(m[2], "label");
      for (std::size_t at; (at = label.find("\\n")) != std::string::npos;) {
        n.lines.push_back(label.substr(0, at));
        label.erase(0, at + 2);
      }
      n.lines.push_back(label);
      if (const std::string fill = attribute(m[2], "fillcolor"); !fill.empty()) n.fill = fill;
      if (!nodes.count(m[1])) order.push_back(m[1]);
      nodes[m[1]] = n;
    }
  }
  // Longest path from the sources, relaxed once per node (the files list few hundred nodes).
  for (std::size_t pass = 0; pass < order.size(); ++pass) {
    bool changed = false;
    for (const DrawnEdge& e : edges)
      if (e.ranks && nodes.count(e.from) && nodes.count(e.to) && nodes[e.to].rank < nodes[e.from].rank + 1 &&
          nodes[e.from].rank + 1 < static_cast<int>(order.size())) {
        nodes[e.to].rank = nodes[e.from].rank + 1;
        changed = true;
      }
    if (!changed) break;
  }
  constexpr double kChar = 6.2, kLine = 13, kGapX = 14, kGapY = 34, kMargin = 10;
  std::map<int, double> row_width, row_height;
  for (const std::string& id : order) {
    DrawnNode& n = nodes[id];
    std::size_t longest = 1;
    for (const std::string& l : n.lines) longest = std::max(longest, l.size());
    n.w = static_cast<double>(longest) * kChar + 12;
    n.h = static_cast<double>(n.lines.size()) * kLine + 8;
    n.x = kMargin + row_width[n.rank];
    row_width[n.rank] += n.w + kGapX;
    row_height[n.rank] = std::max(row_height[n.rank], n.h);
  }
  std::map<int, double> row_top;
  double top = kMargin, width = 0;
  for (const auto& [rank, h] : row_height) {
    row_top[rank] = top;
    top += h + kGapY;
    width = std::max(width, row_width[rank]);
  }
  for (const std::string& id : order) nodes[id].y = row_top[nodes[id].rank];

  char buf[256];
  std::snprintf(buf, sizeof buf,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" font-family=\"sans-serif\" "
                "font-size=\"10\">\n",
                width + 2 * kMargin, top + kMargin);
  std::string svg = buf;
  for (const DrawnEdge& e : edges) {
    if (!nodes.count(e.from) || !nodes.count(e.to)) continue;
    const DrawnNode &a = nodes[e.from], &b = nodes[e.to];
    std::snprintf(buf, sizeof buf, "<line x1=\"%.1f\" y1=\"%.1f\" x2=\"%.1f\" y2=\"%.1f\" stroke=\"#888\"%s/>\n",
                  a.x + a.w / 2, a.y + a.h, b.x + b.w / 2, b.y, e.dashed ? " stroke-dasharray=\"4,3\"" : "");
    svg += buf;
  }
  for (const std::string& id : order) {
    const DrawnNode& n = nodes[id];
    std::snprintf(buf, sizeof buf, "<g><rect x=\"%.1f\" y=\"%.1f\" width=\"%.1f\" height=\"%.1f\" rx=\"3\" stroke=\"#555\" fill=\"",
                  n.x, n.y, n.w, n.h);
    svg += buf + graph::static_graph::markup_escaped(n.fill) + "\"/>";
    for (std::size_t i = 0; i < n.lines.size(); ++i) {
      std::snprintf(buf, sizeof buf, "<text x=\"%.1f\" y=\"%.1f\">", n.x + 6, n.y + 4 + kLine * static_cast<double>(i + 1) - 3);
      svg += buf + graph::static_graph::markup_escaped(n.lines[i]) + "</text>";
    }
    svg += "</g>\n";
  }
  return svg + "</svg>\n";
}

}  // namespace ablate::bench::experiments
