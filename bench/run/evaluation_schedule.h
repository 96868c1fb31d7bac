// When the training loop evaluates, as each framework's recipe asks:
//   test        every `test_interval` iterations (Caffe's solver), or at the end of every
//               `test_interval_epochs` epochs (Torch: after each epoch's train()); epochs are
//               counted in images seen, since the loader wraps around the training set
//   validation  every `validation_interval` iterations (Theano's validation_frequency)
//   batch       before every `train_accuracy_interval`-th step, the accuracy of the batch about
//               to be trained (TF's MNIST script: `if i % 100 == 0`, i from 0)
// Iterations are counted as done (1-based) after a step, 0-based before it.
#pragma once

#include <cstdint>

#include "bench/run/run_config.h"

namespace ablate::bench::run {

struct EvaluationSchedule {
  std::int64_t test_interval = 0;
  double test_interval_epochs = 0;
  std::int64_t validation_interval = 0;
  std::int64_t train_accuracy_interval = 0;
  std::int64_t batch = 1;
  std::int64_t train_count = 1;  // images in the training set (validation held out)

  static EvaluationSchedule of(const RunConfig& config, std::int64_t train_count);
  bool test_due(std::int64_t done) const;
  bool validation_due(std::int64_t done) const;
  bool batch_accuracy_due(std::int64_t iteration) const;
  // How many recipe test passes `iterations` iterations hold (for estimates).
  std::int64_t tests_in(std::int64_t iterations) const;
};

}  // namespace ablate::bench::run
