// ReferenceBackend: every op of kernels/backend.h as plain, single-threaded loops written to
// be read, in the manner of llm.c's reference code and Caffe's *_cpu layer functions. It is
// the oracle of the conformance tests and the teaching text of the op set:
//  - convolution is the direct 7-deep loop (no im2col), gemm the triple loop;
//  - every reduction (dot products, sums, softmax normalisers) accumulates in double and
//    rounds once, so the f32 reference is as exact as f32 outputs can be;
//  - tensors are checked at entry (dtype, rank, shape) and a mismatch names the op, the
//    argument, the expected and the actual shape.
// One op family per file: reference_gemm.cpp (gemm, linear), reference_conv.cpp (conv, bias),
// reference_conv_map.cpp (Torch's connection-table convolution),
// reference_pool.cpp, reference_activation.cpp, reference_lrn.cpp, reference_dropout.cpp,
// reference_losses.cpp, reference_elementwise.cpp, reference_optim.cpp.
// Private to kernels/reference/: the rest of the code uses make_reference_backend().
#pragma once

#include "kernels/backend.h"

namespace ablate::kernels::reference {

class ReferenceBackend final : public Backend {
 public:
  std::string name() const override { return "reference"; }
  std::string library_version() const override { return "plain C++ loops"; }
  // The reference is single-threaded: the setting is validated and remembered but ignored,
  // and threads() reports the 1 thread that actually runs.
  void set_threads(int threads) override;
  int threads() const override { return 1; }
  int requested_threads() const { return requested_threads_; }

  void gemm(bool trans_a, bool trans_b, double alpha, const Tensor& a, const Tensor& b, double beta,
            Tensor& c) override;

  void conv2d_forward(const Tensor& x, const Tensor& w, const Tensor& bias, Tensor& y,
                      const Conv2dParams& p) override;
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
  void pool2d_backward(const Tensor& x, const Tensor& y, const Tensor& dy, const Tensor& workspace,
                       Tensor& dx, const Pool2dParams& p) override;

  void activation_forward(Activation a, const Tensor& x, Tensor& y) override;
  void activation_backward(Activation a, const Tensor& y, const Tensor& dy, Tensor& dx) override;

  void lrn_forward(const Tensor& x, Tensor& y, Tensor& workspace, const LrnParams& p) override;
  void lrn_backward(const Tensor& x, const Tensor& y, const Tensor& dy, const Tensor& workspace,
                    Tensor& dx, const LrnParams& p) override;

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

 private:
  int requested_threads_ = 1;
};

}  // namespace ablate::kernels::reference
