// CudaBackend: the Backend op set on one NVIDIA GPU (see cuda_backend.h). Internal header,
// shared by cuda_backend.cpp (identity, staging, BLAS, elementwise, losses, optimizers),
// cuda_dnn.cpp (convolution, pooling, LRN, activations, softmax through cuDNN) and
// cuda_conv_map.cpp (Torch's connection-table convolution on our own kernels).
// Tensors it creates live on the device (cuda_allocator()); an argument that is a host tensor
// (the engine's batch, a test's input) is staged through a device copy (DeviceArg).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "kernels/backend.h"
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

  void gemm(bool trans_a, bool trans_b, double alpha, const Tensor& a, const Tensor& b, double beta, Tensor& c) override;
  void conv2d_forward(const Tensor& x, const Tensor& w, const Tensor& bias, Tensor& y, const Conv2dParams& p) override;
  void conv2d_backward_data(const Tensor& dy, const Tensor& w, Tensor& dx, const Conv2dParams& p) override;
  void conv2d_backward_weights(const Tensor& x, const Tensor& dy, Tensor& dw, Tensor& dbias,
                               const Conv2dParams& p) override;
  void conv2d_map_forward(const Tensor& x, const Tensor& w, const Tensor& bias, const Tensor& table, Tensor& y,
                          const Conv2dParams& p) override;
  void conv2d_map_backward_data(const Tensor& dy, const Tensor& w, const Tensor& table, Tensor& dx,
                                const Conv2dParams& p) override;
  void conv2d_map_backward_weights(const Tensor& x, const Tensor& dy, const Tensor& table, Tensor& dw, Tensor& dbias,
                                   const Conv2dParams& p) override;
  void bias_add(Tensor& y, const Tensor& bias) override;
  void bias_backward(const Tensor& dy, Tensor& dbias) override;
  void linear_forward(const Tensor& x, const Tensor& w, const Tensor& bias, Tensor& y) override;
  void linear_backward_data(const Tensor& dy, const Tensor& w, Tensor& dx) override;
  void linear_backward_weights(const Tensor& x, const Tensor& dy, Tensor& dw, Tensor& dbias) override;
  void pool2d_forward(const Tensor& x, Tensor& y, Tensor& workspace, const Pool2dParams& p) override;
  void pool2d_backward(const Tensor& x, const Tensor& y, const Tensor& dy, const Tensor& workspace, Tensor& dx,
                       const Pool2dParams& p) override;
  void activation_forward(Activation a, const Tensor& x, Tensor& y) override;
  void activation_backward(Activation a, const Tensor& y, const Tensor& dy, Tensor& dx) override;
  void lrn_forward(const Tensor& x, Tensor& y, Tensor& workspace, const LrnParams& p) override;
  void lrn_backward(const Tensor& x, const Tensor& y, const Tensor& dy, const Tensor& workspace, Tensor& dx,
                    const LrnParams& p) override;
  void dropout_mask(Tensor& mask, double keep_prob, std::uint64_t seed, std::uint64_t first_index = 0) override;
  double softmax_xent_forward(const Tensor& logits, const Tensor& labels, Tensor& prob) override;
  void softmax_xent_backward(const Tensor& prob, const Tensor& labels, double scale, Tensor& dlogits) override;
  void softmax_forward(const Tensor& x, Tensor& y) override;
  void log_softmax_forward(const Tensor& x, Tensor& y) override;
  void log_softmax_backward(const Tensor& y, const Tensor& dy, Tensor& dx) override;
  double nll_forward(const Tensor& logp, const Tensor& labels) override;
  void nll_backward(const Tensor& labels, double scale, Tensor& dlogp) override;
  void fill(Tensor& x, double value) override;
  void copy(const Tensor& src, Tensor& dst) override;
  void scale(Tensor& x, double alpha) override;
  void axpy(double alpha, const Tensor& x, Tensor& y) override;
  void axpby(double alpha, const Tensor& x, double beta, Tensor& y) override;
  void add(const Tensor& a, const Tensor& b, Tensor& out) override;
  void mul(const Tensor& a, const Tensor& b, Tensor& out) override;
  double sum(const Tensor& x) override;
  double sum_squares(const Tensor& x) override;
  void argmax_rows(const Tensor& x, Tensor& out) override;
  void caffe_sgd_update(Tensor& w, Tensor& g, Tensor& history, const CaffeSgdParams& p) override;
  void torch_sgd_update(Tensor& w, Tensor& g, Tensor& velocity, const TorchSgdParams& p) override;
  void adam_update(Tensor& w, const Tensor& g, Tensor& m, Tensor& v, const AdamParams& p) override;

  // A zero-filled device tensor (Tensor's constructor zero-fills host memory only).
  Tensor device_tensor(const Shape& shape, DType dtype);

 private:
  enum class ConvPass { forward, backward_data, backward_filter };
  // Runs one convolution pass with cuDNN on device pointers; x is already padded symmetrically.
  void run_conv(ConvPass pass, DType dtype, const Shape& x_shape, const Shape& w_shape, const Shape& y_shape,
                int pad_h, int pad_w, const Conv2dParams& p, const void* a, const void* b, void* out);
  void* workspace(std::size_t bytes);
  double reduce(const char* op, const Tensor& x, bool squares);
  void elementwise(const char* op, int kind, double alpha, const Tensor& x, double beta, const Tensor* y, Tensor& out);
  void softmax_rows(const char* op, const Tensor& x, Tensor& y, bool log_space);

  int device_ = 0;
  int threads_ = 1;
  bool deterministic_ = false;
  cublasHandle_t blas_ = nullptr;
  cudnnHandle_t dnn_ = nullptr;
  std::map<std::string, ConvChoice> conv_choices_;  // by pass and geometry
  Tensor workspace_;  // the cuDNN workspace, grown to the largest request
};

// Helpers shared by the two implementation files.
void require_float(const char* op, const char* arg, const Tensor& t);
void require_same_numel(const char* op, const char* arg, const Tensor& t, std::int64_t numel);
[[noreturn]] void fail(const char* op, const std::string& message);
// The output shape [N, K, OH, OW] of x [N,C,H,W] convolved with w [K,C,KH,KW]; throws for bad
// strides or paddings, a channel mismatch or a kernel larger than the padded input.
Shape conv_out(const char* op, const Shape& x, const Shape& w, const Conv2dParams& p);
// Downloads i32 labels [N] and checks each in [0, K).
void check_labels(const char* op, const Tensor& labels, std::int64_t N, std::int64_t K);
// Calls f(float{}) or f(double{}) for an f32 or f64 tensor.
template <class F> auto with_float(DType dtype, F&& f) {
  if (dtype == DType::f64) return f(double{});
  return f(float{});
}

}  // namespace ablate::kernels::cuda
