// The memory plan as an SVG (see memory_plan_svg.h).
#include "graph/static/memory_plan_svg.h"

#include <algorithm>
#include <cstdio>

namespace ablate::graph::static_graph {
std::string markup_escaped(const std::string& s) {
  std::string out;
  for (char c : s) {
    if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '&') out += "&amp;";
    else if (c == '"') out += "&quot;";
    else out += c;
  }
  return out;
}

std::string memory_plan_svg(const Graph& graph, const std::vector<int>& order, const MemoryPlan& plan,
                            const std::string& title) {
  constexpr double kLeft = 70, kTop = 40, kWidth = 800, kHeight = 400;
  const double positions = std::max<double>(1, static_cast<double>(order.size()));
  std::int64_t arena = 1;
  for (const BufferGroup& g : plan.groups) arena = std::max(arena, g.offset + g.bytes);
  const double sx = kWidth / positions, sy = kHeight / static_cast<double>(arena);
  char buf[512];
  std::string svg;
  std::snprintf(buf, sizeof buf,
                "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"%.0f\" height=\"%.0f\" font-family=\"sans-serif\" "
                "font-size=\"12\">\n",
                kLeft + kWidth + 20, kTop + kHeight + 50);
  svg += buf;
  svg += "<text x=\"" + std::to_string(static_cast<int>(kLeft)) + "\" y=\"20\">" + markup_escaped(title) + "</text>\n";
  std::snprintf(buf, sizeof buf,
                "<rect x=\"%.0f\" y=\"%.0f\" width=\"%.0f\" height=\"%.0f\" fill=\"none\" stroke=\"#999\"/>\n"
                "<text x=\"%.0f\" y=\"%.0f\">schedule position 0 .. %zu</text>\n"
                "<text x=\"5\" y=\"%.0f\">offset 0</text><text x=\"5\" y=\"%.0f\">%.2f MiB</text>\n",
                kLeft, kTop, kWidth, kHeight, kLeft, kTop + kHeight + 30, order.size(), kTop + 12, kTop + kHeight,
                static_cast<double>(arena) / (1 << 20));
  svg += buf;
  for (std::size_t i = 0; i < plan.groups.size(); ++i) {
    const BufferGroup& g = plan.groups[i];
    std::string members;
    for (const Value& v : g.members) members += (members.empty() ? "" : ", ") + graph.describe(v);
    const int hue = static_cast<int>((i * 47) % 360);
    std::snprintf(buf, sizeof buf,
                  "<rect x=\"%.3f\" y=\"%.3f\" width=\"%.3f\" height=\"%.3f\" fill=\"hsl(%d,60%%,70%%)\" "
                  "stroke=\"#333\" stroke-width=\"0.5\" data-first=\"%d\" data-last=\"%d\" data-offset=\"%lld\" "
                  "data-bytes=\"%lld\">",
                  kLeft + g.first * sx, kTop + static_cast<double>(g.offset) * sy, (g.last - g.first + 1) * sx,
                  std::max(0.5, static_cast<double>(g.bytes) * sy), hue, g.first, g.last,
                  static_cast<long long>(g.offset), static_cast<long long>(g.bytes));
    svg += buf;
    svg += "<title>" + markup_escaped(members) + ": " + std::to_string(g.bytes) + " bytes at offset " +
           std::to_string(g.offset) + ", live " + std::to_string(g.first) + ".." + std::to_string(g.last) +
           "</title></rect>\n";
  }
  svg += "</svg>\n";
  return svg;
}

}  // namespace ablate::graph::static_graph
