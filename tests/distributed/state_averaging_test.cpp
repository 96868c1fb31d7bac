// BatchNorm's running statistics in data-parallel training (graph/distributed/data_parallel.h):
// after every step they are averaged over the ranks, so every rank holds the same statistics;
// after the first step every state tensor is the mean of what each rank's slice alone gives
// (the running variance: the documented convention), and the running mean of a batch_norm on
// the images is the single process's on the global batch, exactly up to rounding; for the
// layer-wise, dynamic and static strategies (the static graph's statistics are updated by its
// graph and averaged after each run) with both momentum conventions. And the averager on its
// own: state tensors become the mean over the ranks, in one all-reduce.
#include <gtest/gtest.h>

#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "graph/distributed/communicator.h"
#include "graph/distributed/data_parallel.h"
#include "kernels/registry.h"
#include "models/model_spec.h"

namespace ablate::graph::distributed {
namespace {

constexpr std::int64_t kGlobalBatch = 8;

std::string model_text(const std::string& style) {
  const std::string keys = style == "caffe" ? " momentum_style=caffe" : "";
  return "model tiny_bn_dp\ninput 1 8 8\nclasses 4\n"
         "layer bn0 batch_norm" + keys + "\n"
         "layer conv1 convolution outputs=3 kernel=3 bias=false weight_init=xavier\n"
         "layer bn1 batch_norm" + keys + "\n"
         "layer g1 gelu\n"
         "layer pool1 pooling mode=max kernel=2 stride=2\n"
         "layer ip1 inner_product outputs=4 weight_init=xavier\n"
         "layer loss softmax_loss\n";
}

struct Batch {
  kernels::Tensor x, labels;
};

// Global batch `step` (the same on every rank), or this rank's slice of it.
Batch global_batch(int step, bool slice) {
  std::mt19937_64 rng(40 + static_cast<std::uint64_t>(step));
  std::uniform_real_distribution<double> u(-1, 2);
  const std::int64_t n = slice ? kGlobalBatch / size() : kGlobalBatch, first = slice ? rank() * n : 0;
  Batch b{kernels::Tensor({n, 1, 8, 8}, kernels::DType::f64), kernels::Tensor({n}, kernels::DType::i32)};
  for (std::int64_t i = 0; i < kGlobalBatch; ++i) {
    const bool mine = i >= first && i < first + n;
    for (std::int64_t k = 0; k < 64; ++k) {
      const double v = u(rng);
      if (mine) b.x.set((i - first) * 64 + k, v);
    }
    const auto label = static_cast<double>(rng() % 4);
    if (mine) b.labels.set(i - first, label);
  }
  return b;
}

// The state after `steps` steps: of one process on the global batch, or of this rank on its
// slice, with the averaging (data parallel) or without (its slice alone).
std::vector<StateTensor> state_after(const std::string& strategy, const std::string& style, int steps, bool slice,
                                     bool averaged, kernels::Backend& backend) {
  const models::ModelSpec spec = models::parse_model(model_text(style), "tiny_bn_dp.model");
  EngineOptions options;
  options.dtype = kernels::DType::f64;
  options.batch = slice ? kGlobalBatch / size() : kGlobalBatch;
  options.first_sample = slice ? rank() * options.batch : 0;
  options.seed = 3;
  options.optimizer.lr.base_lr = 0.1;
  options.optimizer.momentum = 0.9;
  auto engine = make_engine(strategy, spec, backend, options);
  std::shared_ptr<GradientAverager> averager;
  if (averaged) averager = attach_data_parallel(*engine, {"mpi", 1 << 20});
  for (int step = 0; step < steps; ++step) {
    const Batch b = global_batch(step, slice);
    engine->train_step(b.x, b.labels, step);
  }
  if (averager) {
    EXPECT_EQ(averager->stats().calls, 2 * steps) << "one all-reduce of gradients, one of state, per step";
  }
  std::vector<StateTensor> out;
  for (const StateTensor& s : engine->state_tensors()) out.push_back({s.name, s.value.clone()});
  return out;
}

struct AveragingSetup {
  std::string strategy, style;
};

class StateAveraging : public ::testing::TestWithParam<AveragingSetup> {};

TEST_P(StateAveraging, RanksShareTheStatisticsAndTheMeanIsTheGlobalBatchs) {
  const AveragingSetup& s = GetParam();
  auto backend = kernels::make_backend("reference", 1);
  const auto single = state_after(s.strategy, s.style, 1, false, false, *backend);
  const auto parallel = state_after(s.strategy, s.style, 1, true, true, *backend);
  const auto alone = state_after(s.strategy, s.style, 1, true, false, *backend);
  ASSERT_EQ(single.size(), parallel.size());
  ASSERT_EQ(alone.size(), parallel.size());
  for (std::size_t k = 0; k < single.size(); ++k) {
    const std::string& name = single[k].name;
    for (std::int64_t i = 0; i < single[k].value.numel(); ++i) {
      const double got = parallel[k].value.at(i), tolerance = 1e-12 * std::max(1.0, std::abs(got));
      // Every state tensor: the mean of what the ranks' slices give alone.
      EXPECT_NEAR(got, allreduce_sum(alone[k].value.at(i)) / size(), tolerance) << name << "[" << i << "]";
      // bn0 reads the images: its running mean is the global batch's. (bn1 reads what each
      // rank's bn0 normalised by its slice's statistics: not the single process's input.)
      if (name == "bn0.running_mean" || name == "bn0.mean_sum") {
        EXPECT_NEAR(got, single[k].value.at(i), tolerance) << name << "[" << i << "]";
      }
      if (name.ends_with("scale_factor")) {
        EXPECT_EQ(got, 1.0) << name;
      }
    }
  }
  // Several steps on: every rank holds rank 0's statistics exactly. (EXPECT, not ASSERT: every
  // rank must make every collective call.)
  for (const StateTensor& t : state_after(s.strategy, s.style, 4, true, true, *backend))
    for (std::int64_t i = 0; i < t.value.numel(); ++i) {
      const std::vector<double> all = gather_to_root(t.value.at(i));
      for (std::size_t r = 1; r < all.size(); ++r) EXPECT_EQ(all[r], all[0]) << t.name << "[" << i << "] on rank " << r;
    }
}

INSTANTIATE_TEST_SUITE_P(Setups, StateAveraging,
                         ::testing::Values(AveragingSetup{"layerwise", "torch"}, AveragingSetup{"layerwise", "caffe"},
                                           AveragingSetup{"dynamic", "torch"}, AveragingSetup{"dynamic", "caffe"},
                                           AveragingSetup{"static", "torch"}, AveragingSetup{"static", "caffe"}),
                         [](const auto& info) { return info.param.strategy + "_" + info.param.style; });

TEST(StateAverager, TakesTheMeanOfEveryStateTensor) {
  std::vector<StateTensor> state{{"a.running_mean", kernels::Tensor({3}, kernels::DType::f64)},
                                 {"a.running_var", kernels::Tensor({3}, kernels::DType::f64)}};
  for (std::size_t k = 0; k < 2; ++k)
    for (std::int64_t i = 0; i < 3; ++i) state[k].value.set(i, rank() + 10.0 * static_cast<double>(k) + static_cast<double>(i));
  GradientAverager averager({"ring", 1 << 20});
  averager.average_state(state);
  const double mean_rank = (size() - 1) / 2.0;
  for (std::size_t k = 0; k < 2; ++k)
    for (std::int64_t i = 0; i < 3; ++i)
      EXPECT_DOUBLE_EQ(state[k].value.at(i), mean_rank + 10.0 * static_cast<double>(k) + static_cast<double>(i));
  EXPECT_EQ(averager.stats().calls, 1);
  std::vector<StateTensor> none;
  averager.average_state(none);
  EXPECT_EQ(averager.stats().calls, 1) << "no state: no all-reduce";
}

}  // namespace
}  // namespace ablate::graph::distributed
