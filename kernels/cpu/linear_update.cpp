// A fully connected layer's weight gradient folded into its optimizer update, on the CPU
// backends (Backend::linear_backward_weights_update, the static strategy's update_fusion pass).
//
// Unfused, the gradient dw [O,I] = dy^T [O,N] x [N,I] is written whole and read back by the
// update: for TF MNIST's fc1 (1024 x 3136, 12.8 MB, beyond what a 2 MB L2 keeps) one write, its
// read-for-ownership and one read more than the update itself needs (w, and Adam's m and v,
// read and written). Here the rows of dw are cut into bands of about kBandElements values;
// each thread takes whole bands: the band's product dw[o0:o1, :] = dy[:, o0:o1]^T x, one
// single-threaded library GEMM into the thread's scratch, then at once the update's rule
// (update_rules.h) on rows o0:o1 of w and its state, while the band is in cache. The library
// runs single-threaded for the duration (the bands are the parallelism, as the omp_* modes'
// per-image GEMMs, split_gemm.h): held to one thread where it runs this dtype's products
// (library_serves; dnnl_sgemm runs alone inside a parallel region by itself).
#include <algorithm>
#include <stdexcept>
#include <string>
#include <utility>

#include "kernels/cpu/bias_loops.h"
#include "kernels/cpu/cpu_backend.h"
#include "kernels/cpu/dtype_dispatch.h"
#include "kernels/cpu/scratch.h"
#include "kernels/cpu/update_rules.h"
#include "kernels/non_finite.h"

namespace ablate::kernels::cpu {
namespace {

// Values of dw per band: 32 rows of fc1's 3136 (400 KB of f32), the fastest of 4 to 128 rows
// with the weights coming from memory (Intel Xeon, 2 threads: 3.0 ms for the product and Adam
// against 3.3 + 2.4 ms unfused; 8 rows 3.6 ms).
constexpr std::int64_t kBandElements = 100'000;

// Runs `undo` however the scope ends (the library's thread count restored after the bands).
template <class Undo>
class OnExit {
 public:
  explicit OnExit(Undo undo) : undo_(std::move(undo)) {}
  ~OnExit() { undo_(); }
  OnExit(const OnExit&) = delete;
  OnExit& operator=(const OnExit&) = delete;

 private:
  Undo undo_;
};

}  // namespace

std::int64_t CpuBackend::linear_backward_weights_update_impl(const Tensor& x, const Tensor& dy, Tensor& w,
                                                             const std::vector<Tensor*>& state, Tensor& dbias,
                                                             const UpdateParams& p, bool check_finite) {
  const std::int64_t n = x.dim(0), in = x.dim(1), out = w.dim(0);
  const std::int64_t rows = std::clamp<std::int64_t>(kBandElements / std::max<std::int64_t>(in, 1), 1, std::max<std::int64_t>(out, 1));
  const std::int64_t bands = (out + rows - 1) / rows;
  std::int64_t bad = 0;
  dispatch_float(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    if (!dbias.empty()) channel_bias_grad(loop_threads_, dy.data<T>(), n, out, 1, dbias.data<T>());
    const T *px = x.data<T>(), *pdy = dy.data<T>();
    T* pw = w.data<T>();
    T* slots[2] = {state[0]->data<T>(), state.size() > 1 ? state[1]->data<T>() : nullptr};
    auto gemm = gemm_hook<T>();
    const bool hold = library_serves(x.dtype());  // the bands are the parallelism: the library on one thread
    if (hold) set_library_threads(1);
    const OnExit restore([this, hold] {
      if (hold) set_library_threads(library_threads());
    });
    std::string failure;  // a library error inside the loop, rethrown after it
#pragma omp parallel for num_threads(threads_) schedule(static) reduction(+ : bad)
    for (std::int64_t b = 0; b < bands; ++b) {
      const std::int64_t o0 = b * rows, r = std::min(rows, out - o0);
      T* g = scratch_of<T>(ScratchSlot::weight_partial, static_cast<std::size_t>(r * in));
      try {
        gemm(true, false, static_cast<int>(r), static_cast<int>(in), static_cast<int>(n), T(1), pdy + o0,
             static_cast<int>(out), px, static_cast<int>(in), T(0), g, static_cast<int>(in));
      } catch (const std::exception& e) {
#pragma omp critical(linear_update_failure)
        failure = e.what();
        continue;
      }
      if (check_finite) {
        const std::int64_t seen = count_non_finite(g, r * in);
        bad += seen;
        if (seen > 0) continue;  // this band is left as it was
      }
      apply_update_rule<T>(p, pw, g, slots, o0 * in, r * in);
    }
    if (!failure.empty()) throw std::runtime_error("linear_backward_weights_update: " + failure);
  });
  return bad;
}

}  // namespace ablate::kernels::cpu
