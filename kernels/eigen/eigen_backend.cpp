// The eigen backend: TensorFlow 1.x's CPU math library. GEMM is Eigen's general matrix
// product over Eigen::Map views of row-major buffers (Eigen uses OpenMP for its GEMM when
// built with -fopenmp, threads set by Eigen::setNbThreads); every other op is the shared
// OpenMP loops of kernels/cpu. Convolution is im2col + Eigen GEMM on NCHW (the per_image_gemm,
// batched_gemm and omp_per_image lowerings), or TensorFlow's own way, Eigen tensor
// contractions over NHWC patches on an intra-op pool (eigen_spatial: eigen_spatial_conv.h). It
// also carries tiled_gemm, the same loops on ablate's own register tiles (kernels/cpu/tiled_gemm.h):
// that lowering uses no library, so one backend offers it, the one whose GEMM is compiled here too.
#include "kernels/eigen/eigen_backend.h"

// GCC 12 reports "may be used uninitialized" inside Eigen's AVX-512 packet code: a false positive.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <Eigen/Core>

#include <string>

#include "kernels/cpu/bias_loops.h"
#include "kernels/cpu/conv_epilogue.h"
#include "kernels/cpu/cpu_backend.h"
#include "kernels/cpu/dtype_dispatch.h"
#include "kernels/eigen/eigen_spatial_conv.h"

namespace ablate::kernels {
namespace {

template <class T> using RowMajor = Eigen::Matrix<T, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
template <class T> using ConstMap = Eigen::Map<const RowMajor<T>, Eigen::Unaligned, Eigen::OuterStride<>>;
template <class T> using MutMap = Eigen::Map<RowMajor<T>, Eigen::Unaligned, Eigen::OuterStride<>>;

// C[M,N] = alpha op(A) op(B) + beta C with CBLAS row-major leading dimensions. C is not read
// when beta is 0 (it may hold anything, as in BLAS).
template <class T>
void eigen_gemm(bool ta, bool tb, int m, int n, int k, T alpha, const T* a, int lda, const T* b, int ldb, T beta, T* c,
                int ldc) {
  ConstMap<T> A(a, ta ? k : m, ta ? m : k, Eigen::OuterStride<>(lda));
  ConstMap<T> B(b, tb ? n : k, tb ? k : n, Eigen::OuterStride<>(ldb));
  MutMap<T> C(c, m, n, Eigen::OuterStride<>(ldc));
  auto product = [&](const auto& opa, const auto& opb) {
    if (beta == T(0)) {
      C.noalias() = alpha * opa * opb;
    } else {
      if (beta != T(1)) C *= beta;
      C.noalias() += alpha * opa * opb;
    }
  };
  if (!ta && !tb) product(A, B);
  else if (ta && !tb) product(A.transpose(), B);
  else if (!ta && tb) product(A, B.transpose());
  else product(A.transpose(), B.transpose());
}

class EigenBackend final : public cpu::CpuBackend {
 public:
  using CpuBackend::CpuBackend;
  std::string name() const override { return "eigen"; }
  std::string library_version() const override {
    return "Eigen " + std::to_string(EIGEN_WORLD_VERSION) + "." + std::to_string(EIGEN_MAJOR_VERSION) + "." +
           std::to_string(EIGEN_MINOR_VERSION) + " (" + Eigen::SimdInstructionSetsInUse() + ", " + cpu_settings() + ")";
  }

 protected:
  void sgemm(bool ta, bool tb, int m, int n, int k, float alpha, const float* a, int lda, const float* b, int ldb,
             float beta, float* c, int ldc) override {
    eigen_gemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  }
  void dgemm(bool ta, bool tb, int m, int n, int k, double alpha, const double* a, int lda, const double* b, int ldb,
             double beta, double* c, int ldc) override {
    eigen_gemm(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  }
  void set_library_threads(int threads) override {
    Eigen::setNbThreads(threads);
    spatial_.set_threads(threads_);  // the intra-op pool: the run's thread count
  }

  // eigen_spatial: TensorFlow's NHWC contractions; the other lowerings: the shared im2col loops.
  bool spatial() const { return setup_.lowering == cpu::ConvLowering::eigen_spatial; }
  bool conv_in_library(DType) const override { return spatial(); }
  void conv2d_forward_impl(const Tensor& x, const Tensor& w, const Tensor& bias, Tensor& y,
                           const Conv2dParams& p) override {
    if (!spatial()) return CpuBackend::conv2d_forward_impl(x, w, bias, y, p);
    spatial_.forward(x, w, y, p);
    // TensorFlow's BiasAdd (and with an epilogue its Relu: _FusedConv2D), after the contraction.
    cpu::dispatch_float(y.dtype(), [&](auto tag) {
      using T = decltype(tag);
      cpu::conv_epilogue_in_place(loop_threads_, p.activation, bias.empty() ? nullptr : bias.data<T>(), y.data<T>(),
                                  y.dim(0), y.dim(1), y.dim(2) * y.dim(3));
    });
  }
  void conv2d_backward_data_impl(const Tensor& dy, const Tensor& w, Tensor& dx, const Conv2dParams& p) override {
    if (!spatial()) return CpuBackend::conv2d_backward_data_impl(dy, w, dx, p);
    spatial_.backward_data(dy, w, dx, p);
  }
  void conv2d_backward_weights_impl(const Tensor& x, const Tensor& dy, Tensor& dw, Tensor& dbias,
                                    const Conv2dParams& p) override {
    if (!spatial()) return CpuBackend::conv2d_backward_weights_impl(x, dy, dw, dbias, p);
    spatial_.backward_weights(x, dy, dw, p);
    if (!dbias.empty()) bias_backward_impl(dy, dbias);  // TensorFlow's BiasAddGrad
  }

 public:
  // CpuBackend's, and with eigen_spatial the intra-op pool, the layout and the reorders done.
  std::vector<std::pair<std::string, std::string>> choices() const override {
    auto out = CpuBackend::choices();
    if (!spatial()) return out;
    out.emplace_back("pool.intra_op", std::to_string(spatial_.threads()));
    out.emplace_back("layout", "nhwc");
    out.emplace_back("reorders.activations", std::to_string(spatial_.activation_reorders()));
    out.emplace_back("reorders.filters", std::to_string(spatial_.filter_reorders()));
    out.emplace_back("reorders.bytes", std::to_string(spatial_.reorder_bytes()));
    return out;
  }

 private:
  eigen::EigenSpatialConv spatial_;
};

}  // namespace

std::vector<cpu::ConvLowering> eigen_conv_lowerings() {
  using L = cpu::ConvLowering;
  return {L::omp_per_image, L::per_image_gemm, L::batched_gemm, L::eigen_spatial, L::tiled_gemm};
}

std::unique_ptr<Backend> make_eigen_backend(const BackendOptions& options) {
  auto backend = std::make_unique<EigenBackend>(cpu::resolve_conv_setup(
      eigen_conv_lowerings().front(), options.conv_mode, options.conv_lowering, options.threading));
  backend->set_threads(options.threads);
  return backend;
}

}  // namespace ablate::kernels
