// Timing rules: uniform, and each framework's own (see run_timing.h).
#include "bench/run/run_timing.h"

#include <stdexcept>

namespace ablate::bench::run {

const char* timing_name(Timing timing) { return timing == Timing::framework ? "framework" : "uniform"; }

Timing parse_timing(const std::string& text, const std::string& where) {
  if (text == "uniform") return Timing::uniform;
  if (text == "framework") return Timing::framework;
  throw std::invalid_argument(where + " " + text + ": expected uniform or framework");
}

TimingFigures uniform_timing(const TimingSegments& s) { return {s.train_s, s.final_test_s}; }

bool has_framework_timing(const std::string& f) {
  return f == "caffe" || f == "tensorflow" || f == "torch" || f == "theano";
}

TimingFigures framework_timing(const std::string& f, const TimingSegments& s) {
  const double final_inside = s.final_test_in_loop ? s.final_test_s : 0;
  const double loop_s = s.loop_wall_s - s.curve_test_s;  // ablate's own curve tests are no framework's
  if (f == "caffe" || f == "tensorflow") return {loop_s - final_inside, s.final_test_s};
  if (f == "torch") return {s.train_s, s.protocol_test_s + (s.final_test_in_loop ? 0 : s.final_test_s)};
  if (f == "theano") return {loop_s, s.final_test_s};
  throw std::invalid_argument("framework '" + f + "' has no timing rule (known: caffe, tensorflow, torch, theano)");
}

std::string framework_timing_rule(const std::string& f) {
  if (f == "caffe") return "caffe: training = the whole run with its interval test passes (log timestamps); testing = the final pass";
  if (f == "tensorflow")
    return "tensorflow: training = wall clock of the loop with its batch-accuracy evaluations; testing = one pass";
  if (f == "torch") return "torch: training = sum of train() calls; testing = sum of every test() call (cumulative)";
  if (f == "theano") return "theano: training = total wall clock, validation and test passes inside; testing = the final pass";
  return "";
}

bool TimeToAccuracy::observe(double acc, std::int64_t it, double uniform_s, double framework_s) {
  if (reached || target <= 0 || acc < target) return false;
  reached = true;
  iteration = it;
  train_s = uniform_s;
  framework_train_s = framework_s;
  accuracy = acc;
  return true;
}

}  // namespace ablate::bench::run
