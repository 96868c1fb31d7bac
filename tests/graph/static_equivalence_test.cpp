// The static engine against the layer-wise engine: one ModelSpec, one initialization
// (models::make_initial_parameters), one sequence of seeded batches. Caffe's LeNet (the zoo)
// with Caffe's SGD, and TensorFlow's MNIST model (written inline until the zoo has tf-mnist;
// dropout included: every strategy derives its masks from the seed, the layer and the
// iteration) with Adam, and each with the other optimizer: the losses agree to 1e-9 relative in f64 on the reference backend and
// to 1e-3 in f32 on eigen, openblas and onednn. The static engine's sequential and parallel
// executors give identical losses. TensorFlow 1.3's and Theano 0.9's rewrite sets (the
// presets' `passes`: refcount memory, run-time buffer forwarding) match too, as does the zoo's
// lenet-bn-gelu (batch normalisation, GELU) under every memory mode and both executors.
//
// Length: the whole suite must stay fast on a shared 2-core machine, where one TF-MNIST step
// costs ~0.2 s on the reference backend's plain loops and ~40 ms on a BLAS. By default LeNet
// runs 200 steps of one image (f64 on openblas, f32 on every fast backend; 20 steps on
// reference) and TF-MNIST a few steps; ABLATE_STATIC_LONG=1 runs every case, both optimizers
// on both models, for 200 steps of two images on every backend (about ten minutes), the full check.
#include <cmath>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "graph/engine.h"
#include "graph_test_util.h"
#include "kernels/registry.h"
#include "models/model_spec.h"
#include "static_test_util.h"

