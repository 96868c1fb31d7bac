// Convolution as im2col + GEMM, Caffe's BaseConvolutionLayer (forward_cpu_gemm,
// backward_cpu_gemm, weight_cpu_gemm) and Torch's SpatialConvolutionMM, over the backend's
// sgemm/dgemm. For a group of G images whose im2col matrices sit side by side,
// col [R, G*P] with R = C*KH*KW and P = OH*OW:
//   forward          Y [K, G*P]  = W [K, R] x col                 then y [G, K, P] = f(Y + bias)
//   backward data    col [R, G*P] = W^T x dY [K, G*P]             then col2im -> dx
//   backward weights dW [K, R]  += dY [K, G*P] x col^T            summed over the groups
// G = 1 is Caffe's per-image loop (y, dy are used in place: no permutation); conv_lowering.h
// lists the lowerings and threadings and conv_plan.h how images are split between OpenMP
// workers and groups. Layers of few input channels take direct loops instead when the setup
// says so (ConvSetup::few_channels, conv_few_channels.h), over the same image chunks. The
// tiled_gemm lowering runs ablate's own GEMM over the same chunks, its im2col matrices read in
// place where the geometry lets it (conv_tiled.h).
#include <algorithm>
#include <stdexcept>

#include <omp.h>

#include "kernels/cpu/bias_loops.h"
#include "kernels/cpu/conv_epilogue.h"
#include "kernels/cpu/conv_few_channels.h"
#include "kernels/cpu/conv_geometry.h"
#include "kernels/cpu/conv_plan.h"
#include "kernels/cpu/conv_tiled.h"
#include "kernels/cpu/cpu_backend.h"
#include "kernels/cpu/dtype_dispatch.h"
#include "kernels/cpu/im2col.h"
#include "kernels/cpu/parallel_for.h"
#include "kernels/cpu/scratch.h"
#include "kernels/cpu/tiled_gemm.h"

