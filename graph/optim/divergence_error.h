// DivergenceError: a run that can no longer train, because its loss is NaN or infinite
// (check_finite_loss below, called by every strategy before its update) or a gradient holds NaN
// or infinity although the loss was finite (gradient_check.h). The training loop
// (bench/run/training_loop.cpp) records it as status "diverged" with this message and a non-zero
// exit, and a sweep goes on with its next configuration; any other error in a step is a
// "failed" run. Like TensorFlow's tf.check_numerics on the gradients
// (InvalidArgumentError naming the tensor), where Caffe and Torch would train on silently.
#pragma once

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

namespace ablate::graph {

class DivergenceError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Throws DivergenceError("loss is nan at iteration N") when `loss` is not finite.
inline void check_finite_loss(double loss, std::int64_t iteration) {
  if (!std::isfinite(loss))
    throw DivergenceError(std::string("loss is ") + (std::isnan(loss) ? "nan" : "infinite") + " at iteration " +
                          std::to_string(iteration));
}

}  // namespace ablate::graph
