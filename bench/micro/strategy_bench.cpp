// The cost of the execution strategy itself, side by side on one backend:
//   strategy/lenet_train/<strategy>/<backend>/threads:T   Caffe's LeNet (the zoo) trained at
//       batch 64 with Caffe's solver through Engine::train_step of every strategy:
//       counter images_per_s.
//   strategy/tiny_net/<strategy>/<backend>   a 1x1x4 input through inner_product 4, 16 tanh
//       layers and softmax_loss at batch 1 (train_step: forward, backward, update): counter
//       ns_per_layer (of 18 layers), where the per-layer overhead of each strategy dominates.
//   strategy/ops/<way>/<backend>   a chain of 32 ops on a [1, 4] tensor, alternating
//       y = relu(y) and y = y + x: counter ns_per_op.
//         backend_forward           the Backend's calls on preallocated tensors (the floor)
//         backend_forward_backward  the same plus one backward call per op, by hand
//         tape_no_grad              the tape's ops under NoGradGuard (allocation, no node)
//         tape_forward              the tape's ops recording nodes (x requires a gradient)
//         tape_forward_backward     recording, then sum and backward() through the chain
// Registered statically (this file adds itself to ablate_micro); every backend of the build
// is registered, and one that cannot be made here is skipped with its reason. Compare on one
// backend with e.g. --benchmark_filter='strategy/.*/openblas'.
#include <benchmark/benchmark.h>

#include <chrono>
#include <exception>
#include <functional>
#include <memory>
#include <random>
#include <string>

#include "graph/dynamic/autograd.h"
#include "graph/dynamic/caching_allocator.h"
#include "graph/dynamic/context.h"
#include "graph/dynamic/ops.h"
#include "graph/engine.h"
#include "kernels/registry.h"
#include "models/model_spec.h"

