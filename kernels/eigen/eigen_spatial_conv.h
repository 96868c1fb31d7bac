// TensorFlow 1.x's CPU convolution (the eigen backend's eigen_spatial lowering): NHWC tensors
// and HWIO filters, Eigen Tensor contractions on an Eigen::ThreadPoolDevice, the intra-op pool.
//  forward           TF's Conv2D: Eigen::SpatialConvolution (tensorflow/core/kernels/
//                    eigen_spatial_convolutions.h, TF's code, not Eigen's: Debian's Eigen 3.4
//                    has no SpatialConvolution), reproduced as its method: the image patches of
//                    x [N,H,W,C] (extract_image_patches) reshaped to [N*OH*OW, KH*KW*C] and
//                    contracted with the filters [KH*KW*C, K] into y [N*OH*OW, K] = NHWC.
//  backward data     TF 1.x's default CPU kernel for Conv2DBackpropInput,
//                    Conv2DCustomBackpropInputOp (conv_grad_input_ops.cc; the Eigen
//                    SpatialConvolutionBackwardInput kernel was registered only under the label
//                    "eigen_tensor"): per image, col [OH*OW, KH*KW*C] = dy [OH*OW, K] x w^T, then
//                    col2im into dx (NHWC). One parallel contraction per image when the work of
//                    one image per thread passes L2 (256 KiB) or the batch is one image;
//                    otherwise shards of images (L3 = 30 MiB of work) spread over the pool, each
//                    image a single-threaded contraction.
//  backward weights  Conv2DCustomBackpropFilterOp (conv_grad_filter_ops.cc): in shards of images
//                    (30 MiB of work), the im2col of each image spread over the pool, then one
//                    parallel contraction dw [KH*KW*C, K] += col^T [.., KH*KW*C] x dy [.., K].
// The Backend's tensors are NCHW and OIHW, so each call reorders its operands to NHWC / HWIO
// and its result back (TensorFlow, whose graphs were NHWC, had none of these): the reorders
// are counted, and the backend reports them (choices(): reorders.*).
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>

#include "kernels/op_params.h"
#include "kernels/tensor.h"

namespace Eigen {
struct ThreadPoolDevice;
}

namespace ablate::kernels::eigen {

class EigenSpatialConv {
 public:
  EigenSpatialConv();
  ~EigenSpatialConv();
  // The intra-op pool's size (made anew when it changes).
  void set_threads(int threads);
  int threads() const { return threads_; }

  // y [N,K,OH,OW] = x [N,C,H,W] convolved with w [K,C,KH,KW] (no bias); f32 or f64.
  void forward(const Tensor& x, const Tensor& w, Tensor& y, const Conv2dParams& p);
  // dx [N,C,H,W] from dy [N,K,OH,OW] and w.
  void backward_data(const Tensor& dy, const Tensor& w, Tensor& dx, const Conv2dParams& p);
  // dw [K,C,KH,KW] = sum over the images of x correlated with dy.
  void backward_weights(const Tensor& x, const Tensor& dy, Tensor& dw, const Conv2dParams& p);

  // Layout reorders done so far: of activations (NCHW <-> NHWC) and of filters (OIHW <-> HWIO),
  // and the bytes they wrote.
  std::int64_t activation_reorders() const { return activation_reorders_; }
  std::int64_t filter_reorders() const { return filter_reorders_; }
  std::int64_t reorder_bytes() const { return reorder_bytes_; }

  struct Pool;  // the Eigen thread pool and its device (eigen_spatial_conv.cpp)

 private:
  const Eigen::ThreadPoolDevice& device();
  void count(bool filter, std::int64_t bytes);
  template <class T> T* reordered_in(const Tensor& t, bool filter, int slot);
  template <class T> void reordered_out(const T* in, bool filter, Tensor& t);
  template <class T> void forward_t(const Tensor& x, const Tensor& w, Tensor& y, const Conv2dParams& p);
  template <class T> void backward_data_t(const Tensor& dy, const Tensor& w, Tensor& dx, const Conv2dParams& p);
  template <class T> void backward_weights_t(const Tensor& x, const Tensor& dy, Tensor& dw, const Conv2dParams& p);

  int threads_ = 1;
  std::unique_ptr<Pool> pool_;
  std::atomic<std::int64_t> activation_reorders_{0}, filter_reorders_{0}, reorder_bytes_{0};
};

}  // namespace ablate::kernels::eigen
