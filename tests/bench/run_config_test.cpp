// Tests of `ablate run`'s configuration: every new flag reaches the RunConfig, presets apply
// the new keys, --passes specs, --scale, and each bad value is an error naming the flag or
// the preset file and line together with the value.
#include "bench/run/run_config.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/cli/commands.h"
#include "bench/run/pass_spec.h"
#include "bench/run/strategy_switches.h"
#include "graph/distributed/communicator.h"

using namespace ablate::bench::run;

namespace {

// The words as `ablate run` parses them (bench/cli: CLI11 with the run flags).
Flags parse(const std::vector<std::string>& words) {
  return ablate::bench::cli::parse_options(ablate::bench::cli::run_command(), words);
}

RunConfig resolve(std::vector<std::string> words) {
  words.insert(words.begin(), {"--dataset", "synthetic"});
  return resolve_run_config(parse(std::move(words)));
}

std::string error_of(std::vector<std::string> words) {
  try {
    resolve(std::move(words));
  } catch (const std::invalid_argument& e) {
    return e.what();
  }
  return "(no error)";
}

// Files the tests write, removed when the test program ends.
struct TempFiles {
  std::vector<std::filesystem::path> paths;
  ~TempFiles() {
    for (const auto& p : paths) std::filesystem::remove(p);
  }
};
std::filesystem::path temp_file(const std::string& name) {
  static TempFiles files;
  files.paths.push_back(std::filesystem::temp_directory_path() /
                        ("ablate-" + std::to_string(::getpid()) + "-" + name + ".preset"));
  return files.paths.back();
}

// A preset file of a short Caffe-like recipe plus `extra` lines.
std::string preset_file(const std::string& name, const std::string& extra) {
  auto path = temp_file(name);
  std::ofstream(path) << "framework caffe\nmodel lenet\nstrategy layerwise\nbackend eigen\nbase_lr 0.01\n"
                         "batch 64\niterations 1000\ntransform scale:0.00390625\n"
                      << extra;
  return path.string();
}

#define EXPECT_CONTAINS(haystack, needle) \
  EXPECT_NE(std::string(haystack).find(needle), std::string::npos) << "missing '" << (needle) << "' in: " << (haystack)

}  // namespace

TEST(RunConfig, NewFlagsReachTheConfiguration) {
  RunConfig c = resolve({"--validation-count", "500", "--validation-interval", "50", "--patience", "400",
                         "--patience-increase", "3", "--improvement-threshold", "0.99", "--target-accuracy", "0.8",
                         "--timing", "framework", "--weight-average", "0.999", "--test-interval-epochs", "0.5",
                         "--train-accuracy-interval", "7", "--test-transform", "scale:1/255", "--transform",
                         "scale:1/255"});
  EXPECT_EQ(c.validation_count, 500);
  EXPECT_EQ(c.validation_interval, 50);
  EXPECT_EQ(c.patience, 400);
  EXPECT_DOUBLE_EQ(c.patience_increase, 3);
  EXPECT_DOUBLE_EQ(c.improvement_threshold, 0.99);
  EXPECT_DOUBLE_EQ(c.target_accuracy, 0.8);
  EXPECT_EQ(c.timing, Timing::framework);
  EXPECT_DOUBLE_EQ(c.switches.weight_average_decay, 0.999);
  EXPECT_DOUBLE_EQ(c.test_interval_epochs, 0.5);
  EXPECT_EQ(c.test_interval, 0) << "--test-interval-epochs replaces the preset's test_interval";
  EXPECT_EQ(c.train_accuracy_interval, 7);
  EXPECT_EQ(c.test_transform, "scale:1/255");
  EXPECT_EQ(c.transform, "scale:1/255");
}

