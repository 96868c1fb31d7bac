// The openblas backend: Caffe's, Torch7's and Theano's CPU math library. GEMM is
// cblas_sgemm / cblas_dgemm (CblasRowMajor) with OpenBLAS's own thread pool (Debian's
// libopenblas is the pthread build: its threads are not OpenMP's, so our loops and OpenBLAS
// take turns on the cores and are never nested); every other op is the shared OpenMP loops of
// kernels/cpu, convolution as im2col + GEMM per image as in Caffe.
// OPENBLAS_CORETYPE (which pins OpenBLAS's kernels, e.g. Haswell = AVX2 on an AVX-512 CPU)
// is read, never set, and shows in library_version() with the core OpenBLAS chose.
#include "kernels/openblas/openblas_backend.h"

#include <cblas.h>

#include <cstdlib>
#include <string>

#include "kernels/cpu/cpu_backend.h"
#include "kernels/openblas/openblas_threads.h"

// OpenBLAS's own: stops its server threads (what it does before a fork); the next threaded
// call starts them again (exec_blas's lazy re-initialisation, OpenBLAS >= 0.3.x).
extern "C" int blas_thread_shutdown_(void);

namespace ablate::kernels {
namespace {

// How this libopenblas runs its threads (Debian's default is the pthread build).
const char* pool_kind() {
  switch (openblas_get_parallel()) {
    case 0: return "sequential";
    case 1: return "pthread pool";
    case 2: return "OpenMP pool";
  }
  return "unknown pool";
}

CBLAS_TRANSPOSE op_of(bool trans) { return trans ? CblasTrans : CblasNoTrans; }

std::string trimmed(const char* s) {
  std::string out = s ? s : "";
  while (!out.empty() && out.back() == ' ') out.pop_back();
  while (!out.empty() && out.front() == ' ') out.erase(out.begin());
  return out;
}

class OpenBlasBackend final : public cpu::CpuBackend {
 public:
  using CpuBackend::CpuBackend;
  std::string name() const override { return "openblas"; }
  // "OpenBLAS 0.3.21 (NO_LAPACKE DYNAMIC_ARCH ... Cooperlake MAX_THREADS=64; pthread pool; core
  // Cooperlake; OPENBLAS_CORETYPE=unset; conv=omp_per_image)"
  std::string library_version() const override {
    const std::string version = trimmed(OPENBLAS_VERSION);
    std::string config = trimmed(openblas_get_config());
    if (config.rfind(version, 0) == 0) config = trimmed(config.c_str() + version.size());
    const char* coretype = std::getenv("OPENBLAS_CORETYPE");
    return version + " (" + config + "; " + pool_kind() + "; core " + trimmed(openblas_get_corename()) +
           "; OPENBLAS_CORETYPE=" + (coretype ? coretype : "unset") + "; " + cpu_settings() + ")";
  }

 protected:
  void sgemm(bool ta, bool tb, int m, int n, int k, float alpha, const float* a, int lda, const float* b, int ldb,
             float beta, float* c, int ldc) override {
    cblas_sgemm(CblasRowMajor, op_of(ta), op_of(tb), m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  }
  void dgemm(bool ta, bool tb, int m, int n, int k, double alpha, const double* a, int lda, const double* b, int ldb,
             double beta, double* c, int ldc) override {
    cblas_dgemm(CblasRowMajor, op_of(ta), op_of(tb), m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  }
  void set_library_threads(int threads) override { blas_threads_.set(threads); }
  void release_threads() override {
    if (openblas_get_parallel() == 1) blas_thread_shutdown_();  // the pthread build's pool only
  }

 private:
  OpenBlasThreads blas_threads_;
};

}  // namespace

std::vector<cpu::ConvLowering> openblas_conv_lowerings() {
  using L = cpu::ConvLowering;
  return {L::omp_per_image, L::per_image_gemm, L::batched_gemm};
}

std::unique_ptr<Backend> make_openblas_backend(const BackendOptions& options) {
  auto backend = std::make_unique<OpenBlasBackend>(cpu::resolve_conv_setup(
      openblas_conv_lowerings().front(), options.conv_mode, options.conv_lowering, options.threading));
  backend->set_threads(options.threads);
  return backend;
}

}  // namespace ablate::kernels
