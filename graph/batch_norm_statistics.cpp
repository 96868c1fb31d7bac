// The two frameworks' rules for batch_norm's running statistics (see batch_norm_statistics.h),
// on Backend ops so that the state stays on the backend's device.
#include "graph/batch_norm_statistics.h"

#include <stdexcept>
#include <string>

namespace ablate::graph {
namespace {

void expect_state(const models::BatchNormParams& p, std::size_t count) {
  const std::size_t want = p.style == models::MomentumStyle::torch ? 2 : 3;
  if (count != want)
    throw std::logic_error("batch_norm statistics: " + std::to_string(count) + " state tensors; the " +
                           (p.style == models::MomentumStyle::torch ? "torch" : "caffe") + " style keeps " +
                           std::to_string(want));
}

// M/(M-1): the unbiased variance from the biased one (1 when M = 1, as Caffe).
double bias_correction(std::int64_t values) {
  return values > 1 ? static_cast<double>(values) / static_cast<double>(values - 1) : 1.0;
}

}  // namespace

std::int64_t values_per_channel(const kernels::Shape& input) {
  if (input.size() < 2 || input[1] <= 0)
    throw std::invalid_argument("batch_norm: input " + kernels::shape_string(input) + "; expected [N, C] or [N, C, H, W]");
  return kernels::shape_numel(input) / input[1];
}

void update_running_statistics(kernels::Backend& b, const models::BatchNormParams& p, std::int64_t values,
                               const kernels::Tensor& mean, const kernels::Tensor& var,
                               const std::vector<kernels::Tensor*>& state) {
  expect_state(p, state.size());
  const double unbiased = bias_correction(values);
  if (p.style == models::MomentumStyle::torch) {
    const double m = p.momentum;
    b.axpby(m, mean, 1 - m, *state[0]);
    b.axpby(m * unbiased, var, 1 - m, *state[1]);
    return;
  }
  const double f = p.moving_average_fraction;
  kernels::Tensor& factor = *state[2];
  b.scale(factor, f);                  // Caffe: blobs_[2] *= f; blobs_[2] += 1 (in the tensor's type)
  b.fill(factor, b.sum(factor) + 1.0);  // the exact sum of the float and 1, rounded once, as Caffe's +=
  b.axpby(1.0, mean, f, *state[0]);
  b.axpby(unbiased, var, f, *state[1]);
}

void inference_statistics(kernels::Backend& b, const models::BatchNormParams& p,
                          const std::vector<const kernels::Tensor*>& state, kernels::Tensor& mean,
                          kernels::Tensor& var) {
  expect_state(p, state.size());
  b.copy(*state[0], mean);
  b.copy(*state[1], var);
  if (p.style == models::MomentumStyle::torch) return;
  const double factor = b.sum(*state[2]);
  const double scale = factor == 0 ? 0.0 : 1.0 / factor;
  b.scale(mean, scale);
  b.scale(var, scale);
}

}  // namespace ablate::graph