namespace ablate::kernels::cpu {
namespace {

// f(chunk, begin, end) for each chunk of images [n*c/chunks, n*(c+1)/chunks), handed out to the
// plan's OpenMP workers one at a time. Inside, loops stay on their worker (parallel_for sees
// omp_in_parallel); workers > 1 only under openmp_images, where the library is single-threaded
// (CpuBackend::apply_setup), and openmp_frames, where it is held at one thread for the call
// (LibraryHeldToOne), so no BLAS call inside a parallel region is multi-threaded.
template <class F> void over_chunks(const ConvPlan& plan, std::int64_t n, F&& f) {
  if (plan.workers <= 1 || omp_in_parallel()) {  // on one thread, or inside a worker (conv_max_pool.cpp): stay on it
    for (std::int64_t c = 0; c < plan.chunks; ++c) f(c, n * c / plan.chunks, n * (c + 1) / plan.chunks);
    return;
  }
#pragma omp parallel for num_threads(plan.workers) schedule(dynamic, 1)
  for (std::int64_t c = 0; c < plan.chunks; ++c) f(c, n * c / plan.chunks, n * (c + 1) / plan.chunks);
}

// The im2col matrix of images [n0, n0 + gs) of x, side by side; a pointwise single image is x itself.
template <class T> const T* group_columns(const ConvGeometry& g, int threads, const T* x, std::int64_t n0, std::int64_t gs) {
  if (gs == 1 && g.pointwise()) return x + n0 * g.in_size();
  const std::int64_t ld = gs * g.pixels();
  T* col = scratch_of<T>(ScratchSlot::columns, static_cast<std::size_t>(g.col_rows() * ld));
  parallel_for(threads, gs, 1, [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t i = b; i < e; ++i) im2col(g, x + (n0 + i) * g.in_size(), col + i * g.pixels(), ld);
  });
  return col;
}

// dy of images [n0, n0 + gs) as one matrix [K, gs*P]; a single image is dy itself.
template <class T> const T* group_output_grad(const ConvGeometry& g, int threads, const T* dy, std::int64_t n0, std::int64_t gs) {
  if (gs == 1) return dy + n0 * g.out_size();
  const std::int64_t p = g.pixels(), ld = gs * p;
  T* out = scratch_of<T>(ScratchSlot::gemm_out, static_cast<std::size_t>(g.k * ld));
  parallel_for(threads, gs, 1, [&](std::int64_t b, std::int64_t e) {
    for (std::int64_t i = b; i < e; ++i)
      for (std::int64_t k = 0; k < g.k; ++k)
        std::copy_n(dy + (n0 + i) * g.out_size() + k * p, p, out + k * ld + i * p);
  });
  return out;
}

// y of images [begin, end) = f(W x col + bias), the epilogue (conv_epilogue.h) run per group
// right after its GEMM, while the group's output block is in cache.
template <class T, class Gemm>
void forward_images(const ConvGeometry& g, const Gemm& gemm, int threads, std::int64_t group, const T* x, const T* w,
                    const T* bias, std::optional<Activation> activation, T* y, std::int64_t begin, std::int64_t end) {
  const int rows = static_cast<int>(g.col_rows()), k = static_cast<int>(g.k);
  const std::int64_t p = g.pixels();
  for (std::int64_t n0 = begin; n0 < end; n0 += group) {
    const std::int64_t gs = std::min(group, end - n0), ld = gs * p;
    const T* col = group_columns(g, threads, x, n0, gs);
    if (gs == 1) {
      T* yn = y + n0 * g.out_size();
      gemm(false, false, k, static_cast<int>(p), rows, T(1), w, rows, col, static_cast<int>(p), T(0), yn,
           static_cast<int>(p));
      conv_epilogue_in_place(threads, activation, bias, yn, 1, g.k, p);
      continue;
    }
    T* out = scratch_of<T>(ScratchSlot::gemm_out, static_cast<std::size_t>(g.k * ld));
    gemm(false, false, k, static_cast<int>(ld), rows, T(1), w, rows, col, static_cast<int>(ld), T(0), out,
         static_cast<int>(ld));
    // Y [K, gs*P] -> y [gs, K, P]: row r = (image i, channel c), with the epilogue on the way.
    conv_epilogue<T>(threads, activation, bias, gs * g.k, p, [&](std::int64_t r) {
      const std::int64_t i = r / g.k, c = r % g.k;
      return EpilogueRow<T>{out + c * ld + i * p, y + (n0 + i) * g.out_size() + c * p, c};
    });
  }
}

template <class T, class Gemm>
void backward_data_images(const ConvGeometry& g, const Gemm& gemm, int threads, std::int64_t group, const T* dy,
                          const T* w, T* dx, std::int64_t begin, std::int64_t end) {
  const int rows = static_cast<int>(g.col_rows()), k = static_cast<int>(g.k);
  const std::int64_t p = g.pixels();
  for (std::int64_t n0 = begin; n0 < end; n0 += group) {
    const std::int64_t gs = std::min(group, end - n0), ld = gs * p;
    const T* dyg = group_output_grad(g, threads, dy, n0, gs);
    if (gs == 1 && g.pointwise()) {  // the column matrix is dx itself
      gemm(true, false, rows, static_cast<int>(p), k, T(1), w, rows, dyg, static_cast<int>(p), T(0),
           dx + n0 * g.in_size(), static_cast<int>(p));
      continue;
    }
    T* col = scratch_of<T>(ScratchSlot::columns, static_cast<std::size_t>(g.col_rows() * ld));
    gemm(true, false, rows, static_cast<int>(ld), k, T(1), w, rows, dyg, static_cast<int>(ld), T(0), col,
         static_cast<int>(ld));
    parallel_for(threads, gs, 1, [&](std::int64_t b, std::int64_t e) {
      for (std::int64_t i = b; i < e; ++i) col2im(g, col + i * p, ld, dx + (n0 + i) * g.in_size());
    });
  }
}

// dw_acc [K, R] = sum over images [begin, end) of dY x col^T (zero when the range is empty).
template <class T, class Gemm>
void backward_weights_images(const ConvGeometry& g, const Gemm& gemm, int threads, std::int64_t group, const T* x,
                             const T* dy, T* dw_acc, std::int64_t begin, std::int64_t end) {
  const int rows = static_cast<int>(g.col_rows()), k = static_cast<int>(g.k);
  const std::int64_t p = g.pixels();
  if (begin >= end) std::fill(dw_acc, dw_acc + g.k * g.col_rows(), T(0));
  for (std::int64_t n0 = begin; n0 < end; n0 += group) {
    const std::int64_t gs = std::min(group, end - n0), ld = gs * p;
    const T* col = group_columns(g, threads, x, n0, gs);
    const T* dyg = group_output_grad(g, threads, dy, n0, gs);
    gemm(false, true, k, rows, static_cast<int>(ld), T(1), dyg, static_cast<int>(ld), col, static_cast<int>(ld),
         n0 == begin ? T(0) : T(1), dw_acc, rows);
  }
}

// f(gemm) with the GEMM the loops call: the backend's library, or ablate's tiles.
template <class T, class Hook, class F> void with_loops_gemm(bool tiled, Hook&& library, F&& f) {
  if (!tiled) {
    f(library);
    return;
  }
  f([](bool ta, bool tb, int m, int n, int k, T alpha, const T* a, int lda, const T* b, int ldb, T beta, T* c,
       int ldc) {
    if (tb) throw std::logic_error("tiled_gemm takes no transposed B");
    tiled_gemm(ta, m, n, k, alpha, a, lda, b, ldb, beta, c, ldc);
  });
}

}  // namespace

