// The static strategy's attention_fusion pass on and off: one training step of a Vision
// Transformer (Adam, f32, the openblas backend at 2 threads, random data) at 16 tokens (zoo
// vit-tiny, 28x28 in patches of 7, batch 128) and at 256 tokens (docs/models/vit-tiny-256.model,
// 64x64 in patches of 4, batch 32). With the pass off each attention keeps its [N*H, T, T]
// scores and probabilities for the backward and makes two more in it; with it on, the fused
// op keeps o and the per-row log-sum-exp [N*H, T] and recomputes the scores block by block.
// Each benchmark builds a fresh engine, runs one untimed step, then times steps. Counters:
// images/s (items_per_second), peak_tensor_MiB (everything the engine holds, the planned
// arena included), planned_MiB and the node count.
// Run, interleaved (the pass on and off alternate, medians of 5):
//   build/ablate_micro --benchmark_filter=attention_fusion --benchmark_repetitions=5
//     --benchmark_enable_random_interleaving=true --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <random>
#include <string>
#include <vector>

#include "graph/engine.h"
#include "kernels/registry.h"
#include "models/model_spec.h"

namespace ablate::micro {
namespace {

struct Workload {
  std::string name, model;
  std::int64_t batch;
};

double mib(double bytes) { return bytes / (1024.0 * 1024.0); }

void run(benchmark::State& state, const Workload& w, bool fused) {
  const models::ModelSpec spec = models::load_model(w.model);
  auto backend = kernels::make_backend("openblas", 2);
  graph::EngineOptions options;
  options.batch = w.batch;
  options.seed = 1;
  options.optimizer.type = "adam";
  options.optimizer.lr.base_lr = 1e-3;
  if (!fused) options.disabled_passes = {"attention_fusion"};
  auto engine = graph::make_engine("static", spec, *backend, options);
  const auto& in = spec.input_shape;
  kernels::Tensor x({w.batch, in[0], in[1], in[2]}), labels({w.batch}, kernels::DType::i32);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (std::int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = uniform(rng);
  for (std::int64_t i = 0; i < w.batch; ++i) labels.data<std::int32_t>()[i] = static_cast<std::int32_t>(rng() % 10);
  std::int64_t step = 0;
  engine->train_step(x, labels, step++);
  for (auto _ : state) benchmark::DoNotOptimize(engine->train_step(x, labels, step++));
  state.SetItemsProcessed(state.iterations() * w.batch);
  for (const auto& [key, value] : engine->report().counters) {
    if (key == "peak_tensor_bytes") state.counters["peak_tensor_MiB"] = mib(value);
    if (key == "planned_bytes") state.counters["planned_MiB"] = mib(value);
    if (key == "graph_nodes_after_passes") state.counters["nodes"] = value;
  }
}

const bool registered = [] {
  const std::vector<Workload> workloads{{"vit_tiny_16_tokens_b128", "vit-tiny", 128},
                                        {"vit_tiny_256_tokens_b32", std::string(ABLATE_SOURCE_DIR) + "/docs/models/vit-tiny-256.model", 32}};
  for (const Workload& w : workloads)
    for (bool fused : {true, false})
      benchmark::RegisterBenchmark(("attention_fusion/" + w.name + (fused ? "/pass_on" : "/pass_off")).c_str(),
                                   [w, fused](benchmark::State& state) { run(state, w, fused); })
          ->Iterations(3)
          ->UseRealTime()
          ->Unit(benchmark::kMillisecond);
  return true;
}();

}  // namespace
}  // namespace ablate::micro
