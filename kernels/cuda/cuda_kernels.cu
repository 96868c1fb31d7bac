// The launchers of the CUDA backend's own kernels (see cuda_kernels.h): each builds the
// kernel's struct (cuda_*_bodies.h, where the per-thread bodies and grids are) and launches
// it (cuda_launch.h); tests/kernels/cuda_host_kernels_test.cpp runs the same structs on the host.
#include "kernels/cuda/cuda_kernels.h"

#include "kernels/cuda/cuda_launch.h"
#include "kernels/cuda/cuda_loss_bodies.h"
#include "kernels/cuda/cuda_optimizer_bodies.h"

namespace ablate::kernels::cuda {

template <class T> void launch_fill(T* x, std::int64_t n, double value) { launch_grid(FillKernel<T>{x, n, T(value)}); }
template <class T>
void launch_elementwise(Elementwise op, std::int64_t n, double alpha, const T* x, double beta, const T* y, T* out) {
  launch_grid(ElementwiseKernel<T>{op, n, alpha, x, beta, y, out});
}
template <class T> void launch_partial_sums(const T* x, std::int64_t n, bool squares, double* partials) {
  launch_block_sums(PartialSumsKernel<T>{x, n, squares, partials});
}
template <class T> void launch_argmax_rows(const T* x, std::int64_t rows, std::int64_t cols, std::int32_t* out) {
  launch_grid(ArgmaxRowsKernel<T>{x, rows, cols, out});
}
template <class T> void launch_bias_add(T* y, const T* bias, std::int64_t N, std::int64_t C, std::int64_t inner) {
  launch_grid(BiasAddKernel<T>{y, bias, N, C, inner});
}
template <class T> void launch_bias_backward(const T* dy, T* dbias, std::int64_t N, std::int64_t C, std::int64_t inner) {
  launch_block_sums(BiasBackwardKernel<T>{dy, dbias, N, C, inner});
}
template <class T> void launch_dropout_mask(T* mask, std::int64_t n, double keep, std::uint64_t seed, std::uint64_t first) {
  launch_grid(DropoutKernel<T>{mask, n, keep, seed, first});
}
template <class T>
void launch_xent_rows(const T* x, const std::int32_t* labels, std::int64_t N, std::int64_t K, double* row_loss) {
  launch_grid(XentRowsKernel<T>{x, labels, N, K, row_loss});
}
template <class T>
void launch_xent_backward(const T* p, const std::int32_t* labels, std::int64_t N, std::int64_t K, double scale, T* d) {
  launch_grid(XentBackwardKernel<T>{p, labels, N, K, scale, d});
}
template <class T>
void launch_nll_rows(const T* logp, const std::int32_t* labels, std::int64_t N, std::int64_t K, double* row_loss) {
  launch_grid(NllRowsKernel<T>{logp, labels, N, K, row_loss});
}
template <class T> void launch_nll_backward(const std::int32_t* labels, std::int64_t N, std::int64_t K, double scale, T* d) {
  launch_grid(NllBackwardKernel<T>{labels, N, K, scale, d});
}
template <class T> void launch_pool_forward(const PoolGeometry& g, const T* x, T* y, std::int32_t* argmax) {
  launch_grid(PoolForwardKernel<T>{g, x, y, argmax});
}
template <class T>
void launch_pool_backward(const PoolGeometry& g, const T* x, const T* y, const T* dy, const std::int32_t* argmax, T* dx) {
  launch_grid(PoolBackwardKernel<T>{g, x, y, dy, argmax, dx});
}
template <class T>
void launch_pad2d(const T* x, std::int64_t planes, std::int64_t H, std::int64_t W, int top, int left, std::int64_t HP,
                  std::int64_t WP, T* xp) {
  launch_grid(Pad2dKernel<T>{{planes, H, W, top, left, HP, WP}, x, xp});
}
template <class T>
void launch_crop2d(const T* xp, std::int64_t planes, std::int64_t H, std::int64_t W, int top, int left, std::int64_t HP,
                   std::int64_t WP, T* x) {
  launch_grid(Crop2dKernel<T>{{planes, H, W, top, left, HP, WP}, xp, x});
}
template <class T> void launch_gelu_forward(const T* x, T* y, std::int64_t n, GeluApprox approx) {
  launch_grid(GeluForwardKernel<T>{x, y, n, approx});
}
template <class T> void launch_gelu_backward(const T* x, const T* dy, T* dx, std::int64_t n, GeluApprox approx) {
  launch_grid(GeluBackwardKernel<T>{x, dy, dx, n, approx});
}
template <class T>
void launch_caffe_sgd(T* w, T* g, T* h, std::int64_t n, double lr, double momentum, double weight_decay) {
  launch_grid(CaffeSgdKernel<T>{w, g, h, n, lr, momentum, weight_decay});
}
template <class T>
void launch_torch_sgd(T* w, T* g, T* v, std::int64_t n, double lr, double momentum, double dampening,
                      double weight_decay, bool nesterov, bool first) {
  launch_grid(TorchSgdKernel<T>{w, g, v, n, lr, momentum, dampening, weight_decay, nesterov, first});
}
template <class T>
void launch_adam(T* w, const T* g, T* m, T* v, std::int64_t n, double lr_t, double beta1, double beta2, double eps) {
  launch_grid(AdamKernel<T>{w, g, m, v, n, lr_t, beta1, beta2, eps});
}

#define ABLATE_INSTANTIATE(T)                                                                                     \
  template void launch_fill<T>(T*, std::int64_t, double);                                                         \
  template void launch_elementwise<T>(Elementwise, std::int64_t, double, const T*, double, const T*, T*);          \
  template void launch_partial_sums<T>(const T*, std::int64_t, bool, double*);                                    \
  template void launch_argmax_rows<T>(const T*, std::int64_t, std::int64_t, std::int32_t*);                       \
  template void launch_bias_add<T>(T*, const T*, std::int64_t, std::int64_t, std::int64_t);                       \
  template void launch_bias_backward<T>(const T*, T*, std::int64_t, std::int64_t, std::int64_t);                  \
  template void launch_dropout_mask<T>(T*, std::int64_t, double, std::uint64_t, std::uint64_t);                   \
  template void launch_xent_rows<T>(const T*, const std::int32_t*, std::int64_t, std::int64_t, double*);          \
  template void launch_xent_backward<T>(const T*, const std::int32_t*, std::int64_t, std::int64_t, double, T*);   \
  template void launch_nll_rows<T>(const T*, const std::int32_t*, std::int64_t, std::int64_t, double*);           \
  template void launch_nll_backward<T>(const std::int32_t*, std::int64_t, std::int64_t, double, T*);              \
  template void launch_pool_forward<T>(const PoolGeometry&, const T*, T*, std::int32_t*);                         \
  template void launch_pool_backward<T>(const PoolGeometry&, const T*, const T*, const T*, const std::int32_t*, T*); \
  template void launch_pad2d<T>(const T*, std::int64_t, std::int64_t, std::int64_t, int, int, std::int64_t,       \
                                std::int64_t, T*);                                                                \
  template void launch_crop2d<T>(const T*, std::int64_t, std::int64_t, std::int64_t, int, int, std::int64_t,      \
                                 std::int64_t, T*);                                                               \
  template void launch_gelu_forward<T>(const T*, T*, std::int64_t, GeluApprox);                                   \
  template void launch_gelu_backward<T>(const T*, const T*, T*, std::int64_t, GeluApprox);                        \
  template void launch_caffe_sgd<T>(T*, T*, T*, std::int64_t, double, double, double);                            \
  template void launch_torch_sgd<T>(T*, T*, T*, std::int64_t, double, double, double, double, bool, bool);        \
  template void launch_adam<T>(T*, const T*, T*, T*, std::int64_t, double, double, double, double);

ABLATE_INSTANTIATE(float)
ABLATE_INSTANTIATE(double)

}  // namespace ablate::kernels::cuda
