// Batch normalisation on the CUDA backend, on our own kernels (cuda_batch_norm_kernels.cu):
// cuDNN's cudnnBatchNormalizationForwardTraining keeps the unbiased variance as its running
// statistic and folds the running average into the op, while the Backend returns the batch
// mean and biased variance for the layer to average by its framework's rule. Math:
// kernels/backend.h and kernels/reference/reference_batch_norm.cpp.
#include "kernels/cuda/cuda_backend_impl.h"
#include "kernels/cuda/cuda_batch_norm_kernels.h"

namespace ablate::kernels::cuda {
namespace {

// A device scratch of `count` per-channel affines.
Tensor affine_scratch(CudaBackend& backend, std::int64_t count) {
  return backend.device_tensor({count * std::int64_t(sizeof(ChannelAffine))}, DType::u8);
}

}  // namespace

void CudaBackend::batch_norm_forward_training_impl(const Tensor& x, const Tensor& gamma, const Tensor& beta,
                                                   double epsilon, Tensor& y, Tensor& mean, Tensor& var) {
  const BatchGeometry g = batch_geometry(x.shape());
  Tensor affine = affine_scratch(*this, g.C);
  auto* a = static_cast<ChannelAffine*>(affine.raw_data());
  DeviceArg dx(x, false), dgamma(gamma, false), dbeta(beta, false), dy(y, true), dmean(mean, true), dvar(var, true);
  with_float(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    launch_batch_norm_stats<T>(g, dx.as<T>(), dgamma.as<T>(), dbeta.as<T>(), epsilon, dmean.as<T>(), dvar.as<T>(), a);
    launch_batch_norm_apply<T>(g, dx.as<T>(), a, dy.as<T>());  // after the statistics: y may alias x
  });
  dy.finish(), dmean.finish(), dvar.finish();
}

void CudaBackend::batch_norm_forward_inference_impl(const Tensor& x, const Tensor& gamma, const Tensor& beta,
                                                    const Tensor& mean, const Tensor& var, double epsilon, Tensor& y) {
  const BatchGeometry g = batch_geometry(x.shape());
  Tensor affine = affine_scratch(*this, g.C);
  auto* a = static_cast<ChannelAffine*>(affine.raw_data());
  DeviceArg dx(x, false), dgamma(gamma, false), dbeta(beta, false), dmean(mean, false), dvar(var, false), dy(y, true);
  with_float(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    launch_batch_norm_affine<T>(g.C, dgamma.as<T>(), dbeta.as<T>(), dmean.as<T>(), dvar.as<T>(), epsilon, a);
    launch_batch_norm_apply<T>(g, dx.as<T>(), a, dy.as<T>());
  });
  dy.finish();
}

void CudaBackend::batch_norm_backward_impl(const Tensor& x, const Tensor& dy, const Tensor& gamma, const Tensor& mean,
                                           const Tensor& var, double epsilon, Tensor& dx, Tensor& dgamma,
                                           Tensor& dbeta) {
  const BatchGeometry g = batch_geometry(x.shape());
  Tensor sums = device_tensor({2 * g.C}, DType::f64);
  auto* s = static_cast<double*>(sums.raw_data());
  DeviceArg dxv(x, false), ddy(dy, false), dgam(gamma, false), dmean(mean, false), dvar(var, false);
  DeviceArg ddx(dx, true), ddgamma(dgamma, true), ddbeta(dbeta, true);
  with_float(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    launch_batch_norm_backward_sums<T>(g, dxv.as<T>(), ddy.as<T>(), dmean.as<T>(), dvar.as<T>(), epsilon, s,
                                       ddgamma.as<T>(), ddbeta.as<T>());
    // After every channel's sums: dx may alias dy.
    if (!dx.empty())
      launch_batch_norm_backward_data<T>(g, dxv.as<T>(), ddy.as<T>(), dgam.as<T>(), dmean.as<T>(), dvar.as<T>(),
                                         epsilon, s, ddx.as<T>());
  });
  ddx.finish(), ddgamma.finish(), ddbeta.finish();
}

}  // namespace ablate::kernels::cuda
