// CudaBackend: the Backend op set on one NVIDIA GPU (see cuda_backend.h). Internal header,
// shared by cuda_backend.cpp (identity, staging, BLAS, elementwise, losses, optimizers),
// cuda_dnn.cpp (convolution, pooling, LRN, activations, softmax through cuDNN),
// cuda_conv_map.cpp (Torch's connection-table convolution on our own kernels), cuda_gelu.cpp,
// cuda_batch_norm.cpp and cuda_attention.cpp (our own kernels too), cuda_concat.cpp (strided
// device copies).
// Tensors it creates live on the device (cuda_allocator()); an argument that is a host tensor
// (the engine's batch, a test's input) is staged through a device copy (DeviceArg).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "kernels/backend.h"
#include "kernels/contract/op_check.h"
#include "kernels/cuda/cuda_allocator.h"
#include "kernels/cuda/cuda_check.h"

namespace ablate::kernels::cuda {

// The device memory behind one op argument: the tensor's own when it is on the device, else
// a device copy of the host tensor, written back by finish() when the op wrote it.
class DeviceArg {
 public:
  DeviceArg(const Tensor& t, bool written);
  void* ptr() { return ptr_; }
  template <class T> T* as() { return static_cast<T*>(ptr_); }
  void finish();  // copies a staged output back to the host tensor

 private:
  Tensor host_;  // the host tensor (a view sharing its storage), when staged
  Tensor staged_;
  void* ptr_ = nullptr;
  bool written_;
};

// A convolution algorithm chosen for one geometry, recorded for the result.
struct ConvChoice {
  int algorithm = 0;
  std::size_t workspace_bytes = 0;
  bool deterministic = false;
};

class CudaBackend final : public Backend {
 public:
  CudaBackend(int device, bool deterministic);
  ~CudaBackend() override;

  std::string name() const override { return "cuda"; }
  std::string library_version() const override;
  void set_threads(int threads) override { threads_ = threads; }  // host threads only
  int threads() const override { return threads_; }
  Device device() const override { return Device::cuda; }
  Allocator& allocator() override { return cuda_allocator(); }
  void synchronize() override;
  bool deterministic() const override { return deterministic_; }
  void set_deterministic(bool on) { deterministic_ = on; conv_choices_.clear(); }
  bool make_deterministic() override {
    set_deterministic(true);
    return true;
  }
  std::vector<std::pair<std::string, std::string>> choices() const override;
  // "fwd <geometry>: algo 1, workspace 0 B" lines, one per convolution geometry chosen so far.
  std::vector<std::string> conv_algorithms() const;

  // A zero-filled device tensor (Tensor's constructor zero-fills host memory only).
  Tensor device_tensor(const Shape& shape, DType dtype);