TEST(RunConfig, StrategySwitchFlagsReachTheConfiguration) {
  RunConfig d = resolve({"--strategy", "dynamic", "--caching-allocator", "off", "--per-sample"});
  EXPECT_EQ(d.strategy, "dynamic");
  EXPECT_FALSE(d.switches.caching_allocator);
  EXPECT_TRUE(d.switches.per_sample);
  RunConfig s = resolve({"--strategy", "static", "--executor", "parallel", "--inter-op-threads", "3", "--passes",
                         "all,-cse,-elementwise_fusion"});
  EXPECT_EQ(s.switches.executor, ablate::graph::ExecutorKind::parallel);
  EXPECT_EQ(s.switches.inter_op_threads, 3);
  EXPECT_EQ(s.switches.passes, "all,-cse,-elementwise_fusion");
  EXPECT_EQ(s.switches.disabled_passes, (std::vector<std::string>{"cse", "elementwise_fusion"}));
  EXPECT_TRUE(resolve({}).switches.disabled_passes.empty()) << "default: every pass";
  // a switch of two strategies: either takes it, the third names both
  for (const char* strategy : {"layerwise", "dynamic"})
    EXPECT_TRUE(resolve({"--strategy", strategy, "--blocked-layout", "on"}).switches.blocked_layout) << strategy;
  EXPECT_CONTAINS(error_of({"--strategy", "static", "--blocked-layout", "on"}),
                  "--blocked-layout: the static strategy does not use it (only layerwise and dynamic do)");
}

TEST(RunConfig, PassSpecsAllDropListAndKeepList) {
  const std::vector<std::string> known = {"a", "b", "c"};
  EXPECT_TRUE(disabled_passes(parse_pass_spec("all", "--passes"), known, "--passes").empty());
  EXPECT_EQ(disabled_passes(parse_pass_spec("all,-b", "--passes"), known, "--passes"), std::vector<std::string>{"b"});
  EXPECT_EQ(disabled_passes(parse_pass_spec("c,a", "--passes"), known, "--passes"), std::vector<std::string>{"b"});
  for (const char* bad : {"", "all,b", "a,-b", "all,-a,-a", "a,all", "all,-", "A"}) {
    try {
      parse_pass_spec(bad, "--passes");
      ADD_FAILURE() << "no error for '" << bad << "'";
    } catch (const std::invalid_argument& e) {
      EXPECT_CONTAINS(e.what(), "--passes '" + std::string(bad) + "'");
    }
  }
  EXPECT_CONTAINS(error_of({"--strategy", "static", "--passes", "cse,nosuchpass"}), "unknown pass 'nosuchpass'");
}

TEST(RunConfig, BadFlagValuesNameTheFlagAndTheValue) {
  struct Case {
    std::vector<std::string> args;
    std::vector<std::string> expect;
  };
  const std::vector<Case> cases = {
      {{"--patience", "-3"}, {"--patience", "-3"}},
      {{"--weight-average", "1"}, {"--weight-average", "1", "[0, 1)"}},
      {{"--target-accuracy", "1.5"}, {"--target-accuracy", "1.5"}},
      {{"--improvement-threshold", "0"}, {"--improvement-threshold", "0"}},
      {{"--test-interval-epochs", "-1"}, {"--test-interval-epochs", "-1"}},
      {{"--timing", "wall"}, {"--timing", "wall", "uniform or framework"}},
      {{"--executor", "fast", "--strategy", "static"}, {"--executor", "fast", "sequential or parallel"}},
      {{"--caching-allocator", "maybe", "--strategy", "dynamic"}, {"--caching-allocator", "maybe", "on or off"}},
      {{"--inter-op-threads", "0", "--strategy", "static"}, {"--inter-op-threads", "0"}},
      {{"--passes", "all,cse", "--strategy", "static"}, {"--passes", "all,cse"}},
      {{"--validation-interval", "10"}, {"--validation-interval", "10", "validation_count"}},
      {{"--validation-count", "100", "--patience", "50"}, {"--patience", "50", "validation_interval"}},
      {{"--scale", "0"}, {"--scale", "0"}},
      {{"--scale", "x"}, {"--scale", "x"}},
      {{"--strategy", "tape"}, {"--strategy", "tape"}},
      {{"--per-sample"}, {"--per-sample", "layerwise", "dynamic"}},
      {{"--passes", "all"}, {"--passes", "layerwise", "static"}},
      {{"--plan", "auto", "--plan-threading", "fastest"}, {"--plan-threading", "fastest", "measure", "run"}},
  };
  for (const auto& c : cases) {
    std::string err = error_of(c.args);
    for (const auto& e : c.expect) EXPECT_CONTAINS(err, e);
  }
}

