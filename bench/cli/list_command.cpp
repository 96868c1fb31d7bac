// `ablate list`: what this build knows — backends with their library versions, strategies,
// zoo models, presets and data sets.
#include <cstdio>

#include "bench/cli/commands.h"
#include "bench/run/flags.h"
#include "datasets/dataset_registry.h"
#include "graph/engine.h"
#include "kernels/registry.h"
#include "models/embedded_files.h"

namespace ablate::bench::cli {

namespace {

int list_main(const run::Flags&) {
  std::printf("backends:\n");
  for (const auto& name : kernels::backend_names()) {
    try {
      auto b = kernels::make_backend(name, 1);
      std::printf("  %-10s %s\n", name.c_str(), b->library_version().c_str());
    } catch (const std::exception& e) {
      std::printf("  %-10s unavailable: %s\n", name.c_str(), e.what());
    }
  }
  std::printf("strategies:\n");
  for (const auto& s : graph::strategy_names()) std::printf("  %-10s \n", s.c_str());
  std::printf("models and presets (embedded):\n");
  for (const auto& f : models::embedded_file_names()) std::printf("  %s\n", f.c_str());
  std::printf("data sets:\n");
  for (const auto& d : datasets::dataset_names()) {
    std::string dir = datasets::default_data_dir(d);
    const char* where = d == "synthetic" ? "(generated from --seed)" : "(--data DIR)";
    std::printf("  %-14s %s\n", d.c_str(), dir.empty() ? where : dir.c_str());
  }
  return 0;
}

}  // namespace

Command list_command() {
  return {"list", "the backends, strategies, models, presets and data sets this build knows",
          "Lists the backends, strategies, models, presets and data sets of this build.", {}, list_main};
}

}  // namespace ablate::bench::cli
