// OnednnBackend: the backend that runs the heavy ops as oneDNN 2.6 primitives (convolution,
// pooling, LRN, eltwise (relu, tanh, sigmoid, GELU), inner product, softmax, log-softmax,
// batched matmul) and
// GEMM as dnnl_sgemm, the library behind Intel's optimised TensorFlow/Caffe/PyTorch CPU builds
// ("MKL-class" math). Everything else (losses' label handling, dropout masks, batch
// normalisation, elementwise ops, optimizer updates) is CpuBackend's shared OpenMP loops.
// oneDNN 2.6's CPU primitives are f32 only: f64 tensors take CpuBackend's loops with dgemm
// from OpenBLAS.
//
// Primitives are built once per shape and parameters and cached (PrimitiveCache); the
// counters are public so tests can check that a repeated step builds nothing.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>

#include "kernels/cpu/cpu_backend.h"
#include "kernels/onednn/conv_layout.h"
#include "kernels/onednn/primitive_cache.h"
#include "kernels/openblas/openblas_threads.h"

namespace ablate::kernels::onednn {

// Named switches of this backend's optimisations (recorded by library_version()).
struct OnednnOptions {
  // The layout convolutions run in (conv_layout.h).
  ConvLayout conv_layout = default_conv_layout();
  // conv_forward_training: the forward convolution is built with prop_kind::forward_training,
  // as the backward primitives' hint is; off: forward_inference. Measured at 1 thread on 15
  // shapes of the zoo's models: with library-chosen layouts, training picks jit:avx512_core
  // kernels and inference brgconv; training was faster on 9, tied on 4 and slower on 2
  // (LeNet conv2, where NHWC is faster still). With plain and NHWC it makes no difference.
  bool conv_forward_training = true;
};

class OnednnBackend : public cpu::CpuBackend {
 public:
  // setup: the convolution's lowering (direct: the primitives) and the shared loops' strategy,
  // which runs the other lowerings and the f64 convolutions (conv_lowering.h).
  explicit OnednnBackend(OnednnOptions options = {},
                         const cpu::ConvSetup& setup = cpu::resolve_conv_setup(cpu::ConvLowering::direct, {}, {}, {}));

  std::string name() const override { return "onednn"; }
  std::string library_version() const override;
  // Autotuned convolution layouts are chosen by timing, so they may differ between runs.
  bool deterministic() const override { return options_.conv_layout != ConvLayout::autotune; }
  // Deterministic: the plain layout instead of timing the layouts (before any convolution ran).
  bool make_deterministic() override;
  // The conv mode of the shared loops and each cached convolution's layout.
  std::vector<std::pair<std::string, std::string>> choices() const override;
  // As the shared loops' (cpu_backend.h), but batch normalisation's: "" (its layout follows the
  // convolution's lowering).
  std::string op_setup(Op op) const override;
  const OnednnOptions& options() const { return options_; }
  // f32 with the direct lowering and the blocked or autotuned convolution layout: the block of
  // this CPU's blocked kernels (16 with AVX-512, else 8); otherwise 0.
  int channel_block(DType dtype) const override;
  // Whether convolutions run on oneDNN's primitives (the direct lowering; f32 only).
  bool direct_conv() const { return setup_.lowering == cpu::ConvLowering::direct; }
  bool conv_in_library(DType dtype) const override { return dtype == DType::f32 && direct_conv(); }

  // Cache counters: entries built (primitive descriptors + primitives) and cache hits.
  std::int64_t primitive_builds() const { return cache_.counters().builds; }
  double setup_seconds() const override { return cache_.counters().build_seconds; }
  std::int64_t primitive_hits() const { return cache_.counters().hits; }
  std::size_t cached_primitives() const { return cache_.size(); }
  // The layout each cached convolution primitive runs in: (cache key, "nhwc").
  std::vector<std::pair<std::string, std::string>> conv_layouts() const { return cache_.labels(); }