 protected:
  void gemm_impl(bool trans_a, bool trans_b, double alpha, const Tensor& a, const Tensor& b, double beta,
                 Tensor& c) override;
  void conv2d_forward_impl(const Tensor& x, const Tensor& w, const Tensor& bias, Tensor& y,
                           const Conv2dParams& p) override;
  void conv2d_backward_data_impl(const Tensor& dy, const Tensor& w, Tensor& dx, const Conv2dParams& p) override;
  void conv2d_backward_weights_impl(const Tensor& x, const Tensor& dy, Tensor& dw, Tensor& dbias,
                                    const Conv2dParams& p) override;
  void conv2d_map_forward_impl(const Tensor& x, const Tensor& w, const Tensor& bias, const Tensor& table, Tensor& y,
                               const Conv2dParams& p) override;
  void conv2d_map_backward_data_impl(const Tensor& dy, const Tensor& w, const Tensor& table, Tensor& dx,
                                     const Conv2dParams& p) override;
  void conv2d_map_backward_weights_impl(const Tensor& x, const Tensor& dy, const Tensor& table, Tensor& dw,
                                        Tensor& dbias, const Conv2dParams& p) override;
  void bias_add_impl(Tensor& y, const Tensor& bias) override;
  void bias_backward_impl(const Tensor& dy, Tensor& dbias) override;
  void linear_forward_impl(const Tensor& x, const Tensor& w, const Tensor& bias, Tensor& y) override;
  void linear_backward_data_impl(const Tensor& dy, const Tensor& w, Tensor& dx) override;
  void linear_backward_weights_impl(const Tensor& x, const Tensor& dy, Tensor& dw, Tensor& dbias) override;
  void pool2d_forward_impl(const Tensor& x, Tensor& y, Tensor& workspace, const Pool2dParams& p) override;
  void pool2d_backward_impl(const Tensor& x, const Tensor& y, const Tensor& dy, const Tensor& workspace, Tensor& dx,
                            const Pool2dParams& p) override;
  void activation_forward_impl(Activation a, const Tensor& x, Tensor& y) override;
  void activation_backward_impl(Activation a, const Tensor& y, const Tensor& dy, Tensor& dx) override;
  void gelu_forward_impl(const Tensor& x, Tensor& y, GeluApprox approx) override;
  void gelu_backward_impl(const Tensor& x, const Tensor& dy, Tensor& dx, GeluApprox approx) override;
  void lrn_forward_impl(const Tensor& x, Tensor& y, Tensor& workspace, const LrnParams& p) override;
  void lrn_backward_impl(const Tensor& x, const Tensor& y, const Tensor& dy, const Tensor& workspace, Tensor& dx,
                         const LrnParams& p) override;
  void batch_norm_forward_training_impl(const Tensor& x, const Tensor& gamma, const Tensor& beta, double epsilon,
                                       Tensor& y, Tensor& mean, Tensor& var) override;
  void batch_norm_forward_inference_impl(const Tensor& x, const Tensor& gamma, const Tensor& beta, const Tensor& mean,
                                        const Tensor& var, double epsilon, Tensor& y) override;
  void batch_norm_backward_impl(const Tensor& x, const Tensor& dy, const Tensor& gamma, const Tensor& mean,
                                const Tensor& var, double epsilon, Tensor& dx, Tensor& dgamma, Tensor& dbeta) override;
  void dropout_mask_impl(Tensor& mask, double keep_prob, std::uint64_t seed, std::uint64_t first_index) override;
  double softmax_xent_forward_impl(const Tensor& logits, const Tensor& labels, Tensor& prob) override;
  void softmax_xent_backward_impl(const Tensor& prob, const Tensor& labels, double scale, Tensor& dlogits) override;
  void softmax_forward_impl(const Tensor& x, Tensor& y) override;
  void log_softmax_forward_impl(const Tensor& x, Tensor& y) override;
  void log_softmax_backward_impl(const Tensor& y, const Tensor& dy, Tensor& dx) override;
  double nll_forward_impl(const Tensor& logp, const Tensor& labels) override;
  void nll_backward_impl(const Tensor& labels, double scale, Tensor& dlogp) override;
  void fill_impl(Tensor& x, double value) override;
  void copy_impl(const Tensor& src, Tensor& dst) override;
  void scale_impl(Tensor& x, double alpha) override;
  void axpy_impl(double alpha, const Tensor& x, Tensor& y) override;
  void axpby_impl(double alpha, const Tensor& x, double beta, Tensor& y) override;
  void add_impl(const Tensor& a, const Tensor& b, Tensor& out) override;
  void mul_impl(const Tensor& a, const Tensor& b, Tensor& out) override;
  void fused_elementwise_impl(const std::vector<const Tensor*>& inputs, const std::vector<ChainStep>& steps,
                              Tensor& out) override;
  double sum_impl(const Tensor& x) override;
  double sum_squares_impl(const Tensor& x) override;
  void argmax_rows_impl(const Tensor& x, Tensor& out) override;
  void concat_forward_impl(const std::vector<const Tensor*>& xs, Tensor& y) override;
  void concat_backward_impl(const Tensor& dy, const std::vector<Tensor*>& dxs) override;
  void caffe_sgd_update_impl(Tensor& w, Tensor& g, Tensor& history, const CaffeSgdParams& p) override;
  void torch_sgd_update_impl(Tensor& w, Tensor& g, Tensor& velocity, const TorchSgdParams& p) override;
  void adam_update_impl(Tensor& w, const Tensor& g, Tensor& m, Tensor& v, const AdamParams& p) override;
  // cuda_attention.cpp (fused attention stays the Backend's "not supported" default)
  void softmax_last_forward_impl(const Tensor& x, double scale, Tensor& y) override;
  void softmax_last_backward_impl(const Tensor& y, const Tensor& dy, double scale, Tensor& dx) override;
  void layer_norm_forward_impl(const Tensor& x, const Tensor& gamma, const Tensor& beta, double epsilon, Tensor& y,
                               Tensor& mean, Tensor& rstd) override;
  void layer_norm_backward_impl(const Tensor& x, const Tensor& dy, const Tensor& gamma, const Tensor& mean,
                                const Tensor& rstd, Tensor& dx, Tensor& dgamma, Tensor& dbeta) override;
  void permute_impl(const Tensor& x, const std::vector<int>& perm, Tensor& y) override;

 private:
  enum class ConvPass { forward, backward_data, backward_filter };
  // Runs one convolution pass with cuDNN on device pointers; x is already padded symmetrically.
  void run_conv(ConvPass pass, DType dtype, const Shape& x_shape, const Shape& w_shape, const Shape& y_shape,
                int pad_h, int pad_w, const Conv2dParams& p, const void* a, const void* b, void* out);
  void* workspace(std::size_t bytes);
  double reduce(const Tensor& x, bool squares);
  void elementwise(int kind, double alpha, const Tensor& x, double beta, const Tensor* y, Tensor& out);
  void softmax_rows(const Tensor& x, Tensor& y, bool log_space);

  int device_ = 0;
  int threads_ = 1;
  bool deterministic_ = false;
  cublasHandle_t blas_ = nullptr;
  cudnnHandle_t dnn_ = nullptr;
  std::map<std::string, ConvChoice> conv_choices_;  // by pass and geometry
  Tensor workspace_;  // the cuDNN workspace, grown to the largest request
};

// Helpers shared by the implementation files.
// A host copy of t (t itself when it is in host memory).
Tensor to_host(const Tensor& t);
// Labels i32 [N] checked by the contract's rule: in host memory the contract has checked
// them; on the device they are downloaded and checked here (one message format: OpCheck).
void check_device_labels(const OpCheck& check, const Tensor& labels, std::int64_t classes);
// Calls f(float{}) or f(double{}) for an f32 or f64 tensor.
template <class F> auto with_float(DType dtype, F&& f) {
  if (dtype == DType::f64) return f(double{});
  return f(float{});
}

}  // namespace ablate::kernels::cuda
