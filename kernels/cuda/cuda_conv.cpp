// Convolution on cuDNN 9 (legacy API): cross-correlation, as every framework's
// "convolution"; the algorithm is chosen once per geometry and recorded (conv_algorithms()):
// the fastest timed by cudnnFind*, or in deterministic mode the first deterministic one in
// cuDNN's heuristic order (cudnnGet*_v7, no timing), so that repeated runs take the same
// algorithms and give the same bits (timed, the fastest deterministic one changed from run to
// run on the H200); FMA math only, no TF32, as on the GPUs of 2016. cuDNN pads symmetrically, so asymmetric padding
// (TF SAME with an odd total) pads x explicitly first and crops dx afterwards.
#include <algorithm>

#include "kernels/cuda/cuda_dnn_util.h"
#include "kernels/cuda/cuda_kernels.h"

namespace ablate::kernels::cuda {
namespace {

struct FilterDesc {
  cudnnFilterDescriptor_t d = nullptr;
  FilterDesc(DType dtype, const Shape& s) {
    ABLATE_CUDA_CHECK(cudnnCreateFilterDescriptor(&d));
    ABLATE_CUDA_CHECK(cudnnSetFilter4dDescriptor(d, dnn_type(dtype), CUDNN_TENSOR_NCHW, int(s[0]), int(s[1]), int(s[2]),
                                                 int(s[3])));
  }
  ~FilterDesc() { cudnnDestroyFilterDescriptor(d); }
  FilterDesc(const FilterDesc&) = delete;
  FilterDesc& operator=(const FilterDesc&) = delete;
};
struct ConvDesc {
  cudnnConvolutionDescriptor_t d = nullptr;
  ConvDesc(DType dtype, int pad_h, int pad_w, const Conv2dParams& p) {
    ABLATE_CUDA_CHECK(cudnnCreateConvolutionDescriptor(&d));
    ABLATE_CUDA_CHECK(cudnnSetConvolution2dDescriptor(d, pad_h, pad_w, p.stride_h, p.stride_w, 1, 1,
                                                      CUDNN_CROSS_CORRELATION, dnn_type(dtype)));
    ABLATE_CUDA_CHECK(cudnnSetConvolutionMathType(d, CUDNN_FMA_MATH));
  }
  ~ConvDesc() { cudnnDestroyConvolutionDescriptor(d); }
  ConvDesc(const ConvDesc&) = delete;
  ConvDesc& operator=(const ConvDesc&) = delete;
};

// The first successful result (the fastest timed, or the heuristic's first), deterministic ones
// only when asked.
template <class Perf> ConvChoice pick(const char* what, const Perf* perf, int count, bool deterministic) {
  for (int i = 0; i < count; ++i) {
    if (perf[i].status != CUDNN_STATUS_SUCCESS) continue;
    if (deterministic && perf[i].determinism != CUDNN_DETERMINISTIC) continue;
    return {int(perf[i].algo), perf[i].memory, perf[i].determinism == CUDNN_DETERMINISTIC};
  }
  throw std::runtime_error(std::string("backend 'cuda': cuDNN found no usable ") +
                           (deterministic ? "deterministic " : "") + what + " convolution algorithm");
}

std::string shape_key(const Shape& s) { return shape_string(s); }

bool symmetric(const Conv2dParams& p) { return p.pad_top == p.pad_bottom && p.pad_left == p.pad_right; }
Shape padded(const Shape& x, const Conv2dParams& p) {
  return {x[0], x[1], x[2] + p.pad_top + p.pad_bottom, x[3] + p.pad_left + p.pad_right};
}
void pad_planes(const Tensor& x_dev_src, const void* x, const Shape& s, const Conv2dParams& p, void* xp) {
  Shape ps = padded(s, p);
  with_float(x_dev_src.dtype(), [&](auto tag) {
    using T = decltype(tag);
    launch_pad2d<T>(static_cast<const T*>(x), s[0] * s[1], s[2], s[3], p.pad_top, p.pad_left, ps[2], ps[3], static_cast<T*>(xp));
  });
}

}  // namespace

void* CudaBackend::workspace(std::size_t bytes) {
  if (bytes == 0) return nullptr;
  if (workspace_.empty() || workspace_.bytes() < bytes)
    workspace_ = Tensor({std::int64_t(bytes)}, DType::u8, &cuda_allocator());
  return workspace_.raw_data();
}

std::vector<std::string> CudaBackend::conv_algorithms() const {
  std::vector<std::string> lines;
  for (const auto& [key, c] : conv_choices_)
    lines.push_back(key + ": algo " + std::to_string(c.algorithm) + ", workspace " + std::to_string(c.workspace_bytes) +
                    " B" + (c.deterministic ? ", deterministic" : ""));
  return lines;
}

std::vector<std::pair<std::string, std::string>> CudaBackend::choices() const {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [key, c] : conv_choices_)
    out.emplace_back("cudnn " + key, "algo " + std::to_string(c.algorithm) + ", workspace " +
                                         std::to_string(c.workspace_bytes) + " B" + (c.deterministic ? ", deterministic" : ""));
  return out;
}