namespace ablate::micro {
namespace {

constexpr int kChain = 32;       // ops per chain
constexpr int kTinyLayers = 18;  // inner_product + 16 tanh + softmax_loss
constexpr std::int64_t kLenetBatch = 64;

std::unique_ptr<kernels::Backend> backend_or_skip(benchmark::State& state, const std::string& name, int threads) {
  try {
    return kernels::make_backend(name, threads);
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return nullptr;
  }
}

// Seeded input [n, C, H, W] in [0, 1) and labels in [0, classes), as f32 host tensors.
struct HostBatch {
  kernels::Tensor x, labels;
};
HostBatch random_batch(const models::ModelSpec& spec, std::int64_t n) {
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> u(0.0f, 1.0f);
  HostBatch b{kernels::Tensor({n, spec.input_shape[0], spec.input_shape[1], spec.input_shape[2]}),
              kernels::Tensor({n}, kernels::DType::i32)};
  for (std::int64_t i = 0; i < b.x.numel(); ++i) b.x.data<float>()[i] = u(rng);
  for (std::int64_t i = 0; i < n; ++i) b.labels.data<std::int32_t>()[i] = static_cast<std::int32_t>(rng() % spec.classes);
  return b;
}

graph::EngineOptions caffe_options(std::int64_t batch) {
  graph::EngineOptions o;
  o.batch = batch;
  o.optimizer.type = "caffe_sgd";
  o.optimizer.lr.policy = "inv";
  o.optimizer.lr.base_lr = 0.01;
  o.optimizer.lr.gamma = 1e-4;
  o.optimizer.lr.power = 0.75;
  o.optimizer.momentum = 0.9;
  o.optimizer.weight_decay = 5e-4;
  return o;
}

models::ModelSpec tiny_net() {
  std::string text = "model tiny_chain\ninput 1 1 4\nclasses 4\nlayer ip0 inner_product outputs=4\n";
  for (int i = 0; i < kTinyLayers - 2; ++i) text += "layer t" + std::to_string(i) + " tanh\n";
  text += "layer loss softmax_loss\n";
  return models::parse_model(text, "<strategy_bench>/tiny_chain.model");
}

// Runs `step` (after two untimed warm-up calls) in the timed loop; returns the seconds spent.
double timed(benchmark::State& state, kernels::Backend& backend, const std::function<void()>& step) {
  step();
  step();
  backend.synchronize();
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) {
    step();
    backend.synchronize();
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void engine_benchmark(benchmark::State& state, const std::string& strategy, const std::string& backend_name,
                      const models::ModelSpec& spec, std::int64_t batch, bool lenet) {
  auto backend = backend_or_skip(state, backend_name, static_cast<int>(state.range(0)));
  if (!backend) return;
  auto engine = graph::make_engine(strategy, spec, *backend, caffe_options(batch));
  const HostBatch data = random_batch(spec, batch);
  std::int64_t iteration = 0;
  const double seconds = timed(state, *backend, [&] { engine->train_step(data.x, data.labels, iteration++); });
  const double steps = static_cast<double>(state.iterations());
  if (lenet)
    state.counters["images_per_s"] = steps * static_cast<double>(batch) / seconds;
  else
    state.counters["ns_per_layer"] = seconds * 1e9 / (steps * kTinyLayers);
}

// --- the op chain --------------------------------------------------------------------------

enum class Way { backend_forward, backend_forward_backward, tape_no_grad, tape_forward, tape_forward_backward };

void op_chain(benchmark::State& state, Way way, const std::string& backend_name) {
  auto backend = backend_or_skip(state, backend_name, 1);
  if (!backend) return;
  kernels::Backend& be = *backend;
  graph::dynamic::CachingAllocator allocator(be.allocator());
  graph::dynamic::Context context(be, allocator, allocator);
  kernels::Tensor x_value({1, 4}, kernels::DType::f32, &be.allocator());
  be.fill(x_value, 0.5);
  // Preallocated tensors of the direct calls: the chain's values and their gradients.
  std::vector<kernels::Tensor> values, grads;
  for (int i = 0; i <= kChain; ++i) {
    values.emplace_back(kernels::Shape{1, 4}, kernels::DType::f32, &be.allocator());
    grads.emplace_back(kernels::Shape{1, 4}, kernels::DType::f32, &be.allocator());
  }
  kernels::Tensor x_grad({1, 4}, kernels::DType::f32, &be.allocator());
  graph::dynamic::Variable x(context, x_value, /*requires_grad=*/way != Way::tape_no_grad);

  std::function<void()> step;
  switch (way) {
    case Way::backend_forward:
    case Way::backend_forward_backward:
      step = [&, backward = way == Way::backend_forward_backward] {
        be.copy(x_value, values[0]);
        for (int i = 0; i < kChain; ++i) {
          if (i % 2 == 0)
            be.activation_forward(kernels::Activation::relu, values[i], values[i + 1]);
          else
            be.add(values[i], x_value, values[i + 1]);
        }
        if (!backward) return;
        be.fill(grads[kChain], 1.0);
        for (int i = kChain; i-- > 0;) {
          if (i % 2 == 0)
            be.activation_backward(kernels::Activation::relu, values[i + 1], grads[i + 1], grads[i]);
          else
            be.add(x_grad, grads[i + 1], x_grad), grads[i] = grads[i + 1];  // y + x: dy to both
        }
      };
      break;
    case Way::tape_no_grad:
    case Way::tape_forward:
    case Way::tape_forward_backward:
      step = [&, backward = way == Way::tape_forward_backward] {
        std::unique_ptr<graph::dynamic::NoGradGuard> no_grad;
        if (way == Way::tape_no_grad) no_grad = std::make_unique<graph::dynamic::NoGradGuard>(context);
        graph::dynamic::Variable y = x;
        for (int i = 0; i < kChain; ++i) y = i % 2 == 0 ? graph::dynamic::relu(y) : graph::dynamic::add(y, x);
        if (backward) graph::dynamic::backward(graph::dynamic::sum(y));
      };
      break;
  }
  const double seconds = timed(state, be, step);
  state.counters["ns_per_op"] = seconds * 1e9 / (static_cast<double>(state.iterations()) * kChain);
}

// The models are made when a benchmark first runs, not at registration: this file registers
// from a static initializer, which may run before the layer types' own registrations.
const models::ModelSpec& lenet_spec() {
  static const models::ModelSpec spec = models::load_model("lenet");
  return spec;
}
const models::ModelSpec& tiny_spec() {
  static const models::ModelSpec spec = tiny_net();
  return spec;
}

void register_strategy_benchmarks() {
  const std::pair<Way, const char*> ways[] = {{Way::backend_forward, "backend_forward"},
                                               {Way::backend_forward_backward, "backend_forward_backward"},
                                               {Way::tape_no_grad, "tape_no_grad"},
                                               {Way::tape_forward, "tape_forward"},
                                               {Way::tape_forward_backward, "tape_forward_backward"}};
  for (const std::string& backend : kernels::backend_names()) {
    for (const std::string& strategy : graph::strategy_names()) {
      if (backend != "reference")  // LeNet on the plain loops takes seconds per step
        benchmark::RegisterBenchmark(("strategy/lenet_train/" + strategy + "/" + backend).c_str(),
                                     [=](benchmark::State& s) { engine_benchmark(s, strategy, backend, lenet_spec(), kLenetBatch, true); })
            ->ArgName("threads")->Arg(1)->Arg(2)->UseRealTime()->Unit(benchmark::kMillisecond);
      benchmark::RegisterBenchmark(("strategy/tiny_net/" + strategy + "/" + backend).c_str(),
                                   [=](benchmark::State& s) { engine_benchmark(s, strategy, backend, tiny_spec(), 1, false); })
          ->ArgName("threads")->Arg(1)->UseRealTime()->Unit(benchmark::kMicrosecond);
    }
    for (const auto& [way, name] : ways)
      benchmark::RegisterBenchmark(("strategy/ops/" + std::string(name) + "/" + backend).c_str(),
                                   [=](benchmark::State& s) { op_chain(s, way, backend); })
          ->UseRealTime()->Unit(benchmark::kMicrosecond);
  }
}

// ablate_micro's main registers the op families it knows; this file registers itself.
const bool registered = (register_strategy_benchmarks(), true);

}  // namespace
}  // namespace ablate::micro