TEST(RunConfig, PresetKeysApplyAndTheirErrorsNameFileAndLine) {
  RunConfig c = resolve({"--preset", preset_file("keys", "validation_count 400\nvalidation_interval 20\npatience 100\n"
                                                         "patience_increase 2\nimprovement_threshold 0.995\n"
                                                         "target_accuracy 0.9\ntest_interval_epochs 1\n"
                                                         "test_transform scale:1/255\nweight_average_decay 0.9\n")});
  EXPECT_EQ(c.validation_count, 400);
  EXPECT_EQ(c.validation_interval, 20);
  EXPECT_EQ(c.patience, 100);
  EXPECT_DOUBLE_EQ(c.target_accuracy, 0.9);
  EXPECT_DOUBLE_EQ(c.test_interval_epochs, 1);
  EXPECT_EQ(c.test_transform, "scale:1/255");
  EXPECT_DOUBLE_EQ(c.switches.weight_average_decay, 0.9);

  // Line 9 is the first extra line (the base text has 8).
  std::string err = error_of({"--preset", preset_file("decay", "weight_average_decay 1.5\n")});
  EXPECT_CONTAINS(err, ".preset:9: weight_average_decay");
  EXPECT_CONTAINS(err, "1.5");
  err = error_of({"--preset", preset_file("patience", "patience 100\n")});
  EXPECT_CONTAINS(err, ".preset:9: patience");
  err = error_of({"--preset", preset_file("both", "test_interval 10\ntest_interval_epochs 1\n")});
  EXPECT_CONTAINS(err, ".preset:10: test_interval_epochs");
}

TEST(RunConfig, PresetSwitchesTheStrategyIgnoresAreRecordedNotErrors) {
  RunConfig c = resolve({"--preset", preset_file("unused", "per_sample true\ncaching_allocator false\npasses all,-cse\n")});
  EXPECT_EQ(c.unused_options, (std::vector<std::string>{"caching_allocator", "per_sample", "passes"}));
  RunConfig d = resolve({"--preset", preset_file("used", "per_sample true\n"), "--strategy", "dynamic"});
  EXPECT_EQ(d.unused_options, std::vector<std::string>{});
  EXPECT_TRUE(d.switches.per_sample);
}

TEST(RunConfig, BackendSwitchesAreFlagsAndPresetKeysCheckedAgainstTheBackend) {
  RunConfig c = resolve({"--backend", "onednn", "--conv-mode", "per_image", "--onednn-conv-layout", "nhwc"});
  ASSERT_TRUE(c.backend.options.conv_mode.has_value());
  EXPECT_EQ(*c.backend.options.conv_mode, ablate::kernels::cpu::ConvMode::per_image);
  ASSERT_TRUE(c.backend.options.onednn_conv_layout.has_value());
  EXPECT_EQ(*c.backend.options.onednn_conv_layout, ablate::kernels::onednn::ConvLayout::nhwc);
  EXPECT_FALSE(resolve({"--backend", "openblas"}).backend.options.conv_mode.has_value()) << "unset: the default";
  // A value no backend knows, and a switch the chosen backend does not take, name the flag.
  EXPECT_CONTAINS(error_of({"--backend", "eigen", "--conv-mode", "fast"}), "--conv-mode: convolution mode 'fast'");
  std::string err = error_of({"--backend", "openblas", "--onednn-conv-layout", "nhwc"});
  EXPECT_CONTAINS(err, "--onednn-conv-layout: onednn_conv_layout 'nhwc' is not an option of the openblas backend");
  EXPECT_CONTAINS(error_of({"--backend", "reference", "--conv-mode", "batched"}), "not an option of the reference backend");
  // From a preset: applied where the backend takes it, recorded as unused where it does not.
  RunConfig p = resolve({"--preset", preset_file("modes", "conv_mode batched\nonednn_conv_layout plain\n")});
  EXPECT_EQ(*p.backend.options.conv_mode, ablate::kernels::cpu::ConvMode::batched);
  EXPECT_FALSE(p.backend.options.onednn_conv_layout.has_value());
  EXPECT_EQ(p.unused_options, std::vector<std::string>{"onednn_conv_layout"});
  EXPECT_CONTAINS(error_of({"--preset", preset_file("bad", "conv_mode fastest\n")}), ".preset:");
}

