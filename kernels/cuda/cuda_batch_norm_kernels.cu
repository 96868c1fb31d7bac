// Launchers of the CUDA backend's batch normalisation kernels (cuda_batch_norm_bodies.h).
#include "kernels/cuda/cuda_batch_norm_bodies.h"
#include "kernels/cuda/cuda_launch.h"

namespace ablate::kernels::cuda {

template <class T>
void launch_batch_norm_stats(const BatchGeometry& g, const T* x, const T* gamma, const T* beta, double eps, T* mean_out,
                             T* var_out, ChannelAffine* affine) {
  launch_block_sums(BatchNormStatsKernel<T>{g, x, gamma, beta, eps, mean_out, var_out, affine});
}
template <class T>
void launch_batch_norm_affine(std::int64_t C, const T* gamma, const T* beta, const T* mean, const T* var, double eps,
                              ChannelAffine* affine) {
  launch_grid(BatchNormAffineKernel<T>{C, gamma, beta, mean, var, eps, affine});
}
template <class T> void launch_batch_norm_apply(const BatchGeometry& g, const T* x, const ChannelAffine* affine, T* y) {
  launch_grid(BatchNormApplyKernel<T>{g, x, affine, y});
}
template <class T>
void launch_batch_norm_backward_sums(const BatchGeometry& g, const T* x, const T* dy, const T* mean, const T* var,
                                     double eps, double* sums, T* dgamma, T* dbeta) {
  launch_block_sums(BatchNormBackwardSumsKernel<T>{g, x, dy, mean, var, eps, sums, dgamma, dbeta});
}
template <class T>
void launch_batch_norm_backward_data(const BatchGeometry& g, const T* x, const T* dy, const T* gamma, const T* mean,
                                     const T* var, double eps, const double* sums, T* dx) {
  launch_grid(BatchNormBackwardDataKernel<T>{g, x, dy, gamma, mean, var, eps, sums, dx});
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
