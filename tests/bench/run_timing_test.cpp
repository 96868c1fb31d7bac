// Tests of the timing rules (uniform and each framework's), time-to-accuracy and the
// evaluation schedule on made-up figures, then of their bookkeeping in short real runs:
// every recorded time must be the sum its rule says of the parts the loop timed.
#include "bench/run/run_timing.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "bench/run/evaluation_schedule.h"
#include "bench/run/training_loop.h"
#include "tiny_run.h"

using namespace ablate::bench::run;
namespace tiny = ablate::bench::tiny;

namespace {

TimingSegments made_up(bool final_in_loop) {
  TimingSegments s;
  s.train_s = 100;
  s.batch_eval_s = 3;
  s.validation_s = 7;
  s.protocol_test_s = 20;  // with the final pass (5) when it is inside the loop
  s.protocol_tests = 4;
  s.loop_wall_s = 131;
  s.final_test_s = 5;
  s.final_test_in_loop = final_in_loop;
  return s;
}

}  // namespace

TEST(RunTiming, UniformIsTrainingAloneAndTheFinalPass) {
  TimingFigures u = uniform_timing(made_up(true));
  EXPECT_DOUBLE_EQ(u.train_s, 100);
  EXPECT_DOUBLE_EQ(u.test_s, 5);
}

TEST(RunTiming, EachFrameworkCountsAsItsScriptDid) {
  for (bool inside : {true, false}) {
    TimingSegments s = made_up(inside);
    // Caffe and TF: the loop's wall clock, without the final pass when it ran inside it.
    EXPECT_DOUBLE_EQ(framework_timing("caffe", s).train_s, inside ? 126 : 131);
    EXPECT_DOUBLE_EQ(framework_timing("tensorflow", s).train_s, inside ? 126 : 131);
    EXPECT_DOUBLE_EQ(framework_timing("caffe", s).test_s, 5);
    EXPECT_DOUBLE_EQ(framework_timing("tensorflow", s).test_s, 5);
    // Torch: train() alone; every test() summed.
    EXPECT_DOUBLE_EQ(framework_timing("torch", s).train_s, 100);
    EXPECT_DOUBLE_EQ(framework_timing("torch", s).test_s, inside ? 20 : 25);
    // Theano: the total wall clock of the loop.
    EXPECT_DOUBLE_EQ(framework_timing("theano", s).train_s, 131);
    EXPECT_DOUBLE_EQ(framework_timing("theano", s).test_s, 5);
  }
  EXPECT_THROW(framework_timing("mxnet", made_up(true)), std::invalid_argument);
  EXPECT_FALSE(has_framework_timing("mxnet"));
  EXPECT_FALSE(framework_timing_rule("torch").empty());
}

TEST(RunTiming, TimeToAccuracyKeepsTheFirstPassThatReachesTheTarget) {
  TimeToAccuracy t;
  t.target = 0.9;
  EXPECT_FALSE(t.observe(0.85, 100, 10, 11));
  EXPECT_TRUE(t.observe(0.9, 200, 20, 22));
  EXPECT_FALSE(t.observe(0.95, 300, 30, 33));
  EXPECT_TRUE(t.reached);
  EXPECT_EQ(t.iteration, 200);
  EXPECT_DOUBLE_EQ(t.train_s, 20);
  EXPECT_DOUBLE_EQ(t.framework_train_s, 22);
  TimeToAccuracy none;
  EXPECT_FALSE(none.observe(1.0, 1, 1, 1)) << "no target, never reached";
}

TEST(EvaluationSchedule, EpochsCountImagesSeenAcrossTheWrapAround) {
  EvaluationSchedule s;
  s.test_interval_epochs = 1;
  s.batch = 30;
  s.train_count = 100;  // epochs end within iterations 4 (120 images), 7 (210), 10 (300), 14 (420)
  std::vector<std::int64_t> due;
  for (std::int64_t done = 1; done <= 14; ++done)
    if (s.test_due(done)) due.push_back(done);
  EXPECT_EQ(due, (std::vector<std::int64_t>{4, 7, 10, 14}));
  EXPECT_EQ(s.tests_in(14), 4);
  EvaluationSchedule it;
  it.test_interval = 5;
  it.validation_interval = 3;
  it.train_accuracy_interval = 100;
  EXPECT_TRUE(it.test_due(10));
  EXPECT_FALSE(it.test_due(11));
  EXPECT_EQ(it.tests_in(12), 2);
  EXPECT_TRUE(it.validation_due(6));
  EXPECT_FALSE(it.validation_due(7));
  EXPECT_TRUE(it.batch_accuracy_due(0)) << "TF's `if i % 100 == 0` with i from 0";
  EXPECT_TRUE(it.batch_accuracy_due(200));
  EXPECT_FALSE(it.batch_accuracy_due(99));
}

