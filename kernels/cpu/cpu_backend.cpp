// CpuBackend: threads and the GEMM entry point; the op loops live in one file per family
// (conv2d.cpp, linear.cpp, pool2d.cpp, activation.cpp, lrn.cpp, ...).
#include "kernels/cpu/cpu_backend.h"

#include <omp.h>

#include <stdexcept>
#include <string>

#include "kernels/cpu/dtype_dispatch.h"
#include "kernels/cpu/split_gemm.h"

namespace ablate::kernels::cpu {

// Our OpenMP loops take loop_threads_ explicitly (num_threads), so the setting holds on whatever
// thread calls the ops; omp_set_num_threads covers any default-sized region of this thread.
// The library's own pool gets the thread count unless OpenMP owns the threads (openmp_images).
void CpuBackend::set_threads(int threads) {
  if (threads < 1)
    throw std::invalid_argument(name() + " set_threads: threads " + std::to_string(threads) + ", expected at least 1");
  threads_ = threads;
  omp_set_num_threads(threads);
  apply_setup();
}

void CpuBackend::set_conv_setup(const ConvSetup& setup) {
  setup_ = setup;
  apply_setup();
}

// Under `library` the library owns every thread and the loops run on the caller (Caffe's and
// Theano's single-threaded layers); oneDNN's direct primitives share OpenMP with the loops.
void CpuBackend::apply_setup() {
  const bool library_only = setup_.threading == Threading::library && setup_.lowering != ConvLowering::direct;
  loop_threads_ = library_only ? 1 : threads_;
  set_library_threads(library_threads());
}

std::vector<std::pair<std::string, std::string>> CpuBackend::choices() const {
  std::vector<std::pair<std::string, std::string>> out;
  if (setup_.lowering != ConvLowering::eigen_spatial)
    if (auto mode = conv_mode_of(setup_.loops)) out.emplace_back("conv_mode", conv_mode_name(*mode));
  out.emplace_back("conv_lowering", conv_lowering_name(setup_.lowering));
  out.emplace_back("threading", threading_name(setup_.threading));
  if (setup_.lowering == ConvLowering::per_image_gemm || setup_.lowering == ConvLowering::batched_gemm)
    out.emplace_back("conv_few_channels", setup_.few_channels ? "direct" : "im2col_gemm");
  out.emplace_back("pool.library", std::to_string(library_threads()));
  out.emplace_back("pool.openmp", std::to_string(loop_threads_));
  return out;
}

std::string CpuBackend::op_setup(Op op) const {
  switch (op) {
    case Op::conv2d_forward:
    case Op::conv2d_backward_data:
    case Op::conv2d_backward_weights:
    case Op::conv2d_map_forward:
    case Op::conv2d_map_backward_data:
    case Op::conv2d_map_backward_weights:
    case Op::conv2d_max_pool_forward:
    case Op::conv2d_max_pool_backward_weights:
      return "";
    default:
      return "library " + std::to_string(library_threads()) + ", openmp " + std::to_string(loop_threads_) + ", gemm " +
             (openmp_owns_threads() ? "split" : "library");
  }
}

template <class T>
void CpuBackend::run_gemm(bool ta, bool tb, int m, int n, int k, T alpha, const T* a, int lda, const T* b, int ldb, T beta,
                          T* c, int ldc) {
  if (openmp_owns_threads()) split_gemm(threads_, gemm_hook<T>(), ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  else gemm_hook<T>()(ta, tb, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
}
template void CpuBackend::run_gemm<float>(bool, bool, int, int, int, float, const float*, int, const float*, int, float,
                                          float*, int);
template void CpuBackend::run_gemm<double>(bool, bool, int, int, int, double, const double*, int, const double*, int,
                                           double, double*, int);

std::string CpuBackend::cpu_settings() const {
  const auto mode = conv_mode_of(setup_.loops);
  const std::string conv = setup_.lowering == ConvLowering::eigen_spatial ? "eigen_spatial"
                           : mode                                          ? conv_mode_name(*mode)
                                                                           : threading_name(setup_.loops.threading);
  return "conv=" + conv + ", lowering " + conv_lowering_name(setup_.lowering) + ", threading " +
         threading_name(setup_.threading) + ", library threads " + std::to_string(library_threads());
}

void CpuBackend::gemm_impl(bool trans_a, bool trans_b, double alpha, const Tensor& a, const Tensor& b, double beta,
                           Tensor& c) {
  const std::int64_t m = trans_a ? a.dim(1) : a.dim(0), k = trans_a ? a.dim(0) : a.dim(1);
  const std::int64_t n = trans_b ? b.dim(0) : b.dim(1);
  dispatch_float(a.dtype(), [&](auto tag) {
    using T = decltype(tag);
    run_gemm<T>(trans_a, trans_b, static_cast<int>(m), static_cast<int>(n), static_cast<int>(k), static_cast<T>(alpha),
                   a.data<T>(), static_cast<int>(a.dim(1)), b.data<T>(), static_cast<int>(b.dim(1)), static_cast<T>(beta),
                   c.data<T>(), static_cast<int>(n));
  });
}

}  // namespace ablate::kernels::cpu
