// PlannedBackend: one Backend that runs each layer's ops on the backend a per-layer plan chose
// for that layer (`ablate run --plan`, bench/run/layer_plan.h), as cuDNN's Find and TVM's tuners
// pick per layer. It reads which layer is asking from the op label the strategies already set
// (kernels/op_label.h: the layer-wise net per layer, the tape per module and recorded node, the
// static session per graph node, the optimizer per parameter), so the three strategies run a
// mixed-backend network without a line of their own. An op of no routed layer (a label of no
// layer, a layer the plan does not name) runs on the fallback backend.
//
// Every CPU backend takes and gives NCHW host tensors from the one host allocator, so a tensor
// passes from one layer's backend to the next without a copy or a reorder. A layer's forward,
// backward and update all run on its one backend: the backend-private workspaces that forward
// fills and backward reads (pooling's argmax, oneDNN's workspace) stay with one backend.
// Device backends (cuda) are refused: their tensors live elsewhere.
//
// A plan may also give a convolution's weight gradient a backend of its own: the row
// "<layer>:weights" (weights_row) routes the layer's conv2d_backward_weights, which reads only
// x and dy, so that the forward, the data gradient and the weight gradient each take their
// fastest (they differ: on LeNet's conv2 oneDNN's direct weight gradient beside ablate's tiles
// for the other two). It reads them in its layer's layout; where the layer runs blocked the
// gradient stays with the layer's backend.
//
// The chosen backend's public op runs (its contract checks the arguments a second time: a few
// comparisons, nothing next to a convolution). For measuring a plan, route_all sends every op
// to one backend whatever the layer.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "kernels/backend.h"
#include "kernels/op_label.h"

namespace ablate::kernels {

class PlannedBackend final : public Backend {
 public:
  // `fallback` runs the ops of no routed layer; `label` names it in messages and choices()
  // ("openblas/omp_per_image"). Throws std::invalid_argument for a device backend.
  PlannedBackend(std::unique_ptr<Backend> fallback, std::string label);

  // Adds a backend that layers may be routed to (owned); `label` as above. Returns it.
  Backend& add(std::unique_ptr<Backend> backend, std::string label);
  // Runs the ops of `layer` on `backend` (one added here, or the fallback); `blocked`: the
  // layer's activations may stay in the backend's channel-blocked layout (channel_block_for).
  // Throws std::invalid_argument when the layer is routed already or the backend is not one of
  // these.
  void route(const std::string& layer, Backend& backend, bool blocked = false);
  // Every op on `backend` (one of these) whatever the layer, except the layers in `except`,
  // each on its own backend (a stand-in while a plan is measured); `blocked` as above, for
  // every layer; nullptr: the routes again.
  void route_all(Backend* backend, std::vector<std::pair<std::string, Backend*>> except = {}, bool blocked = false);
  // The backend that runs the ops of `layer` now.
  Backend& backend_of(std::string_view layer) const;
  // The backend that runs the convolution weight gradient of `layer` now: its weights row's
  // where one is routed and the layer is not blocked, otherwise the layer's.
  Backend& weights_backend_of(std::string_view layer) const;
  // The plan row of a layer's weight gradient: "conv2" -> "conv2:weights".
  static std::string weights_row(std::string_view layer) { return std::string(layer) + std::string(kWeightsSuffix); }
  // The layer a weights row names ("conv2:weights" -> "conv2"); "" for any other row.
  static std::string_view weights_layer(std::string_view row);
  Backend& fallback() { return *backends_.front().backend; }
  // The block of the backend that runs `layer` now where that layer is routed blocked (route,
  // route_all), otherwise 0: by default a plan keeps every layer's edges in NCHW.
  int channel_block_for(DType dtype, std::string_view layer) const override;
  // Where every one of its backends fuses the pair.
  bool fuses_conv_max_pool(const Pool2dParams& pp) const override;

