// DivergenceError: a run that can no longer train, because a gradient holds NaN or infinity
// although the loss was finite (gradient_check.h). It is a std::runtime_error, so the
// training loop's divergence path (bench/training_loop.cpp) records it as a loss that is not
// finite is recorded: status "diverged" with this message, a non-zero exit, and a sweep goes
// on with its next configuration. Like TensorFlow's tf.check_numerics on the gradients
// (InvalidArgumentError naming the tensor), where Caffe and Torch would train on silently.
#pragma once

#include <stdexcept>

namespace ablate::graph {

class DivergenceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace ablate::graph