TEST(RunConfig, LoweringThreadingAndPoolGradientAreFlagsAndPresetKeys) {
  using ablate::kernels::cpu::ConvLowering;
  using ablate::kernels::cpu::Threading;
  RunConfig c = resolve({"--backend", "eigen", "--conv-lowering", "eigen_spatial", "--threading", "intra_inter",
                         "--pool-gradient", "all"});
  EXPECT_EQ(*c.backend.options.conv_lowering, ConvLowering::eigen_spatial);
  EXPECT_EQ(*c.backend.options.threading, Threading::intra_inter);
  EXPECT_EQ(*c.backend.options.pool_gradient, ablate::kernels::PoolGradient::all);
  // A lowering the backend does not run, a threading the lowering does not run under, and an
  // unknown name: errors naming the flag and both sides.
  EXPECT_CONTAINS(error_of({"--backend", "openblas", "--conv-lowering", "eigen_spatial"}),
                  "--conv-lowering: conv_lowering 'eigen_spatial' is not a lowering of the 'openblas' backend");
  EXPECT_CONTAINS(error_of({"--backend", "eigen", "--conv-lowering", "eigen_spatial", "--threading", "library"}),
                  "--threading: threading 'library' does not apply to conv_lowering 'eigen_spatial'");
  EXPECT_CONTAINS(error_of({"--backend", "eigen", "--threading", "gpu"}), "--threading: threading model 'gpu'");
  EXPECT_CONTAINS(error_of({"--backend", "eigen", "--conv-mode", "batched", "--threading", "library"}),
                  "give conv_mode or those, not both");
  // From a preset: where the backend does not run it, recorded as unused and the default runs.
  const std::string tf = preset_file("spatial", "conv_lowering eigen_spatial\nthreading intra_inter\n");  // eigen
  RunConfig p = resolve({"--preset", tf, "--backend", "openblas"});
  EXPECT_FALSE(p.backend.options.conv_lowering.has_value());
  EXPECT_FALSE(p.backend.options.threading.has_value());
  EXPECT_EQ(p.unused_options, (std::vector<std::string>{"conv_lowering", "threading"}));
  // A flag of one kind replaces the preset's other kind.
  RunConfig old = resolve({"--preset", tf, "--conv-mode", "omp_batched"});
  EXPECT_FALSE(old.backend.options.conv_lowering.has_value());
  EXPECT_EQ(*old.backend.options.conv_mode, ablate::kernels::cpu::ConvMode::omp_batched);
  RunConfig ours = resolve({"--preset", tf, "--conv-lowering", "omp_per_image"});
  EXPECT_EQ(*ours.backend.options.conv_lowering, ConvLowering::omp_per_image);
  EXPECT_FALSE(ours.backend.options.threading.has_value()) << "the preset's intra_inter does not fit: dropped";
  EXPECT_EQ(ours.unused_options, std::vector<std::string>{"threading"});
}

