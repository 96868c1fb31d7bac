// `ablate compare --budget quick`: one common factor shortens every framework's length so the
// whole comparison fits a wall-time budget (quick: 480 s, about 8 minutes). Each framework is
// warmed up for about a second in its own process (measure_warmup): data loading and set-up
// time, training images/s, evaluation images/s. From those and each recipe's length, batch
// and evaluation schedule, estimate_seconds predicts a run at factor f (training, every test,
// validation and batch evaluation the recipe makes, --curve-points' tests, set-up); choose_factor takes the largest
// f in (0, 1] whose sum over the frameworks fits what is left of the budget, rounded down to
// two significant digits.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "bench/run/run_config.h"

namespace ablate::bench::experiments {

// Untimed training steps before a speed is timed, on ablate's side and the real framework's
// alike (`compare --attribute`, `--attribute-warmup`): the first calls' set-up (buffers touched,
// oneDNN primitives created, a graph's first run) is not training speed.
inline constexpr int kUntimedWarmupSteps = 3;

struct WarmupMeasure {
  double setup_s = 0;              // load the data, hold out validation, build the engine
  double train_images_per_s = 0;   // training steps after the untimed warm-up steps
  double eval_images_per_s = 0;    // test-mode forward passes
  std::int64_t train_count = 0, test_count = 0, validation_count = 0;
};

// Runs in the calling process (compare calls it in a child). `seconds`: timed training, after
// `warmup_steps` untimed steps.
WarmupMeasure measure_warmup(const run::RunConfig& config, double seconds, int warmup_steps = kUntimedWarmupSteps);
std::string to_text(const WarmupMeasure& m);
WarmupMeasure warmup_from_text(const std::string& text);

// Predicted seconds of the run of `unscaled` shortened by `factor`.
double estimate_seconds(const run::RunConfig& unscaled, const WarmupMeasure& m, double factor);

struct FactorChoice {
  double factor = 1;
  double estimate_s = 0;   // the predicted total at that factor
  bool fits = true;        // false: even the shortest runs exceed the budget
};
FactorChoice choose_factor(const std::vector<run::RunConfig>& unscaled, const std::vector<WarmupMeasure>& measures,
                           double budget_s);

}  // namespace ablate::bench::experiments
