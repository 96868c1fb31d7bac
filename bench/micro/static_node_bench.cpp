// The static executor's cost per node (kept under a microsecond), with trivial ops:
//   strategy/static_nodes/<executor>/<backend>   a compiled Session of a chain of 64 nodes on
//       a [1, 4] tensor, alternating y = relu(y) and y = y + x (elementwise fusion off, so each
//       stays a node), run as a TensorFlow session runs a graph. Counters: ns_per_node (the
//       run over the nodes), floor_ns_per_op (the same Backend calls on preallocated tensors,
//       measured in the same benchmark) and overhead_ns_per_node (their difference: what the
//       executor, the node dispatch and the tensor bookkeeping add per node).
//       <executor>: sequential, parallel_1 and parallel_2 (the inter-op pool's size).
//   strategy/static_nodes/executor_only/<executor>   the executor alone calling an empty
//       function per node: ns_per_node of the scheduling (the parallel pool's locking and
//       wake-ups, or the sequential loop).
// Run: build/ablate_micro --benchmark_filter=static_nodes
#include <benchmark/benchmark.h>

#include <chrono>
#include <exception>
#include <memory>
#include <string>
#include <vector>

#include "graph/static/session.h"
#include "kernels/registry.h"

namespace ablate::micro {
namespace {

namespace sg = graph::static_graph;

constexpr int kNodes = 64;  // ops of the chain (the placeholder aside)

struct ExecutorChoice {
  const char* name;
  graph::ExecutorKind kind;
  int threads;
};
constexpr ExecutorChoice kExecutors[] = {{"sequential", graph::ExecutorKind::sequential, 1},
                                         {"parallel_1", graph::ExecutorKind::parallel, 1},
                                         {"parallel_2", graph::ExecutorKind::parallel, 2}};

// x -> relu -> +x -> relu -> +x ... (kNodes ops), the last fetched.
sg::Graph chain_graph() {
  sg::Graph g(kernels::DType::f32);
  sg::Attrs a;
  a.shape = {1, 4};
  a.dtype = kernels::DType::f32;
  a.key = "x";
  const sg::Value x = g.out(g.add(sg::OpKind::placeholder, "x", {}, a));
  sg::Value y = x;
  for (int i = 0; i < kNodes; ++i) {
    sg::Attrs relu;
    relu.activation = kernels::Activation::relu;
    y = i % 2 == 0 ? g.out(g.add(sg::OpKind::activation, "relu" + std::to_string(i), {y}, relu))
                   : g.out(g.add(sg::OpKind::add, "add" + std::to_string(i), {y, x}));
  }
  g.fetches.push_back(y);
  return g;
}

// Seconds per call of `body` over the benchmark's iterations (two untimed calls first).
template <class F>
double seconds_per_call(benchmark::State& state, kernels::Backend& backend, F&& body) {
  body();
  body();
  backend.synchronize();
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) body();
  backend.synchronize();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() /
         static_cast<double>(state.iterations());
}

// The same Backend calls as the chain, on preallocated tensors: the floor (seconds per op).
double floor_seconds_per_op(kernels::Backend& be, const kernels::Tensor& x) {
  std::vector<kernels::Tensor> values;
  for (int i = 0; i <= kNodes; ++i) values.emplace_back(kernels::Shape{1, 4}, kernels::DType::f32, &be.allocator());
  be.copy(x, values[0]);
  auto chain = [&] {
    for (int i = 0; i < kNodes; ++i) {
      if (i % 2 == 0) be.activation_forward(kernels::Activation::relu, values[i], values[i + 1]);
      else be.add(values[i], x, values[i + 1]);
    }
  };
  const int calls = 2000;
  chain();
  be.synchronize();
  const auto start = std::chrono::steady_clock::now();
  for (int c = 0; c < calls; ++c) chain();
  be.synchronize();
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / (calls * kNodes);
}

void session_chain(benchmark::State& state, const ExecutorChoice& e, const std::string& backend_name) {
  std::unique_ptr<kernels::Backend> backend;
  try {
    backend = kernels::make_backend(backend_name, 1);
  } catch (const std::exception& error) {
    state.SkipWithError(error.what());
    return;
  }
  sg::VariableStore store;
  sg::Session session(chain_graph(), *backend, store, {{"elementwise_fusion"}, e.kind, e.threads});
  const int nodes = static_cast<int>(session.order().size()) - 1;  // the placeholder aside
  kernels::Tensor x({1, 4});
  for (std::int64_t i = 0; i < x.numel(); ++i) x.data<float>()[i] = 0.25f * static_cast<float>(i) - 0.3f;
  session.feed("x", x);
  std::int64_t iteration = 0;
  const double per_run = seconds_per_call(state, *backend, [&] { session.run({iteration++, 0, 1}); });
  kernels::Tensor x_device({1, 4}, kernels::DType::f32, &backend->allocator());
  backend->copy(session.tensor(session.graph().fetches[0]), x_device);  // any values: the floor's input
  const double floor = floor_seconds_per_op(*backend, x_device);
  state.counters["nodes"] = nodes;
  state.counters["ns_per_node"] = per_run * 1e9 / nodes;
  state.counters["floor_ns_per_op"] = floor * 1e9;
  state.counters["overhead_ns_per_node"] = per_run * 1e9 / nodes - floor * 1e9;
}

void executor_only(benchmark::State& state, const ExecutorChoice& e) {
  std::vector<int> order(kNodes);
  std::vector<std::vector<int>> predecessors(kNodes);
  for (int i = 0; i < kNodes; ++i) {
    order[static_cast<std::size_t>(i)] = i;
    if (i > 0) predecessors[static_cast<std::size_t>(i)] = {i - 1};  // a chain, as above
  }
  auto executor = sg::make_executor(e.kind, e.threads, order, predecessors);
  int sum = 0;
  const std::function<void(int)> node = [&](int id) { benchmark::DoNotOptimize(sum += id); };
  const auto start = std::chrono::steady_clock::now();
  for (auto _ : state) executor->run(node);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  state.counters["ns_per_node"] = seconds * 1e9 / (static_cast<double>(state.iterations()) * kNodes);
}

const bool registered = [] {
  for (const ExecutorChoice& e : kExecutors) {
    benchmark::RegisterBenchmark(("strategy/static_nodes/executor_only/" + std::string(e.name)).c_str(),
                                 [e](benchmark::State& s) { executor_only(s, e); })
        ->UseRealTime()->Unit(benchmark::kMicrosecond);
    for (const std::string& backend : kernels::backend_names())
      benchmark::RegisterBenchmark(("strategy/static_nodes/" + std::string(e.name) + "/" + backend).c_str(),
                                   [e, backend](benchmark::State& s) { session_chain(s, e, backend); })
          ->UseRealTime()->Unit(benchmark::kMicrosecond);
  }
  return true;
}();

}  // namespace
}  // namespace ablate::micro
