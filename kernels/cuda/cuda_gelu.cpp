// GELU on the CUDA backend: our own elementwise kernels (cuda_kernels.cu) over the formula of
// kernels/gelu_math.h, in the tensor's precision; cuDNN's legacy activations have no GELU.
#include "kernels/cuda/cuda_backend_impl.h"
#include "kernels/cuda/cuda_kernels.h"

namespace ablate::kernels::cuda {

void CudaBackend::gelu_forward_impl(const Tensor& x, Tensor& y, GeluApprox approx) {
  if (x.numel() == 0) return;
  DeviceArg dx(x, false), dy(y, true);
  with_float(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    launch_gelu_forward<T>(dx.as<T>(), dy.as<T>(), x.numel(), approx);
  });
  dy.finish();
}

void CudaBackend::gelu_backward_impl(const Tensor& x, const Tensor& dy, Tensor& dx, GeluApprox approx) {
  if (x.numel() == 0) return;
  DeviceArg dxv(x, false), ddy(dy, false), ddx(dx, true);
  with_float(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    launch_gelu_backward<T>(dxv.as<T>(), ddy.as<T>(), ddx.as<T>(), x.numel(), approx);
  });
  ddx.finish();
}

}  // namespace ablate::kernels::cuda
