// The CUDA backend's other cuDNN 9 ops: LRN across channels, activations and
// (log-)softmax over rows. Pooling runs on our own kernels (cuda_kernels.cu): cuDNN has
// neither Caffe's ceil rule nor TF SAME's asymmetric padding.
#include "kernels/cuda/cuda_dnn_util.h"
#include "kernels/cuda/cuda_kernels.h"

namespace ablate::kernels::cuda {

// --- pooling (own kernels) -------------------------------------------------------------------

void CudaBackend::pool2d_forward_impl(const Tensor& x, Tensor& y, Tensor& workspace, const Pool2dParams& p) {
  PoolGeometry g = pool_geometry(p, x.shape());
  const Shape& ys = y.shape();
  if (p.kind == PoolKind::max &&
      (workspace.empty() || workspace.shape() != ys || workspace.dtype() != DType::i32 || workspace.device() != Device::cuda))
    workspace = device_tensor(ys, DType::i32);
  if (y.numel() == 0) return;
  DeviceArg dx(x, false), dy(y, true);
  with_float(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    launch_pool_forward<T>(g, dx.as<T>(), dy.as<T>(),
                           p.kind == PoolKind::max ? static_cast<std::int32_t*>(workspace.raw_data()) : nullptr);
  });
  dy.finish();
}

void CudaBackend::pool2d_backward_impl(const Tensor& x, const Tensor& y, const Tensor& dy, const Tensor& workspace,
                                       Tensor& dx, const Pool2dParams& p) {
  PoolGeometry g = pool_geometry(p, x.shape());
  g.all_maxima = g.max && pool_gradient() == PoolGradient::all;
  const bool argmax = g.max && !g.all_maxima;
  if (argmax) OpCheck(*this, Op::pool2d_backward).argmax_workspace(workspace, dy.shape());
  if (dx.numel() == 0) return;
  DeviceArg ddy(dy, false), ddx(dx, true), ws(argmax ? workspace : Tensor(), false);
  DeviceArg dxv(g.all_maxima ? x : Tensor(), false), dyv(g.all_maxima ? y : Tensor(), false);
  with_float(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    launch_pool_backward<T>(g, dxv.as<T>(), dyv.as<T>(), ddy.as<T>(), ws.as<std::int32_t>(), ddx.as<T>());
  });
  ddx.finish();
}

// --- activations -------------------------------------------------------------------------------

namespace {
// cuDNN's mode of the activations whose gradient reads y; the GELUs run as gelu_forward and
// gelu_backward (Backend::activation_*), so one here is an error, never another activation.
cudnnActivationMode_t activation_mode(Activation a) {
  switch (a) {
    case Activation::relu: return CUDNN_ACTIVATION_RELU;
    case Activation::tanh: return CUDNN_ACTIVATION_TANH;
    case Activation::sigmoid: return CUDNN_ACTIVATION_SIGMOID;
    case Activation::gelu:
    case Activation::gelu_tanh: break;
  }
  throw std::invalid_argument(std::string("backend 'cuda': activation ") + activation_name(a) +
                              ": expected relu, tanh or sigmoid (GELU runs as gelu_forward/gelu_backward)");
}

struct ActivationDesc {
  cudnnActivationDescriptor_t d = nullptr;
  explicit ActivationDesc(Activation a) {
    const cudnnActivationMode_t mode = activation_mode(a);
    ABLATE_CUDA_CHECK(cudnnCreateActivationDescriptor(&d));
    ABLATE_CUDA_CHECK(cudnnSetActivationDescriptor(d, mode, CUDNN_PROPAGATE_NAN, 0.0));
  }
  ~ActivationDesc() { cudnnDestroyActivationDescriptor(d); }
  ActivationDesc(const ActivationDesc&) = delete;
  ActivationDesc& operator=(const ActivationDesc&) = delete;
};
}  // namespace

void CudaBackend::activation_forward_impl(Activation a, const Tensor& x, Tensor& y) {
  if (x.numel() == 0) return;
  DeviceArg dx(x, false), dy(y, true);
  ActivationDesc ad(a);
  TensorDesc td(x.dtype(), 1, 1, 1, x.numel());
  ABLATE_CUDA_CHECK(cudnnActivationForward(dnn_, ad.d, kScalars.one(x.dtype()), td.d, dx.ptr(), kScalars.zero(x.dtype()),
                                           td.d, dy.ptr()));
  dy.finish();
}

void CudaBackend::activation_backward_impl(Activation a, const Tensor& y, const Tensor& dy, Tensor& dx) {
  if (y.numel() == 0) return;
  DeviceArg dyv(y, false), ddy(dy, false), ddx(dx, true);
  Tensor keep;  // dx may alias dy
  const void* dy_ptr = distinct(ddy.ptr(), ddx.ptr(), dy, keep);
  ActivationDesc ad(a);
  TensorDesc td(y.dtype(), 1, 1, 1, y.numel());
  // The derivative is read from y (relu: y > 0 iff x > 0), so y stands in for x.
  ABLATE_CUDA_CHECK(cudnnActivationBackward(dnn_, ad.d, kScalars.one(y.dtype()), td.d, dyv.ptr(), td.d, dy_ptr, td.d,
                                            dyv.ptr(), kScalars.zero(y.dtype()), td.d, ddx.ptr()));
  ddx.finish();
}

