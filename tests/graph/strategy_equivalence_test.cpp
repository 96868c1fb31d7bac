// Strategy equivalence (DESIGN.md, "How it is tested"): one ModelSpec, one initialization,
// one batch sequence, SGD steps through every strategy of the table (graph::strategies()):
// the losses of every step and the final weights agree with the layer-wise engine's to 1e-9
// relative in f64 and to 1e-3 in f32. One row per (model, backend, dtype, steps); a new
// strategy joins every row once it is in the table.
// 200 steps on the optimized backends, in f32 and (OpenBLAS) f64; the plain loops of
// `reference` take ~40 ms of CPU per LeNet step, so its f64 rows run 10 steps to keep the
// suite fast.
//   lenet        Caffe's LeNet (the zoo), Caffe's solver: caffe_sgd, inv policy, momentum 0.9,
//                weight decay 5e-4, biases at lr_mult 2
//   torch-mnist  Torch7's MNIST model (the zoo), Torch's solver: torch_sgd lr 0.05, lr decay 5e-7
#include <algorithm>
#include <cmath>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include <cstdlib>

#include "graph/engine.h"
#include "graph_test_util.h"
#include "kernels/registry.h"

namespace ablate::graph {
namespace {

constexpr std::int64_t kBatch = 2;

OptimizerConfig solver_of(const std::string& model_name) {
  OptimizerConfig o;
  if (model_name == "lenet") {
    o.type = "caffe_sgd";
    o.lr.policy = "inv";
    o.lr.base_lr = 0.01;
    o.lr.gamma = 1e-4;
    o.lr.power = 0.75;
    o.momentum = 0.9;
    o.weight_decay = 5e-4;
  } else {
    o.type = "torch_sgd";
    o.lr.policy = "torch_decay";
    o.lr.base_lr = 0.05;
    o.lr.gamma = 5e-7;
  }
  return o;
}

struct Row {
  const char* model;
  const char* backend;
  kernels::DType dtype;
  double tolerance;  // relative
  int steps;
};

void PrintTo(const Row& row, std::ostream* out) {
  *out << row.model << " on " << row.backend << " in " << kernels::dtype_name(row.dtype) << ", " << row.steps
       << " steps, tolerance " << row.tolerance;
}

std::string row_name(const ::testing::TestParamInfo<Row>& info) {
  std::string name = std::string(info.param.model) + "_" + info.param.backend + "_" +
                     kernels::dtype_name(info.param.dtype) + "_" + std::to_string(info.param.steps) + "_steps";
  std::replace(name.begin(), name.end(), '-', '_');
  return name;
}

bool close(double a, double b, double tolerance) {
  return std::abs(a - b) <= tolerance * std::max({std::abs(a), std::abs(b), 1e-30});
}

struct Trained {
  std::vector<double> losses;
  std::vector<kernels::Tensor> weights;  // host copies of the final parameters
};

Trained train(const std::string& strategy, const models::ModelSpec& spec, kernels::Backend& backend,
              const EngineOptions& options, int steps) {
  auto engine = make_engine(strategy, spec, backend, options);
  Trained out;
  for (int step = 0; step < steps; ++step) {
    auto batch = testing::random_batch(spec, kBatch, kernels::DType::f32, 1000 + static_cast<std::uint64_t>(step));
    out.losses.push_back(engine->train_step(batch.x, batch.labels, step));
  }
  for (Parameter* p : engine->parameters()) {
    kernels::Tensor host(p->value.shape(), p->value.dtype());
    if (p->value.device() == kernels::Device::cpu)
      host.copy_from(p->value);
    else
      backend.copy(p->value, host);
    out.weights.push_back(host);
  }
  return out;
}

class StrategyEquivalence : public ::testing::TestWithParam<Row> {};

TEST_P(StrategyEquivalence, LossesAndWeightsAgree) {
  const Row& row = GetParam();
  const auto names = kernels::backend_names();
  if (std::find(names.begin(), names.end(), row.backend) == names.end())
    GTEST_SKIP() << "backend '" << row.backend << "' is not in this build";
  std::unique_ptr<kernels::Backend> backend;
  try {
    backend = kernels::make_backend(row.backend, 1);
  } catch (const std::exception& e) {
    GTEST_SKIP() << "backend '" << row.backend << "' cannot run here: " << e.what();
  }
  const models::ModelSpec spec = models::load_model(row.model);
  EngineOptions options;
  options.dtype = row.dtype;
  options.batch = kBatch;
  options.seed = 17;
  options.optimizer = solver_of(row.model);

  // ABLATE_LONG_TESTS=1 runs every row for 200 steps (the reference rows too: minutes).
  Row run = GetParam();
  if (const char* long_tests = std::getenv("ABLATE_LONG_TESTS"); long_tests && std::string(long_tests) == "1")
    run.steps = 200;
  const Trained reference = train("layerwise", spec, *backend, options, run.steps);
  EXPECT_NE(reference.losses.front(), reference.losses.back()) << "the model did not train";
  int compared = 0;
  for (const std::string& strategy : strategy_names()) {
    if (strategy == "layerwise") continue;
    ++compared;
    const Trained other = train(strategy, spec, *backend, options, run.steps);
    ASSERT_EQ(other.losses.size(), reference.losses.size());
    int bad = 0;
    for (int step = 0; step < run.steps; ++step)
      if (!close(other.losses[step], reference.losses[step], row.tolerance) && ++bad <= 3)
        ADD_FAILURE() << strategy << " step " << step << ": loss " << other.losses[step] << ", layerwise "
                      << reference.losses[step];
    EXPECT_EQ(bad, 0) << strategy << ": " << bad << " of " << run.steps << " losses differ beyond " << row.tolerance;
    ASSERT_EQ(other.weights.size(), reference.weights.size());
    for (std::size_t i = 0; i < reference.weights.size(); ++i) {
      const kernels::Tensor& a = reference.weights[i];
      const kernels::Tensor& b = other.weights[i];
      ASSERT_EQ(a.shape(), b.shape()) << strategy << " parameter " << i;
      double scale = 0, diff = 0;
      for (std::int64_t j = 0; j < a.numel(); ++j) {
        scale = std::max(scale, std::abs(a.at(j)));
        diff = std::max(diff, std::abs(a.at(j) - b.at(j)));
      }
      EXPECT_LE(diff, row.tolerance * scale) << strategy << " parameter " << i << " after " << run.steps << " steps";
    }
  }
  EXPECT_GT(compared, 0) << "no strategy besides layerwise is built";
}

INSTANTIATE_TEST_SUITE_P(Rows, StrategyEquivalence,
                         ::testing::Values(Row{"lenet", "reference", kernels::DType::f64, 1e-9, 10},
                                           Row{"lenet", "openblas", kernels::DType::f64, 1e-9, 200},
                                           Row{"lenet", "eigen", kernels::DType::f32, 1e-3, 200},
                                           Row{"lenet", "openblas", kernels::DType::f32, 1e-3, 200},
                                           Row{"lenet", "onednn", kernels::DType::f32, 1e-3, 200},
                                           Row{"lenet", "cuda", kernels::DType::f32, 1e-3, 200},
                                           Row{"torch-mnist", "reference", kernels::DType::f64, 1e-9, 10},
                                           Row{"torch-mnist", "openblas", kernels::DType::f64, 1e-9, 200},
                                           Row{"torch-mnist", "eigen", kernels::DType::f32, 1e-3, 200},
                                           Row{"torch-mnist", "openblas", kernels::DType::f32, 1e-3, 200},
                                           Row{"torch-mnist", "onednn", kernels::DType::f32, 1e-3, 200},
                                           Row{"torch-mnist", "cuda", kernels::DType::f32, 1e-3, 200}),
                         row_name);

}  // namespace
}  // namespace ablate::graph
