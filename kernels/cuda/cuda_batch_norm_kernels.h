// Launchers of the CUDA backend's batch normalisation kernels (the math of kernels/backend.h,
// as kernels/reference/reference_batch_norm.cpp writes it): x viewed as [N, C, S], M = N*S
// values per channel. Per-channel sums run one block per channel in a fixed order, in double,
// so results are deterministic. T is float or double; every pointer is a device pointer;
// gamma, beta, dgamma, dbeta, dx may be null (absent).
#pragma once

#include <cstdint>

#include "kernels/tensor.h"

namespace ablate::kernels::cuda {

struct BatchGeometry {
  std::int64_t N, C, S;
};
// x [N, C, ...] as [N, C, S] (N * C > 0).
inline BatchGeometry batch_geometry(const Shape& x) { return {x[0], x[1], shape_numel(x) / (x[0] * x[1])}; }

// The per-channel normalisation, in double, that the apply kernel uses: y = (x - mean) scale + shift.
struct ChannelAffine {
  double mean, scale, shift;
};

// Training: mean and biased var of each channel (two passes) into mean_out, var_out, and the
// affine of gamma (x - mean) / sqrt(var + eps) + beta into affine [C].
template <class T>
void launch_batch_norm_stats(const BatchGeometry& g, const T* x, const T* gamma, const T* beta, double eps, T* mean_out,
                             T* var_out, ChannelAffine* affine);
// Inference: the affine of the given mean and var.
template <class T>
void launch_batch_norm_affine(std::int64_t C, const T* gamma, const T* beta, const T* mean, const T* var, double eps,
                              ChannelAffine* affine);
// y = (x - mean[c]) scale[c] + shift[c]; y may be x.
template <class T> void launch_batch_norm_apply(const BatchGeometry& g, const T* x, const ChannelAffine* affine, T* y);
// Backward: sums[2c] = sum dy, sums[2c + 1] = sum dy x_hat (also into dbeta, dgamma when given);
// then dx = gamma / s (dy - (sums[2c] + x_hat sums[2c + 1]) / M), dx may be dy.
template <class T>
void launch_batch_norm_backward_sums(const BatchGeometry& g, const T* x, const T* dy, const T* mean, const T* var,
                                     double eps, double* sums, T* dgamma, T* dbeta);
template <class T>
void launch_batch_norm_backward_data(const BatchGeometry& g, const T* x, const T* dy, const T* gamma, const T* mean,
                                     const T* var, double eps, const double* sums, T* dx);

}  // namespace ablate::kernels::cuda
