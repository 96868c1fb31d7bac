// Launchers of the CUDA backend's own kernels: the ops with no cuBLAS or cuDNN call
// (elementwise, reductions, bias, losses with labels, dropout masks, pooling with the
// frameworks' size rules, optimizer updates). T is float or double; all launch on the
// default stream. Shapes as in kernels/backend.h; every pointer is a device pointer. The
// kernels themselves, and their grids, are the structs of the cuda_*_bodies.h headers.
#pragma once

#include <cstdint>

#include "kernels/cuda/cuda_elementwise_bodies.h"
#include "kernels/cuda/cuda_pool_bodies.h"
#include "kernels/cuda/cuda_reduce_bodies.h"
#include "kernels/op_params.h"

namespace ablate::kernels::cuda {

template <class T> void launch_fill(T* x, std::int64_t n, double value);
// axpby: out = alpha * x + beta * out (beta == 0 ignores out, as BLAS does); add/mul read x, y.
template <class T>
void launch_elementwise(Elementwise op, std::int64_t n, double alpha, const T* x, double beta, const T* y, T* out);
// Writes partial_sums_grid(n).blocks_x partial sums (in double) of x[i] (or x[i]^2) to
// partials; summed on the host in a fixed order, so the result is deterministic.
template <class T> void launch_partial_sums(const T* x, std::int64_t n, bool squares, double* partials);
template <class T> void launch_argmax_rows(const T* x, std::int64_t rows, std::int64_t cols, std::int32_t* out);
// y[n, c, i] += bias[c]; dbias[c] = sum over n, i of dy[n, c, i]  (inner = trailing numel)
template <class T> void launch_bias_add(T* y, const T* bias, std::int64_t N, std::int64_t C, std::int64_t inner);
template <class T> void launch_bias_backward(const T* dy, T* dbias, std::int64_t N, std::int64_t C, std::int64_t inner);
// mask[i] = u(seed, i) < keep ? 1 / keep : 0, u from kernels/counter_random.h's formula.
template <class T> void launch_dropout_mask(T* mask, std::int64_t n, double keep, std::uint64_t seed, std::uint64_t first);
// Per-row -log softmax(x)[label] (log-sum-exp, in double) into row_loss.
template <class T>
void launch_xent_rows(const T* x, const std::int32_t* labels, std::int64_t N, std::int64_t K, double* row_loss);
// d = (p - onehot) * scale
template <class T>
void launch_xent_backward(const T* p, const std::int32_t* labels, std::int64_t N, std::int64_t K, double scale, T* d);
// row_loss[n] = -logp[n, label]; dlogp = -scale at the label, 0 elsewhere.
template <class T>
void launch_nll_rows(const T* logp, const std::int32_t* labels, std::int64_t N, std::int64_t K, double* row_loss);
template <class T>
void launch_nll_backward(const std::int32_t* labels, std::int64_t N, std::int64_t K, double scale, T* d);

// Pooling with Pool2dParams's geometry (PoolGeometry, cuda_pool_bodies.h).
template <class T> void launch_pool_forward(const PoolGeometry& g, const T* x, T* y, std::int32_t* argmax);
// Gathers, for each input cell, the windows that cover it (no atomics: deterministic). Max
// pooling reads argmax, or x and y when g.all_maxima.
template <class T>
void launch_pool_backward(const PoolGeometry& g, const T* x, const T* y, const T* dy, const std::int32_t* argmax, T* dx);

// Zero padding of NCHW planes for asymmetric convolution padding, and its inverse crop.
template <class T>
void launch_pad2d(const T* x, std::int64_t planes, std::int64_t H, std::int64_t W, int top, int left, std::int64_t HP,
                  std::int64_t WP, T* xp);
template <class T>
void launch_crop2d(const T* xp, std::int64_t planes, std::int64_t H, std::int64_t W, int top, int left, std::int64_t HP,
                   std::int64_t WP, T* x);

// GELU (kernels/gelu_math.h) in the tensor's precision: y = GELU(x); dx = dy GELU'(x) (dx may be dy).
template <class T> void launch_gelu_forward(const T* x, T* y, std::int64_t n, GeluApprox approx);
template <class T> void launch_gelu_backward(const T* x, const T* dy, T* dx, std::int64_t n, GeluApprox approx);

// Optimizer updates, each element in double, rounded once (as the reference backend).
template <class T>
void launch_caffe_sgd(T* w, T* g, T* h, std::int64_t n, double lr, double momentum, double weight_decay);
template <class T>
void launch_torch_sgd(T* w, T* g, T* v, std::int64_t n, double lr, double momentum, double dampening,
                      double weight_decay, bool nesterov, bool first);
template <class T>
void launch_adam(T* w, const T* g, T* m, T* v, std::int64_t n, double lr_t, double beta1, double beta2, double eps);

}  // namespace ablate::kernels::cuda
