// `ablate gradcheck`: central differences in f64 on sampled entries of one named parameter,
// per strategy, against the gradient each strategy's backward hands to its update
// (graph/engine_gradient_check.h): the check that the three ways of differentiating (a net's
// layer backward, a tape walked in reverse, a symbolic gradient graph) get the same numbers
// as the definition of a derivative. Prints, per strategy and entry, the analytic and the
// numeric value and their relative error; exits 1 when one exceeds --tolerance.
#include <algorithm>
#include <cstdio>
#include <stdexcept>

#include "bench/cli/commands.h"
#include "bench/run/run_flags.h"
#include "bench/experiments/step_explanation.h"
#include "bench/run/text_format.h"
#include "datasets/dataset_registry.h"
#include "graph/engine_gradient_check.h"

namespace ablate::bench::cli {
namespace {

// One strategy's run; the static graph without update_fusion, whose fold never forms a fully
// connected layer's weight gradient whole (there would be nothing to compare).
run::RunConfig gradient_config(const run::Flags& flags, const std::string& strategy) {
  run::RunConfig config = run::resolve_run_config(experiments::flags_for(flags, strategy));
  auto& off = config.switches.disabled_passes;
  if (strategy == "static" && std::find(off.begin(), off.end(), "update_fusion") == off.end()) off.push_back("update_fusion");
  return config;
}

int gradcheck_main(const run::Flags& args) {
  if (!args.has("parameter")) throw std::invalid_argument("--parameter NAME is required, e.g. conv1.weight (see ablate gradcheck --help)");
  if (args.has("precision") && args.get("precision") != "f64")
    throw std::invalid_argument("--precision " + args.get("precision") + ": the gradient check runs in f64");
  run::Flags flags = args;
  for (const char* own : {"parameter", "strategies", "samples", "tolerance", "epsilon"}) flags.erase(own);
  flags.set("precision", "f64");
  flags.set("weight-decay", "0");  // not part of the loss a step returns
  if (!flags.has("dataset")) flags.set("dataset", "synthetic");
  const auto strategies = run::split_list(args.get("strategies", "layerwise,dynamic,static"), true);
  const int samples = static_cast<int>(args.get_int("samples", 5, 1));
  const double tolerance = args.get_double("tolerance", 1e-6), eps = args.get_double("epsilon", 1e-6);
  const std::string name = args.get("parameter");

  double worst = 0;
  std::printf("%-10s %8s %16s %16s %10s\n", "strategy", "entry", "analytic", "numeric", "rel.error");
  for (const std::string& strategy : strategies) {
    const run::RunConfig config = gradient_config(flags, strategy);
    auto prepared = run::prepare_run(config, datasets::load_dataset(config.dataset, config.data_dir, config.seed));
    const auto batches = experiments::first_batches(*prepared, 1);
    const auto result = graph::check_parameter_gradient(*prepared->engine, name, batches[0].x, batches[0].labels, 0,
                                                        samples, eps);
    for (const graph::GradientSample& s : result) {
      std::printf("%-10s %8lld %16.9e %16.9e %10.2e\n", strategy.c_str(), static_cast<long long>(s.index), s.analytic,
                  s.numeric, s.relative_error);
      worst = std::max(worst, s.relative_error);
    }
  }
  std::printf("largest relative error %.2e (tolerance %.0e): %s\n", worst, tolerance, worst <= tolerance ? "ok" : "FAILED");
  return worst <= tolerance ? 0 : 1;
}

}  // namespace

Command gradcheck_command() {
  return {"gradcheck",
          "central differences in f64 against each strategy's gradient of one parameter",
          "Compares the gradient each strategy's backward gives one parameter with central differences\n"
          "of the training loss, (L(w + eps) - L(w - eps)) / 2 eps, on sampled entries, in f64 with weight\n"
          "decay off. Exits 1 when a relative error exceeds --tolerance. Data: synthetic unless --dataset.",
          {
              {"framework", "NAME", "the framework whose preset gives model and optimizer (default caffe)"},
              {"dataset", "NAME", "data set (default synthetic)"},
              *run::find_run_flag("data"),  // as `ablate run`
              {"preset", "NAME|FILE", "training recipe (default: FRAMEWORK-FAMILY)"},
              {"model", "NAME|FILE", "model file or zoo name (default: the preset's)"},
              {"strategies", "LIST", "strategies to check (default layerwise,dynamic,static)"},
              {"parameter", "NAME", "the parameter, e.g. conv1.weight (required)"},
              {"samples", "N", "entries to check, spread over the parameter (default 5)"},
              {"epsilon", "X", "the step of the differences (default 1e-6)"},
              {"tolerance", "X", "largest relative error accepted (default 1e-6)"},
              {"batch", "N", "batch size (default: the preset's)"},
              {"backend", "NAME", "math backend on the host (default: the preset's)"},
              {"precision", "f64", "only f64"},
              {"seed", "N", "initial weights and data (default 1)"},
          },
          gradcheck_main};
}

}  // namespace ablate::bench::cli