// The loop's figures obey their rules exactly (they are sums of the same measurements).
TEST(RunTiming, FrameworkTimingOfARealRunIsTheRuleAppliedToItsParts) {
  for (const char* framework : {"caffe", "torch", "theano", "tensorflow"}) {
    RunConfig c = tiny::tiny_config();
    c.framework = framework;
    c.timing = Timing::framework;
    c.test_interval = 5;   // tests at 5 and 10; the final pass at 12 runs after the loop
    c.train_accuracy_interval = 4;
    RunResult r = train_and_test(c, tiny::tiny_data());
    ASSERT_EQ(r.status, "completed") << r.error;
    const RunMetrics& m = r.metrics;
    const TimingSegments& s = m.segments;
    EXPECT_EQ(s.protocol_tests, 2);
    EXPECT_EQ(m.test_passes, 3);
    EXPECT_FALSE(s.final_test_in_loop);
    EXPECT_GT(s.batch_eval_s, 0) << "batch evaluations at iterations 0, 4, 8";
    EXPECT_DOUBLE_EQ(m.test_time_total_s, s.protocol_test_s + s.final_test_s);
    EXPECT_GE(s.loop_wall_s, s.train_s + s.batch_eval_s + s.protocol_test_s);
    EXPECT_DOUBLE_EQ(m.uniform.train_s, s.train_s);
    EXPECT_DOUBLE_EQ(m.uniform.test_s, s.final_test_s);
    ASSERT_TRUE(m.has_framework_timing);
    TimingFigures expected = framework_timing(framework, s);
    EXPECT_DOUBLE_EQ(m.framework.train_s, expected.train_s);
    EXPECT_DOUBLE_EQ(m.framework.test_s, expected.test_s);
    EXPECT_DOUBLE_EQ(m.train_time_s, m.framework.train_s) << "--timing framework prints the framework's";
    EXPECT_DOUBLE_EQ(m.test_time_s, m.framework.test_s);
    int batch_points = 0;
    for (const auto& p : r.curve) batch_points += p.train_accuracy.has_value();
    EXPECT_EQ(batch_points, 3);
  }
}

TEST(RunTiming, EpochIntervalsValidationAndTimeToAccuracyInARealRun) {
  RunConfig c = tiny::tiny_config();
  c.iterations = 20;
  c.test_interval_epochs = 1;  // 200 training images left, batch 20: tests after 10 and 20
  c.validation_count = 100;
  c.validation_interval = 5;
  c.target_accuracy = 0.05;    // the first test reaches it
  RunResult r = train_and_test(c, tiny::tiny_data(300));
  ASSERT_EQ(r.status, "completed") << r.error;
  const RunMetrics& m = r.metrics;
  EXPECT_EQ(r.resolved.at("train_images"), "200");
  EXPECT_EQ(r.resolved.at("validation_images"), "100");
  EXPECT_EQ(m.segments.protocol_tests, 2);
  EXPECT_TRUE(m.segments.final_test_in_loop) << "the epoch test at 20 is the final pass";
  EXPECT_EQ(m.test_passes, 2);
  ASSERT_TRUE(m.early_stopping.has_value());
  EXPECT_EQ(m.early_stopping->validations, 4);
  EXPECT_FALSE(m.early_stopping->stopped_early);
  EXPECT_FALSE(m.early_stopping->test_accuracy_at_best.has_value()) << "no patience: no test at each best";
  ASSERT_TRUE(m.time_to_accuracy.reached);
  EXPECT_EQ(m.time_to_accuracy.iteration, 10);
  EXPECT_LE(m.time_to_accuracy.train_s, m.uniform.train_s);
  TimeToAccuracy unreachable;
  EXPECT_FALSE(unreachable.reached);
}

TEST(RunTiming, EarlyStoppingEndsARealRunAtItsPatience) {
  RunConfig c = tiny::tiny_config();
  c.iterations = 400;
  c.validation_count = 100;
  c.validation_interval = 2;
  c.patience = 6;
  c.patience_increase = 2;
  RunResult r = train_and_test(c, tiny::tiny_data(300));
  ASSERT_EQ(r.status, "completed") << r.error;
  ASSERT_TRUE(r.metrics.early_stopping.has_value());
  const EarlyStoppingResult& e = *r.metrics.early_stopping;
  EXPECT_TRUE(e.stopped_early);
  // Stopped after the first 0-based iteration >= the final patience.
  EXPECT_EQ(r.metrics.iterations_done - 1, static_cast<std::int64_t>(std::ceil(e.patience)));
  EXPECT_TRUE(e.test_accuracy_at_best.has_value()) << "Theano tests at each new best";
  EXPECT_GE(e.best_iteration, 2);
  EXPECT_LE(e.best_iteration, r.metrics.iterations_done);
}

// --curve-points 8 on a 12-iteration run: tests after iterations 2, 3, 5, 6, 8, 9, 11 (round(k x
// 12 / 8), k = 1..7) and the final one at 12; the recipe's own tests (at 5 and 10) stay as they
// were; the curve's passes are in curve_test_s, outside every training time and the recipe's test time.
TEST(RunTiming, CurvePointsAreEvenlySpacedTestsOutsideEveryTrainingTime) {
  RunConfig c = tiny::tiny_config();
  c.test_interval = 5;
  c.curve_points = 8;
  RunResult r = train_and_test(c, tiny::tiny_data());
  ASSERT_EQ(r.status, "completed") << r.error;
  std::vector<std::int64_t> tested;
  for (const auto& p : r.curve)
    if (p.test_accuracy) tested.push_back(p.iteration);
  EXPECT_EQ(tested, (std::vector<std::int64_t>{2, 3, 5, 6, 8, 9, 10, 11, 12}));
  const TimingSegments& s = r.metrics.segments;
  EXPECT_GT(s.curve_test_s, 0);
  EXPECT_EQ(s.protocol_tests, 2) << "the recipe's tests, not the curve's";
  EXPECT_EQ(r.metrics.test_passes, 3);
  EXPECT_DOUBLE_EQ(framework_timing("caffe", s).train_s, s.loop_wall_s - s.curve_test_s);
  EXPECT_DOUBLE_EQ(framework_timing("theano", s).train_s, s.loop_wall_s - s.curve_test_s);
  TimingSegments without = made_up(false);
  without.curve_test_s = 11;
  EXPECT_DOUBLE_EQ(framework_timing("caffe", without).train_s, 120);
  EXPECT_DOUBLE_EQ(framework_timing("torch", without).train_s, 100);
}
