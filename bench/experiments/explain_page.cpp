// The explain page (see explain_page.h).
#include "bench/experiments/explain_page.h"

#include "bench/experiments/dot_svg.h"
#include "bench/experiments/html_page.h"
#include "graph/static/memory_plan_svg.h"

namespace ablate::bench::experiments {
using graph::static_graph::markup_escaped;

std::string explain_page(const Explanation& e, const std::string& step_text,
                         const std::vector<std::pair<std::string, std::string>>& files) {
  std::string strategies;
  for (const StrategyStep& s : e.steps) strategies += (strategies.empty() ? "" : ", ") + s.strategy;
  std::string html = "<h1>One training step of " + markup_escaped(e.model) + " under " + markup_escaped(strategies) + "</h1>\n";
  html += "<p>Same model, same initial weights, same batch, same kernels (" + markup_escaped(e.config.backend.name) +
          " backend, " + kernels::dtype_name(e.config.precision) +
          "). Files beside this page: <code>step.txt</code>, <code>step.json</code>, <code>trace.json</code> (open in "
          "ui.perfetto.dev), <code>memory_plan.svg</code> and the dot files below.</p>\n";
  html += "<h2 id=\"step\">The step, op by op</h2>\n<pre>" + markup_escaped(step_text) + "</pre>\n";
  if (e.has_graph) {
    html += "<h2 id=\"memory\">The static graph's memory plan</h2>\n<p>Schedule position to the right, arena offset "
            "downwards: tensors whose lives do not meet share bytes.</p>\n";
    html += e.graph.memory_svg;
  }
  html += "<h2 id=\"graphs\">Graphs</h2>\n";
  for (const auto& [name, dot] : files) {
    const bool drawn = name == "net.dot" || name == "tape.dot" || name == "graph.after.dot";
    if (drawn) html += "<h3>" + markup_escaped(name) + "</h3>\n<div style=\"overflow-x:auto\">" + dot_to_svg(dot) + "</div>\n";
    html += "<details><summary><code>" + markup_escaped(name) + "</code> as dot text</summary><pre>" + markup_escaped(dot) +
            "</pre></details>\n";
  }
  return html_page("ablate explain: " + e.model, html);
}

}  // namespace ablate::bench::experiments
