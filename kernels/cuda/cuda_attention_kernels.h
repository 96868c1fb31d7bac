// Launchers of the CUDA backend's own attention kernels (cuda_attention_bodies.h): softmax along
// the last axis, layer normalisation and its backward, axis permutation. T is float or double;
// every pointer is a device pointer; all launch on the default stream. x is viewed as [R, K]
// (or [R, D]), K its last dimension; shapes and math as in kernels/backend.h.
#pragma once

#include <cstdint>

#include "kernels/cuda/cuda_attention_bodies.h"

namespace ablate::kernels::cuda {

template <class T> void launch_softmax_last_forward(const T* x, std::int64_t R, std::int64_t K, double scale, T* y);
template <class T>
void launch_softmax_last_backward(const T* y, const T* dy, std::int64_t R, std::int64_t K, double scale, T* dx);
// gamma and beta null: no affine part.
template <class T>
void launch_layer_norm_forward(const T* x, const T* gamma, const T* beta, std::int64_t R, std::int64_t D, double epsilon,
                               T* y, T* mean, T* rstd);
// dx, dgamma, dbeta null: not computed; the column sums run first, since dx may alias dy.
template <class T>
void launch_layer_norm_backward(const T* x, const T* dy, const T* gamma, const T* mean, const T* rstd, std::int64_t R,
                                std::int64_t D, T* dx, T* dgamma, T* dbeta);
template <class T> void launch_permute(const PermuteGeometry& g, const T* x, T* y);

}  // namespace ablate::kernels::cuda
