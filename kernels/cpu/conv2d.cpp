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
// tiled_gemm lowering runs ablate's own GEMM (tiled_gemm.h), which takes no B^T but reads an
// image's im2col matrix in place where the geometry lets it: its forward as B
// (tiled_gemm_columns: stride 1, no padding, whole vectors of output pixels), its data gradient
// adding the columns onto dx as C (tiled_gemm_add_columns, the same geometries), its weight
// gradient as A, dW^T [R, K] = col [R, P] x dY^T [P, K] (tiled_gemm_image_a: no padding), and
// with padding from each image's im2row, dW [K, R] += dY [K, P] x rows [P, R] (im2col.h).
#include <algorithm>
#include <stdexcept>
#include <vector>

#include "kernels/cpu/bias_loops.h"
#include "kernels/cpu/conv_epilogue.h"
#include "kernels/cpu/conv_few_channels.h"
#include "kernels/cpu/conv_geometry.h"
#include "kernels/cpu/conv_plan.h"
#include "kernels/cpu/cpu_backend.h"
#include "kernels/cpu/dtype_dispatch.h"
#include "kernels/cpu/im2col.h"
#include "kernels/cpu/parallel_for.h"
#include "kernels/cpu/scratch.h"
#include "kernels/cpu/tiled_gemm.h"
#include "kernels/cpu/transpose.h"

