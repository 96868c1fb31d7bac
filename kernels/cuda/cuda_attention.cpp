// The attention ops on the CUDA backend: softmax along the last axis, layer normalisation and
// axis permutation on our own kernels (cuda_attention.cu), in the tensor's precision. Checked on
// the host over their whole launch grid (tests/kernels/cuda_host_attention_kernels_test.cpp) and,
// where a GPU is present, by the conformance cases; fused attention is not on cuda yet.
#include "kernels/cuda/cuda_attention_kernels.h"
#include "kernels/cuda/cuda_backend_impl.h"

namespace ablate::kernels::cuda {
namespace {

std::int64_t last_dim(const Tensor& t) { return t.dim(t.ndim() - 1); }

}  // namespace

void CudaBackend::softmax_last_forward_impl(const Tensor& x, double scale, Tensor& y) {
  if (x.numel() == 0) return;
  DeviceArg dx(x, false), dy(y, true);
  with_float(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    launch_softmax_last_forward<T>(dx.as<T>(), x.numel() / last_dim(x), last_dim(x), scale, dy.as<T>());
  });
  dy.finish();
}

void CudaBackend::softmax_last_backward_impl(const Tensor& y, const Tensor& dy, double scale, Tensor& dx) {
  if (y.numel() == 0) return;
  DeviceArg dyv(y, false), ddy(dy, false), ddx(dx, true);
  with_float(y.dtype(), [&](auto tag) {
    using T = decltype(tag);
    launch_softmax_last_backward<T>(dyv.as<T>(), ddy.as<T>(), y.numel() / last_dim(y), last_dim(y), scale, ddx.as<T>());
  });
  ddx.finish();
}

void CudaBackend::layer_norm_forward_impl(const Tensor& x, const Tensor& gamma, const Tensor& beta, double epsilon,
                                          Tensor& y, Tensor& mean, Tensor& rstd) {
  if (x.numel() == 0) return;
  DeviceArg dx(x, false), dg(gamma, false), db(beta, false), dy(y, true), dm(mean, true), dr(rstd, true);
  with_float(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    launch_layer_norm_forward<T>(dx.as<T>(), dg.as<T>(), db.as<T>(), x.numel() / last_dim(x), last_dim(x), epsilon,
                                 dy.as<T>(), dm.as<T>(), dr.as<T>());
  });
  dy.finish();
  dm.finish();
  dr.finish();
}

// An empty gamma, dx, dgamma or dbeta gives a null pointer (DeviceArg of an empty tensor).
void CudaBackend::layer_norm_backward_impl(const Tensor& x, const Tensor& dy, const Tensor& gamma, const Tensor& mean,
                                           const Tensor& rstd, Tensor& dx, Tensor& dgamma, Tensor& dbeta) {
  if (x.numel() == 0) return;
  DeviceArg ax(x, false), ady(dy, false), ag(gamma, false), am(mean, false), ar(rstd, false);
  DeviceArg adx(dx, true), adg(dgamma, true), adb(dbeta, true);
  with_float(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    launch_layer_norm_backward<T>(ax.as<T>(), ady.as<T>(), ag.as<T>(), am.as<T>(), ar.as<T>(), x.numel() / last_dim(x),
                                  last_dim(x), adx.as<T>(), adg.as<T>(), adb.as<T>());
  });
  adx.finish();
  adg.finish();
  adb.finish();
}

void CudaBackend::permute_impl(const Tensor& x, const std::vector<int>& perm, Tensor& y) {
  if (x.numel() == 0) return;
  std::int64_t dims[PermuteGeometry::kMaxRank];
  for (int d = 0; d < x.ndim(); ++d) dims[d] = x.dim(d);
  const PermuteGeometry g = permute_geometry(x.ndim(), dims, perm.data());
  DeviceArg dx(x, false), dy(y, true);
  with_float(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    launch_permute<T>(g, dx.as<T>(), dy.as<T>());
  });
  dy.finish();
}

}  // namespace ablate::kernels::cuda
