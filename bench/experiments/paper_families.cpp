// The experiment families as sweeps (see paper_families.h). Values relative to a framework's
// default (batch B/4, B, 4B; learning rate L/10, L, 10L; length X/2, X, 2X) are computed from
// its preset as resolve_run_config reads it.
#include "bench/experiments/paper_families.h"

#include <algorithm>
#include <cstdio>
#include <stdexcept>
#include <thread>

#include "bench/run/run_config.h"
#include "bench/run/text_format.h"
#include "kernels/registry.h"
#include "models/preset.h"
#include "datasets/dataset_registry.h"

namespace ablate::bench::experiments {

namespace {

std::vector<std::string> distinct(const std::vector<std::string>& values) {
  std::vector<std::string> out;
  for (const auto& v : values)
    if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  return out;
}

struct Planner {
  const PaperOptions& o;
  std::string family;

  std::map<std::string, std::string> base(const std::string& framework, bool with_scale = true) const {
    std::map<std::string, std::string> b{{"dataset", o.dataset}};
    if (!framework.empty()) b["framework"] = framework;
    if (!o.data_dir.empty()) b["data"] = o.data_dir;
    if (with_scale) b["scale"] = run::number(o.scale);
    if (!o.threads.empty()) b["threads"] = o.threads;
    if (!o.test_iterations.empty()) b["test-iterations"] = o.test_iterations;
    return b;
  }
  run::RunConfig defaults_of(const std::string& framework) const {
    run::Flags a;
    for (const auto& [k, v] : base(framework, false)) a.set(k, v);
    return run::resolve_run_config(a);
  }
  SweepFactor factor(const std::string& key, std::vector<std::string> values) const {
    values = distinct(values);
    if (o.limit > 0 && static_cast<int>(values.size()) > o.limit) values.resize(static_cast<std::size_t>(o.limit));
    return {key, values};
  }
  SweepSpec spec(const std::string& framework, std::map<std::string, std::string> b, std::vector<SweepFactor> f) const {
    SweepSpec s;
    s.label = "paper " + family + (framework.empty() ? "" : " " + framework);
    s.base = std::move(b);
    s.factors = std::move(f);
    s.repeats = o.repeats;
    s.max_iterations = o.max_iterations;
    return s;
  }
  // One sweep per framework, its factors computed from the framework's defaults.
  template <class F>
  std::vector<SweepSpec> per_framework(F factors_of, bool with_scale = true) const {
    std::vector<SweepSpec> out;
    for (const auto& fw : o.frameworks) {
      auto b = base(fw, with_scale);
      auto f = factors_of(defaults_of(fw));
      for (const auto& x : f) b.erase(x.key);
      out.push_back(spec(fw, b, f));
    }
    return out;
  }
};

}  // namespace

const std::vector<PaperFamily>& paper_families() {
  static const std::vector<PaperFamily> families = {
      {"defaults", "each framework's default recipe (the study's main table)"},
      {"cross_transfer", "each framework's hyper-parameters (preset of A) on each framework's model (model of B, fed by B's transforms)"},
      {"batch_sweep", "batch size one at a time: B/4, B, 4B around each framework's default B"},
      {"lr_sweep", "learning rate one at a time: L/10, L, 10L around each framework's default L"},
      {"length_sweep", "training length one at a time: X/2, X, 2X of the scaled default length"},
      {"tuned", "several together: batch B, 2B x learning rate L, 2L"},
      {"libraries_threads", "math library (every CPU backend built but the reference loops) x threads 1 and all cores"},
      {"resources", "resource use (CPU, RSS over time) against batch size 16, 64, 256"},
      {"strategies", "the same framework under each strategy: layerwise, dynamic, static (the study could not run this)"},
      {"framework_math", "each framework's own convolution lowering and threading (its preset's) beside ablate's fastest "
                         "(omp_per_image: OpenMP over the images, the library on one thread), on its preset's backend"},
  };
  return families;
}

std::vector<SweepSpec> plan_family(const std::string& name, const PaperOptions& options) {
  PaperOptions o = options;
  if (o.frameworks.empty()) o.frameworks = {"caffe", "torch", "tensorflow", "theano"};
  if (!(o.scale > 0)) throw std::invalid_argument("--scale " + run::number(o.scale) + ": expected a positive factor");
  Planner p{o, name};
  const std::string family = datasets::dataset_family(o.dataset, o.data_dir);
  if (name == "defaults") return {p.spec("", p.base(""), {{"framework", o.frameworks}})};
  if (name == "cross_transfer") {
    // One sweep per model of B, fed by B's input transforms (the geometry the model expects:
    // Torch pads 28 to 32), over the presets of every A.
    std::vector<std::string> presets;
    for (const auto& fw : o.frameworks) presets.push_back(models::preset_name(fw, family));
    std::vector<SweepSpec> out;
    for (const auto& fw : o.frameworks) {
      run::RunConfig b = p.defaults_of(fw);
      auto base = p.base("");
      base["model"] = b.model;
      base["transform"] = b.transform;
      if (!b.test_transform.empty()) base["test-transform"] = b.test_transform;
      SweepSpec s = p.spec("model of " + fw, base, {{"preset", presets}});
      out.push_back(std::move(s));
    }
    return out;
  }
  if (name == "batch_sweep")
    return p.per_framework([&](const run::RunConfig& c) {
      return std::vector<SweepFactor>{p.factor("batch", {std::to_string(std::max<std::int64_t>(1, c.batch / 4)),
                                                         std::to_string(c.batch), std::to_string(c.batch * 4)})};
    });
  if (name == "lr_sweep")
    return p.per_framework([&](const run::RunConfig& c) {
      double l = c.optimizer.lr.base_lr;
      return std::vector<SweepFactor>{p.factor("lr", {run::number(l / 10), run::number(l), run::number(l * 10)})};
    });
  if (name == "length_sweep")
    return p.per_framework(
        [&](const run::RunConfig&) {
          return std::vector<SweepFactor>{
              p.factor("scale", {run::number(o.scale / 2), run::number(o.scale), run::number(o.scale * 2)})};
        },
        false);
  if (name == "tuned")
    return p.per_framework([&](const run::RunConfig& c) {
      double l = c.optimizer.lr.base_lr;
      return std::vector<SweepFactor>{p.factor("batch", {std::to_string(c.batch), std::to_string(c.batch * 2)}),
                                      p.factor("lr", {run::number(l), run::number(l * 2)})};
    });
  if (name == "libraries_threads") {
    const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
    return p.per_framework([&](const run::RunConfig&) {
      return std::vector<SweepFactor>{p.factor("backend", kernels::cpu_speed_backend_names()),
                                      p.factor("threads", {"1", std::to_string(cores)})};
    });
  }
  if (name == "resources")
    return p.per_framework([&](const run::RunConfig&) { return std::vector<SweepFactor>{p.factor("batch", {"16", "64", "256"})}; });
  if (name == "framework_math")
    // conv_lowering given as a flag keeps the preset's threading where it fits (eigen_spatial on
    // intra_inter, per_image_gemm on library or openmp_frames); omp_per_image drops it, recorded
    // in the run's unused options.
    return p.per_framework([&](const run::RunConfig& c) {
      const auto& own = c.backend.options.conv_lowering;
      const std::string lowering = own ? kernels::cpu::conv_lowering_name(*own)
                                       : kernels::cpu::conv_lowering_name(kernels::conv_lowerings_of(c.backend.name).front());
      return std::vector<SweepFactor>{p.factor("conv-lowering", {lowering, "omp_per_image"})};
    });
  if (name == "strategies")
    return p.per_framework(
        [&](const run::RunConfig&) { return std::vector<SweepFactor>{p.factor("strategy", {"layerwise", "dynamic", "static"})}; });
  std::string known;
  for (const auto& f : paper_families()) known += (known.empty() ? "" : ", ") + f.name;
  throw std::invalid_argument("ablate paper " + name + ": not an experiment family; the families are: " + known);
}

}  // namespace ablate::bench::experiments
