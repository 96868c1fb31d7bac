// The CUDA backend's batch normalisation kernels (see cuda_batch_norm_kernels.h).
#include "kernels/cuda/cuda_batch_norm_kernels.h"

#include "kernels/cuda/cuda_check.h"
#include "kernels/cuda/cuda_launch.h"

namespace ablate::kernels::cuda {
namespace {

// Index of the j-th of the M values of channel c.
__device__ std::int64_t channel_index(const BatchGeometry& g, std::int64_t c, std::int64_t j) {
  return ((j / g.S) * g.C + c) * g.S + j % g.S;
}

// The sum over the block's threads of v (a fixed tree: deterministic); every thread gets it.
__device__ double block_sum(double v) {
  __shared__ double shared[kThreads];
  __syncthreads();  // the previous call's readers are done
  shared[threadIdx.x] = v;
  __syncthreads();
  for (int stride = kThreads / 2; stride > 0; stride /= 2) {
    if (threadIdx.x < stride) shared[threadIdx.x] += shared[threadIdx.x + stride];
    __syncthreads();
  }
  return shared[0];
}

__device__ ChannelAffine affine_of(double mean, double var, double gamma, double beta, double eps) {
  const double scale = gamma / sqrt(var + eps);
  return {mean, scale, beta};
}

// One block per channel.
template <class T>
__global__ void stats_kernel(BatchGeometry g, const T* x, const T* gamma, const T* beta, double eps, T* mean_out,
                             T* var_out, ChannelAffine* affine) {
  const std::int64_t c = blockIdx.x, m = g.N * g.S;
  double s = 0;
  for (std::int64_t j = threadIdx.x; j < m; j += blockDim.x) s += x[channel_index(g, c, j)];
  const double mean = block_sum(s) / double(m);
  double q = 0;
  for (std::int64_t j = threadIdx.x; j < m; j += blockDim.x) {
    const double d = double(x[channel_index(g, c, j)]) - mean;
    q += d * d;
  }
  const double var = block_sum(q) / double(m);
  if (threadIdx.x == 0) {
    mean_out[c] = T(mean);
    var_out[c] = T(var);
    affine[c] = affine_of(mean, var, gamma ? double(gamma[c]) : 1.0, beta ? double(beta[c]) : 0.0, eps);
  }
}

template <class T>
__global__ void affine_kernel(std::int64_t C, const T* gamma, const T* beta, const T* mean, const T* var, double eps,
                              ChannelAffine* affine) {
  GRID_LOOP(c, C) affine[c] = affine_of(mean[c], var[c], gamma ? double(gamma[c]) : 1.0, beta ? double(beta[c]) : 0.0, eps);
}

template <class T> __global__ void apply_kernel(BatchGeometry g, const T* x, const ChannelAffine* affine, T* y) {
  const std::int64_t n = g.N * g.C * g.S;
  GRID_LOOP(i, n) {
    const ChannelAffine a = affine[(i / g.S) % g.C];
    y[i] = T((double(x[i]) - a.mean) * a.scale + a.shift);
  }
}

// One block per channel.
template <class T>
__global__ void backward_sums_kernel(BatchGeometry g, const T* x, const T* dy, const T* mean, const T* var, double eps,
                                     double* sums, T* dgamma, T* dbeta) {
  const std::int64_t c = blockIdx.x, m = g.N * g.S;
  const double mu = mean[c], inv_s = 1.0 / sqrt(double(var[c]) + eps);
  double s = 0, sx = 0;
  for (std::int64_t j = threadIdx.x; j < m; j += blockDim.x) {
    const std::int64_t i = channel_index(g, c, j);
    s += dy[i];
    sx += double(dy[i]) * (double(x[i]) - mu) * inv_s;
  }
  const double sum_dy = block_sum(s), sum_dy_xhat = block_sum(sx);
  if (threadIdx.x == 0) {
    sums[2 * c] = sum_dy;
    sums[2 * c + 1] = sum_dy_xhat;
    if (dbeta) dbeta[c] = T(sum_dy);
    if (dgamma) dgamma[c] = T(sum_dy_xhat);
  }
}

template <class T>
__global__ void backward_data_kernel(BatchGeometry g, const T* x, const T* dy, const T* gamma, const T* mean,
                                     const T* var, double eps, const double* sums, T* dx) {
  const std::int64_t n = g.N * g.C * g.S;
  const double m = double(g.N * g.S);
  GRID_LOOP(i, n) {
    const std::int64_t c = (i / g.S) % g.C;
    const double inv_s = 1.0 / sqrt(double(var[c]) + eps), x_hat = (double(x[i]) - double(mean[c])) * inv_s;
    const double scale = (gamma ? double(gamma[c]) : 1.0) * inv_s;
    dx[i] = T(scale * (double(dy[i]) - (sums[2 * c] + x_hat * sums[2 * c + 1]) / m));
  }
}

}  // namespace

template <class T>
void launch_batch_norm_stats(const BatchGeometry& g, const T* x, const T* gamma, const T* beta, double eps, T* mean_out,
                             T* var_out, ChannelAffine* affine) {
  stats_kernel<T><<<static_cast<unsigned>(g.C), kThreads>>>(g, x, gamma, beta, eps, mean_out, var_out, affine);
  ABLATE_CUDA_LAUNCHED();
}
template <class T>
void launch_batch_norm_affine(std::int64_t C, const T* gamma, const T* beta, const T* mean, const T* var, double eps,
                              ChannelAffine* affine) {
  affine_kernel<T><<<blocks_for(C), kThreads>>>(C, gamma, beta, mean, var, eps, affine);
  ABLATE_CUDA_LAUNCHED();
}
template <class T> void launch_batch_norm_apply(const BatchGeometry& g, const T* x, const ChannelAffine* affine, T* y) {
  apply_kernel<T><<<blocks_for(g.N * g.C * g.S), kThreads>>>(g, x, affine, y);
  ABLATE_CUDA_LAUNCHED();
}
template <class T>
void launch_batch_norm_backward_sums(const BatchGeometry& g, const T* x, const T* dy, const T* mean, const T* var,
                                     double eps, double* sums, T* dgamma, T* dbeta) {
  backward_sums_kernel<T><<<static_cast<unsigned>(g.C), kThreads>>>(g, x, dy, mean, var, eps, sums, dgamma, dbeta);
  ABLATE_CUDA_LAUNCHED();
}
template <class T>
void launch_batch_norm_backward_data(const BatchGeometry& g, const T* x, const T* dy, const T* gamma, const T* mean,
                                     const T* var, double eps, const double* sums, T* dx) {
  backward_data_kernel<T><<<blocks_for(g.N * g.C * g.S), kThreads>>>(g, x, dy, gamma, mean, var, eps, sums, dx);
  ABLATE_CUDA_LAUNCHED();
}

#define ABLATE_INSTANTIATE(T)                                                                                        \
  template void launch_batch_norm_stats<T>(const BatchGeometry&, const T*, const T*, const T*, double, T*, T*,       \
                                           ChannelAffine*);                                                          \
  template void launch_batch_norm_affine<T>(std::int64_t, const T*, const T*, const T*, const T*, double,            \
                                            ChannelAffine*);                                                         \
  template void launch_batch_norm_apply<T>(const BatchGeometry&, const T*, const ChannelAffine*, T*);                \
  template void launch_batch_norm_backward_sums<T>(const BatchGeometry&, const T*, const T*, const T*, const T*,     \
                                                   double, double*, T*, T*);                                         \
  template void launch_batch_norm_backward_data<T>(const BatchGeometry&, const T*, const T*, const T*, const T*,     \
                                                   const T*, double, const double*, T*);

ABLATE_INSTANTIATE(float)
ABLATE_INSTANTIATE(double)

}  // namespace ablate::kernels::cuda
