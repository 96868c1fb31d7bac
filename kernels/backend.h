// The Backend interface: the whole op set that every strategy (layer-wise, dynamic, static)
// runs on, and that every math library (reference loops, Eigen, OpenBLAS, oneDNN, cuDNN)
// implements. Tensors crossing it are NCHW (images) or [rows, cols] (matrices), f32 or f64;
// labels are i32. Ops write their outputs, which the caller allocates with the right shape;
// gradients of parameters are overwritten, not accumulated. Inputs and outputs of
// elementwise ops may alias (in-place layers).
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "kernels/op_params.h"
#include "kernels/tensor.h"

namespace ablate::kernels {

class Backend {
 public:
  virtual ~Backend() = default;

  // --- identity and execution ---------------------------------------------------------
  virtual std::string name() const = 0;             // "reference", "eigen", ...
  virtual std::string library_version() const = 0;  // "Eigen 3.4.0", "OpenBLAS 0.3.21 ..."
  // One thread setting drives OpenMP, the BLAS and the library's own pool alike.
  virtual void set_threads(int threads) = 0;
  virtual int threads() const = 0;
  virtual Device device() const { return Device::cpu; }
  virtual Allocator& allocator() { return cpu_allocator(); }
  virtual void synchronize() {}
  // Whether repeated runs give bit-identical results at this thread setting.
  virtual bool deterministic() const { return true; }
  // Asks for bit-identical repeated runs (`--deterministic`): a backend that can switches to
  // its deterministic choices (oneDNN: a fixed convolution layout instead of timing them;
  // cuDNN: deterministic algorithms); returns whether it can promise them now.
  virtual bool make_deterministic() { return deterministic(); }
  // What the backend chose that a result should record, as (name, value): the convolution
  // mode, oneDNN's layouts, cuDNN's algorithms and workspaces.
  virtual std::vector<std::pair<std::string, std::string>> choices() const { return {}; }

  // --- GEMM: c = alpha * op(a) * op(b) + beta * c; a, b, c are 2-D --------------------------
  virtual void gemm(bool trans_a, bool trans_b, double alpha, const Tensor& a, const Tensor& b,
                    double beta, Tensor& c) = 0;

  // --- convolution: x [N,C,H,W], w [K,C,KH,KW], bias [K] or empty, y [N,K,OH,OW] -----------
  virtual void conv2d_forward(const Tensor& x, const Tensor& w, const Tensor& bias, Tensor& y,
                              const Conv2dParams& p) = 0;
  // dx = conv_transpose(dy, w)
  virtual void conv2d_backward_data(const Tensor& dy, const Tensor& w, Tensor& dx,
                                    const Conv2dParams& p) = 0;
  // dw = sum_n corr(x_n, dy_n); dbias (if not empty) = sum over n, oh, ow of dy
  virtual void conv2d_backward_weights(const Tensor& x, const Tensor& dy, Tensor& dw, Tensor& dbias,
                                       const Conv2dParams& p) = 0;
  // --- connection-table convolution (Torch's SpatialConvolutionMap): table i32 [T, 2] holds
  // T (input plane, output plane) pairs; w [T, KH, KW] one kernel per pair; bias [K] or empty;
  // x [N,C,H,W], y [N,K,OH,OW]:  y[n,o] = bias[o] + sum over t with table[t] = (i, o) of
  // corr(x[n,i], w[t]). The table lives where the backend's tensors live. ---------------------
  virtual void conv2d_map_forward(const Tensor& x, const Tensor& w, const Tensor& bias, const Tensor& table,
                                  Tensor& y, const Conv2dParams& p) = 0;
  // dx[n,i] = sum over t with table[t] = (i, o) of conv_transpose(dy[n,o], w[t])
  virtual void conv2d_map_backward_data(const Tensor& dy, const Tensor& w, const Tensor& table, Tensor& dx,
                                        const Conv2dParams& p) = 0;
  // dw[t] = sum_n corr(x[n,i], dy[n,o]) for table[t] = (i, o); dbias as for conv2d
  virtual void conv2d_map_backward_weights(const Tensor& x, const Tensor& dy, const Tensor& table, Tensor& dw,
                                           Tensor& dbias, const Conv2dParams& p) = 0;

  // y[n, c, ...] += bias[c] for y [N,C,...] (Theano adds the bias after pooling)
  virtual void bias_add(Tensor& y, const Tensor& bias) = 0;
  // dbias[c] = sum over n and the trailing dimensions of dy[n, c, ...]
  virtual void bias_backward(const Tensor& dy, Tensor& dbias) = 0;

  // --- fully connected (Caffe InnerProduct): x [N,I], w [O,I], bias [O] or empty, y [N,O] --
  virtual void linear_forward(const Tensor& x, const Tensor& w, const Tensor& bias, Tensor& y) = 0;
  virtual void linear_backward_data(const Tensor& dy, const Tensor& w, Tensor& dx) = 0;
  virtual void linear_backward_weights(const Tensor& x, const Tensor& dy, Tensor& dw, Tensor& dbias) = 0;

