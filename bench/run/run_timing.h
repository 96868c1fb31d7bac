// What counts as training and testing time. The training loop times each part of a run
// separately (TimingSegments); from them:
//   uniform    the same for every framework: training = the training iterations (waiting for
//              the loader included; every evaluation excluded); testing = the final test pass.
//   framework  as each framework's own script counted it (../shared/reference/frameworks.md):
//     caffe       log timestamps: the whole run, the interval test passes inside; testing = the
//                 final test pass
//     tensorflow  MNIST script: wall clock around the training loop, including its batch-accuracy
//                 evaluation every 100 steps; testing = one pass over the test set
//     torch       the sum of the train() calls; testing = the sum of the test() calls, so it is
//                 cumulative over every test pass (one per epoch)
//     theano      total wall clock of the loop, validation and test passes inside; testing = the
//                 final test pass
// Time-to-accuracy: the training time (both ways) and iteration at which a test pass first
// reaches the target accuracy (DAWNBench, MLPerf).
#pragma once

#include <cstdint>
#include <string>

namespace ablate::bench::run {

// Which pair of figures a run prints and stores as train_time_s / test_time_s (--timing).
enum class Timing { uniform, framework };
const char* timing_name(Timing timing);  // "uniform", "framework"
// Throws "WHERE TEXT: expected uniform or framework".
Timing parse_timing(const std::string& text, const std::string& where);

struct TimingSegments {
  double train_s = 0;         // training iterations, loader waits included
  double batch_eval_s = 0;    // evaluations of the batch about to be trained (TF MNIST)
  double validation_s = 0;    // validation passes
  double protocol_test_s = 0; // test passes the recipe asks for (intervals, new best validations)
  std::int64_t protocol_tests = 0;
  double loop_wall_s = 0;     // wall time of the training loop, its evaluations included
  double final_test_s = 0;    // the last test pass, whose accuracy is reported
  // The last pass was the recipe's own, at the last iteration (then it is inside the loop and
  // counted in protocol_test_s); otherwise it ran after the loop.
  bool final_test_in_loop = false;
  double curve_test_s = 0;    // --curve-points' test passes: inside loop_wall_s, outside every training time
};

struct TimingFigures {
  double train_s = 0, test_s = 0;
};

TimingFigures uniform_timing(const TimingSegments& s);
bool has_framework_timing(const std::string& framework);
// Throws std::invalid_argument for a framework without a rule.
TimingFigures framework_timing(const std::string& framework, const TimingSegments& s);
// One line describing the rule, for the record and the summary.
std::string framework_timing_rule(const std::string& framework);

struct TimeToAccuracy {
  double target = 0;                 // 0: no target, never reached
  bool reached = false;
  std::int64_t iteration = 0;        // iterations done when the reaching test ran
  double train_s = 0;                // uniform training time by then
  double framework_train_s = 0;      // the framework's training time by then
  double accuracy = 0;               // the reaching test's accuracy

  // A test pass after `iteration` iterations measured `accuracy`; the first at or above the
  // target is kept. Returns whether this pass is that first one.
  bool observe(double accuracy, std::int64_t iteration, double train_s, double framework_train_s);
};

}  // namespace ablate::bench::run
