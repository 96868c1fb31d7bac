// The launchers of the CUDA backend's own attention kernels (cuda_attention_kernels.h): each
// builds its struct (cuda_attention_bodies.h) and launches it (cuda_launch.h);
// tests/kernels/cuda_host_attention_kernels_test.cpp runs the same structs on the host.
#include "kernels/cuda/cuda_attention_kernels.h"

#include "kernels/cuda/cuda_launch.h"

namespace ablate::kernels::cuda {

template <class T> void launch_softmax_last_forward(const T* x, std::int64_t R, std::int64_t K, double scale, T* y) {
  launch_grid(SoftmaxLastForwardKernel<T>{x, R, K, scale, y});
}
template <class T>
void launch_softmax_last_backward(const T* y, const T* dy, std::int64_t R, std::int64_t K, double scale, T* dx) {
  launch_grid(SoftmaxLastBackwardKernel<T>{y, dy, R, K, scale, dx});
}
template <class T>
void launch_layer_norm_forward(const T* x, const T* gamma, const T* beta, std::int64_t R, std::int64_t D, double epsilon,
                               T* y, T* mean, T* rstd) {
  launch_grid(LayerNormForwardKernel<T>{x, gamma, beta, R, D, epsilon, y, mean, rstd});
}
template <class T>
void launch_layer_norm_backward(const T* x, const T* dy, const T* gamma, const T* mean, const T* rstd, std::int64_t R,
                                std::int64_t D, T* dx, T* dgamma, T* dbeta) {
  if (dgamma || dbeta) launch_grid(LayerNormBackwardColumnsKernel<T>{x, dy, mean, rstd, R, D, dgamma, dbeta});
  if (dx) launch_grid(LayerNormBackwardRowsKernel<T>{x, dy, gamma, mean, rstd, R, D, dx});
}
template <class T> void launch_permute(const PermuteGeometry& g, const T* x, T* y) { launch_grid(PermuteKernel<T>{g, x, y}); }

#define ABLATE_INSTANTIATE(T)                                                                                        \
  template void launch_softmax_last_forward<T>(const T*, std::int64_t, std::int64_t, double, T*);                    \
  template void launch_softmax_last_backward<T>(const T*, const T*, std::int64_t, std::int64_t, double, T*);         \
  template void launch_layer_norm_forward<T>(const T*, const T*, const T*, std::int64_t, std::int64_t, double, T*, T*, \
                                             T*);                                                                    \
  template void launch_layer_norm_backward<T>(const T*, const T*, const T*, const T*, const T*, std::int64_t,        \
                                              std::int64_t, T*, T*, T*);                                             \
  template void launch_permute<T>(const PermuteGeometry&, const T*, T*);

ABLATE_INSTANTIATE(float)
ABLATE_INSTANTIATE(double)

}  // namespace ablate::kernels::cuda