// Torch7's openmp_frames: OpenMP over the frames with the BLAS single-threaded inside, while the
// rest of the run keeps the library's threads. Holds the library at one thread while in scope
// when the plan has OpenMP workers, the library otherwise has more and runs this dtype's products.
class CpuBackend::LibraryHeldToOne {
 public:
  LibraryHeldToOne(CpuBackend& b, const ConvPlan& plan, DType dtype)
      : b_(b), held_(plan.workers > 1 && b.library_threads() > 1 && b.library_serves(dtype)) {
    if (held_) b_.set_library_threads(1);
  }
  ~LibraryHeldToOne() {
    if (held_) b_.set_library_threads(b_.library_threads());
  }
  LibraryHeldToOne(const LibraryHeldToOne&) = delete;
  LibraryHeldToOne& operator=(const LibraryHeldToOne&) = delete;

 private:
  CpuBackend& b_;
  bool held_;
};

void CpuBackend::conv2d_forward_impl(const Tensor& x, const Tensor& w, const Tensor& bias, Tensor& y,
                                     const Conv2dParams& p) {
  const ConvGeometry g = conv_geometry(x, w, p);
  dispatch_float(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const ConvPlan plan = plan_conv(g, setup_.loops, ConvPass::forward, threads_, sizeof(T));
    const LibraryHeldToOne held(*this, plan, dtype_of<T>());
    const T* b = bias.empty() ? nullptr : bias.data<T>();
    const bool direct = setup_.few_channels && few_channels_fit(g);
    over_chunks(plan, g.n, [&](std::int64_t, std::int64_t begin, std::int64_t end) {
      if (!direct && tiled() && in_place_columns_fit<T>(g)) {
        tiled_forward_images(g, loop_threads_, x.data<T>(), w.data<T>(), b, p.activation, y.data<T>(), begin, end);
        return;
      }
      if (!direct) {
        with_loops_gemm<T>(tiled(), gemm_hook<T>(), [&](const auto& gemm) {
          forward_images(g, gemm, loop_threads_, plan.group, x.data<T>(), w.data<T>(), b, p.activation, y.data<T>(),
                         begin, end);
        });
        return;
      }
      // The direct loops add the bias as they store; the activation follows over the chunk's
      // images (in cache: a few-channel layer's output per image is small).
      few_channels_forward(g, x.data<T>(), w.data<T>(), b, y.data<T>(), begin, end);
      conv_epilogue_in_place<T>(loop_threads_, p.activation, nullptr, y.data<T>() + begin * g.out_size(), end - begin,
                                g.k, g.pixels());
    });
  });
}

