// Ablation of the static strategy's graph passes on TensorFlow's CIFAR-10 model
// (frameworks.md; written inline here until the zoo has tf-cifar10): 24x24x3 input,
// conv 5x5/64 SAME -> relu -> maxpool 3/2 SAME -> lrn 9 (alpha 0.001 over the window, beta
// 0.75, k 1) -> conv 5x5/64 SAME -> relu -> lrn -> maxpool 3/2 SAME -> fc 384 relu -> fc 192
// relu -> fc 10 -> softmax cross-entropy, trained by plain gradient descent (lr 0.1) at batch
// 128 on random data, f32 on the eigen backend (TensorFlow's math library) at 2 intra-op
// threads. One benchmark per configuration: all passes; each pass switched off in turn; all
// passes with the inter-op pool (2 threads). Each builds a fresh engine, runs one untimed step
// (workspaces sized), then times training steps. Counters: images/s (items_per_second),
// peak_tensor_MiB (everything the engine holds: variables, slots, the planned arena, feeds,
// fetched gradients, workspaces), planned_MiB (the arena), unplanned_MiB (a buffer per tensor)
// and the compiled node count.
// Run (medians of 3): build/ablate_micro --benchmark_filter=pass_ablation
//   --benchmark_repetitions=3 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <random>
#include <string>
#include <vector>

#include "graph/engine.h"
#include "graph/static/passes.h"
#include "kernels/registry.h"
#include "models/model_spec.h"

namespace ablate::micro {
namespace {

constexpr std::int64_t kBatch = 128;

const models::ModelSpec& tf_cifar10() {
  static const models::ModelSpec spec = models::parse_model(
      "model tf-cifar10\ninput 3 24 24\nclasses 10\n"
      "layer conv1 convolution outputs=64 kernel=5 padding=same weight_init=truncated_normal:0.05 bias_init=constant:0\n"
      "layer relu1 relu\n"
      "layer pool1 pooling mode=max kernel=3 stride=2 padding=tf_same\n"
      "layer norm1 lrn size=9 alpha=0.001 beta=0.75 k=1\n"
      "layer conv2 convolution outputs=64 kernel=5 padding=same weight_init=truncated_normal:0.05 bias_init=constant:0.1\n"
      "layer relu2 relu\n"
      "layer norm2 lrn size=9 alpha=0.001 beta=0.75 k=1\n"
      "layer pool2 pooling mode=max kernel=3 stride=2 padding=tf_same\n"
      "layer local3 inner_product outputs=384 weight_init=truncated_normal:0.04 bias_init=constant:0.1\n"
      "layer relu3 relu\n"
      "layer local4 inner_product outputs=192 weight_init=truncated_normal:0.04 bias_init=constant:0.1\n"
      "layer relu4 relu\n"
      "layer logits inner_product outputs=10 weight_init=truncated_normal:0.0052083 bias_init=constant:0\n"
      "layer loss softmax_loss\n",
      "<bench>/tf-cifar10.model");
  return spec;
}

struct Configuration {
  std::string name;
  std::vector<std::string> disabled;
  graph::ExecutorKind executor = graph::ExecutorKind::sequential;
};

double mib(double bytes) { return bytes / (1024.0 * 1024.0); }

void run_configuration(benchmark::State& state, const Configuration& c) {
  auto backend = kernels::make_backend("eigen", 2);
  graph::EngineOptions options;
  options.batch = kBatch;
  options.seed = 1;
  options.optimizer.type = "gd";
  options.optimizer.lr.base_lr = 0.1;
  options.disabled_passes = c.disabled;
  options.executor = c.executor;
  options.inter_op_threads = 2;
  auto engine = graph::make_engine("static", tf_cifar10(), *backend, options);
  kernels::Tensor x({kBatch, 3, 24, 24}), labels({kBatch}, kernels::DType::i32);
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
  for (std::int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = uniform(rng);
  for (std::int64_t i = 0; i < kBatch; ++i) labels.data<std::int32_t>()[i] = static_cast<std::int32_t>(rng() % 10);
  std::int64_t step = 0;
  engine->train_step(x, labels, step++);
  for (auto _ : state) benchmark::DoNotOptimize(engine->train_step(x, labels, step++));
  state.SetItemsProcessed(state.iterations() * kBatch);
  for (const auto& [key, value] : engine->report().counters) {
    if (key == "peak_tensor_bytes") state.counters["peak_tensor_MiB"] = mib(value);
    if (key == "planned_bytes") state.counters["planned_MiB"] = mib(value);
    if (key == "unplanned_bytes") state.counters["unplanned_MiB"] = mib(value);
    if (key == "graph_nodes_after_passes") state.counters["nodes"] = value;
  }
}

// Registered at load time, like the BENCHMARK macro.
const bool registered = [] {
  std::vector<Configuration> configurations{{"all_passes", {}}};
  for (const std::string& pass : graph::static_graph::pass_names()) configurations.push_back({"no_" + pass, {pass}});
  configurations.push_back({"all_passes_parallel_executor", {}, graph::ExecutorKind::parallel});
  for (const Configuration& c : configurations)
    benchmark::RegisterBenchmark(("pass_ablation/tf_cifar10_b128/" + c.name).c_str(),
                                 [c](benchmark::State& state) { run_configuration(state, c); })
        ->Iterations(3)
        ->UseRealTime()
        ->Unit(benchmark::kMillisecond);
  return true;
}();

}  // namespace
}  // namespace ablate::micro
