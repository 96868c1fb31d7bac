// The tiled_gemm lowering's loops (see conv_tiled.h).
#include "kernels/cpu/conv_tiled.h"

#include <algorithm>
#include <cstring>
#include <vector>

#include "kernels/cpu/conv_epilogue.h"
#include "kernels/cpu/conv_few_channels.h"
#include "kernels/cpu/im2col.h"
#include "kernels/cpu/scratch.h"
#include "kernels/cpu/tiled_gemm.h"
#include "kernels/cpu/transpose.h"

namespace ablate::kernels::cpu {
namespace {

bool padded(const ConvGeometry& g) {
  return g.p.pad_top != 0 || g.p.pad_left != 0 || g.p.pad_bottom != 0 || g.p.pad_right != 0;
}

// The geometry of the image with its zero border as part of it: no padding left.
ConvGeometry with_border(const ConvGeometry& g) {
  ConvGeometry b = g;
  b.h = g.h + g.p.pad_top + g.p.pad_bottom;
  b.w = g.w + g.p.pad_left + g.p.pad_right;
  b.p.pad_top = b.p.pad_left = b.p.pad_bottom = b.p.pad_right = 0;
  return b;
}

// f(offset in the image, offset in the bordered image) for each of the image's rows of W.
template <class F> void each_inner_row(const ConvGeometry& g, const ConvGeometry& b, F&& f) {
  for (std::int64_t c = 0; c < g.c; ++c)
    for (std::int64_t i = 0; i < g.h; ++i) f((c * g.h + i) * g.w, (c * b.h + i + g.p.pad_top) * b.w + g.p.pad_left);
}

// Image x [C, H, W] of geometry g inside its zero border (geometry b = with_border(g)), in the
// columns slot; x itself when nothing is padded.
template <class T> const T* bordered(const ConvGeometry& g, const ConvGeometry& b, const T* x) {
  if (!padded(g)) return x;
  T* out = scratch_of<T>(ScratchSlot::columns, static_cast<std::size_t>(b.in_size()));
  std::fill(out, out + b.in_size(), T(0));
  each_inner_row(g, b, [&](std::int64_t inner, std::int64_t outer) { std::copy_n(x + inner, g.w, out + outer); });
  return out;
}

// at(c, i, j) for each tap of geometry g, in (c, i, j) order or with the channels innermost,
// (i, j, c) (the data gradient's order: taps_channels_inner).
enum class TapOrder { channels_outer, channels_inner };
template <class At> std::vector<std::int64_t> tap_offsets(const ConvGeometry& g, TapOrder order, At&& at) {
  const std::int64_t window = g.kh * g.kw;
  std::vector<std::int64_t> taps;
  for (std::int64_t t = 0; t < g.col_rows(); ++t) {
    const bool inner = order == TapOrder::channels_inner;
    const std::int64_t c = inner ? t % g.c : t / window, ij = inner ? t / g.c : t % window;
    taps.push_back(at(c, ij / g.kw, ij % g.kw));
  }
  return taps;
}

// The offset in an image of geometry g of each tap (c, i, j) of its im2col rows, (c * H + i) * W + j.
std::vector<std::int64_t> image_taps(const ConvGeometry& g, TapOrder order = TapOrder::channels_outer) {
  return tap_offsets(g, order, [&](std::int64_t c, std::int64_t i, std::int64_t j) { return (c * g.h + i) * g.w + j; });
}

// The weight gradient from im2row: per image
// dW [K, Rv] += dY [K, P] x rows [P, Rv], rows the image's im2row (R taps padded with zero
// columns to whole vectors, Rv), so that the taps lie along the tiles' vectors and K along their
// rows; the padded columns of the sums are dropped at the end.
template <class T>
void backward_weights_from_rows(const ConvGeometry& g, const T* x, const T* dy, T* dw_acc, std::int64_t begin,
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

// The weight gradient with the image read in place: per image dW^T [R, Kv] += the image's
// columns [R, P] x dY^T [P, Kv] (K padded with zero columns to whole vectors, Kv), transposed
// into dw_acc [K, R] at the end. In the bordered image every window lies inside, whatever the
// stride.
template <class T>
void backward_weights_in_place(const ConvGeometry& g, const T* x, const T* dy, T* dw_acc, std::int64_t begin,
                               std::int64_t end) {
  const std::int64_t p = g.pixels(), rows = g.col_rows(), lanes = tiled_gemm_lanes<T>();
  const std::int64_t kv = (g.k + lanes - 1) / lanes * lanes;
  if (begin >= end) {
    std::fill(dw_acc, dw_acc + g.k * rows, T(0));
    return;
  }
  const ConvGeometry b = with_border(g);
  const std::vector<std::int64_t> taps = image_taps(b);
  std::vector<std::int64_t> pixels;
  for (std::int64_t oh = 0; oh < g.oh; ++oh)
    for (std::int64_t ow = 0; ow < g.ow; ++ow) pixels.push_back(oh * g.p.stride_h * b.w + ow * g.p.stride_w);
  T* dyt = scratch_of<T>(ScratchSlot::gemm_out, static_cast<std::size_t>(p * kv));
  T* sums = scratch_of<T>(ScratchSlot::tile_sums, static_cast<std::size_t>(rows * kv));
  std::fill(dyt, dyt + p * kv, T(0));
  for (std::int64_t n = begin; n < end; ++n) {
    transpose_into(dy + n * g.out_size(), g.k, p, p, dyt, kv);  // dyt [P, Kv] = dy [K, P]^T
    tiled_gemm_image_a(static_cast<int>(rows), static_cast<int>(kv), static_cast<int>(p),
                       bordered(g, b, x + n * g.in_size()), taps.data(), pixels.data(), dyt, static_cast<int>(kv),
                       n == begin ? T(0) : T(1), sums, static_cast<int>(kv));
  }
  transpose_into(sums, rows, g.k, kv, dw_acc, rows);
}

// Where a vector of pixels is two output rows (2 OW = lanes: LeNet's conv2, OW 8), the bordered
// image (geometry b, stride 1) as pairs of rows: pair (c, j, r) holds row r and row r + 1 of
// channel c from column j on, OW values each, one whole vector. Tap (c, i, j)'s vector of output
// rows 2v and 2v + 1 is then pair (c, j, i + 2v): one aligned load, none joined from two halves
// (a shuffle on the port the FMAs need, beside the halves' address arithmetic). Read as the
// columns of a product of OH/2 rows of 2 OW pixels, in_w 4 OW apart (pair_taps).
template <class T> const T* row_pairs(const ConvGeometry& b, const T* image) {
  constexpr std::int64_t lanes = tiled_gemm_lanes<T>(), half = lanes / 2;  // OW = half
  const std::int64_t pairs = b.h - 1;
  T* out = scratch_of<T>(ScratchSlot::gemm_out, static_cast<std::size_t>(b.c * b.kw * pairs * lanes));
  for (std::int64_t c = 0; c < b.c; ++c)
    for (std::int64_t j = 0; j < b.kw; ++j)
      for (std::int64_t r = 0; r < pairs; ++r) {
        const T* row = image + (c * b.h + r) * b.w + j;
        T* pair = out + ((c * b.kw + j) * pairs + r) * lanes;
        std::memcpy(pair, row, half * sizeof(T));  // a size known here: one vector move, no call
        std::memcpy(pair + half, row + b.w, half * sizeof(T));
      }
  return out;
}
std::vector<std::int64_t> pair_taps(const ConvGeometry& g, const ConvGeometry& b) {
  return tap_offsets(b, TapOrder::channels_outer, [&](std::int64_t c, std::int64_t i, std::int64_t j) {
    return ((c * b.kw + j) * (b.h - 1) + i) * 2 * g.ow;
  });
}

}  // namespace

template <class T> bool in_place_columns_fit(const ConvGeometry& g) {
  return g.p.stride_h == 1 && g.p.stride_w == 1 && implicit_columns_fit<T>(g.oh, g.ow);
}

// Per image y [K, P] = W [K, R] x the image's columns read in place (from its pairs of rows
// where a vector is two output rows), then the epilogue.
template <class T>
void tiled_forward_images(const ConvGeometry& g, int threads, const T* x, const T* w, const T* bias,
                          std::optional<Activation> activation, T* y, std::int64_t begin, std::int64_t end) {
  const ConvGeometry b = with_border(g);
  const bool pairs = 2 * g.ow == tiled_gemm_lanes<T>();
  const std::vector<std::int64_t> taps = pairs ? pair_taps(g, b) : image_taps(b);
  for (std::int64_t n = begin; n < end; ++n) {
    T* yn = y + n * g.out_size();
    const T* image = bordered(g, b, x + n * g.in_size());
    const int k = static_cast<int>(g.col_rows());
    if (pairs)
      tiled_gemm_columns(static_cast<int>(g.k), k, w, k, row_pairs(b, image), taps.data(), g.oh / 2, 2 * g.ow,
                         4 * g.ow, yn);
    else
      tiled_gemm_columns(static_cast<int>(g.k), k, w, k, image, taps.data(), g.oh, g.ow, b.w, yn);
    conv_epilogue_in_place(threads, activation, bias, yn, 1, g.k, g.pixels());
  }
}

template <class T> void taps_channels_inner(const ConvGeometry& g, const T* w, T* w_ijc) {
  const std::int64_t r = g.col_rows();
  const std::vector<std::int64_t> from = tap_offsets(g, TapOrder::channels_inner, [&](std::int64_t c, std::int64_t i,
                                                                                      std::int64_t j) {
    return (c * g.kh + i) * g.kw + j;  // its column in W
  });
  for (std::int64_t k = 0; k < g.k; ++k)
    for (std::int64_t t = 0; t < r; ++t) w_ijc[k * r + t] = w[k * r + from[static_cast<std::size_t>(t)]];
}

// Per image the columns W^T [R, K] x dY [K, P] added onto dx where the forward read them (onto
// the bordered image, its inside copied out after), the taps in (i, j, c) order.
template <class T>
void tiled_backward_data_images(const ConvGeometry& g, const T* dy, const T* w_ijc, T* dx, std::int64_t begin,
                                std::int64_t end) {
  const ConvGeometry b = with_border(g);
  const std::vector<std::int64_t> taps = image_taps(b, TapOrder::channels_inner);
  for (std::int64_t n = begin; n < end; ++n) {
    T* dxn = dx + n * g.in_size();
    T* onto = padded(g) ? scratch_of<T>(ScratchSlot::columns, static_cast<std::size_t>(b.in_size())) : dxn;
    std::fill(onto, onto + b.in_size(), T(0));
    tiled_gemm_add_columns(static_cast<int>(g.col_rows()), static_cast<int>(g.k), w_ijc, static_cast<int>(g.col_rows()),
                           dy + n * g.out_size(), taps.data(), g.oh, g.ow, b.w, onto);
    if (onto != dxn)
      each_inner_row(g, b, [&](std::int64_t inner, std::int64_t outer) { std::copy_n(onto + outer, g.w, dxn + inner); });
  }
}

// Whichever of three forms costs least per output pixel, in multiply-adds: the image read in
// place (the padded product R x Kv and about 40 for an element transposed into dY^T), im2row (K x
// Rv and about 20 for an element written into it), or dot products over im2col
// (dot_backward_weights: K x R, about 17 a tap for the im2col and the partial tiles, and the
// lanes of every sum loaded and stored once an image, 2 x 16 a sum over P pixels). One image of
// LeNet, one thread, Emerald Rapids Xeon: conv2 24 us in place against 31 im2row; conv1 11 in
// place, 9 im2row, 6-7.5 as dot products.
template <class T>
void tiled_backward_weights_images(const ConvGeometry& g, const T* x, const T* dy, T* dw_acc, std::int64_t begin,
                                   std::int64_t end) {
  const std::int64_t lanes = tiled_gemm_lanes<T>();
  auto whole = [&](std::int64_t v) { return (v + lanes - 1) / lanes * lanes; };
  const std::int64_t r = g.col_rows();
  const std::int64_t in_place = r * whole(g.k) + 40 * g.k;
  const std::int64_t rows = g.k * whole(r) + 20 * whole(r);
  const std::int64_t dots = g.k * r + 17 * r + 32 * g.k * r / std::max<std::int64_t>(1, g.pixels());
  if (dots < std::min(in_place, rows)) dot_backward_weights(g, x, dy, dw_acc, begin, end);
  else if (in_place <= rows) backward_weights_in_place(g, x, dy, dw_acc, begin, end);
  else backward_weights_from_rows(g, x, dy, dw_acc, begin, end);
}

#define ABLATE_CONV_TILED(T)                                                                                      \
  template bool in_place_columns_fit<T>(const ConvGeometry&);                                                     \
  template void tiled_forward_images<T>(const ConvGeometry&, int, const T*, const T*, const T*,                   \
                                        std::optional<Activation>, T*, std::int64_t, std::int64_t);               \
  template void taps_channels_inner<T>(const ConvGeometry&, const T*, T*);                                         \
  template void tiled_backward_data_images<T>(const ConvGeometry&, const T*, const T*, T*, std::int64_t,          \
                                              std::int64_t);                                                      \
  template void tiled_backward_weights_images<T>(const ConvGeometry&, const T*, const T*, T*, std::int64_t,       \
                                                 std::int64_t);
ABLATE_CONV_TILED(float)
ABLATE_CONV_TILED(double)
#undef ABLATE_CONV_TILED

}  // namespace ablate::kernels::cpu