  // --- pooling: x [N,C,H,W], y [N,C,out_h,out_w] ----------------------------------------------
  // `workspace` is backend-private state that forward fills and backward reads (argmax
  // indices, a oneDNN workspace); pass the same, initially empty, Tensor to both.
  virtual void pool2d_forward(const Tensor& x, Tensor& y, Tensor& workspace, const Pool2dParams& p) = 0;
  virtual void pool2d_backward(const Tensor& x, const Tensor& y, const Tensor& dy,
                               const Tensor& workspace, Tensor& dx, const Pool2dParams& p) = 0;

  // --- activations, elementwise: backward reads y (relu: y > 0, tanh: 1 - y^2,
  // sigmoid: y (1 - y)), so in-place forward is allowed; dx may alias dy ---------------------
  virtual void activation_forward(Activation a, const Tensor& x, Tensor& y) = 0;
  virtual void activation_backward(Activation a, const Tensor& y, const Tensor& dy, Tensor& dx) = 0;

  // --- LRN across channels: x, y [N,C,H,W]; workspace as for pooling ------------------------
  virtual void lrn_forward(const Tensor& x, Tensor& y, Tensor& workspace, const LrnParams& p) = 0;
  virtual void lrn_backward(const Tensor& x, const Tensor& y, const Tensor& dy,
                            const Tensor& workspace, Tensor& dx, const LrnParams& p) = 0;

  // --- dropout: mask[i] = (u_i < keep) / keep with u_i uniform from a counter-based hash
  // of (seed, first_index + i), identical on every backend; then y = x * mask and
  // dx = dy * mask (mul). first_index: where this mask starts in a larger one (a data-parallel
  // rank's slice of the global batch draws the elements the single-process run draws) ---
  virtual void dropout_mask(Tensor& mask, double keep_prob, std::uint64_t seed, std::uint64_t first_index = 0) = 0;

  // --- losses over logits [N,K] and labels i32 [N] --------------------------------------
  // prob = softmax(logits); returns mean over N of -log prob[n, label_n]
  virtual double softmax_xent_forward(const Tensor& logits, const Tensor& labels, Tensor& prob) = 0;
  // dlogits = (prob - onehot(labels)) * scale  (scale = loss_weight / N for a batch mean)
  virtual void softmax_xent_backward(const Tensor& prob, const Tensor& labels, double scale,
                                     Tensor& dlogits) = 0;
  virtual void softmax_forward(const Tensor& x, Tensor& y) = 0;  // rows of [N,K]
  // y = x - log sum exp(x) per row; backward: dx = dy - exp(y) * sum_k dy
  virtual void log_softmax_forward(const Tensor& x, Tensor& y) = 0;
  virtual void log_softmax_backward(const Tensor& y, const Tensor& dy, Tensor& dx) = 0;
  // returns mean over N of -logp[n, label_n]; backward: dlogp = -scale at the label, 0 elsewhere
  virtual double nll_forward(const Tensor& logp, const Tensor& labels) = 0;
  virtual void nll_backward(const Tensor& labels, double scale, Tensor& dlogp) = 0;

  // --- elementwise and reductions (any shape; same numel where two tensors meet) ---------
  virtual void fill(Tensor& x, double value) = 0;
  virtual void copy(const Tensor& src, Tensor& dst) = 0;
  virtual void scale(Tensor& x, double alpha) = 0;                               // x *= alpha
  virtual void axpy(double alpha, const Tensor& x, Tensor& y) = 0;               // y += alpha x
  virtual void axpby(double alpha, const Tensor& x, double beta, Tensor& y) = 0; // y = a x + b y
  virtual void add(const Tensor& a, const Tensor& b, Tensor& out) = 0;           // out = a + b
  virtual void mul(const Tensor& a, const Tensor& b, Tensor& out) = 0;           // out = a * b
  virtual double sum(const Tensor& x) = 0;
  virtual double sum_squares(const Tensor& x) = 0;
  // out[n] = argmax_k x[n, k] for x [N,K], out i32 [N] (ties: the lowest k)
  virtual void argmax_rows(const Tensor& x, Tensor& out) = 0;

  // --- optimizer updates on one parameter w with gradient g (g may be modified) ---------
  virtual void caffe_sgd_update(Tensor& w, Tensor& g, Tensor& history, const CaffeSgdParams& p) = 0;
  virtual void torch_sgd_update(Tensor& w, Tensor& g, Tensor& velocity, const TorchSgdParams& p) = 0;
  virtual void adam_update(Tensor& w, const Tensor& g, Tensor& m, Tensor& v, const AdamParams& p) = 0;
};

}  // namespace ablate::kernels
