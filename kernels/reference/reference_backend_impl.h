// ReferenceBackend: every op of kernels/backend.h as plain, single-threaded loops written to
// be read, in the manner of llm.c's reference code and Caffe's *_cpu layer functions. It is
// the oracle of the conformance tests and the teaching text of the op set:
//  - convolution is the direct 7-deep loop (no im2col), gemm the triple loop;
//  - every reduction (dot products, sums, softmax normalisers) accumulates in double and
//    rounds once, so the f32 reference is as exact as f32 outputs can be;
//  - the arguments arrive checked by the Backend's contract (kernels/contract/).
// One op family per file: reference_gemm.cpp (gemm, linear), reference_conv.cpp (conv, bias),
// reference_conv_map.cpp (Torch's connection-table convolution), reference_pool.cpp,
// reference_activation.cpp (with GELU), reference_lrn.cpp, reference_batch_norm.cpp, reference_dropout.cpp,
// reference_losses.cpp, reference_elementwise.cpp, reference_concat.cpp, reference_optim.cpp,
// reference_attention.cpp (softmax over the last axis, layer norm, permute),
// reference_fused_attention.cpp (attention in one op, its gradient).
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

  // The pair as its two ops over the whole batch, c and dc whole (reference_pool.cpp).
  bool fuses_conv_max_pool(const Pool2dParams& pp) const override { return max_pool_to_first(pp); }
  void conv2d_max_pool_forward_impl(const Tensor& x, const Tensor& w, const Tensor& bias, Tensor& y, Tensor& workspace,
                                    const Conv2dParams& cp, const Pool2dParams& pp) override;
  void conv2d_max_pool_backward_weights_impl(const Tensor& x, const Tensor& dy, const Tensor& workspace, Tensor& dw,
                                             Tensor& dbias, const Conv2dParams& cp, const Pool2dParams& pp) override;
  void pool2d_forward_impl(const Tensor& x, Tensor& y, Tensor& workspace, const Pool2dParams& p) override;
  void pool2d_backward_impl(const Tensor& x, const Tensor& y, const Tensor& dy, const Tensor& workspace,
                            Tensor& dx, const Pool2dParams& p) override;

  void activation_forward_impl(Activation a, const Tensor& x, Tensor& y) override;
  void activation_backward_impl(Activation a, const Tensor& y, const Tensor& dy, Tensor& dx) override;

  void gelu_forward_impl(const Tensor& x, Tensor& y, GeluApprox approx) override;
  void gelu_backward_impl(const Tensor& x, const Tensor& dy, Tensor& dx, GeluApprox approx) override;

  void lrn_forward_impl(const Tensor& x, Tensor& y, Tensor& workspace, const LrnParams& p) override;
  void lrn_backward_impl(const Tensor& x, const Tensor& y, const Tensor& dy, const Tensor& workspace,
                         Tensor& dx, const LrnParams& p) override;

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
  void softmax_last_forward_impl(const Tensor& x, double scale, Tensor& y) override;
  void softmax_last_backward_impl(const Tensor& y, const Tensor& dy, double scale, Tensor& dx) override;
  void layer_norm_forward_impl(const Tensor& x, const Tensor& gamma, const Tensor& beta, double epsilon, Tensor& y,
                               Tensor& mean, Tensor& rstd) override;
  void layer_norm_backward_impl(const Tensor& x, const Tensor& dy, const Tensor& gamma, const Tensor& mean,
                                const Tensor& rstd, Tensor& dx, Tensor& dgamma, Tensor& dbeta) override;
  void permute_impl(const Tensor& x, const std::vector<int>& perm, Tensor& y) override;
  void fused_attention_forward_impl(const Tensor& q, const Tensor& k, const Tensor& v, double scale, std::int64_t block,
                                    Tensor& o, Tensor& lse) override;
  void fused_attention_backward_impl(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& o, const Tensor& lse,
                                     const Tensor& dout, double scale, std::int64_t block, Tensor& dq, Tensor& dk,
                                     Tensor& dv) override;

  void caffe_sgd_update_impl(Tensor& w, Tensor& g, Tensor& history, const CaffeSgdParams& p) override;
  void torch_sgd_update_impl(Tensor& w, Tensor& g, Tensor& velocity, const TorchSgdParams& p) override;
  void adam_update_impl(Tensor& w, const Tensor& g, Tensor& m, Tensor& v, const AdamParams& p) override;

 private:
  int requested_threads_ = 1;
};

}  // namespace ablate::kernels::reference