 protected:
  // oneDNN primitives in f32; f64 (and pooling geometries oneDNN lacks) take CpuBackend's loops.
  void conv2d_forward_impl(const Tensor& x, const Tensor& w, const Tensor& bias, Tensor& y,
                           const Conv2dParams& p) override;
  void conv2d_backward_data_impl(const Tensor& dy, const Tensor& w, Tensor& dx, const Conv2dParams& p) override;
  void conv2d_backward_weights_impl(const Tensor& x, const Tensor& dy, Tensor& dw, Tensor& dbias,
                                    const Conv2dParams& p) override;
  void linear_forward_impl(const Tensor& x, const Tensor& w, const Tensor& bias, Tensor& y) override;
  void linear_backward_data_impl(const Tensor& dy, const Tensor& w, Tensor& dx) override;
  void linear_backward_weights_impl(const Tensor& x, const Tensor& dy, Tensor& dw, Tensor& dbias) override;
  void pool2d_forward_impl(const Tensor& x, Tensor& y, Tensor& workspace, const Pool2dParams& p) override;
  void pool2d_backward_impl(const Tensor& x, const Tensor& y, const Tensor& dy, const Tensor& workspace,
                            Tensor& dx, const Pool2dParams& p) override;
  void activation_forward_impl(Activation a, const Tensor& x, Tensor& y) override;
  // Channel-blocked f32 tensors: oneDNN's batch normalisation primitive in their layout
  // (onednn_batch_norm.cpp); plain ones: CpuBackend's loops.
  void batch_norm_forward_training_impl(const Tensor& x, const Tensor& gamma, const Tensor& beta, double epsilon,
                                        Tensor& y, Tensor& mean, Tensor& var) override;
  void batch_norm_forward_inference_impl(const Tensor& x, const Tensor& gamma, const Tensor& beta, const Tensor& mean,
                                         const Tensor& var, double epsilon, Tensor& y) override;
  void batch_norm_backward_impl(const Tensor& x, const Tensor& dy, const Tensor& gamma, const Tensor& mean,
                                const Tensor& var, double epsilon, Tensor& dx, Tensor& dgamma, Tensor& dbeta) override;
  // f32: a reorder primitive between the two layouts; f64: the host loops.
  void convert_channel_layout_impl(const Tensor& src, Tensor& dst) override;
  // Batch norm forward of a channel-blocked x on oneDNN's primitive: training writes the batch's
  // mean and var [C], inference reads them.
  void blocked_batch_norm_forward(bool training, const Tensor& x, const Tensor& gamma, const Tensor& beta, const void* mean,
                                  const void* var, double epsilon, Tensor& y);
  // tanh and sigmoid steps on oneDNN's eltwise, the rest on the shared loop (onednn_fused.cpp).
  void fused_elementwise_impl(const std::vector<const Tensor*>& inputs, const std::vector<ChainStep>& steps,
                              Tensor& out) override;
  void activation_backward_impl(Activation a, const Tensor& y, const Tensor& dy, Tensor& dx) override;
  void gelu_forward_impl(const Tensor& x, Tensor& y, GeluApprox approx) override;
  void gelu_backward_impl(const Tensor& x, const Tensor& dy, Tensor& dx, GeluApprox approx) override;
  void lrn_forward_impl(const Tensor& x, Tensor& y, Tensor& workspace, const LrnParams& p) override;
  void lrn_backward_impl(const Tensor& x, const Tensor& y, const Tensor& dy, const Tensor& workspace,
                         Tensor& dx, const LrnParams& p) override;
  void softmax_forward_impl(const Tensor& x, Tensor& y) override;
  // f32: y = s x, then the softmax primitive in place on [rows, K] (onednn_softmax.cpp).
  void softmax_last_forward_impl(const Tensor& x, double scale, Tensor& y) override;
  // f32: one matmul primitive over the batch (onednn_matmul.cpp); f64: one GEMM per item.
  void batched_gemm_impl(bool trans_a, bool trans_b, double alpha, const Tensor& a, const Tensor& b, double beta,
                         Tensor& c) override;
  void log_softmax_forward_impl(const Tensor& x, Tensor& y) override;
  void log_softmax_backward_impl(const Tensor& y, const Tensor& dy, Tensor& dx) override;
  void sgemm(bool trans_a, bool trans_b, int m, int n, int k, float alpha, const float* a, int lda,
             const float* b, int ldb, float beta, float* c, int ldc) override;
  void dgemm(bool trans_a, bool trans_b, int m, int n, int k, double alpha, const double* a, int lda,
             const double* b, int ldb, double beta, double* c, int ldc) override;
  void set_library_threads(int threads) override;
  // OpenBLAS runs only the f64 products here (dnnl_sgemm the f32 ones, on OpenMP).
  bool library_serves(DType dtype) const override { return dtype == DType::f64; }

 private:
  OpenBlasThreads blas_threads_;
  // The cache entry of `key`, building it with `build` on first use. Applies this backend's
  // thread count to the calling thread first (OpenMP's setting is per thread, and an
  // inter-op pool thread starts with the default), so the primitive is built and run with it.
  using Builder = std::function<void(CachedPrimitive&)>;
  CachedPrimitive& primitive(CacheKey& key, const Builder& build);
  // A convolution's entry: built by `build` in options_.conv_layout, or, under autotune, in
  // each concrete layout, timed on `bindings` (the call's own tensors), the fastest kept;
  // `blocked_tensors` (an activation arrived channel-blocked): in the blocked layout, untimed.
  using ConvBuilder = std::function<void(CachedPrimitive&, ConvLayout)>;
  CachedPrimitive& conv_primitive(CacheKey& key, const ConvBuilder& build, std::initializer_list<Binding> bindings,
                                  bool blocked_tensors);
  void run(CachedPrimitive& p, std::initializer_list<Binding> bindings) { execute(p, stream_, bindings); }
  // One f32 eltwise primitive over all numel values: y = f(x); dx = dy f'(data), where data is
  // the forward's output (data_arg DNNL_ARG_DST, the *_use_dst_for_bwd algorithms) or its input.
  void eltwise_forward(dnnl::algorithm alg, const Tensor& x, Tensor& y);
  void eltwise_backward(dnnl::algorithm alg, int data_arg, const Tensor& data, const Tensor& dy, Tensor& dx);
  // Attributes of every primitive: scratchpad owned by the cache entry.
  dnnl::primitive_attr attr() const;

  OnednnOptions options_;
  dnnl::engine engine_;
  dnnl::stream stream_;
  PrimitiveCache cache_;
};

}  // namespace ablate::kernels::onednn
