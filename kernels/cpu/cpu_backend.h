// CpuBackend: the part that the eigen, openblas and onednn backends share. Every op that a
// math library does not provide is one OpenMP loop here (kernels/cpu/*.cpp), written once;
// convolution is im2col + GEMM as in Caffe's BaseConvolutionLayer and Torch's
// SpatialConvolutionMM (per image, or in groups of images, with the threads in the library or
// in OpenMP: conv_lowering.h), and fully connected layers are one GEMM. A subclass supplies the
// GEMM (and may override whole ops with library primitives, as onednn does, or lower the
// convolution its own way, as eigen_spatial does).
// Threads: under the `library` threading model every thread is the library's and the shared
// loops run on the calling thread, as Caffe 1.0's layers and Theano's C ops (openmp=False by
// default) did; otherwise the loops take the run's thread count.
#pragma once

#include <type_traits>

#include "kernels/backend.h"
#include "kernels/cpu/conv_lowering.h"

namespace ablate::kernels::cpu {

class CpuBackend : public Backend {
 public:
  // The convolution's lowering and threading (conv_lowering.h), BackendOptions::conv_lowering,
  // threading and conv_mode resolved. The openmp_images model keeps the library single-threaded.
  explicit CpuBackend(ConvSetup setup = resolve_conv_setup(ConvLowering::omp_per_image, {}, {}, {})) : setup_(setup) {}
  void set_conv_setup(const ConvSetup& setup);
  const ConvSetup& conv_setup() const { return setup_; }
  // conv_mode (when the im2col loops run a convolution and one names them), conv_lowering,
  // threading, and the size of each thread pool: pool.library (the BLAS's, Eigen's or oneDNN's),
  // pool.openmp (the shared loops'), and a subclass's own (eigen_spatial's pool.intra_op).
  std::vector<std::pair<std::string, std::string>> choices() const override;
  // A convolution's: "" (its lowering decides); any other op's: the pools it runs on and whether
  // its GEMMs are split over OpenMP: "library 1, openmp 2, gemm split".
  std::string op_setup(Op op) const override;

  void set_threads(int threads) override;
  int threads() const override { return threads_; }
  // Any max pooling with the first maximum's gradient (conv_max_pool.cpp).
  bool fuses_conv_max_pool(const Pool2dParams& pp) const override;

 protected:
  void gemm_impl(bool trans_a, bool trans_b, double alpha, const Tensor& a, const Tensor& b, double beta,
                 Tensor& c) override;
  void conv2d_forward_impl(const Tensor& x, const Tensor& w, const Tensor& bias, Tensor& y,
                           const Conv2dParams& p) override;
  void conv2d_backward_data_impl(const Tensor& dy, const Tensor& w, Tensor& dx, const Conv2dParams& p) override;
  void conv2d_backward_weights_impl(const Tensor& x, const Tensor& dy, Tensor& dw, Tensor& dbias,
                                    const Conv2dParams& p) override;
  // Torch's SpatialConvolutionMap as direct per-connection loops (conv_map.cpp).
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
  void pool2d_backward_impl(const Tensor& x, const Tensor& y, const Tensor& dy, const Tensor& workspace,
                            Tensor& dx, const Pool2dParams& p) override;
  // The convolution over a few images at a time, pooled while in cache (conv_max_pool.cpp).
  void conv2d_max_pool_forward_impl(const Tensor& x, const Tensor& w, const Tensor& bias, Tensor& y, Tensor& workspace,
                                    const Conv2dParams& cp, const Pool2dParams& pp) override;
  void conv2d_max_pool_backward_weights_impl(const Tensor& x, const Tensor& dy, const Tensor& workspace, Tensor& dw,
                                             Tensor& dbias, const Conv2dParams& cp, const Pool2dParams& pp) override;
  void activation_forward_impl(Activation a, const Tensor& x, Tensor& y) override;
  void activation_backward_impl(Activation a, const Tensor& y, const Tensor& dy, Tensor& dx) override;
  void gelu_forward_impl(const Tensor& x, Tensor& y, GeluApprox approx) override;
  void gelu_backward_impl(const Tensor& x, const Tensor& dy, Tensor& dx, GeluApprox approx) override;
  void lrn_forward_impl(const Tensor& x, Tensor& y, Tensor& workspace, const LrnParams& p) override;
  void lrn_backward_impl(const Tensor& x, const Tensor& y, const Tensor& dy, const Tensor& workspace,
                         Tensor& dx, const LrnParams& p) override;
  // Batch normalisation as loops over channels (batch_norm.cpp); onednn uses them too.
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
  std::int64_t linear_backward_weights_update_impl(const Tensor& x, const Tensor& dy, Tensor& w,
                                                   const std::vector<Tensor*>& state, Tensor& dbias,
                                                   const UpdateParams& p, bool check_finite) override;

