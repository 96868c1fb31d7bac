// OpenBLAS's thread count as a backend sets it. The count is one setting for the whole process,
// and in Debian's pthread build any call that sets it while the pool is stopped
// (Backend::release_threads, blas_thread_shutdown_) starts the pool again, whose fresh threads
// then spin beside OpenMP's until OPENBLAS_THREAD_TIMEOUT. A planned run that released the pool
// where the backend changed, and a backend that held OpenBLAS to one thread around every fused
// update and gave it back, restarted the pool once a step: LeNet's mean step with such a plan
// up to 29% longer (six alternating pairs: 0-29%), with stalls of 1-5 ms. So the count is set only where it differs, and a
// backend whose products of a dtype do not run on OpenBLAS does not hold it
// (CpuBackend::library_serves: onednn's f32 products are dnnl_sgemm's).
#pragma once

#include <cblas.h>
#include <omp.h>

namespace ablate::kernels {

class OpenBlasThreads {
 public:
  void set(int threads) {
    wanted_ = threads;
    apply();
  }
  // Before a product of a backend whose count another backend may have changed meanwhile; not
  // inside a parallel region, where the hold has set it already and a set would race the pool's
  // restart.
  void before_product() const {
    if (!omp_in_parallel()) apply();
  }

 private:
  void apply() const {
    if (openblas_get_num_threads() != wanted_) openblas_set_num_threads(wanted_);
  }
  int wanted_ = 1;
};

}  // namespace ablate::kernels
