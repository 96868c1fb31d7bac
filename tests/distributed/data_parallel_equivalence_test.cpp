// Data-parallel equivalence: 2 ranks with global batch 128 follow the loss sequence of one process
// with batch 128 for 100 steps (1e-5 relative, f32) on the reference and OpenBLAS backends, for
// every strategy (the static graph's all-reduce nodes, also under TensorFlow's
// refcount memory and inter-op pool) and both all-reduce algorithms. Every rank also runs
// the single-process reference itself, so one mpiexec compares both. A tiny model on synthetic
// 8x8 images keeps it fast. Then the same with random draws (dropout, random crop and flip)
// on every strategy: a rank's slice must draw what the single process draws for its samples
// (the transform's sample positions and the dropout counter continue from the slice's offset
// in the global batch). Then the whole `ablate run` path (train_and_test) end to end.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>
#include <ostream>
#include <string>
#include <vector>
#include <unistd.h>

#include "bench/run/training_loop.h"
#include "datasets/loader.h"
#include "datasets/synthetic.h"
#include "datasets/transforms.h"
#include "graph/distributed/communicator.h"
#include "graph/distributed/data_parallel.h"
#include "kernels/registry.h"
#include "models/model_spec.h"

namespace ablate::graph::distributed {
namespace {

constexpr std::int64_t kGlobalBatch = 128;

const char* kTinyModel =
    "model tiny_dp\n"
    "input 1 8 8\n"
    "classes 4\n"
    "layer conv1 convolution outputs=4 kernel=3 weight_init=xavier bias_init=constant:0 bias_lr_mult=2\n"
    "layer relu1 relu\n"
    "layer pool1 pooling mode=max kernel=2 stride=2 padding=caffe_ceil\n"
    "layer ip1 inner_product outputs=4 weight_init=xavier bias_init=constant:0 bias_lr_mult=2\n"
    "layer loss softmax_loss\n";

// The tiny model with dropout after the pooling, trained on random crops and flips.
const char* kDropoutModel =
    "model tiny_dp_dropout\n"
    "input 1 8 8\n"
    "classes 4\n"
    "layer conv1 convolution outputs=4 kernel=3 weight_init=xavier bias_init=constant:0 bias_lr_mult=2\n"
    "layer relu1 relu\n"
    "layer pool1 pooling mode=max kernel=2 stride=2 padding=caffe_ceil\n"
    "layer drop1 dropout keep=0.6\n"
    "layer ip1 inner_product outputs=4 weight_init=xavier bias_init=constant:0 bias_lr_mult=2\n"
    "layer loss softmax_loss\n";
const char* kRandomTransform = "pad:1+random_crop:8x8+random_flip+random_brightness:20+scale:1/255";

datasets::ImageSet tiny_data() { return datasets::make_synthetic(1024, 1, 8, 8, 4, 3, "synthetic8"); }

struct Setup {
  std::string strategy, backend, allreduce;
  bool random_draws = false;  // kDropoutModel and kRandomTransform
  bool per_sample = false;    // the dynamic engine one sample at a time (Torch's CIFAR-10 script)
  bool tensorflow_runtime = false;  // static: TF's refcount memory and 2 inter-op threads
};

// The loss of each of `steps` iterations; distributed: this rank's slice, averaged gradients
// and the global batch's mean loss.
std::vector<double> losses(const Setup& s, bool distributed, int steps) {
  const models::ModelSpec spec = models::parse_model(s.random_draws ? kDropoutModel : kTinyModel, "tiny_dp.model");
  const datasets::ImageSet data = tiny_data();
  const datasets::Transform transform = datasets::parse_transform(s.random_draws ? kRandomTransform : "scale:1/255", data);
  EXPECT_EQ(transform.random, s.random_draws);
  auto backend = kernels::make_backend(s.backend, 1);
  EngineOptions options;
  options.batch = distributed ? kGlobalBatch / size() : kGlobalBatch;
  options.first_sample = distributed ? rank() * options.batch : 0;  // as train_and_test sets it
  options.per_sample = s.per_sample;
  if (s.tensorflow_runtime) {
    options.disabled_passes = {"memory_planning", "session_buffers"};  // the refcount mode decides
    options.executor = ExecutorKind::parallel;
    options.inter_op_threads = 2;
  }
  options.seed = 5;
  options.optimizer.lr.base_lr = 0.1;
  options.optimizer.momentum = 0.9;
  options.optimizer.weight_decay = 5e-4;
  auto engine = make_engine(s.strategy, spec, *backend, options);
  std::shared_ptr<GradientAverager> averager;
  if (distributed) averager = attach_data_parallel(*engine, {s.allreduce, 256});  // several buckets
  datasets::LoaderOptions lo;
  lo.batch = kGlobalBatch;
  lo.shuffle = true;
  lo.seed = 9;
  lo.shard = distributed ? rank() : 0;
  lo.shards = distributed ? size() : 1;
  datasets::BatchLoader loader(data, transform, lo);
  std::vector<double> out;
  for (int it = 0; it < steps; ++it) {
    datasets::Batch b = loader.next();
    EXPECT_EQ(b.x.dim(0), options.batch);
    double loss = engine->train_step(b.x, b.labels, it);
    out.push_back(distributed ? mean_over_ranks(loss) : loss);
  }
  if (averager) {
    EXPECT_GT(averager->buckets(), 1);
    EXPECT_EQ(averager->stats().calls, steps * averager->buckets()) << "one all-reduce per bucket and step";
    if (s.strategy == "static") {  // the passes kept one all-reduce node per bucket
      double nodes = -1;
      for (const auto& [key, value] : engine->report().counters)
        if (key == "graph_allreduce_nodes") nodes = value;
      EXPECT_EQ(nodes, static_cast<double>(averager->buckets()));
    }
  }
  return out;
}

void PrintTo(const Setup& s, std::ostream* os) {
  *os << s.strategy << "/" << s.backend << "/" << s.allreduce << (s.random_draws ? "/random draws" : "")
      << (s.per_sample ? "/per sample" : "") << (s.tensorflow_runtime ? "/refcount, inter-op pool" : "");
}

std::string setup_name(const ::testing::TestParamInfo<Setup>& info) {
  const Setup& s = info.param;
  return s.strategy + (s.per_sample ? "_per_sample_" : "_") + s.backend + "_" + s.allreduce +
         (s.tensorflow_runtime ? "_refcount_parallel" : "");
}

// The losses of 100 steps of one process (global batch) and of this rank's share of the
// data-parallel run must agree to 1e-5 relative; returns the single process's losses.
std::vector<double> expect_two_ranks_follow_one_process(const Setup& setup) {
  EXPECT_EQ(kGlobalBatch % size(), 0);
  const std::vector<double> single = losses(setup, false, 100);
  const std::vector<double> parallel = losses(setup, true, 100);
  EXPECT_EQ(single.size(), parallel.size());
  for (std::size_t i = 0; i < single.size() && i < parallel.size(); ++i)
    if (std::abs(parallel[i] - single[i]) > 1e-5 * std::abs(single[i])) {
      ADD_FAILURE() << "step " << i + 1 << ": 2 ranks " << parallel[i] << ", one process " << single[i];
      break;
    }
  return single;
}

class DataParallelEquivalence : public ::testing::TestWithParam<Setup> {};

TEST_P(DataParallelEquivalence, TwoRanksFollowOneProcessFor100Steps) {
  const std::vector<double> single = expect_two_ranks_follow_one_process(GetParam());
  EXPECT_LT(single.back(), 0.7 * single.front()) << "the tiny model should learn: the comparison means something";
}

INSTANTIATE_TEST_SUITE_P(Setups, DataParallelEquivalence,
                         ::testing::Values(Setup{"layerwise", "reference", "mpi"}, Setup{"layerwise", "openblas", "mpi"},
                                           Setup{"dynamic", "reference", "ring"}, Setup{"dynamic", "openblas", "ring"},
                                           Setup{"static", "reference", "mpi"},
                                           Setup{"static", "openblas", "ring", false, false, true}),
                         setup_name);

// Dropout masks and random augmentations: without the slice's offset, every rank would draw
// the crops, flips and mask of samples 0..63 for its slice, and the losses would part at step 1.
class DataParallelRandomDraws : public ::testing::TestWithParam<Setup> {};

TEST_P(DataParallelRandomDraws, TwoRanksDrawWhatOneProcessDrawsFor100Steps) {
  const std::vector<double> single = expect_two_ranks_follow_one_process(GetParam());
  double first = 0, last = 0;  // dropout makes single steps noisy: tenths of the run
  for (std::size_t i = 0; i < 10; ++i) first += single[i], last += single[single.size() - 1 - i];
  EXPECT_LT(last, 0.8 * first) << "the tiny model should learn: the comparison means something";
}

INSTANTIATE_TEST_SUITE_P(Setups, DataParallelRandomDraws,
                         ::testing::Values(Setup{"layerwise", "reference", "mpi", true},
                                           Setup{"layerwise", "openblas", "ring", true},
                                           Setup{"dynamic", "reference", "ring", true},
                                           Setup{"dynamic", "openblas", "mpi", true},
                                           Setup{"static", "openblas", "ring", true, false, true}),
                         setup_name);

// One training step's loss on the whole global batch against the mean of its two halves'
// losses, each half an engine of its own (first_sample at its offset) fed by its shard of the
// loader: the weights are the same (fresh engines, one seed), so the losses agree only when the
// halves draw the crops, flips and dropout masks the whole batch draws. Several iterations (a
// new mask and new crops each), every strategy and the dynamic engine's per-sample mode. No
// MPI call: one process plays both ranks.
double step_loss(const Setup& s, int shard, int shards, std::int64_t iteration) {
  const models::ModelSpec spec = models::parse_model(kDropoutModel, "tiny_dp.model");
  const datasets::ImageSet data = tiny_data();
  const datasets::Transform transform = datasets::parse_transform(kRandomTransform, data);
  auto backend = kernels::make_backend(s.backend, 1);
  EngineOptions options;
  options.batch = kGlobalBatch / shards;
  options.first_sample = shard * options.batch;
  options.per_sample = s.per_sample;
  options.seed = 5;
  options.optimizer.lr.base_lr = 0.1;
  auto engine = make_engine(s.strategy, spec, *backend, options);
  datasets::LoaderOptions lo;
  lo.batch = kGlobalBatch;
  lo.seed = 9;
  lo.first_batch = iteration;  // batch `iteration`, with its draws
  lo.shard = shard;
  lo.shards = shards;
  lo.prefetch = false;
  datasets::BatchLoader loader(data, transform, lo);
  const datasets::Batch b = loader.next();
  return engine->train_step(b.x, b.labels, iteration);
}

class SliceDraws : public ::testing::TestWithParam<Setup> {};

TEST_P(SliceDraws, HalvesOfTheGlobalBatchDrawWhatItDraws) {
  for (std::int64_t iteration : {0, 5, 31}) {
    const double whole = step_loss(GetParam(), 0, 1, iteration);
    const double halves = (step_loss(GetParam(), 0, 2, iteration) + step_loss(GetParam(), 1, 2, iteration)) / 2;
    EXPECT_NEAR(halves, whole, 1e-5 * std::abs(whole)) << "iteration " << iteration;
  }
}

INSTANTIATE_TEST_SUITE_P(Strategies, SliceDraws,
                         ::testing::Values(Setup{"layerwise", "reference", "-"}, Setup{"dynamic", "openblas", "-"},
                                           Setup{"dynamic", "reference", "-", true, true},
                                           Setup{"static", "reference", "-"}, Setup{"static", "openblas", "-"}),
                         [](const auto& info) {
                           const Setup& s = info.param;
                           return s.strategy + (s.per_sample ? "_per_sample_" : "_") + s.backend;
                         });

// The sharded loader: the ranks' slices, concatenated, are the unsharded global batch.
TEST(DistributedLoader, SlicesMakeTheGlobalBatch) {
  const datasets::ImageSet data = tiny_data();
  const datasets::Transform transform = datasets::parse_transform("scale:1/255", data);
  datasets::LoaderOptions whole;
  whole.batch = 8;
  whole.seed = 4;
  datasets::BatchLoader all(data, transform, whole);
  std::vector<std::unique_ptr<datasets::BatchLoader>> shards;
  for (int s = 0; s < 4; ++s) {
    datasets::LoaderOptions o = whole;
    o.shard = s;
    o.shards = 4;
    shards.push_back(std::make_unique<datasets::BatchLoader>(data, transform, o));
  }
  for (int step = 0; step < 3; ++step) {
    datasets::Batch b = all.next();
    for (int s = 0; s < 4; ++s) {
      datasets::Batch part = shards[static_cast<std::size_t>(s)]->next();
      ASSERT_EQ(part.x.dim(0), 2);
      for (std::int64_t i = 0; i < 2; ++i) EXPECT_EQ(part.labels.at(i), b.labels.at(2 * s + i));
      const std::int64_t per = part.x.numel() / 2;
      for (std::int64_t k = 0; k < 2 * per; ++k) ASSERT_EQ(part.x.at(k), b.x.at(2 * s * per + k));
    }
  }
  datasets::LoaderOptions bad = whole;
  bad.shards = 3;
  EXPECT_THROW(datasets::BatchLoader(data, transform, bad), std::invalid_argument);
}

// End to end through train_and_test (what `ablate run --distributed` calls): the recorded loss
// curve and the test accuracy match the single-process run, and rank 0's record holds every
// rank's all-reduce figures. `random_draws`: with dropout and random crops and flips. The test
// passes are sharded (each rank tests every other batch of the 200 images): same accuracy.
void check_train_and_test(bool random_draws, const std::string& strategy = "layerwise") {
  // One file per process: ctest runs this suite twice at once (two ranks, and two "hosts").
  const std::string model = (std::filesystem::temp_directory_path() /
                             ("ablate_tiny_dp_" + std::to_string(::getpid()) + "_" + std::to_string(rank()) + ".model"))
                                .string();
  std::ofstream(model) << (random_draws ? kDropoutModel : kTinyModel);
  bench::run::RunConfig c;
  c.model = model;
  c.strategy = strategy;
  c.backend.name = "openblas";
  c.optimizer.lr.base_lr = 0.1;
  c.optimizer.momentum = 0.9;
  c.batch = kGlobalBatch;
  c.iterations = 30;
  c.test_batch = 100;
  c.transform = random_draws ? kRandomTransform : "scale:1/255";
  c.test_transform = "scale:1/255";
  c.shuffle = true;
  c.quiet = true;
  auto data = [] { return datasets::TrainTest{tiny_data(), datasets::make_synthetic(200, 1, 8, 8, 4, 4, "test8")}; };
  const bench::run::RunResult single = bench::run::train_and_test(c, data());
  c.distributed = true;
  c.allreduce = "ring";
  c.rank = rank();
  c.ranks = size();
  const bench::run::RunResult parallel = bench::run::train_and_test(c, data());
  std::remove(model.c_str());

  ASSERT_EQ(parallel.status, "completed");
  ASSERT_EQ(single.curve.size(), parallel.curve.size());
  for (std::size_t i = 0; i < single.curve.size(); ++i)
    EXPECT_NEAR(parallel.curve[i].loss, single.curve[i].loss, 1e-5 * std::abs(single.curve[i].loss))
        << "iteration " << single.curve[i].iteration;
  EXPECT_NEAR(parallel.metrics.accuracy, single.metrics.accuracy, 1e-12);
  if (rank() != 0) return;
  EXPECT_EQ(parallel.resolved.at("distributed"), "true");
  EXPECT_EQ(parallel.resolved.at("ranks"), std::to_string(size()));
  EXPECT_EQ(parallel.resolved.at("allreduce"), "ring");
  for (int r = 0; r < size(); ++r) {
    bool found = false;
    for (const auto& [key, value] : parallel.engine.counters)
      if (key == "allreduce_calls_rank" + std::to_string(r)) {
        found = true;
        EXPECT_GE(value, 30) << key;
      }
    EXPECT_TRUE(found) << "allreduce_calls_rank" << r << " missing from rank 0's record";
  }
}

TEST(DistributedRun, TrainAndTestMatchesOneProcessAndRecordsEveryRank) { check_train_and_test(false); }
TEST(DistributedRun, TrainAndTestWithDropoutAndAugmentationMatchesOneProcess) { check_train_and_test(true); }
TEST(DistributedRun, StaticGraphTrainAndTestMatchesOneProcess) { check_train_and_test(false, "static"); }

}  // namespace
}  // namespace ablate::graph::distributed