namespace ablate::kernels::cpu {
namespace {

// f(chunk, begin, end) for each chunk of images [n*c/chunks, n*(c+1)/chunks), handed out to the
// plan's OpenMP workers one at a time. Inside, loops stay on their worker (parallel_for sees
// omp_in_parallel); workers > 1 only under openmp_images, where the library is single-threaded
// (CpuBackend::apply_setup), and openmp_frames, where it is held at one thread for the call
// (LibraryHeldToOne), so no BLAS call inside a parallel region is multi-threaded.
template <class F> void over_chunks(const ConvPlan& plan, std::int64_t n, F&& f) {
  if (plan.workers <= 1) {
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

// tiled_gemm's weight gradient over images [begin, end) into dw_acc [K, R]: per image
// dW [K, Rv] += dY [K, P] x rows [P, Rv], rows the image's im2row (R taps padded with zero
// columns to whole vectors, Rv), so that the taps lie along the tiles' vectors and K along their
// rows; the padded columns of the sums are dropped at the end.
template <class T>
void tiled_backward_weights_rows(const ConvGeometry& g, const T* x, const T* dy, T* dw_acc, std::int64_t begin,
                                   std::int64_t end) {
  const std::int64_t p = g.pixels(), rows = g.col_rows(), lanes = tiled_gemm_lanes<T>();
  // One vector more where a row is a whole number of KiB (LeNet's conv2: 512 floats, 2 KiB):
  // there the rows of a tile's column share a few L1 sets and evict each other.
  std::int64_t rv = (rows + lanes - 1) / lanes * lanes;
  if (rv * static_cast<std::int64_t>(sizeof(T)) % 1024 == 0) rv += lanes;
  if (begin >= end) {
    std::fill(dw_acc, dw_acc + g.k * rows, T(0));
    return;
  }
  T* taps = scratch_of<T>(ScratchSlot::columns, static_cast<std::size_t>(p * rv));
  T* sums = scratch_of<T>(ScratchSlot::tile_sums, static_cast<std::size_t>(g.k * rv));
  for (std::int64_t n = begin; n < end; ++n) {
    im2row(g, x + n * g.in_size(), taps, rv);
    tiled_gemm(false, static_cast<int>(g.k), static_cast<int>(rv), static_cast<int>(p), T(1), dy + n * g.out_size(),
               static_cast<int>(p), taps, static_cast<int>(rv), n == begin ? T(0) : T(1), sums, static_cast<int>(rv));
  }
  for (std::int64_t k = 0; k < g.k; ++k) std::copy_n(sums + k * rv, rows, dw_acc + k * rows);
}

// Whether tiled_gemm's forward reads the image in place of its im2col columns (tiled_gemm.h).
template <class T> bool in_place_columns_fit(const ConvGeometry& g) {
  return g.p.stride_h == 1 && g.p.stride_w == 1 && g.p.pad_top == 0 && g.p.pad_left == 0 && g.p.pad_bottom == 0 &&
         g.p.pad_right == 0 && implicit_columns_fit<T>(g.oh, g.ow);
}

// The offset in an image of each tap (c, i, j) of its im2col rows: (c * H + i) * W + j.
std::vector<std::int64_t> image_taps(const ConvGeometry& g) {
  std::vector<std::int64_t> taps;
  for (std::int64_t c = 0; c < g.c; ++c)
    for (std::int64_t i = 0; i < g.kh; ++i)
      for (std::int64_t j = 0; j < g.kw; ++j) taps.push_back((c * g.h + i) * g.w + j);
  return taps;
}

// tiled_gemm's forward over images [begin, end) without a column matrix: per image
// y [K, P] = W [K, R] x the image's columns read in place, then the epilogue.
template <class T>
void tiled_forward_images(const ConvGeometry& g, int threads, const T* x, const T* w, const T* bias,
                          std::optional<Activation> activation, T* y, std::int64_t begin, std::int64_t end) {
  const std::vector<std::int64_t> taps = image_taps(g);
  for (std::int64_t n = begin; n < end; ++n) {
    T* yn = y + n * g.out_size();
    tiled_gemm_columns(static_cast<int>(g.k), static_cast<int>(g.col_rows()), w, static_cast<int>(g.col_rows()),
                       x + n * g.in_size(), taps.data(), g.oh, g.ow, g.w, yn);
    conv_epilogue_in_place(threads, activation, bias, yn, 1, g.k, g.pixels());
  }
}

// Its data gradient: per image dx = the columns W^T [R, K] x dY [K, P] added where the
// forward read them (col2im folded into the tiles' stores).
template <class T>
void tiled_backward_data_images(const ConvGeometry& g, const T* dy, const T* w, T* dx, std::int64_t begin,
                                std::int64_t end) {
  const std::vector<std::int64_t> taps = image_taps(g);
  for (std::int64_t n = begin; n < end; ++n) {
    T* dxn = dx + n * g.in_size();
    std::fill(dxn, dxn + g.in_size(), T(0));
    tiled_gemm_add_columns(static_cast<int>(g.col_rows()), static_cast<int>(g.k), w, static_cast<int>(g.col_rows()),
                           dy + n * g.out_size(), taps.data(), g.oh, g.ow, g.w, dxn);
  }
}

// Its weight gradient where the convolution has no padding: per image
// dW^T [R, Kv] += the image's columns [R, P] read in place x dY^T [P, Kv] (K padded with zero
// columns to whole vectors, Kv), transposed into dw_acc [K, R] at the end. Without padding every
// window lies inside the image, whatever the stride.
template <class T>
void tiled_backward_weights_image(const ConvGeometry& g, const T* x, const T* dy, T* dw_acc, std::int64_t begin,
                                  std::int64_t end) {
  const std::int64_t p = g.pixels(), rows = g.col_rows(), lanes = tiled_gemm_lanes<T>();
  const std::int64_t kv = (g.k + lanes - 1) / lanes * lanes;
  if (begin >= end) {
    std::fill(dw_acc, dw_acc + g.k * rows, T(0));
    return;
  }
  const std::vector<std::int64_t> taps = image_taps(g);
  std::vector<std::int64_t> pixels;
  for (std::int64_t oh = 0; oh < g.oh; ++oh)
    for (std::int64_t ow = 0; ow < g.ow; ++ow) pixels.push_back(oh * g.p.stride_h * g.w + ow * g.p.stride_w);
  T* dyt = scratch_of<T>(ScratchSlot::gemm_out, static_cast<std::size_t>(p * kv));
  T* sums = scratch_of<T>(ScratchSlot::tile_sums, static_cast<std::size_t>(rows * kv));
  std::fill(dyt, dyt + p * kv, T(0));
  for (std::int64_t n = begin; n < end; ++n) {
    transpose_into(dy + n * g.out_size(), g.k, p, p, dyt, kv);  // dyt [P, Kv] = dy [K, P]^T
    tiled_gemm_image_a(static_cast<int>(rows), static_cast<int>(kv), static_cast<int>(p), x + n * g.in_size(),
                       taps.data(), pixels.data(), dyt, static_cast<int>(kv), n == begin ? T(0) : T(1), sums,
                       static_cast<int>(kv));
  }
  transpose_into(sums, rows, g.k, kv, dw_acc, rows);
}

// tiled_gemm's weight gradient: the image read in place where nothing is padded and that costs
// less than im2row. The cost per output pixel in multiply-adds: the padded product (R x Kv
// against K x Rv) and the copies, about 40 for an element transposed into dY^T and 20 for one
// written into im2row (one image of LeNet on an Emerald Rapids Xeon, 1 thread: conv2 24 against
// 31 us, the image read in place; conv1 11 against 9, im2row).
template <class T>
void tiled_backward_weights_images(const ConvGeometry& g, const T* x, const T* dy, T* dw_acc, std::int64_t begin,
                                   std::int64_t end) {
  const std::int64_t lanes = tiled_gemm_lanes<T>();
  auto whole = [&](std::int64_t v) { return (v + lanes - 1) / lanes * lanes; };
  const std::int64_t in_place = g.col_rows() * whole(g.k) + 40 * g.k, rows = g.k * whole(g.col_rows()) + 20 * whole(g.col_rows());
  const bool padded = g.p.pad_top != 0 || g.p.pad_left != 0 || g.p.pad_bottom != 0 || g.p.pad_right != 0;
  if (!padded && in_place <= rows)
    tiled_backward_weights_image(g, x, dy, dw_acc, begin, end);
  else
    tiled_backward_weights_rows(g, x, dy, dw_acc, begin, end);
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
// when the plan has OpenMP workers and the library otherwise has more.
class CpuBackend::LibraryHeldToOne {
 public:
  LibraryHeldToOne(CpuBackend& b, const ConvPlan& plan) : b_(b), held_(plan.workers > 1 && b.library_threads() > 1) {
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
    const LibraryHeldToOne held(*this, plan);
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
    const LibraryHeldToOne held(*this, plan);
    const bool direct = setup_.few_channels && few_channels_fit(g);
    over_chunks(plan, g.n, [&](std::int64_t, std::int64_t begin, std::int64_t end) {
      if (direct) {
        few_channels_backward_data(g, dy.data<T>(), w.data<T>(), dx.data<T>(), begin, end);
        return;
      }
      if (tiled() && in_place_columns_fit<T>(g)) {
        tiled_backward_data_images(g, dy.data<T>(), w.data<T>(), dx.data<T>(), begin, end);
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
    const LibraryHeldToOne held(*this, plan);
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
    } else {
      // One partial per chunk, added in chunk order: the same bits whichever worker ran which.
      T* partial = scratch_of<T>(ScratchSlot::weight_partial, static_cast<std::size_t>(plan.chunks * size));
      over_chunks(plan, g.n, [&](std::int64_t c, std::int64_t begin, std::int64_t end) {
        images(partial + c * size, begin, end);
      });
      parallel_for(loop_threads_, size, kElementwiseGrain, [&](std::int64_t b, std::int64_t e) {
        for (std::int64_t i = b; i < e; ++i) {
          T s = partial[i];
          for (std::int64_t c = 1; c < plan.chunks; ++c) s += partial[c * size + i];
          dw_data[i] = s;
        }
      });
    }
    if (!dbias.empty()) channel_bias_grad(loop_threads_, dy.data<T>(), g.n, g.k, g.pixels(), dbias.data<T>());
  });
}

}  // namespace ablate::kernels::cpu