  // Row-major C[M,N] = alpha * op(A)[M,K] * op(B)[K,N] + beta * C, leading dimensions as in
  // CBLAS with CblasRowMajor. The one thing eigen and openblas differ in.
  virtual void sgemm(bool trans_a, bool trans_b, int m, int n, int k, float alpha, const float* a, int lda,
                     const float* b, int ldb, float beta, float* c, int ldc) = 0;
  virtual void dgemm(bool trans_a, bool trans_b, int m, int n, int k, double alpha, const double* a,
                     int lda, const double* b, int ldb, double beta, double* c, int ldc) = 0;
  // Applies the thread count to the library's own pool (BLAS, Eigen, oneDNN).
  virtual void set_library_threads(int threads) = 0;
  // Whether the products of `dtype` run on that library, so that holding it to one thread around
  // OpenMP's workers matters (onednn: f64 only; its f32 products are dnnl_sgemm's).
  virtual bool library_serves(DType dtype) const {
    (void)dtype;
    return true;
  }

  // The settings of the shared loops, for library_version(): "conv=omp_per_image, library threads 1".
  std::string cpu_settings() const;
  // Whether this backend's convolution of `dtype` runs in its library's primitives (oneDNN's
  // direct, Eigen's spatial) rather than the loops here.
  virtual bool conv_in_library(DType dtype) const {
    (void)dtype;
    return false;
  }
  // The OpenMP workers that run a fused convolution + max pooling over n images of `dtype`, each
  // its own images: where the convolution is these loops on OpenMP's threads; 0 elsewhere (a
  // library's threads or primitives cannot run inside the workers: the two ops apart;
  // conv_max_pool.cpp).
  int conv_max_pool_workers(std::int64_t n, DType dtype) const;
  // Whether all threads are OpenMP's (openmp_images): GEMMs outside convolutions are then split
  // over OpenMP threads (split_gemm.h) and the library runs single-threaded.
  bool openmp_owns_threads() const {
    return setup_.lowering != ConvLowering::eigen_spatial && setup_.loops.threading == Threading::openmp_images;
  }
  // Whether the convolution loops run on ablate's own GEMM (ConvLowering::tiled_gemm).
  bool tiled() const { return setup_.lowering == ConvLowering::tiled_gemm; }
  // The library's pool size that the setup gives: 1 when OpenMP owns the threads.
  int library_threads() const { return openmp_owns_threads() ? 1 : threads_; }
  // A GEMM of the ops (linear layers, the public gemm): the library's threads, or split_gemm.
  template <class T>
  void run_gemm(bool ta, bool tb, int m, int n, int k, T alpha, const T* a, int lda, const T* b, int ldb, T beta, T* c,
                int ldc);
  // sgemm or dgemm as one callable of precision T, for the templated loops. Empty products
  // never reach the library (CBLAS rejects a leading dimension of 0): k = 0 gives C = beta C.
  template <class T> auto gemm_hook() {
    return [this](bool ta, bool tb, int m, int n, int k, T alpha, const T* a, int lda, const T* b, int ldb,
                  T beta, T* c, int ldc) {
      if (m <= 0 || n <= 0) return;
      if (k <= 0) {
        for (int i = 0; i < m; ++i)
          for (int j = 0; j < n; ++j) c[i * ldc + j] = beta == T(0) ? T(0) : beta * c[i * ldc + j];
        return;
      }
      if constexpr (std::is_same_v<T, float>) sgemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
      else dgemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
    };
  }

  int threads_ = 1;
  // The shared loops' thread count: 1 under the library threading model, else threads_.
  int loop_threads_ = 1;
  ConvSetup setup_;

 protected:
  class LibraryHeldToOne;  // conv2d.cpp

 private:
  void apply_setup();
};

}  // namespace ablate::kernels::cpu
