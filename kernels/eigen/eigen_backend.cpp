// The eigen backend: TensorFlow 1.x's CPU math library. GEMM is Eigen's general matrix
// product over Eigen::Map views of row-major buffers (Eigen uses OpenMP for its GEMM when
// built with -fopenmp, threads set by Eigen::setNbThreads); every other op is the shared
// OpenMP loops of kernels/cpu, convolution as im2col + GEMM. TensorFlow itself runs its
// convolutions as Eigen tensor contractions over NHWC patches: the GEMM is the same kernel.
#include "kernels/eigen/eigen_backend.h"

// GCC 12 reports "may be used uninitialized" inside Eigen's AVX-512 packet code: a false positive.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include <Eigen/Core>

#include <string>

#include "kernels/cpu/cpu_backend.h"

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
  void set_library_threads(int threads) override { Eigen::setNbThreads(threads); }
};

}  // namespace

std::unique_ptr<Backend> make_eigen_backend(const BackendOptions& options) {
  auto backend = std::make_unique<EigenBackend>(options.conv_mode.value_or(cpu::default_conv_mode()));
  backend->set_threads(options.threads);
  return backend;
}

}  // namespace ablate::kernels