// forward: a = x, b = w, out = y; backward_data: a = dy, b = w, out = dx;
// backward_filter: a = x, b = dy, out = dw. Shapes are of x (already padded), w and y.
void CudaBackend::run_conv(ConvPass pass, DType dtype, const Shape& x_shape, const Shape& w_shape, const Shape& y_shape,
                           int pad_h, int pad_w, const Conv2dParams& p, const void* a, const void* b, void* out) {
  TensorDesc xd(dtype, x_shape), yd(dtype, y_shape);
  FilterDesc wd(dtype, w_shape);
  ConvDesc cd(dtype, pad_h, pad_w, p);
  static const char* names[] = {"fwd", "bwd_data", "bwd_filter"};
  std::string key = std::string(names[int(pass)]) + " " + dtype_name(dtype) + " x" + shape_key(x_shape) + " w" +
                    shape_key(w_shape) + " pad " + std::to_string(pad_h) + "," + std::to_string(pad_w) + " stride " +
                    std::to_string(p.stride_h) + "," + std::to_string(p.stride_w);
  auto it = conv_choices_.find(key);
  if (it == conv_choices_.end()) {
    int count = 0;
    ConvChoice choice;
    // The timed search, or cuDNN's heuristic order (no timing) in deterministic mode; both take
    // the same arguments and fill the same results.
    if (pass == ConvPass::forward) {
      cudnnConvolutionFwdAlgoPerf_t perf[CUDNN_CONVOLUTION_FWD_ALGO_COUNT];
      const int n = CUDNN_CONVOLUTION_FWD_ALGO_COUNT;
      ABLATE_CUDA_CHECK(deterministic_ ? cudnnGetConvolutionForwardAlgorithm_v7(dnn_, xd.d, wd.d, cd.d, yd.d, n, &count, perf)
                                       : cudnnFindConvolutionForwardAlgorithm(dnn_, xd.d, wd.d, cd.d, yd.d, n, &count, perf));
      choice = pick("forward", perf, count, deterministic_);
      if (deterministic_)
        ABLATE_CUDA_CHECK(cudnnGetConvolutionForwardWorkspaceSize(dnn_, xd.d, wd.d, cd.d, yd.d,
                                                                  cudnnConvolutionFwdAlgo_t(choice.algorithm),
                                                                  &choice.workspace_bytes));
    } else if (pass == ConvPass::backward_data) {
      cudnnConvolutionBwdDataAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT];
      const int n = CUDNN_CONVOLUTION_BWD_DATA_ALGO_COUNT;
      ABLATE_CUDA_CHECK(deterministic_
                            ? cudnnGetConvolutionBackwardDataAlgorithm_v7(dnn_, wd.d, yd.d, cd.d, xd.d, n, &count, perf)
                            : cudnnFindConvolutionBackwardDataAlgorithm(dnn_, wd.d, yd.d, cd.d, xd.d, n, &count, perf));
      choice = pick("backward-data", perf, count, deterministic_);
      if (deterministic_)
        ABLATE_CUDA_CHECK(cudnnGetConvolutionBackwardDataWorkspaceSize(dnn_, wd.d, yd.d, cd.d, xd.d,
                                                                       cudnnConvolutionBwdDataAlgo_t(choice.algorithm),
                                                                       &choice.workspace_bytes));
    } else {
      cudnnConvolutionBwdFilterAlgoPerf_t perf[CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT];
      const int n = CUDNN_CONVOLUTION_BWD_FILTER_ALGO_COUNT;
      ABLATE_CUDA_CHECK(deterministic_
                            ? cudnnGetConvolutionBackwardFilterAlgorithm_v7(dnn_, xd.d, yd.d, cd.d, wd.d, n, &count, perf)
                            : cudnnFindConvolutionBackwardFilterAlgorithm(dnn_, xd.d, yd.d, cd.d, wd.d, n, &count, perf));
      choice = pick("backward-filter", perf, count, deterministic_);
      if (deterministic_)
        ABLATE_CUDA_CHECK(cudnnGetConvolutionBackwardFilterWorkspaceSize(dnn_, xd.d, yd.d, cd.d, wd.d,
                                                                         cudnnConvolutionBwdFilterAlgo_t(choice.algorithm),
                                                                         &choice.workspace_bytes));
    }
    it = conv_choices_.emplace(key, choice).first;
  }
  const ConvChoice& c = it->second;
  void* ws = workspace(c.workspace_bytes);
  const void *one = kScalars.one(dtype), *zero = kScalars.zero(dtype);
  if (pass == ConvPass::forward)
    ABLATE_CUDA_CHECK(cudnnConvolutionForward(dnn_, one, xd.d, a, wd.d, b, cd.d, cudnnConvolutionFwdAlgo_t(c.algorithm), ws,
                                              c.workspace_bytes, zero, yd.d, out));
  else if (pass == ConvPass::backward_data)
    ABLATE_CUDA_CHECK(cudnnConvolutionBackwardData(dnn_, one, wd.d, b, yd.d, a, cd.d,
                                                   cudnnConvolutionBwdDataAlgo_t(c.algorithm), ws, c.workspace_bytes,
                                                   zero, xd.d, out));
  else
    ABLATE_CUDA_CHECK(cudnnConvolutionBackwardFilter(dnn_, one, xd.d, a, yd.d, b, cd.d,
                                                     cudnnConvolutionBwdFilterAlgo_t(c.algorithm), ws,
                                                     c.workspace_bytes, zero, wd.d, out));
}