  std::string name() const override { return "planned"; }
  // "planned: conv1 onednn/direct (oneDNN v2.6 ...), ..." : each backend's library once.
  std::string library_version() const override;
  void set_threads(int threads) override;
  int threads() const override;
  bool deterministic() const override;
  bool make_deterministic() override;
  // ("plan.<layer>", "<label>") per route, ("plan.fallback", label), then each backend's own
  // choices prefixed with its label.
  std::vector<std::pair<std::string, std::string>> choices() const override;
  double setup_seconds() const override;  // its backends' sum
  void release_threads() override;        // each of its backends'
  // On: when an op runs on another backend than the op before, the one before releases its
  // threads first (Backend::release_threads), so OpenBLAS's spinning pthreads do not halve the
  // next layer's OpenMP team. Only for ops issued one at a time (not the static strategy's
  // parallel executor, whose ops overlap). Off by default.
  void set_release_on_switch(bool on) { release_on_switch_ = on; }

 protected:
  void gemm_impl(bool trans_a, bool trans_b, double alpha, const Tensor& a, const Tensor& b, double beta,
                 Tensor& c) override {
    pick().gemm(trans_a, trans_b, alpha, a, b, beta, c);
  }
  void conv2d_forward_impl(const Tensor& x, const Tensor& w, const Tensor& bias, Tensor& y,
                           const Conv2dParams& p) override {
    pick().conv2d_forward(x, w, bias, y, p);
  }
  void conv2d_backward_data_impl(const Tensor& dy, const Tensor& w, Tensor& dx, const Conv2dParams& p) override {
    pick().conv2d_backward_data(dy, w, dx, p);
  }
  void conv2d_backward_weights_impl(const Tensor& x, const Tensor& dy, Tensor& dw, Tensor& dbias,
                                    const Conv2dParams& p) override {
    switched(weights_backend_of(current_op_label().layer)).conv2d_backward_weights(x, dy, dw, dbias, p);
  }
  void conv2d_map_forward_impl(const Tensor& x, const Tensor& w, const Tensor& bias, const Tensor& table, Tensor& y,
                               const Conv2dParams& p) override {
    pick().conv2d_map_forward(x, w, bias, table, y, p);
  }
  void conv2d_map_backward_data_impl(const Tensor& dy, const Tensor& w, const Tensor& table, Tensor& dx,
                                     const Conv2dParams& p) override {
    pick().conv2d_map_backward_data(dy, w, table, dx, p);
  }
  void conv2d_map_backward_weights_impl(const Tensor& x, const Tensor& dy, const Tensor& table, Tensor& dw,
                                        Tensor& dbias, const Conv2dParams& p) override {
    pick().conv2d_map_backward_weights(x, dy, table, dw, dbias, p);
  }
  void bias_add_impl(Tensor& y, const Tensor& bias) override { pick().bias_add(y, bias); }
  void bias_backward_impl(const Tensor& dy, Tensor& dbias) override { pick().bias_backward(dy, dbias); }
  void linear_forward_impl(const Tensor& x, const Tensor& w, const Tensor& bias, Tensor& y) override {
    pick().linear_forward(x, w, bias, y);
  }
  void linear_backward_data_impl(const Tensor& dy, const Tensor& w, Tensor& dx) override {
    pick().linear_backward_data(dy, w, dx);
  }
  void linear_backward_weights_impl(const Tensor& x, const Tensor& dy, Tensor& dw, Tensor& dbias) override {
    pick().linear_backward_weights(x, dy, dw, dbias);
  }
  void pool2d_forward_impl(const Tensor& x, Tensor& y, Tensor& workspace, const Pool2dParams& p) override {
    pick().pool2d_forward(x, y, workspace, p);
  }
  void pool2d_backward_impl(const Tensor& x, const Tensor& y, const Tensor& dy, const Tensor& workspace, Tensor& dx,
                            const Pool2dParams& p) override {
    pick().pool2d_backward(x, y, dy, workspace, dx, p);
  }
  // The fused convolution + max pooling: the forward on the layer's backend, the weight gradient
  // on its weights row's as conv2d_backward_weights (every host backend keeps the same i32
  // argmax workspace: CpuBackend's pooling, or the reference's of the same format).
  void conv2d_max_pool_forward_impl(const Tensor& x, const Tensor& w, const Tensor& bias, Tensor& y, Tensor& workspace,
                                    const Conv2dParams& cp, const Pool2dParams& pp) override {
    pick().conv2d_max_pool_forward(x, w, bias, y, workspace, cp, pp);
  }
  void conv2d_max_pool_backward_weights_impl(const Tensor& x, const Tensor& dy, const Tensor& workspace, Tensor& dw,
                                             Tensor& dbias, const Conv2dParams& cp, const Pool2dParams& pp) override {
    switched(weights_backend_of(current_op_label().layer))
        .conv2d_max_pool_backward_weights(x, dy, workspace, dw, dbias, cp, pp);
  }
  void activation_forward_impl(Activation a, const Tensor& x, Tensor& y) override {
    pick().activation_forward(a, x, y);
  }
  void activation_backward_impl(Activation a, const Tensor& y, const Tensor& dy, Tensor& dx) override {
    pick().activation_backward(a, y, dy, dx);
  }
  void gelu_forward_impl(const Tensor& x, Tensor& y, GeluApprox approx) override {
    pick().gelu_forward(x, y, approx);
  }
  void gelu_backward_impl(const Tensor& x, const Tensor& dy, Tensor& dx, GeluApprox approx) override {
    pick().gelu_backward(x, dy, dx, approx);
  }
  void lrn_forward_impl(const Tensor& x, Tensor& y, Tensor& workspace, const LrnParams& p) override {
    pick().lrn_forward(x, y, workspace, p);
  }
  void lrn_backward_impl(const Tensor& x, const Tensor& y, const Tensor& dy, const Tensor& workspace, Tensor& dx,
                         const LrnParams& p) override {
    pick().lrn_backward(x, y, dy, workspace, dx, p);
  }
  void batch_norm_forward_training_impl(const Tensor& x, const Tensor& gamma, const Tensor& beta, double epsilon,
                                        Tensor& y, Tensor& mean, Tensor& var) override {
    pick().batch_norm_forward_training(x, gamma, beta, epsilon, y, mean, var);
  }
  void batch_norm_forward_inference_impl(const Tensor& x, const Tensor& gamma, const Tensor& beta, const Tensor& mean,
                                         const Tensor& var, double epsilon, Tensor& y) override {
    pick().batch_norm_forward_inference(x, gamma, beta, mean, var, epsilon, y);
  }
  void batch_norm_backward_impl(const Tensor& x, const Tensor& dy, const Tensor& gamma, const Tensor& mean,
                                const Tensor& var, double epsilon, Tensor& dx, Tensor& dgamma, Tensor& dbeta) override {
    pick().batch_norm_backward(x, dy, gamma, mean, var, epsilon, dx, dgamma, dbeta);
  }
  void dropout_mask_impl(Tensor& mask, double keep_prob, std::uint64_t seed, std::uint64_t first_index) override {
    pick().dropout_mask(mask, keep_prob, seed, first_index);
  }
  double softmax_xent_forward_impl(const Tensor& logits, const Tensor& labels, Tensor& prob) override {
    return pick().softmax_xent_forward(logits, labels, prob);
  }
  void softmax_xent_backward_impl(const Tensor& prob, const Tensor& labels, double scale, Tensor& dlogits) override {
    pick().softmax_xent_backward(prob, labels, scale, dlogits);
  }
  void softmax_forward_impl(const Tensor& x, Tensor& y) override { pick().softmax_forward(x, y); }
  void log_softmax_forward_impl(const Tensor& x, Tensor& y) override { pick().log_softmax_forward(x, y); }
  void log_softmax_backward_impl(const Tensor& y, const Tensor& dy, Tensor& dx) override {
    pick().log_softmax_backward(y, dy, dx);
  }
  double nll_forward_impl(const Tensor& logp, const Tensor& labels) override {
    return pick().nll_forward(logp, labels);
  }
  void nll_backward_impl(const Tensor& labels, double scale, Tensor& dlogp) override {
    pick().nll_backward(labels, scale, dlogp);
  }
  void fill_impl(Tensor& x, double value) override { pick().fill(x, value); }
  void copy_impl(const Tensor& src, Tensor& dst) override { pick().copy(src, dst); }
  void scale_impl(Tensor& x, double alpha) override { pick().scale(x, alpha); }
  void axpy_impl(double alpha, const Tensor& x, Tensor& y) override { pick().axpy(alpha, x, y); }
  void axpby_impl(double alpha, const Tensor& x, double beta, Tensor& y) override {
    pick().axpby(alpha, x, beta, y);
  }
  void add_impl(const Tensor& a, const Tensor& b, Tensor& out) override { pick().add(a, b, out); }
  void mul_impl(const Tensor& a, const Tensor& b, Tensor& out) override { pick().mul(a, b, out); }
  void fused_elementwise_impl(const std::vector<const Tensor*>& inputs, const std::vector<ChainStep>& steps,
                              Tensor& out) override {
    pick().fused_elementwise(inputs, steps, out);
  }
  double sum_impl(const Tensor& x) override { return pick().sum(x); }
  double sum_squares_impl(const Tensor& x) override { return pick().sum_squares(x); }
  void argmax_rows_impl(const Tensor& x, Tensor& out) override { pick().argmax_rows(x, out); }
  void concat_forward_impl(const std::vector<const Tensor*>& xs, Tensor& y) override {
    pick().concat_forward(xs, y);
  }
  void concat_backward_impl(const Tensor& dy, const std::vector<Tensor*>& dxs) override {
    pick().concat_backward(dy, dxs);
  }
  void batched_gemm_impl(bool trans_a, bool trans_b, double alpha, const Tensor& a, const Tensor& b, double beta,
                         Tensor& c) override {
    pick().batched_gemm(trans_a, trans_b, alpha, a, b, beta, c);
  }
  void softmax_last_forward_impl(const Tensor& x, double scale, Tensor& y) override {
    pick().softmax_last_forward(x, scale, y);
  }
  void softmax_last_backward_impl(const Tensor& y, const Tensor& dy, double scale, Tensor& dx) override {
    pick().softmax_last_backward(y, dy, scale, dx);
  }
  void layer_norm_forward_impl(const Tensor& x, const Tensor& gamma, const Tensor& beta, double epsilon, Tensor& y,
                               Tensor& mean, Tensor& rstd) override {
    pick().layer_norm_forward(x, gamma, beta, epsilon, y, mean, rstd);
  }
  void layer_norm_backward_impl(const Tensor& x, const Tensor& dy, const Tensor& gamma, const Tensor& mean,
                                const Tensor& rstd, Tensor& dx, Tensor& dgamma, Tensor& dbeta) override {
    pick().layer_norm_backward(x, dy, gamma, mean, rstd, dx, dgamma, dbeta);
  }
  void permute_impl(const Tensor& x, const std::vector<int>& perm, Tensor& y) override {
    pick().permute(x, perm, y);
  }
  void caffe_sgd_update_impl(Tensor& w, Tensor& g, Tensor& history, const CaffeSgdParams& p) override {
    pick().caffe_sgd_update(w, g, history, p);
  }
  void torch_sgd_update_impl(Tensor& w, Tensor& g, Tensor& velocity, const TorchSgdParams& p) override {
    pick().torch_sgd_update(w, g, velocity, p);
  }
  void adam_update_impl(Tensor& w, const Tensor& g, Tensor& m, Tensor& v, const AdamParams& p) override {
    pick().adam_update(w, g, m, v, p);
  }
  std::int64_t linear_backward_weights_update_impl(const Tensor& x, const Tensor& dy, Tensor& w,
                                                   const std::vector<Tensor*>& state, Tensor& dbias,
                                                   const UpdateParams& p, bool check_finite) override {
    return pick().linear_backward_weights_update(x, dy, w, state, dbias, p, check_finite);
  }

 private:
  struct Owned {
    std::unique_ptr<Backend> backend;
    std::string label;
  };
  static constexpr std::string_view kWeightsSuffix = ":weights";
  Backend& pick() { return switched(backend_of(current_op_label().layer)); }
  // `b`, after releasing the threads of the backend of the op before (release_on_switch_).
  Backend& switched(Backend& b) {
    if (release_on_switch_ && last_ != &b) {
      if (last_) last_->release_threads();
      last_ = &b;
    }
    return b;
  }
  const Owned& owned_of(const Backend& backend) const;
  bool blocked(std::string_view layer) const;

  std::vector<Owned> backends_;                           // [0]: the fallback
  std::vector<std::pair<std::string, Backend*>> routes_;  // few layers: a linear search
  std::vector<std::string> blocked_;                      // the layers routed blocked
  Backend* all_ = nullptr;
  bool all_blocked_ = false;
  bool release_on_switch_ = false;
  Backend* last_ = nullptr;  // the backend of the op before (release_on_switch_)
  std::vector<std::pair<std::string, Backend*>> all_except_;  // route_all's exceptions
};

}  // namespace ablate::kernels