TEST(RunConfig, ScaleShortensIterationsOrEpochs) {
  RunConfig c = resolve({"--scale", "0.05"});  // caffe-mnist: 10,000 iterations
  EXPECT_EQ(c.iterations, 500);
  EXPECT_DOUBLE_EQ(c.length_scale, 0.05);
  RunConfig tiny = resolve({"--scale", "1e-9"});
  EXPECT_EQ(tiny.iterations, 1) << "at least one iteration";
  RunConfig e = resolve({"--epochs", "20", "--scale", "0.05"});
  EXPECT_DOUBLE_EQ(e.epochs, 1);
  resolve_length(e, 60000);
  EXPECT_EQ(e.iterations, 938);  // ceil(60000 / 64)
}

TEST(RunConfig, TensorFlowOnMnistEvaluatesItsBatchEvery100Steps) {
  RunConfig tf = resolve({"--preset", preset_file("tf", ""), "--train-accuracy-interval", "0"});
  EXPECT_EQ(tf.train_accuracy_interval, 0);
  auto path = temp_file("tf2");
  std::ofstream(path) << "framework tensorflow\nmodel lenet\nstrategy layerwise\nbackend eigen\nbase_lr 0.0001\n"
                         "batch 50\niterations 20000\ntransform scale:1/255\n";
  EXPECT_EQ(resolve({"--preset", path.string()}).train_accuracy_interval, 100);
  EXPECT_EQ(resolve({}).train_accuracy_interval, 0) << "caffe does not";
}

TEST(RunConfig, ResolvingADistributedRunStartsNoMpi) {
  RunConfig c = resolve({"--distributed", "--allreduce", "ring", "--bucket-mb", "4", "--batch", "7"});
  EXPECT_TRUE(c.distributed);
  EXPECT_EQ(c.allreduce, "ring");
  EXPECT_DOUBLE_EQ(c.bucket_mb, 4);
  EXPECT_EQ(c.ranks, 1) << "rank and ranks are set when the run joins its MPI job, not by resolution";
  EXPECT_FALSE(ablate::graph::distributed::initialized()) << "resolution has no side effects";
  EXPECT_CONTAINS(error_of({"--allreduce", "ring"}), "--allreduce: only with --distributed");
  EXPECT_CONTAINS(error_of({"--distributed", "--allreduce", "tree"}), "tree");
}

TEST(RunConfig, EngineOptionsComeFromTheTypedSwitchesInOnePlace) {
  RunConfig s = resolve({"--strategy", "static", "--executor", "parallel", "--inter-op-threads", "3", "--passes",
                         "all,-cse", "--precision", "f64", "--batch", "32", "--seed", "9", "--weight-average", "0.5"});
  EXPECT_EQ(s.precision, ablate::kernels::DType::f64);
  const ablate::graph::EngineOptions o = engine_options(s);
  EXPECT_EQ(o.executor, ablate::graph::ExecutorKind::parallel);
  EXPECT_EQ(o.inter_op_threads, 3);
  EXPECT_EQ(o.disabled_passes, std::vector<std::string>{"cse"});
  EXPECT_EQ(o.dtype, ablate::kernels::DType::f64);
  EXPECT_EQ(o.batch, 32);
  EXPECT_EQ(o.first_sample, 0);
  EXPECT_EQ(o.seed, 9u);
  EXPECT_DOUBLE_EQ(o.weight_average_decay, 0.5);
  EXPECT_EQ(o.optimizer.lr.base_lr, s.optimizer.lr.base_lr);
  s.ranks = 4;  // a rank of a distributed run trains its slice of the global batch
  s.rank = 2;
  EXPECT_EQ(engine_options(s).batch, 8);
  EXPECT_EQ(engine_options(s).first_sample, 16);
  EXPECT_CONTAINS(error_of({"--precision", "f16"}), "--precision 'f16': expected f32 or f64");
}
