// `ablate explain`: one training step of a model under each chosen strategy (layer-wise as
// Caffe, dynamic tape as Torch, static graph as TensorFlow 1.x and Theano), the same
// initial weights and batch on the same backend, recorded op by op and written to --out DIR:
//   step.txt, step.json   the strategies side by side (bench/experiments/step_table.h)
//   trace.json            a Chrome/Perfetto trace, a process per strategy (step_trace.h)
//   memory_plan.svg       the static graph's memory plan (graph/static/memory_plan_svg.h)
//   net.dot, tape.dot     the layer-wise net and the recorded tape
//   graph.before.dot, graph.after.dot, passes/NN-PASS.dot   the static graph as built,
//                         compiled, and after each pass that ran (the last is the compiled one)
//   index.html            one self-contained page tying them together
#include <cstdio>
#include <stdexcept>

#include "bench/cli/commands.h"
#include "bench/run/run_flags.h"
#include "bench/experiments/explain_page.h"
#include "bench/experiments/step_table.h"
#include "bench/experiments/step_trace.h"
#include "bench/run/text_file.h"
#include "bench/run/text_format.h"

namespace ablate::bench::cli {
namespace {

int explain_main(const run::Flags& args) {
  if (!args.has("out") || args.get("out").empty()) throw std::invalid_argument("--out DIR is required (see ablate explain --help)");
  const std::string dir = args.get("out");
  run::Flags flags = args;
  flags.erase("out");
  flags.erase("strategies");
  flags.erase("warmup");
  const auto strategies = run::split_list(args.get("strategies", "layerwise,dynamic,static"), true);
  const int warmup = static_cast<int>(args.get_int("warmup", 1, 0));
  const experiments::Explanation e = experiments::explain_step(flags, strategies, warmup);
  const auto rows = experiments::match_rows(e);
  const std::string text = experiments::step_text(e, rows);

  std::vector<std::pair<std::string, std::string>> dots;
  if (!e.net_dot.empty()) dots.emplace_back("net.dot", e.net_dot);
  if (!e.tape_dot.empty()) dots.emplace_back("tape.dot", e.tape_dot);
  if (e.has_graph) {
    dots.emplace_back("graph.before.dot", e.graph.before_dot);
    for (std::size_t i = 0; i < e.graph.pass_dots.size(); ++i) {
      char name[96];
      std::snprintf(name, sizeof name, "passes/%02zu-%s.dot", i + 1, e.graph.pass_dots[i].first.c_str());
      dots.emplace_back(name, e.graph.pass_dots[i].second);
    }
    dots.emplace_back("graph.after.dot", e.graph.after_dot);
  }
  auto write = [&](const std::string& name, const std::string& content) {
    run::write_text_file(dir + "/" + name, content, "--out");
  };
  write("step.txt", text);
  write("step.json", experiments::step_json(e, rows));
  write("trace.json", experiments::step_trace_json(e));
  if (e.has_graph) write("memory_plan.svg", e.graph.memory_svg);
  for (const auto& [name, dot] : dots) write(name, dot);
  write("index.html", experiments::explain_page(e, text, dots));

  std::fputs(text.c_str(), stdout);
  std::printf("wrote %s/index.html, step.txt, step.json, trace.json and %zu dot files\n", dir.c_str(), dots.size());
  return 0;
}

}  // namespace

Command explain_command() {
  return {"explain",
          "one training step under each strategy, op by op, side by side (teaching)",
          "Trains one step of a model under each chosen strategy on the same weights, batch and backend,\n"
          "records every Backend op with its layer, phase, shapes, bytes, time and a checksum, and writes\n"
          "step.txt, step.json, trace.json, memory_plan.svg, net.dot, tape.dot, the static graph after each\n"
          "pass (passes/) and index.html to DIR. Data: synthetic unless --dataset is given.",
          {
              {"framework", "NAME", "the framework whose preset gives model, optimizer and backend (default caffe)"},
              {"dataset", "NAME", "data set (default synthetic)"},
              *run::find_run_flag("data"),  // as `ablate run`
              {"preset", "NAME|FILE", "training recipe (default: FRAMEWORK-FAMILY)"},
              {"model", "NAME|FILE", "model file or zoo name (default: the preset's)"},
              {"strategies", "LIST", "strategies to explain, in order (default layerwise,dynamic,static)"},
              {"batch", "N", "batch size (default: the preset's)"},
              {"backend", "NAME", "math backend (default: the preset's)"},
              {"threads", "N", "intra-op threads (default: the preset's)"},
              {"precision", "f32|f64", "floating-point type (default: the preset's)"},
              {"passes", "SPEC", "static strategy's passes: all, all,-elementwise_fusion, ..."},
              {"executor", "NAME", "static strategy: sequential (default here: ops in order) or parallel"},
              {"inter-op-threads", "N", "static strategy: the parallel executor's threads"},
              {"caching-allocator", "on|off", "dynamic strategy: reuse freed blocks by size, as PyTorch"},
              {"seed", "N", "initial weights and data (default 1)"},
              {"warmup", "N", "unrecorded steps before the explained one (default 1)"},
              {"out", "DIR", "where to write the files (required)"},
          },
          explain_main};
}

}  // namespace ablate::bench::cli