namespace ablate::graph {
namespace {

bool long_run() {
  const char* env = std::getenv("ABLATE_STATIC_LONG");
  return env && std::string(env) == "1";
}

struct Case {
  std::string model;  // "lenet", "lenet-bn-gelu" (the zoo) or "tf-mnist" (inline)
  bool adam = false;
};

models::ModelSpec model_of(const Case& c) {
  return c.model != "tf-mnist" ? models::load_model(c.model) : testing::parse(testing::tf_mnist_text(), "tf-mnist.model");
}

struct Steps {
  std::string backend;
  kernels::DType dtype = kernels::DType::f64;
  int steps = 200;
  std::int64_t batch = 1;
  ExecutorKind executor = ExecutorKind::sequential;
  int inter_op_threads = 1;
  std::vector<std::string> disabled_passes = {};  // static strategy only
};

// `shared`: a backend to reuse (oneDNN's autotuned convolution layouts, chosen by timing,
// then stay the same between runs); otherwise a fresh one.
std::vector<double> losses(const std::string& strategy, const Case& c, const Steps& r, kernels::Backend* shared = nullptr) {
  std::unique_ptr<kernels::Backend> own;
  if (!shared) own = kernels::make_backend(r.backend, 1);
  kernels::Backend* backend = shared ? shared : own.get();
  const models::ModelSpec spec = model_of(c);
  EngineOptions options = c.adam ? testing::adam_options(r.batch, r.dtype) : testing::caffe_sgd_options(r.batch, r.dtype);
  options.executor = r.executor;
  options.inter_op_threads = r.inter_op_threads;
  if (strategy == "static") options.disabled_passes = r.disabled_passes;
  auto engine = make_engine(strategy, spec, *backend, options);
  std::vector<double> out;
  for (int t = 0; t < r.steps; ++t) {
    const auto b = testing::random_batch(spec, r.batch, r.dtype, 1000 + static_cast<std::uint64_t>(t));
    out.push_back(engine->train_step(b.x, b.labels, t));
  }
  return out;
}

void expect_equivalent(const Case& c, const Steps& r, double tolerance) {
  SCOPED_TRACE(c.model + (c.adam ? " adam " : " caffe_sgd ") + r.backend + " " + kernels::dtype_name(r.dtype) + ", " +
               std::to_string(r.steps) + " steps of batch " + std::to_string(r.batch));
  const std::vector<double> layerwise = losses("layerwise", c, r), stat = losses("static", c, r);
  ASSERT_EQ(layerwise.size(), stat.size());
  for (std::size_t t = 0; t < stat.size(); ++t) {
    ASSERT_TRUE(std::isfinite(stat[t])) << "step " << t;
    ASSERT_NEAR(stat[t], layerwise[t], tolerance * std::abs(layerwise[t])) << "step " << t;
  }
}

std::vector<std::string> fast_backends() {
  std::vector<std::string> names;
  for (const std::string& n : kernels::backend_names())
    if (n != "reference" && n != "cuda") names.push_back(n);
  return names;
}

int steps(int normal) { return long_run() ? 200 : normal; }
std::int64_t batch() { return long_run() ? 2 : 1; }

TEST(StaticEquivalence, LenetCaffeSgdMatchesLayerwiseInF64) {
  expect_equivalent({"lenet", false}, {"reference", kernels::DType::f64, steps(20), batch()}, 1e-9);
  expect_equivalent({"lenet", false}, {"openblas", kernels::DType::f64, 200, batch()}, 1e-9);
}

TEST(StaticEquivalence, TfMnistAdamMatchesLayerwiseInF64) {
  expect_equivalent({"tf-mnist", true}, {"reference", kernels::DType::f64, steps(2), batch()}, 1e-9);
  expect_equivalent({"tf-mnist", true}, {"openblas", kernels::DType::f64, steps(10), batch()}, 1e-9);
}

// Each model with the other framework's optimizer too.
TEST(StaticEquivalence, LenetAdamAndTfMnistCaffeSgdMatchLayerwiseInF64) {
  if (long_run()) {
    expect_equivalent({"lenet", true}, {"reference", kernels::DType::f64, 200, batch()}, 1e-9);
    expect_equivalent({"tf-mnist", false}, {"reference", kernels::DType::f64, 200, batch()}, 1e-9);
  }
  expect_equivalent({"lenet", true}, {"openblas", kernels::DType::f64, steps(40), batch()}, 1e-9);
  expect_equivalent({"tf-mnist", false}, {"openblas", kernels::DType::f64, steps(3), batch()}, 1e-9);
}

TEST(StaticEquivalence, BothModelsMatchLayerwiseInF32OnEveryFastBackend) {
  const auto names = fast_backends();
  EXPECT_GE(names.size(), 3u) << "expected eigen, openblas and onednn in this build";
  for (const std::string& name : names) {
    expect_equivalent({"lenet", false}, {name, kernels::DType::f32, 200, batch()}, 1e-3);
    expect_equivalent({"tf-mnist", true}, {name, kernels::DType::f32, steps(6), batch()}, 1e-3);
    if (long_run()) {
      expect_equivalent({"lenet", true}, {name, kernels::DType::f32, 200, batch()}, 1e-3);
      expect_equivalent({"tf-mnist", false}, {name, kernels::DType::f32, 200, batch()}, 1e-3);
    }
  }
}

// The presets' sets, written as the passes they leave out (models/presets/*.preset).
TEST(StaticEquivalence, TensorflowAndTheanoRewriteSetsMatchLayerwiseInF64) {
  const std::vector<std::string> tensorflow = {"attention_fusion", "conv_activation_fusion", "conv_pool_fusion", "elementwise_fusion", "inplace",
                                               "memory_planning", "session_buffers"};
  const std::vector<std::string> theano = {"attention_fusion", "conv_activation_fusion", "conv_pool_fusion", "buffer_forwarding", "memory_planning",
                                           "session_buffers"};
  for (ExecutorKind executor : {ExecutorKind::sequential, ExecutorKind::parallel}) {
    Steps tf{"openblas", kernels::DType::f64, steps(3), 2, executor, 2, tensorflow};
    expect_equivalent({"tf-mnist", true}, tf, 1e-9);
    Steps th{"openblas", kernels::DType::f64, steps(40), batch(), executor, 2, theano};
    expect_equivalent({"lenet", false}, th, 1e-9);
  }
}

// batch_norm's ops (with the running statistics' update among the targets) and GELU under
// every memory mode of the rewrite sets (arena, TF's refcount allocation, Theano's with buffer
// forwarding, session buffers) and both executors.
TEST(StaticEquivalence, BatchNormAndGeluMatchLayerwiseUnderEveryMemoryModeAndExecutor) {
  const std::vector<std::vector<std::string>> sets = {
      {},
      {"conv_activation_fusion", "elementwise_fusion", "inplace", "memory_planning", "session_buffers"},
      {"conv_activation_fusion", "buffer_forwarding", "memory_planning", "session_buffers"},
      {"memory_planning"}};
  for (ExecutorKind executor : {ExecutorKind::sequential, ExecutorKind::parallel})
    for (const auto& disabled : sets)
      expect_equivalent({"lenet-bn-gelu", false}, {"openblas", kernels::DType::f64, steps(6), 2, executor, 2, disabled}, 1e-9);
}

TEST(StaticEquivalence, SequentialAndParallelExecutorsGiveIdenticalLosses) {
  for (const std::string& backend : fast_backends())
    for (const Case& c : {Case{"lenet", false}, Case{"tf-mnist", true}}) {
      const bool main_case = backend == "openblas";
      if (!main_case && c.model != "lenet" && !long_run()) continue;
      Steps r{backend, kernels::DType::f32, steps(c.model == "lenet" ? (main_case ? 30 : 8) : 2), 2};
      auto shared = kernels::make_backend(backend, 1);
      const std::vector<double> sequential = losses("static", c, r, shared.get());
      for (int threads : {1, 2, 3}) {
        if (threads != 2 && !main_case) continue;
        r.executor = ExecutorKind::parallel;
        r.inter_op_threads = threads;
        const std::vector<double> parallel = losses("static", c, r, shared.get());
        ASSERT_EQ(parallel.size(), sequential.size());
        for (std::size_t t = 0; t < parallel.size(); ++t)
          ASSERT_EQ(parallel[t], sequential[t]) << c.model << " on " << backend << ", " << threads << " inter-op threads, step " << t;
      }
    }
}

// The TensorFlow preset on the GPU: its parallel executor, asked for 16 inter-op threads, gets one
// worker on cuda (one stream, one set of handles, one workspace: executor.h), so its losses are
// the sequential executor's, bit for bit in deterministic mode (cuDNN's atomics-free algorithms,
// chosen without timing). The first GPU run crashed when 16 threads called cuda at once.
TEST(StaticEquivalence, OnCudaTheParallelExecutorGivesTheSequentialLosses) {
  std::unique_ptr<kernels::Backend> cuda;
  try {
    kernels::BackendOptions options;
    options.threads = 1;
    options.deterministic = true;
    cuda = kernels::make_backend("cuda", options);
  } catch (const std::exception& e) {
    GTEST_SKIP() << "no CUDA device: GPU tests skipped (" << e.what() << ")";
  }
  Steps r{"cuda", kernels::DType::f32, 5, 50};
  const Case tf{"tf-mnist", true};
  const std::vector<double> sequential = losses("static", tf, r, cuda.get());
  r.executor = ExecutorKind::parallel;
  r.inter_op_threads = 16;
  const std::vector<double> parallel = losses("static", tf, r, cuda.get());
  ASSERT_EQ(parallel.size(), sequential.size());
  for (std::size_t t = 0; t < parallel.size(); ++t) {
    ASSERT_TRUE(std::isfinite(parallel[t])) << "step " << t;
    EXPECT_EQ(parallel[t], sequential[t]) << "step " << t;
  }
}

}  // namespace
}  // namespace ablate::graph