// --- LRN -----------------------------------------------------------------------------------------

namespace {
struct LrnDesc {
  cudnnLRNDescriptor_t d = nullptr;
  // cuDNN's own limits on LRN, beyond the contract's.
  LrnDesc(const OpCheck& check, const LrnParams& p) {
    if (p.size < CUDNN_LRN_MIN_N || p.size > CUDNN_LRN_MAX_N || p.k < CUDNN_LRN_MIN_K || p.beta < CUDNN_LRN_MIN_BETA)
      check.fail("size " + std::to_string(p.size) + ", k " + std::to_string(p.k) + ", beta " + std::to_string(p.beta) +
                   ": cuDNN needs size in [" + std::to_string(CUDNN_LRN_MIN_N) + ", " + std::to_string(CUDNN_LRN_MAX_N) +
                   "], k >= 1e-5 and beta >= 0.01");
    ABLATE_CUDA_CHECK(cudnnCreateLRNDescriptor(&d));
    // cuDNN divides alpha by the window size itself, as LrnParams's formula does.
    ABLATE_CUDA_CHECK(cudnnSetLRNDescriptor(d, unsigned(p.size), p.alpha, p.beta, p.k));
  }
  ~LrnDesc() { cudnnDestroyLRNDescriptor(d); }
  LrnDesc(const LrnDesc&) = delete;
  LrnDesc& operator=(const LrnDesc&) = delete;
};
}  // namespace

void CudaBackend::lrn_forward_impl(const Tensor& x, Tensor& y, Tensor& workspace, const LrnParams& p) {
  LrnDesc ld(OpCheck(*this, Op::lrn_forward), p);
  if (x.numel() == 0) return;
  DeviceArg dx(x, false), dy(y, true);
  TensorDesc td(x.dtype(), x.shape());
  ABLATE_CUDA_CHECK(cudnnLRNCrossChannelForward(dnn_, ld.d, CUDNN_LRN_CROSS_CHANNEL_DIM1, kScalars.one(x.dtype()), td.d,
                                                dx.ptr(), kScalars.zero(x.dtype()), td.d, dy.ptr()));
  dy.finish();
}

void CudaBackend::lrn_backward_impl(const Tensor& x, const Tensor& y, const Tensor& dy, const Tensor& workspace,
                                    Tensor& dx, const LrnParams& p) {
  LrnDesc ld(OpCheck(*this, Op::lrn_backward), p);
  if (x.numel() == 0) return;
  DeviceArg dxv(x, false), dyv(y, false), ddy(dy, false), ddx(dx, true);
  TensorDesc td(x.dtype(), x.shape());
  ABLATE_CUDA_CHECK(cudnnLRNCrossChannelBackward(dnn_, ld.d, CUDNN_LRN_CROSS_CHANNEL_DIM1, kScalars.one(x.dtype()), td.d,
                                                 dyv.ptr(), td.d, ddy.ptr(), td.d, dxv.ptr(), kScalars.zero(x.dtype()),
                                                 td.d, ddx.ptr()));
  ddx.finish();
}

// --- softmax over rows [N,K] as cuDNN instances [N,K,1,1] ---------------------------------------

void CudaBackend::softmax_rows(const Tensor& x, Tensor& y, bool log_space) {
  if (x.numel() == 0) return;
  DeviceArg dx(x, false), dy(y, true);
  TensorDesc td(x.dtype(), x.dim(0), x.dim(1), 1, 1);
  Tensor keep;
  const void* in = distinct(dx.ptr(), dy.ptr(), x, keep);
  ABLATE_CUDA_CHECK(cudnnSoftmaxForward(dnn_, log_space ? CUDNN_SOFTMAX_LOG : CUDNN_SOFTMAX_ACCURATE,
                                        CUDNN_SOFTMAX_MODE_INSTANCE, kScalars.one(x.dtype()), td.d, in,
                                        kScalars.zero(x.dtype()), td.d, dy.ptr()));
  dy.finish();
}

void CudaBackend::softmax_forward_impl(const Tensor& x, Tensor& y) { softmax_rows(x, y, false); }
void CudaBackend::log_softmax_forward_impl(const Tensor& x, Tensor& y) { softmax_rows(x, y, true); }

void CudaBackend::log_softmax_backward_impl(const Tensor& y, const Tensor& dy, Tensor& dx) {
  if (y.numel() == 0) return;
  DeviceArg dyv(y, false), ddy(dy, false), ddx(dx, true);
  TensorDesc td(y.dtype(), y.dim(0), y.dim(1), 1, 1);
  Tensor keep;  // dx may alias dy
  const void* d_out = distinct(ddy.ptr(), ddx.ptr(), dy, keep);
  // cuDNN's LOG mode: dx = dy - exp(y) * sum_k dy.
  ABLATE_CUDA_CHECK(cudnnSoftmaxBackward(dnn_, CUDNN_SOFTMAX_LOG, CUDNN_SOFTMAX_MODE_INSTANCE, kScalars.one(y.dtype()),
                                         td.d, dyv.ptr(), td.d, d_out, kScalars.zero(y.dtype()), td.d, ddx.ptr()));
  ddx.finish();
}

}  // namespace ablate::kernels::cuda
