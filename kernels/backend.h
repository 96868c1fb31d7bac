// The Backend interface: the whole op set that every strategy (layer-wise, dynamic, static)
// runs on, and that every math library (reference loops, Eigen, OpenBLAS, oneDNN, cuDNN)
// implements. Tensors crossing it are NCHW (images) or [rows, cols] (matrices), f32 or f64;
// labels are i32. Ops write their outputs, which the caller allocates with the right shape;
// gradients of parameters are overwritten, not accumulated. Inputs and outputs of
// elementwise ops may alias (in-place layers).
//
// Each op is a public non-virtual function that (1) checks its arguments against the one
// contract of the op set (kernels/contract/: dtypes, ranks, shapes, label and table ranges of
// host tensors, scalar ranges; a failure throws std::invalid_argument "<backend> <op>: <arg>
// is <what came>, expected <what>"), (2) tells the observer, if one is set (the profiler), and
// (3) calls the protected virtual <op>_impl that each backend overrides. An implementation
// receives checked arguments; it checks only what is its own (a tensor on its device, a
// library's limit, the format of its private workspace). kernels/op_list.h names every op.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "kernels/op_list.h"
#include "kernels/op_observer.h"
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
  // Stops the library's own worker threads now rather than letting them spin on after the last
  // op (OpenBLAS's pthreads spin ~0.1 s: an OpenMP team started meanwhile runs at half speed on
  // 2 cores, docs/plan.md "Mixed plans"); the next op that wants them starts them again.
  virtual void release_threads() {}
  // Whether repeated runs give bit-identical results at this thread setting.
  virtual bool deterministic() const { return true; }
  // Asks for bit-identical repeated runs (`--deterministic`): a backend that can switches to
  // its deterministic choices (oneDNN: a fixed convolution layout instead of timing them;
  // cuDNN: deterministic algorithms); returns whether it can promise them now.
  virtual bool make_deterministic() { return deterministic(); }
  // What the backend chose that a result should record, as (name, value): the convolution
  // mode, oneDNN's layouts, cuDNN's algorithms and workspaces.
  virtual std::vector<std::pair<std::string, std::string>> choices() const { return {}; }
  // The settings `op` runs under where two backends of this kind may differ: two backends of
  // one name whose op_setup(op) agree and are not empty run `op` with the same code on the same
  // threads (the plan times such twins once, docs/plan.md). "" (the default): no such promise.
  virtual std::string op_setup(Op) const { return ""; }
  // Wall seconds this backend has spent so far on one-time work inside its ops (oneDNN:
  // building primitives and timing their layouts on a first call), which a timer of
  // steady-state op times subtracts (the plan's, bench/run/plan_measure.cpp). 0: none.
  virtual double setup_seconds() const { return 0; }
  // The channel block B of the nChw{B}c layout (kernels/tensor.h) in which this backend runs
  // convolution, batch normalisation, pooling and LRN of `dtype`, 0 when it has none
  // (every backend but oneDNN's, which gives its ISA's block in f32: 16 with AVX-512, 8
  // with AVX2). A backend with a block runs those ops channels-last too (NHWC: a block of all
  // C channels). The static strategy's blocked_layout pass keeps activations in the block
  // between such ops (graph/static/passes.h), the layer-wise and dynamic ones too; where the
  // block does not divide a convolution's channels, all three go channels-last
  // (graph/blocked_layers.h);
  // kernels/contract/layout_check.h says which ops take them.
  virtual int channel_block(DType dtype) const { (void)dtype; return 0; }
  // The block in which the ops of `layer` (an op label's layer, kernels/op_label.h) run: the
  // backend's own; a PlannedBackend's is the layer's route's where the plan keeps that layer
  // blocked, 0 elsewhere (kernels/planned_backend.h).
  virtual int channel_block_for(DType dtype, std::string_view layer) const {
    (void)layer;
    return channel_block(dtype);
  }

  // Where a max-pooling window's gradient goes (op_params.h, PoolGradient): the first cell
  // holding the maximum (the default) or every cell equal to it (Theano). A setting of every
  // backend, BackendOptions::pool_gradient.
  void set_pool_gradient(PoolGradient g) { pool_gradient_ = g; }
  PoolGradient pool_gradient() const { return pool_gradient_; }

  // The observer told about every op call (nullptr: none); not owned, must outlive its use.
  void set_observer(OpObserver* observer) { observer_ = observer; }
  OpObserver* observer() const { return observer_; }

  // --- GEMM: c = alpha * op(a) * op(b) + beta * c; a, b, c are 2-D --------------------------
  void gemm(bool trans_a, bool trans_b, double alpha, const Tensor& a, const Tensor& b, double beta, Tensor& c);

  // --- convolution: x [N,C,H,W], w [K,C,KH,KW], bias [K] or empty, y [N,K,OH,OW] -----------
  void conv2d_forward(const Tensor& x, const Tensor& w, const Tensor& bias, Tensor& y, const Conv2dParams& p);
  // dx = conv_transpose(dy, w)
  void conv2d_backward_data(const Tensor& dy, const Tensor& w, Tensor& dx, const Conv2dParams& p);
  // dw = sum_n corr(x_n, dy_n); dbias (if not empty) = sum over n, oh, ow of dy
  void conv2d_backward_weights(const Tensor& x, const Tensor& dy, Tensor& dw, Tensor& dbias, const Conv2dParams& p);
  // --- connection-table convolution (Torch's SpatialConvolutionMap): table i32 [T, 2] holds
  // T (input plane, output plane) pairs; w [T, KH, KW] one kernel per pair; bias [K] or empty;
  // x [N,C,H,W], y [N,K,OH,OW]:  y[n,o] = bias[o] + sum over t with table[t] = (i, o) of
  // corr(x[n,i], w[t]). The table lives where the backend's tensors live. ---------------------
  void conv2d_map_forward(const Tensor& x, const Tensor& w, const Tensor& bias, const Tensor& table,
                          Tensor& y, const Conv2dParams& p);
  // dx[n,i] = sum over t with table[t] = (i, o) of conv_transpose(dy[n,o], w[t])
  void conv2d_map_backward_data(const Tensor& dy, const Tensor& w, const Tensor& table, Tensor& dx,
                                const Conv2dParams& p);
  // dw[t] = sum_n corr(x[n,i], dy[n,o]) for table[t] = (i, o); dbias as for conv2d
  void conv2d_map_backward_weights(const Tensor& x, const Tensor& dy, const Tensor& table, Tensor& dw,
                                   Tensor& dbias, const Conv2dParams& p);

  // y[n, c, ...] += bias[c] for y [N,C,...] (Theano adds the bias after pooling)
  void bias_add(Tensor& y, const Tensor& bias);
  // dbias[c] = sum over n and the trailing dimensions of dy[n, c, ...]
  void bias_backward(const Tensor& dy, Tensor& dbias);

  // --- fully connected (Caffe InnerProduct): x [N,I], w [O,I], bias [O] or empty, y [N,O] --
  void linear_forward(const Tensor& x, const Tensor& w, const Tensor& bias, Tensor& y);
  void linear_backward_data(const Tensor& dy, const Tensor& w, Tensor& dx);
  void linear_backward_weights(const Tensor& x, const Tensor& dy, Tensor& dw, Tensor& dbias);

  // --- pooling: x [N,C,H,W], y [N,C,out_h,out_w] ----------------------------------------------
  // `workspace` is backend-private state that forward fills and backward reads (argmax
  // indices, a oneDNN workspace); pass the same, initially empty, Tensor to both. Max
  // pooling's backward follows pool_gradient(): `first` routes dy through the workspace,
  // `all` compares x with y (y must then be given).
  void pool2d_forward(const Tensor& x, Tensor& y, Tensor& workspace, const Pool2dParams& p);
  void pool2d_backward(const Tensor& x, const Tensor& y, const Tensor& dy,
                       const Tensor& workspace, Tensor& dx, const Pool2dParams& p);

  // --- a convolution and the max pooling after it as one op (the static graph's
  // conv_pool_fusion pass): x, w, bias as conv2d_forward's (cp), the pooling pp over its output
  // c [N,K,OH,OW]; y [N,K,pp.out_h,pp.out_w] and workspace as pool2d_forward's. c is never
  // whole in memory: the backend may run the pair over a few images at a time, c of those
  // still in cache when the pooling reads it (Caffe keeps a max pool's argmax mask for the
  // same reason: its backward needs no c). Only where fuses_conv_max_pool(pp) says so. -------
  void conv2d_max_pool_forward(const Tensor& x, const Tensor& w, const Tensor& bias, Tensor& y, Tensor& workspace,
                               const Conv2dParams& cp, const Pool2dParams& pp);
  // Its weight gradient from the pooled gradient dy [N,K,out_h,out_w]: dc = the max pooling's
  // backward through the workspace its forward filled, then dw [K,C,KH,KW] and dbias [K] (or
  // empty) as conv2d_backward_weights(x, dc) gives them; dc too is never whole in memory.
  void conv2d_max_pool_backward_weights(const Tensor& x, const Tensor& dy, const Tensor& workspace, Tensor& dw,
                                        Tensor& dbias, const Conv2dParams& cp, const Pool2dParams& pp);
  // Whether this backend runs the two ops above for pooling pp. The host backends do for max
  // pooling with the gradient to the first maximum (max_pool_to_first: the `all` gradient
  // compares c with y); false by default (cuda: its ops then say "not supported").
  virtual bool fuses_conv_max_pool(const Pool2dParams& pp) const {
    (void)pp;
    return false;
  }
  // Max pooling whose backward routes dy through the workspace alone (pool_gradient() first).
  bool max_pool_to_first(const Pool2dParams& pp) const {
    return pp.kind == PoolKind::max && pool_gradient_ == PoolGradient::first;
  }
  // The shape [N,K,OH,OW] of conv2d_forward's output for x [N,C,H,W] and w [K,C,KH,KW].
  static Shape conv2d_output_shape(const Tensor& x, const Tensor& w, const Conv2dParams& p);

  // --- activations, elementwise: backward reads y (relu: y > 0, tanh: 1 - y^2,
  // sigmoid: y (1 - y)), so in-place forward is allowed; dx may alias dy. Activation::gelu
  // and gelu_tanh run as gelu_forward/gelu_backward below: their backward's `y` is x -------
  void activation_forward(Activation a, const Tensor& x, Tensor& y);
  void activation_backward(Activation a, const Tensor& y, const Tensor& dy, Tensor& dx);

  // --- GELU (op_params.h, kernels/gelu_math.h): elementwise, x, y, dy, dx of one shape. Backward
  // reads x, not y (dx = dy * GELU'(x)): a layer that needs the backward keeps x, so its
  // forward does not run in place. y may alias x and dx may alias dy. ----------------------
  void gelu_forward(const Tensor& x, Tensor& y, GeluApprox approx);
  void gelu_backward(const Tensor& x, const Tensor& dy, Tensor& dx, GeluApprox approx);

  // --- LRN across channels: x, y [N,C,H,W]; workspace as for pooling ------------------------
  void lrn_forward(const Tensor& x, Tensor& y, Tensor& workspace, const LrnParams& p);
  void lrn_backward(const Tensor& x, const Tensor& y, const Tensor& dy,
                    const Tensor& workspace, Tensor& dx, const LrnParams& p);

  // --- batch normalisation per channel over N (and H, W): x, y, dy, dx [N,C,H,W] or [N,C];
  // gamma, beta, mean, var, dgamma, dbeta [C]; M = N*H*W values per channel (M >= 1). gamma
  // and beta may be empty: no scale (1) and no shift (0), as Caffe's BatchNorm layer without
  // its Scale layer. epsilon > 0 (Caffe's and Torch's default 1e-5). With s = sqrt(var + eps)
  // and x_hat = (x - mean[c]) / s[c]:  y = gamma[c] x_hat + beta[c].
  // Training: the batch statistics mean[c] = (1/M) sum x and the biased variance
  // var[c] = (1/M) sum (x - mean[c])^2 are outputs, for the layer to keep running statistics
  // by its framework's rule (Caffe's moving_average_fraction with its scale factor, Torch's
  // momentum with the unbiased variance M/(M-1) var) and for the backward. y may alias x.
  void batch_norm_forward_training(const Tensor& x, const Tensor& gamma, const Tensor& beta, double epsilon, Tensor& y,
                                   Tensor& mean, Tensor& var);
  // Inference: y from the given mean and var (the running statistics); y may alias x.
  void batch_norm_forward_inference(const Tensor& x, const Tensor& gamma, const Tensor& beta, const Tensor& mean,
                                    const Tensor& var, double epsilon, Tensor& y);
  // Backward of the training forward (mean and var depend on x), from x, dy, gamma (empty: 1)
  // and the mean and var that forward returned:
  //   dbeta[c] = sum dy,  dgamma[c] = sum dy x_hat,  dx = gamma[c] / s[c] (dy - (dbeta[c] + x_hat dgamma[c]) / M)
  // dx, dgamma, dbeta may each be empty: not computed. dx may alias dy.
  void batch_norm_backward(const Tensor& x, const Tensor& dy, const Tensor& gamma, const Tensor& mean,
                           const Tensor& var, double epsilon, Tensor& dx, Tensor& dgamma, Tensor& dbeta);

  // --- dropout: mask[i] = (u_i < keep) / keep with u_i uniform from a counter-based hash
  // of (seed, first_index + i), identical on every backend; then y = x * mask and
  // dx = dy * mask (mul). first_index: where this mask starts in a larger one (a data-parallel
  // rank's slice of the global batch draws the elements the single-process run draws) ---
  void dropout_mask(Tensor& mask, double keep_prob, std::uint64_t seed, std::uint64_t first_index = 0);

  // --- losses over logits [N,K] and labels i32 [N] --------------------------------------
  // prob = softmax(logits); returns mean over N of -log prob[n, label_n]
  double softmax_xent_forward(const Tensor& logits, const Tensor& labels, Tensor& prob);
  // dlogits = (prob - onehot(labels)) * scale  (scale = loss_weight / N for a batch mean)
  void softmax_xent_backward(const Tensor& prob, const Tensor& labels, double scale, Tensor& dlogits);
  void softmax_forward(const Tensor& x, Tensor& y);  // rows of [N,K]
  // y = x - log sum exp(x) per row; backward: dx = dy - exp(y) * sum_k dy
  void log_softmax_forward(const Tensor& x, Tensor& y);
  void log_softmax_backward(const Tensor& y, const Tensor& dy, Tensor& dx);
  // returns mean over N of -logp[n, label_n]; backward: dlogp = -scale at the label, 0 elsewhere
  double nll_forward(const Tensor& logp, const Tensor& labels);
  void nll_backward(const Tensor& labels, double scale, Tensor& dlogp);

  // --- elementwise and reductions (any shape; same numel where two tensors meet) ---------
  void fill(Tensor& x, double value);
  void copy(const Tensor& src, Tensor& dst);  // also between channel layouts (channel_blocks.h)
  void scale(Tensor& x, double alpha);                               // x *= alpha
  void axpy(double alpha, const Tensor& x, Tensor& y);               // y += alpha x
  void axpby(double alpha, const Tensor& x, double beta, Tensor& y); // y = a x + b y
  void add(const Tensor& a, const Tensor& b, Tensor& out);           // out = a + b
  void mul(const Tensor& a, const Tensor& b, Tensor& out);           // out = a * b
  // One pass of a fused elementwise chain (op_params.h, ChainStep): out = steps applied to
  // inputs[0] in order, element by element, each input read once and out written once
  // (Theano's Composite compiled into one loop). inputs[0] and out have one shape [N, C, ...]
  // and dtype; an operand of bias_add is [C], any other operand has inputs[0]'s shape. out may
  // alias any input of its shape. The same numbers as the steps run as whole-tensor ops.
  void fused_elementwise(const std::vector<const Tensor*>& inputs, const std::vector<ChainStep>& steps, Tensor& out);
  double sum(const Tensor& x);
  double sum_squares(const Tensor& x);
  // out[n] = argmax_k x[n, k] for x [N,K], out i32 [N] (ties: the lowest k)
  void argmax_rows(const Tensor& x, Tensor& out);

  // --- concatenation along axis 1 (Caffe's Concat layer with its default axis 1, ONNX Concat
  // with axis=1, torch.cat(xs, 1)): xs[k] [N, C_k, ...] with the same N and trailing
  // dimensions D... (rank >= 2), y [N, C_0 + C_1 + ..., D...]; every tensor one float dtype.
  // With inner = prod(D...) and offset_k = C_0 + ... + C_{k-1}:
  //   y[n, offset_k + c, d] = xs[k][n, c, d]      for c in [0, C_k), d in [0, inner)
  // i.e. per sample n, each input's C_k * inner contiguous elements placed side by side. One
  // input is a copy. The backward is the split: dxs[k][n, c, d] = dy[n, offset_k + c, d],
  // overwritten, not accumulated (Caffe's Concat backward). No output may alias an input.
  void concat_forward(const std::vector<const Tensor*>& xs, Tensor& y);
  void concat_backward(const Tensor& dy, const std::vector<Tensor*>& dxs);

  // --- attention (tokens [N, T, D]; the Vision Transformer's ops) -------------------------------
  // Batched GEMM, one product per leading index: c[i] = alpha op(a[i]) op(b[i]) + beta c[i] for
  // a [B,M,K] (or [B,K,M] transposed), b [B,K,N] (or [B,N,K]), c [B,M,N]; one float dtype.
  // Attention's Q K^T (trans_b) and P V per (sample, head), and their gradients.
  void batched_gemm(bool trans_a, bool trans_b, double alpha, const Tensor& a, const Tensor& b, double beta, Tensor& c);
  // Softmax along the last axis with a scale, max-subtracted: for each row r of x viewed as
  // [R, K] (K the last dimension, any rank >= 1),
  //   y[r, k] = exp(s x[r, k] - m_r) / sum_j exp(s x[r, j] - m_r),  m_r = max_j s x[r, j]
  // (s = scale > 0: attention's 1/sqrt(d)). y may alias x. Backward from y:
  //   dx[r, k] = s y[r, k] (dy[r, k] - sum_j dy[r, j] y[r, j]);  dx may alias dy.
  void softmax_last_forward(const Tensor& x, double scale, Tensor& y);
  void softmax_last_backward(const Tensor& y, const Tensor& dy, double scale, Tensor& dx);
  // Layer normalisation over the last axis (Ba et al. 2016; nn.LayerNorm(D)): x viewed as
  // [R, D] (any rank >= 1); gamma, beta [D] or both empty (no affine part); epsilon > 0.
  //   mean[r] = (1/D) sum_d x[r, d],  var[r] = (1/D) sum_d (x[r, d] - mean[r])^2 (biased),
  //   rstd[r] = 1 / sqrt(var[r] + eps),  x_hat = (x - mean[r]) rstd[r],  y = gamma[d] x_hat + beta[d]
  // mean and rstd [R] are outputs, for the backward. y may alias x.
  void layer_norm_forward(const Tensor& x, const Tensor& gamma, const Tensor& beta, double epsilon, Tensor& y,
                          Tensor& mean, Tensor& rstd);
  // From x, dy, gamma (empty: 1) and the forward's mean and rstd, with g = gamma[d] dy:
  //   dgamma[d] = sum_r dy x_hat,  dbeta[d] = sum_r dy,
  //   dx = rstd[r] (g - (1/D) sum_d g - x_hat (1/D) sum_d g x_hat)
  // dx, dgamma, dbeta may each be empty (not computed). dx may alias dy.
  void layer_norm_backward(const Tensor& x, const Tensor& dy, const Tensor& gamma, const Tensor& mean,
                           const Tensor& rstd, Tensor& dx, Tensor& dgamma, Tensor& dbeta);
  // Axis permutation (numpy.transpose, torch.permute), rank 2 to 6: y.shape[i] = x.shape[perm[i]],
  //   y[i_0, ..., i_{r-1}] = x[j] with j[perm[d]] = i_d.
  // Images to tokens ([N, C, T] -> [N, T, C]: {0, 2, 1}), heads apart ([N, T, H, dh] ->
  // [N, H, T, dh]: {0, 2, 1, 3}). Its backward is permute by the inverse. No aliasing.
  void permute(const Tensor& x, const std::vector<int>& perm, Tensor& y);
  // Fused attention (FlashAttention, Dao et al. 2022, on the CPU): for q, k, v [B, T, d] (B the
  // (sample, head) pairs), per batch index b and query row i,
  //   o[b, i] = sum_j p_ij v[b, j],  p_ij = exp(s q_i . k_j - lse[b, i]),
  //   lse[b, i] = log sum_j exp(s q_i . k_j)
  // computed over the keys `block` at a time with a running max and a running sum (online
  // softmax): no [T, T] matrix is formed. lse [B, T] is kept for the backward. s = scale > 0,
  // block >= 1 (need not divide T). o and lse must not alias q, k or v.
  void fused_attention_forward(const Tensor& q, const Tensor& k, const Tensor& v, double scale, std::int64_t block,
                               Tensor& o, Tensor& lse);
  // Its gradient from dout [B, T, d], recomputing p block by block from q, k and lse:
  //   D_i = dout_i . o_i,  dp_ij = dout_i . v_j,  ds_ij = p_ij (dp_ij - D_i),
  //   dq_i = s sum_j ds_ij k_j,  dk_j = s sum_i ds_ij q_i,  dv_j = sum_i p_ij dout_i
  // dq, dk, dv [B, T, d], separate from every input.
  void fused_attention_backward(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& o, const Tensor& lse,
                                const Tensor& dout, double scale, std::int64_t block, Tensor& dq, Tensor& dk,
                                Tensor& dv);

  // --- optimizer updates on one parameter w with gradient g (g may be modified) ---------
  void caffe_sgd_update(Tensor& w, Tensor& g, Tensor& history, const CaffeSgdParams& p);
  void torch_sgd_update(Tensor& w, Tensor& g, Tensor& velocity, const TorchSgdParams& p);
  void adam_update(Tensor& w, const Tensor& g, Tensor& m, Tensor& v, const AdamParams& p);
  // A fully connected layer's weight gradient folded into its update (the static strategy's
  // update_fusion pass): dw = dy^T x [O, I] as linear_backward_weights computes it, but a band
  // of rows at a time, each band handed at once to the update of p (the rule of
  // caffe_sgd_update, torch_sgd_update or adam_update) on the same rows of w and of its state
  // tensors (`state`: update_state_count(p) tensors shaped like w), so that dw never goes to
  // memory whole: for TF MNIST's fc1 (3136 x 1024, 12.8 MB) one write and one read of the
  // gradient less per step (docs/benchmarks.md, "The update folded into the weight gradient").
  // dbias (may be empty) as in linear_backward_weights. With check_finite, a band whose
  // gradient holds NaN or inf is left unapplied; returns how many such values there were
  // (0 without check_finite).
  std::int64_t linear_backward_weights_update(const Tensor& x, const Tensor& dy, Tensor& w,
                                              const std::vector<Tensor*>& state, Tensor& dbias, const UpdateParams& p,
                                              bool check_finite);

 protected:
  // The implementations, called with arguments that passed the contract. An implementation
  // that needs another op calls its _impl (no second check, no second observer span).
  virtual void gemm_impl(bool trans_a, bool trans_b, double alpha, const Tensor& a, const Tensor& b,
                         double beta, Tensor& c) = 0;
  virtual void conv2d_forward_impl(const Tensor& x, const Tensor& w, const Tensor& bias, Tensor& y,
                                   const Conv2dParams& p) = 0;
  virtual void conv2d_backward_data_impl(const Tensor& dy, const Tensor& w, Tensor& dx, const Conv2dParams& p) = 0;
  virtual void conv2d_backward_weights_impl(const Tensor& x, const Tensor& dy, Tensor& dw, Tensor& dbias,
                                            const Conv2dParams& p) = 0;
  virtual void conv2d_map_forward_impl(const Tensor& x, const Tensor& w, const Tensor& bias,
                                       const Tensor& table, Tensor& y, const Conv2dParams& p) = 0;
  virtual void conv2d_map_backward_data_impl(const Tensor& dy, const Tensor& w, const Tensor& table,
                                             Tensor& dx, const Conv2dParams& p) = 0;
  virtual void conv2d_map_backward_weights_impl(const Tensor& x, const Tensor& dy, const Tensor& table,
                                                Tensor& dw, Tensor& dbias, const Conv2dParams& p) = 0;
  virtual void bias_add_impl(Tensor& y, const Tensor& bias) = 0;
  virtual void bias_backward_impl(const Tensor& dy, Tensor& dbias) = 0;
  virtual void linear_forward_impl(const Tensor& x, const Tensor& w, const Tensor& bias, Tensor& y) = 0;
  virtual void linear_backward_data_impl(const Tensor& dy, const Tensor& w, Tensor& dx) = 0;
  virtual void linear_backward_weights_impl(const Tensor& x, const Tensor& dy, Tensor& dw, Tensor& dbias) = 0;
  virtual void pool2d_forward_impl(const Tensor& x, Tensor& y, Tensor& workspace, const Pool2dParams& p) = 0;
  virtual void pool2d_backward_impl(const Tensor& x, const Tensor& y, const Tensor& dy,
                                    const Tensor& workspace, Tensor& dx, const Pool2dParams& p) = 0;
  // Not pure: the defaults say "not supported" (unsupported_ops.cpp).
  virtual void conv2d_max_pool_forward_impl(const Tensor& x, const Tensor& w, const Tensor& bias, Tensor& y,
                                            Tensor& workspace, const Conv2dParams& cp, const Pool2dParams& pp);
  virtual void conv2d_max_pool_backward_weights_impl(const Tensor& x, const Tensor& dy, const Tensor& workspace,
                                                     Tensor& dw, Tensor& dbias, const Conv2dParams& cp,
                                                     const Pool2dParams& pp);
  virtual void activation_forward_impl(Activation a, const Tensor& x, Tensor& y) = 0;
  virtual void activation_backward_impl(Activation a, const Tensor& y, const Tensor& dy, Tensor& dx) = 0;
  virtual void gelu_forward_impl(const Tensor& x, Tensor& y, GeluApprox approx) = 0;
  virtual void gelu_backward_impl(const Tensor& x, const Tensor& dy, Tensor& dx, GeluApprox approx) = 0;
  virtual void lrn_forward_impl(const Tensor& x, Tensor& y, Tensor& workspace, const LrnParams& p) = 0;
  virtual void lrn_backward_impl(const Tensor& x, const Tensor& y, const Tensor& dy, const Tensor& workspace,
                                 Tensor& dx, const LrnParams& p) = 0;
  virtual void batch_norm_forward_training_impl(const Tensor& x, const Tensor& gamma, const Tensor& beta,
                                               double epsilon, Tensor& y, Tensor& mean, Tensor& var) = 0;
  virtual void batch_norm_forward_inference_impl(const Tensor& x, const Tensor& gamma, const Tensor& beta,
                                                const Tensor& mean, const Tensor& var, double epsilon, Tensor& y) = 0;
  virtual void batch_norm_backward_impl(const Tensor& x, const Tensor& dy, const Tensor& gamma, const Tensor& mean,
                                        const Tensor& var, double epsilon, Tensor& dx, Tensor& dgamma,
                                        Tensor& dbeta) = 0;
  virtual void dropout_mask_impl(Tensor& mask, double keep_prob, std::uint64_t seed, std::uint64_t first_index) = 0;
  virtual double softmax_xent_forward_impl(const Tensor& logits, const Tensor& labels, Tensor& prob) = 0;
  virtual void softmax_xent_backward_impl(const Tensor& prob, const Tensor& labels, double scale,
                                          Tensor& dlogits) = 0;
  virtual void softmax_forward_impl(const Tensor& x, Tensor& y) = 0;
  virtual void log_softmax_forward_impl(const Tensor& x, Tensor& y) = 0;
  virtual void log_softmax_backward_impl(const Tensor& y, const Tensor& dy, Tensor& dx) = 0;
  virtual double nll_forward_impl(const Tensor& logp, const Tensor& labels) = 0;
  virtual void nll_backward_impl(const Tensor& labels, double scale, Tensor& dlogp) = 0;
  virtual void fill_impl(Tensor& x, double value) = 0;
  virtual void copy_impl(const Tensor& src, Tensor& dst) = 0;
  // copy between two channel layouts of one shape (kernels/channel_blocks.h); the default runs
  // the host loops of convert_channel_layout, a backend with a faster reorder overrides it.
  virtual void convert_channel_layout_impl(const Tensor& src, Tensor& dst);
  virtual void scale_impl(Tensor& x, double alpha) = 0;
  virtual void axpy_impl(double alpha, const Tensor& x, Tensor& y) = 0;
  virtual void axpby_impl(double alpha, const Tensor& x, double beta, Tensor& y) = 0;
  virtual void add_impl(const Tensor& a, const Tensor& b, Tensor& out) = 0;
  virtual void mul_impl(const Tensor& a, const Tensor& b, Tensor& out) = 0;
  virtual void fused_elementwise_impl(const std::vector<const Tensor*>& inputs, const std::vector<ChainStep>& steps,
                                     Tensor& out) = 0;
  virtual double sum_impl(const Tensor& x) = 0;
  virtual double sum_squares_impl(const Tensor& x) = 0;
  virtual void argmax_rows_impl(const Tensor& x, Tensor& out) = 0;
  virtual void concat_forward_impl(const std::vector<const Tensor*>& xs, Tensor& y) = 0;
  virtual void concat_backward_impl(const Tensor& dy, const std::vector<Tensor*>& dxs) = 0;
  // One gemm_impl per batch index on views of a, b and c (kernels/batched_gemm_loop.cpp): a
  // backend with a batched primitive overrides it.
  virtual void batched_gemm_impl(bool trans_a, bool trans_b, double alpha, const Tensor& a, const Tensor& b,
                                 double beta, Tensor& c);
  // The attention ops a backend lacks throw "<backend> <op>: not supported on <backend>"
  // (kernels/unsupported_ops.cpp); reference and the CPU backends override them.
  virtual void softmax_last_forward_impl(const Tensor& x, double scale, Tensor& y);
  virtual void softmax_last_backward_impl(const Tensor& y, const Tensor& dy, double scale, Tensor& dx);
  virtual void layer_norm_forward_impl(const Tensor& x, const Tensor& gamma, const Tensor& beta, double epsilon,
                                       Tensor& y, Tensor& mean, Tensor& rstd);
  virtual void layer_norm_backward_impl(const Tensor& x, const Tensor& dy, const Tensor& gamma, const Tensor& mean,
                                        const Tensor& rstd, Tensor& dx, Tensor& dgamma, Tensor& dbeta);
  virtual void permute_impl(const Tensor& x, const std::vector<int>& perm, Tensor& y);
  virtual void fused_attention_forward_impl(const Tensor& q, const Tensor& k, const Tensor& v, double scale,
                                            std::int64_t block, Tensor& o, Tensor& lse);
  virtual void fused_attention_backward_impl(const Tensor& q, const Tensor& k, const Tensor& v, const Tensor& o,
                                             const Tensor& lse, const Tensor& dout, double scale, std::int64_t block,
                                             Tensor& dq, Tensor& dk, Tensor& dv);
  virtual void caffe_sgd_update_impl(Tensor& w, Tensor& g, Tensor& history, const CaffeSgdParams& p) = 0;
  virtual void torch_sgd_update_impl(Tensor& w, Tensor& g, Tensor& velocity, const TorchSgdParams& p) = 0;
  virtual void adam_update_impl(Tensor& w, const Tensor& g, Tensor& m, Tensor& v, const AdamParams& p) = 0;
  // By default the unfused pair: the whole dw in a buffer kept for the next call (grown to the
  // largest weight), then the update's own op (kernels/contract/optimizer_ops.cpp); the CPU
  // backends fold it (kernels/cpu/linear_update.cpp).
  virtual std::int64_t linear_backward_weights_update_impl(const Tensor& x, const Tensor& dy, Tensor& w,
                                                           const std::vector<Tensor*>& state, Tensor& dbias,
                                                           const UpdateParams& p, bool check_finite);

 private:
  OpObserver* observer_ = nullptr;
  PoolGradient pool_gradient_ = PoolGradient::first;
  Tensor unfused_gradient_;  // the default linear_backward_weights_update_impl's dw
};

}  // namespace ablate::kernels