void CpuBackend::conv2d_backward_data_impl(const Tensor& dy, const Tensor& w, Tensor& dx, const Conv2dParams& p) {
  const ConvGeometry g = conv_geometry(dx, w, p);
  dispatch_float(dx.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const ConvPlan plan = plan_conv(g, setup_.loops, ConvPass::backward_data, threads_, sizeof(T));
    const LibraryHeldToOne held(*this, plan, dtype_of<T>());
    const bool direct = setup_.few_channels && few_channels_fit(g);
    const bool in_place = !direct && tiled() && in_place_columns_fit<T>(g);
    T* w_ijc = nullptr;  // the weights in the tiles' tap order, once for every worker
    if (in_place) {
      w_ijc = scratch_of<T>(ScratchSlot::layout_filters, static_cast<std::size_t>(w.numel()));
      taps_channels_inner(g, w.data<T>(), w_ijc);
    }
    over_chunks(plan, g.n, [&](std::int64_t, std::int64_t begin, std::int64_t end) {
      if (direct) {
        few_channels_backward_data(g, dy.data<T>(), w.data<T>(), dx.data<T>(), begin, end);
        return;
      }
      if (in_place) {
        tiled_backward_data_images(g, dy.data<T>(), w_ijc, dx.data<T>(), begin, end);
        return;
      }
      with_loops_gemm<T>(tiled(), gemm_hook<T>(), [&](const auto& gemm) {
        backward_data_images(g, gemm, loop_threads_, plan.group, dy.data<T>(), w.data<T>(), dx.data<T>(), begin, end);
      });
    });
  });
}

void CpuBackend::conv2d_backward_weights_impl(const Tensor& x, const Tensor& dy, Tensor& dw, Tensor& dbias,
                                              const Conv2dParams& p) {
  const ConvGeometry g = conv_geometry(x, dw, p);
  dispatch_float(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    const ConvPlan plan = plan_conv(g, setup_.loops, ConvPass::backward_weights, threads_, sizeof(T));
    const LibraryHeldToOne held(*this, plan, dtype_of<T>());
    auto gemm = gemm_hook<T>();
    const std::int64_t size = g.k * g.col_rows();
    T* dw_data = dw.data<T>();
    const bool direct = setup_.few_channels && few_channels_fit(g);
    auto images = [&](T* dw_acc, std::int64_t begin, std::int64_t end) {
      if (direct) few_channels_backward_weights(g, x.data<T>(), dy.data<T>(), dw_acc, begin, end);
      else if (tiled()) tiled_backward_weights_images(g, x.data<T>(), dy.data<T>(), dw_acc, begin, end);
      else backward_weights_images(g, gemm, loop_threads_, plan.group, x.data<T>(), dy.data<T>(), dw_acc, begin, end);
    };
    if (plan.chunks <= 1) {
      images(dw_data, 0, g.n);
      if (!dbias.empty()) channel_bias_grad(loop_threads_, dy.data<T>(), g.n, g.k, g.pixels(), dbias.data<T>());
    } else {
      // One partial per chunk, added in chunk order: the same bits whichever worker ran which.
      // The bias's per image, by the worker that holds the image's dy.
      T* partial = scratch_of<T>(ScratchSlot::weight_partial, static_cast<std::size_t>(plan.chunks * size));
      double* bias_partial = dbias.empty() ? nullptr : scratch_of<double>(ScratchSlot::bias_partial, static_cast<std::size_t>(g.n * g.k));
      over_chunks(plan, g.n, [&](std::int64_t c, std::int64_t begin, std::int64_t end) {
        images(partial + c * size, begin, end);
        if (bias_partial) channel_bias_partials(dy.data<T>(), begin, end, g.k, g.pixels(), bias_partial);
      });
      if (bias_partial) channel_bias_from_partials(bias_partial, g.n, g.k, dbias.data<T>());
      parallel_for(loop_threads_, size, kElementwiseGrain, [&](std::int64_t b, std::int64_t e) {
        for (std::int64_t i = b; i < e; ++i) {
          T s = partial[i];
          for (std::int64_t c = 1; c < plan.chunks; ++c) s += partial[c * size + i];
          dw_data[i] = s;
        }
      });
    }
  });
}

}  // namespace ablate::kernels::cpu
