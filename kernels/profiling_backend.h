// ProfilingBackend: wraps any Backend and records one span per op call in a TraceRecorder
// (`--profile FILE`), with the op's floating-point operations, so that every strategy is
// profiled the same way without a line of profiling code of its own. It changes nothing
// else: the name, threads, allocator and results are the wrapped backend's. When profiling is
// off the wrapper is not there at all, so it costs nothing. On a device backend each span
// waits for the device (synchronize) before it ends, so spans hold the op's own time.
//
// FLOPs counted (2 per multiply-add; other ops count 0):
//   gemm                      2 M N K
//   conv2d (each direction)   2 N K C KH KW OH OW     (w [K,C,KH,KW], y [N,K,OH,OW])
//   conv2d_map (each)         2 N T KH KW OH OW       (w [T,KH,KW])
//   linear (each direction)   2 N I O                 (w [O,I])
#pragma once

#include "kernels/backend.h"
#include "kernels/trace_recorder.h"

namespace ablate::kernels {

class ProfilingBackend final : public Backend {
 public:
  ProfilingBackend(Backend& inner, TraceRecorder& recorder);

  std::string name() const override { return inner_.name(); }
  std::string library_version() const override { return inner_.library_version(); }
  void set_threads(int threads) override { inner_.set_threads(threads); }
  int threads() const override { return inner_.threads(); }
  Device device() const override { return inner_.device(); }
  Allocator& allocator() override { return inner_.allocator(); }
  void synchronize() override { inner_.synchronize(); }
  bool deterministic() const override { return inner_.deterministic(); }
  bool make_deterministic() override { return inner_.make_deterministic(); }
  std::vector<std::pair<std::string, std::string>> choices() const override { return inner_.choices(); }

  void gemm(bool trans_a, bool trans_b, double alpha, const Tensor& a, const Tensor& b, double beta,
            Tensor& c) override;
  void conv2d_forward(const Tensor& x, const Tensor& w, const Tensor& bias, Tensor& y, const Conv2dParams& p) override;
  void conv2d_backward_data(const Tensor& dy, const Tensor& w, Tensor& dx, const Conv2dParams& p) override;
  void conv2d_backward_weights(const Tensor& x, const Tensor& dy, Tensor& dw, Tensor& dbias,
                               const Conv2dParams& p) override;
  void conv2d_map_forward(const Tensor& x, const Tensor& w, const Tensor& bias, const Tensor& table, Tensor& y,
                          const Conv2dParams& p) override;
  void conv2d_map_backward_data(const Tensor& dy, const Tensor& w, const Tensor& table, Tensor& dx,
                                const Conv2dParams& p) override;
  void conv2d_map_backward_weights(const Tensor& x, const Tensor& dy, const Tensor& table, Tensor& dw,
                                   Tensor& dbias, const Conv2dParams& p) override;
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

 private:
  // Runs `op` inside a span named `name` carrying `flops`; returns what `op` returns.
  template <class Op>
  auto timed(const char* name, double flops, Op&& op);

  Backend& inner_;
  TraceRecorder& recorder_;
};

}  // namespace ablate::kernels