void CudaBackend::conv2d_forward_impl(const Tensor& x, const Tensor& w, const Tensor& bias, Tensor& y,
                                      const Conv2dParams& p) {
  const Shape& ys = y.shape();
  if (y.numel() == 0) return;
  {
    DeviceArg dx(x, false), dw(w, false), dy(y, true);
    if (symmetric(p)) {
      run_conv(ConvPass::forward, x.dtype(), x.shape(), w.shape(), ys, p.pad_top, p.pad_left, p, dx.ptr(), dw.ptr(), dy.ptr());
    } else {
      Tensor xp = device_tensor(padded(x.shape(), p), x.dtype());
      pad_planes(x, dx.ptr(), x.shape(), p, xp.raw_data());
      run_conv(ConvPass::forward, x.dtype(), xp.shape(), w.shape(), ys, 0, 0, p, xp.raw_data(), dw.ptr(), dy.ptr());
    }
    dy.finish();
  }
  if (!bias.empty()) bias_add_impl(y, bias);
  // The epilogue: the activation kernel after, in place (cudnnConvolutionBiasActivationForward
  // would fuse relu only, and only with CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM).
  if (p.activation) activation_forward_impl(*p.activation, y, y);
}

void CudaBackend::conv2d_backward_data_impl(const Tensor& dy, const Tensor& w, Tensor& dx, const Conv2dParams& p) {
  const Shape& ys = dy.shape();
  if (dx.numel() == 0) return;
  DeviceArg ddy(dy, false), dw(w, false), ddx(dx, true);
  if (dy.numel() == 0) {
    ABLATE_CUDA_CHECK(cudaMemset(ddx.ptr(), 0, dx.bytes()));
  } else if (symmetric(p)) {
    run_conv(ConvPass::backward_data, dx.dtype(), dx.shape(), w.shape(), ys, p.pad_top, p.pad_left, p, ddy.ptr(), dw.ptr(),
             ddx.ptr());
  } else {
    Shape ps = padded(dx.shape(), p);
    Tensor dxp = device_tensor(ps, dx.dtype());
    run_conv(ConvPass::backward_data, dx.dtype(), ps, w.shape(), ys, 0, 0, p, ddy.ptr(), dw.ptr(), dxp.raw_data());
    with_float(dx.dtype(), [&](auto tag) {
      using T = decltype(tag);
      launch_crop2d<T>(static_cast<const T*>(dxp.raw_data()), dx.dim(0) * dx.dim(1), dx.dim(2), dx.dim(3), p.pad_top,
                       p.pad_left, ps[2], ps[3], ddx.as<T>());
    });
  }
  ddx.finish();
}

void CudaBackend::conv2d_backward_weights_impl(const Tensor& x, const Tensor& dy, Tensor& dw, Tensor& dbias,
                                               const Conv2dParams& p) {
  const Shape& ys = dy.shape();
  if (dw.numel() != 0) {
    DeviceArg dx(x, false), ddy(dy, false), ddw(dw, true);
    if (dy.numel() == 0) {
      ABLATE_CUDA_CHECK(cudaMemset(ddw.ptr(), 0, dw.bytes()));
    } else if (symmetric(p)) {
      run_conv(ConvPass::backward_filter, x.dtype(), x.shape(), dw.shape(), ys, p.pad_top, p.pad_left, p, dx.ptr(),
               ddy.ptr(), ddw.ptr());
    } else {
      Tensor xp = device_tensor(padded(x.shape(), p), x.dtype());
      pad_planes(x, dx.ptr(), x.shape(), p, xp.raw_data());
      run_conv(ConvPass::backward_filter, x.dtype(), xp.shape(), dw.shape(), ys, 0, 0, p, xp.raw_data(), ddy.ptr(), ddw.ptr());
    }
    ddw.finish();
  }
  if (!dbias.empty()) bias_backward_impl(dy, dbias);
}

}  // namespace ablate::kernels::cuda
