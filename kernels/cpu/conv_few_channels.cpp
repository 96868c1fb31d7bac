// Direct convolution loops for few input channels (see conv_few_channels.h). One image at a
// time: its input (or input gradient) lives in a zero-padded copy
//   xp [C][rows][sw][cols]: padded pixel (c, r, q*sw + phase) at ((c*rows + r)*sw + phase)*cols + q
// with rows = (OH-1)*sh + KH (the padded rows any output reads), so that tap t = (c, i, j) of
// output row oh is the contiguous run xp + oh*sh*sw*cols + taps[t], taps[t] = ((c*rows + i)*sw +
// j % sw)*cols + j / sw, over OWv = OW rounded up to whole vectors (the lanes past OW read padding
// or neighbours and are dropped, or meet zeros of the padded dy copy dyp [K][OH][OWv]). The
// forward and weight gradient tiles also run over the pixels end to end, from shifted copies of
// the image (ShiftedRows, forward_shifted, backward_weights_flat) or its im2col
// (dot_backward_weights): the same sums without the row padding.
#include "kernels/cpu/conv_few_channels.h"

#include <algorithm>
#include <cstring>
#include <type_traits>
#include <utility>
#include <vector>

#include "kernels/cpu/held_in_register.h"
#include "kernels/cpu/im2col.h"
#include "kernels/cpu/scratch.h"
#include "kernels/cpu/shifted_rows.h"

namespace ablate::kernels::cpu {
namespace {

// Vectors of Bytes bytes: 32 (8 floats, 4 doubles, AVX2's width) or, in an AVX-512 build, 64
// where a row pads to no more lanes than with 32 (vector_bytes_for below).
template <class T, int Bytes> struct VecOf { typedef T type __attribute__((vector_size(Bytes))); };
template <class T, int Bytes> using Vec = typename VecOf<T, Bytes>::type;
template <class T, int Bytes> constexpr std::int64_t kLanes = Bytes / sizeof(T);

template <class T, int Bytes> inline Vec<T, Bytes> load(const T* p) {
  Vec<T, Bytes> v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <class T, int Bytes> inline void store(T* p, Vec<T, Bytes> v) { std::memcpy(p, &v, sizeof v); }

// c in every lane (c - 0 is c for every c, -0 and NaN included; a lane-by-lane fill would
// send the tile's sums through the stack).
template <class T, int Bytes> inline Vec<T, Bytes> splat(T c) { return c - Vec<T, Bytes>{}; }

// Register tiles: up to kTile output channels (or taps) by kTile vectors along the row.
constexpr int kTile = 4;
template <int N> using Int = std::integral_constant<int, N>;
// f(Int<min(n, Max)>{}), for n >= 1.
template <int Max, class F> void with_up_to(std::int64_t n, F&& f) {
  [&]<int... N>(std::integer_sequence<int, N...>) {
    const int m = static_cast<int>(std::min<std::int64_t>(n, Max));
    ((m == N + 1 ? (f(Int<N + 1>{}), 0) : 0), ...);
  }(std::make_integer_sequence<int, Max>{});
}
// The weight gradient's tiles: up to kWeightTile channels by kWeightTile taps, A*B sums, A dy
// vectors and one input vector at a time held in registers: 5 x 5 in AVX-512's 32 (31 of them;
// LeNet's 20 channels by 25 taps in whole tiles), 3 x 3 in AVX2's 16.
#if defined(__AVX512F__)
constexpr int kWeightTile = 5;
#else
constexpr int kWeightTile = 3;
#endif

struct Layout {
  std::int64_t owv = 0, rows = 0, cols = 0, sw = 1, sh = 1, c = 0;
  std::vector<std::int64_t> taps;  // per tap (c, i, j), its run's offset for output row 0
  std::int64_t image() const { return c * rows * sw * cols; }
  std::int64_t row(std::int64_t oh) const { return oh * sh * sw * cols; }
};

Layout layout_of(const ConvGeometry& g, std::int64_t lanes) {
  Layout l;
  l.sw = g.p.stride_w;
  l.sh = g.p.stride_h;
  l.c = g.c;
  l.owv = (g.ow + lanes - 1) / lanes * lanes;
  l.rows = (g.oh - 1) * l.sh + g.kh;
  l.cols = std::max((g.kw - 1) / l.sw + l.owv, (g.w + g.p.pad_left + l.sw - 1) / l.sw);
  for (std::int64_t c = 0; c < g.c; ++c)
    for (std::int64_t i = 0; i < g.kh; ++i)
      for (std::int64_t j = 0; j < g.kw; ++j) l.taps.push_back(((c * l.rows + i) * l.sw + j % l.sw) * l.cols + j / l.sw);
  return l;
}

// Where input pixel (c, h, w) sits in the padded copy, or -1 where no output reads its row.
std::int64_t padded_index(const ConvGeometry& g, const Layout& l, std::int64_t c, std::int64_t h, std::int64_t w) {
  const std::int64_t r = h + g.p.pad_top, pc = w + g.p.pad_left;
  if (r >= l.rows) return -1;
  return ((c * l.rows + r) * l.sw + pc % l.sw) * l.cols + pc / l.sw;
}

// One image x [C,H,W] into its padded copy.
template <class T> void pad_image(const ConvGeometry& g, const Layout& l, const T* x, T* xp) {
  std::fill(xp, xp + l.image(), T(0));
  for (std::int64_t c = 0; c < g.c; ++c)
    for (std::int64_t h = 0; h < g.h; ++h) {
      const T* src = x + (c * g.h + h) * g.w;
      if (padded_index(g, l, c, h, 0) < 0) break;
      if (l.sw == 1) {
        std::copy_n(src, g.w, xp + padded_index(g, l, c, h, 0));
        continue;
      }
      for (std::int64_t w = 0; w < g.w; ++w) xp[padded_index(g, l, c, h, w)] = src[w];
    }
}

// The gradient of the padded copy back onto the image dx [C,H,W]; rows no output reads get 0.
template <class T> void unpad_image(const ConvGeometry& g, const Layout& l, const T* dxp, T* dx) {
  for (std::int64_t c = 0; c < g.c; ++c)
    for (std::int64_t h = 0; h < g.h; ++h) {
      T* dst = dx + (c * g.h + h) * g.w;
      if (padded_index(g, l, c, h, 0) < 0) {
        std::fill(dst, dst + g.w, T(0));
        continue;
      }
      for (std::int64_t w = 0; w < g.w; ++w) dst[w] = dxp[padded_index(g, l, c, h, w)];
    }
}

// One image's dy [K,OH,OW] as dyp [K,OH,OWv], zeros past OW.
template <class T> void pad_output(const ConvGeometry& g, const Layout& l, const T* dy, T* dyp) {
  for (std::int64_t r = 0; r < g.k * g.oh; ++r) {
    std::copy_n(dy + r * g.ow, g.ow, dyp + r * l.owv);
    std::fill(dyp + r * l.owv + g.ow, dyp + (r + 1) * l.owv, T(0));
  }
}

// acc[a][v] = init[a] + sum over r < count of coef[a][r*cr] * row_r[v*lanes ..], row_r = base + offsets[r]:
// A output rows from `count` input rows, each a scalar times a row (forward: a = output channel,
// r = tap; backward data: a = tap, r = output channel).
template <class T, int Bytes, int A, int NV> struct RowTile {
  Vec<T, Bytes> acc[A][NV];
  RowTile() {
    for (int a = 0; a < A; ++a)
      for (int v = 0; v < NV; ++v) acc[a][v] = splat<T, Bytes>(T(0));
  }
  // acc[a] += bias[a], after the sums: the bits of bias_add over the unbiased output, so a
  // convolution with its bias equals one without followed by bias_add (the static strategy's
  // conv2d -> bias_add against the layer-wise conv2d_forward with bias).
  void add_bias(const T* bias) {
    for (int a = 0; a < A; ++a)
      for (int v = 0; v < NV; ++v) acc[a][v] += splat<T, Bytes>(bias[a]);
  }
  void combine(const T* const (&coef)[A], std::int64_t cr, const T* base, const std::int64_t* offsets,
               std::int64_t count) {
    for (std::int64_t r = 0; r < count; ++r) {
      const T* row = base + offsets[r];
      Vec<T, Bytes> in[NV];
      for (int v = 0; v < NV; ++v) in[v] = held_in_register(load<T, Bytes>(row + v * kLanes<T, Bytes>));
      for (int a = 0; a < A; ++a) {
        const T c = coef[a][r * cr];
        for (int v = 0; v < NV; ++v) acc[a][v] += c * in[v];
      }
    }
  }
};

// The first `count` (<= NV vectors) results of a tile row into dst: whole vectors, then the
// lanes of a last part vector one by one (a call to memcpy per row would cost as much as the row).
template <class T, int Bytes, int NV> void store_run(T* dst, const Vec<T, Bytes> (&row)[NV], std::int64_t count) {
  const std::int64_t whole = count / kLanes<T, Bytes>;
  for (int v = 0; v < NV; ++v)
    if (v < whole) store<T, Bytes>(dst + v * kLanes<T, Bytes>, row[v]);
  if (whole == NV) return;
  for (std::int64_t lane = 0; lane < count - whole * kLanes<T, Bytes>; ++lane) dst[whole * kLanes<T, Bytes> + lane] = row[whole][lane];
}

// f(ow0, NV) over the vector blocks of a row of OWv outputs.
template <class T, int Bytes, class F> void over_row_blocks(const Layout& l, F&& f) {
  for (std::int64_t ow0 = 0; ow0 < l.owv; ow0 += kTile * kLanes<T, Bytes>)
    with_up_to<kTile>((l.owv - ow0) / kLanes<T, Bytes>, [&](auto nv) { f(ow0, nv); });
}

template <int Bytes, class T>
void forward_with(const ConvGeometry& g, const T* x, const T* w, const T* bias, T* y, std::int64_t begin,
                          std::int64_t end) {
  const Layout l = layout_of(g, kLanes<T, Bytes>);
  const std::int64_t taps = g.col_rows(), plane = g.pixels();
  T* xp = scratch_of<T>(ScratchSlot::columns, static_cast<std::size_t>(l.image()));
  for (std::int64_t n = begin; n < end; ++n) {
    pad_image(g, l, x + n * g.in_size(), xp);
    T* yn = y + n * g.out_size();
    for (std::int64_t oh = 0; oh < g.oh; ++oh)
      over_row_blocks<T, Bytes>(l, [&](std::int64_t ow0, auto nv) {
        const std::int64_t count = std::min<std::int64_t>(nv * kLanes<T, Bytes>, g.ow - ow0);
        for (std::int64_t k0 = 0; k0 < g.k; k0 += kTile)
          with_up_to<kTile>(g.k - k0, [&](auto na) {
            RowTile<T, Bytes, decltype(na)::value, decltype(nv)::value> t;
            const T* coef[decltype(na)::value];
            for (int a = 0; a < na; ++a) coef[a] = w + (k0 + a) * taps;
            t.combine(coef, 1, xp + l.row(oh) + ow0, l.taps.data(), taps);
            if (bias) t.add_bias(bias + k0);
            for (int a = 0; a < na; ++a) store_run<T, Bytes>(yn + (k0 + a) * plane + oh * g.ow + ow0, t.acc[a], count);
          });
      });
  }
}

// The forward over ShiftedRows: tiles of up to kTile channels by kShiftedVectors vectors of the
// P pixels end to end, the same sums in the same tap order as forward_with (the same bits)
// without its lanes of row padding. 4 x 6 holds 24 sums, 6 inputs and a weight in AVX-512's 32.
constexpr int kShiftedVectors = 6;
template <int Bytes, class T>
void forward_shifted(const ConvGeometry& g, const T* x, const T* w, const T* bias, T* y, std::int64_t begin,
                     std::int64_t end) {
  constexpr std::int64_t lanes = kLanes<T, Bytes>;
  const ShiftedRows s(g);
  const std::int64_t taps = g.col_rows(), p = g.pixels();
  T* xs = scratch_of<T>(ScratchSlot::columns, static_cast<std::size_t>(s.size()));
  for (std::int64_t n = begin; n < end; ++n) {
    s.copy(x + n * g.in_size(), xs);
    T* yn = y + n * g.out_size();
    for (std::int64_t p0 = 0; p0 < p; p0 += kShiftedVectors * lanes)
      with_up_to<kShiftedVectors>((p - p0) / lanes, [&](auto nv) {
        for (std::int64_t k0 = 0; k0 < g.k; k0 += kTile)
          with_up_to<kTile>(g.k - k0, [&](auto na) {
            RowTile<T, Bytes, decltype(na)::value, decltype(nv)::value> t;
            const T* coef[decltype(na)::value];
            for (int a = 0; a < na; ++a) coef[a] = w + (k0 + a) * taps;
            t.combine(coef, 1, xs + p0, s.taps.data(), taps);
            if (bias) t.add_bias(bias + k0);
            for (int a = 0; a < na; ++a)
              for (int v = 0; v < nv; ++v) store<T, Bytes>(yn + (k0 + a) * p + p0 + v * lanes, t.acc[a][v]);
          });
      });
  }
}

template <int Bytes, class T>
void backward_data_with(const ConvGeometry& g, const T* dy, const T* w, T* dx, std::int64_t begin,
                                std::int64_t end) {
  const Layout l = layout_of(g, kLanes<T, Bytes>);
  const std::int64_t taps = g.col_rows();
  std::vector<std::int64_t> channels;  // offset of output channel k's rows in dyp
  for (std::int64_t k = 0; k < g.k; ++k) channels.push_back(k * g.oh * l.owv);
  // Taps column by column, (c, j, i): the taps of one tile add into different rows of dxp. Taps
  // of one row overlap one element apart, and a load of a run overlapping the store just before
  // it waits for that store to retire (no store-to-load forward).
  std::vector<std::int64_t> order;
  for (std::int64_t c = 0; c < g.c; ++c)
    for (std::int64_t j = 0; j < g.kw; ++j)
      for (std::int64_t i = 0; i < g.kh; ++i) order.push_back((c * g.kh + i) * g.kw + j);
  T* dxp = scratch_of<T>(ScratchSlot::columns, static_cast<std::size_t>(l.image()));
  T* dyp = scratch_of<T>(ScratchSlot::gemm_out, static_cast<std::size_t>(g.k * g.oh * l.owv));
  for (std::int64_t n = begin; n < end; ++n) {
    std::fill(dxp, dxp + l.image(), T(0));
    pad_output(g, l, dy + n * g.out_size(), dyp);
    for (std::int64_t oh = 0; oh < g.oh; ++oh)
      over_row_blocks<T, Bytes>(l, [&](std::int64_t ow0, auto nv) {
        for (std::int64_t t0 = 0; t0 < taps; t0 += kTile)
          with_up_to<kTile>(taps - t0, [&](auto na) {
            RowTile<T, Bytes, decltype(na)::value, decltype(nv)::value> t;
            const T* coef[decltype(na)::value];
            for (int a = 0; a < na; ++a) coef[a] = w + order[t0 + a];
            t.combine(coef, taps, dyp + oh * l.owv + ow0, channels.data(), g.k);
            for (int a = 0; a < na; ++a) {
              T* dst = dxp + l.row(oh) + l.taps[static_cast<std::size_t>(order[t0 + a])] + ow0;
              for (int v = 0; v < nv; ++v) store<T, Bytes>(dst + v * kLanes<T, Bytes>, load<T, Bytes>(dst + v * kLanes<T, Bytes>) + t.acc[a][v]);
            }
          });
      });
    unpad_image(g, l, dxp, dx + n * g.in_size());
  }
}

// The runs a weight tile sums over: `rows` rows of the vectors [q_begin, q_end), tap t's row r
// at x + taps[t] + r * x_row, channel k's row r at dy + k * dy_channel + r * dy_row. Over the
// padded image: OH rows of OWv. Over one image's im2col (flat): Pv / lanes rows of one vector,
// the output rows laid end to end.
// Optionally, `ahead` bytes from `next` (the next image's dy) are pulled into L1 a line a step,
// tile after tile, so that each image's dy is in L1 when its tiles start.
struct WeightRuns {
  std::int64_t q_begin = 0, q_end = 0, rows = 1, x_row = 0, dy_row = 0, dy_channel = 0;
  const std::int64_t* taps = nullptr;
  const char* next = nullptr;
  std::int64_t ahead = 0;
};
constexpr std::int64_t kLineBytes = 64;

// sums[(k0 + a) * taps + t0 + b] += the dot products of dy's runs of channel k0 + a with tap
// t0 + b's, lane by lane: A channels by B taps.
template <class T, int Bytes, int A, int B>
void weight_tile(const WeightRuns& w, std::int64_t taps, const T* x, const T* dy, std::int64_t k0, std::int64_t t0,
                 Vec<T, Bytes>* sums, std::int64_t pulled) {
  Vec<T, Bytes> acc[A][B];
  for (int a = 0; a < A; ++a)
    for (int b = 0; b < B; ++b) acc[a][b] = sums[(k0 + a) * taps + t0 + b];
  // Down the columns of vectors: `rows` steps of fixed strides, where a row holds only 3-4 vectors.
  std::int64_t off[B];
  for (int b = 0; b < B; ++b) off[b] = w.taps[t0 + b];
  for (std::int64_t q = w.q_begin; q < w.q_end; q += kLanes<T, Bytes>) {
    const T* xcol = x + q;
    const T* dycol = dy + k0 * w.dy_channel + q;
    for (std::int64_t r = 0; r < w.rows; ++r, xcol += w.x_row, dycol += w.dy_row, pulled += kLineBytes) {
      if (pulled < w.ahead) __builtin_prefetch(w.next + pulled, 0, 3);
      Vec<T, Bytes> d[A];
      for (int a = 0; a < A; ++a) d[a] = held_in_register(load<T, Bytes>(dycol + a * w.dy_channel));
      for (int b = 0; b < B; ++b) {
        const Vec<T, Bytes> in = held_in_register(load<T, Bytes>(xcol + off[b]));
        for (int a = 0; a < A; ++a) acc[a][b] += d[a] * in;
      }
    }
  }
  for (int a = 0; a < A; ++a)
    for (int b = 0; b < B; ++b) sums[(k0 + a) * taps + t0 + b] = acc[a][b];
}

// sums (lane by lane) += one image's weight gradient over the runs `w`: tiles of up to
// kWeightTile channels by kWeightTile taps.
template <class T, int Bytes>
void weight_tiles(const ConvGeometry& g, const WeightRuns& w, const T* x, const T* dy, Vec<T, Bytes>* sums) {
  const std::int64_t taps = g.col_rows();
  const std::int64_t steps = w.rows * ((w.q_end - w.q_begin) / kLanes<T, Bytes>);
  std::int64_t pulled = 0;
  for (std::int64_t k0 = 0; k0 < g.k; k0 += kWeightTile)
    with_up_to<kWeightTile>(g.k - k0, [&](auto na) {
      for (std::int64_t t0 = 0; t0 < taps; t0 += kWeightTile)
        with_up_to<kWeightTile>(taps - t0, [&](auto nb) {
          weight_tile<T, Bytes, decltype(na)::value, decltype(nb)::value>(w, taps, x, dy, k0, t0, sums, pulled);
          pulled += steps * kLineBytes;
        });
    });
}

// dw_acc = the lanes of each sum added.
template <class T, int Bytes> void add_lanes(const Vec<T, Bytes>* sums, std::int64_t size, T* dw_acc) {
  for (std::int64_t i = 0; i < size; ++i) {
    T s = T(0);
    for (std::int64_t lane = 0; lane < kLanes<T, Bytes>; ++lane) s += sums[i][lane];
    dw_acc[i] = s;
  }
}

template <class T, int Bytes> Vec<T, Bytes>* zeroed_sums(std::int64_t size) {
  auto* sums = static_cast<Vec<T, Bytes>*>(scratch(ScratchSlot::lane_sums, static_cast<std::size_t>(size) * sizeof(Vec<T, Bytes>)));
  std::fill(sums, sums + size, Vec<T, Bytes>{});
  return sums;
}

template <int Bytes, class T>
void backward_weights_with(const ConvGeometry& g, const T* x, const T* dy, T* dw_acc, std::int64_t begin,
                                   std::int64_t end) {
  const Layout l = layout_of(g, kLanes<T, Bytes>);
  const std::int64_t size = g.k * g.col_rows();
  T* xp = scratch_of<T>(ScratchSlot::columns, static_cast<std::size_t>(l.image()));
  T* dyp = scratch_of<T>(ScratchSlot::gemm_out, static_cast<std::size_t>(g.k * g.oh * l.owv));
  Vec<T, Bytes>* sums = zeroed_sums<T, Bytes>(size);
  const WeightRuns runs{0, l.owv, g.oh, l.row(1), l.owv, g.oh * l.owv, l.taps.data()};
  for (std::int64_t n = begin; n < end; ++n) {
    pad_image(g, l, x + n * g.in_size(), xp);
    pad_output(g, l, dy + n * g.out_size(), dyp);
    weight_tiles<T, Bytes>(g, runs, xp, dyp, sums);
  }
  add_lanes<T, Bytes>(sums, size, dw_acc);
}

// The weight gradient over each image's im2col [C*KH*KW, P] instead, P = OH*OW pixels laid end
// to end in whole vectors Pv (zeros past P, in the columns and in a copy of dy where P is no whole
// number of vectors): no lanes of padding per output row, where the rows pad badly (LeNet's 24
// outputs: 32 lanes of 64-byte vectors) and the 32-byte vectors would run at half the FMA rate
// of an AVX-512 core. Each tile runs down all Pv / lanes vectors of its rows at once (as one
// column of "rows" a vector wide): in blocks that fit L1 its accumulators' loads and stores and the
// loop's set-up cost more than the reads from L2 they save (LeNet's conv1, one image, one
// thread, Emerald Rapids: 9.7 us over the padded rows; 10.3 flat in one-row blocks of 176
// pixels, 7.9 down 11-vector columns, 6.1 down the whole 36; im2col 1.5 of it). Where the stride
// down is 1 and P whole vectors, the taps come from ShiftedRows instead, and the tiles are 5 x 5
// (kWeightTile). 32 images in a row, us an image: buffers off 64-byte lines 7.9 over im2col with
// 4 x 4 tiles, 6.1-6.5 from ShiftedRows, 5.2 with 5 x 5 tiles; aligned (as ablate's tensors) 5.8-6.2
// over im2col with 4 x 4, 4.3 from ShiftedRows with 5 x 5.
template <int Bytes, class T>
void backward_weights_flat(const ConvGeometry& g, const T* x, const T* dy, T* dw_acc, std::int64_t begin,
                           std::int64_t end) {
  constexpr std::int64_t lanes = kLanes<T, Bytes>;
  const std::int64_t taps = g.col_rows(), size = g.k * taps, p = g.pixels();
  const std::int64_t pv = (p + lanes - 1) / lanes * lanes;
  Vec<T, Bytes>* sums = zeroed_sums<T, Bytes>(size);
  if (shifted_rows_fit(g, lanes)) {
    // From ShiftedRows (held in L1): dy, read in place, is all that streams.
    const ShiftedRows s(g);
    T* xs = scratch_of<T>(ScratchSlot::columns, static_cast<std::size_t>(s.size()));
    for (std::int64_t n = begin; n < end; ++n) {
      s.copy(x + n * g.in_size(), xs);
      const bool last = n + 1 == end;
      const WeightRuns runs{0, lanes, p / lanes, lanes, lanes, p, s.taps.data(),
                            reinterpret_cast<const char*>(dy + (n + 1) * g.out_size()),
                            last ? 0 : g.out_size() * static_cast<std::int64_t>(sizeof(T))};
      weight_tiles<T, Bytes>(g, runs, xs, dy + n * g.out_size(), sums);
    }
    return add_lanes<T, Bytes>(sums, size, dw_acc);
  }
  T* col = scratch_of<T>(ScratchSlot::columns, static_cast<std::size_t>(taps * pv));
  T* dyv = pv == p ? nullptr : scratch_of<T>(ScratchSlot::gemm_out, static_cast<std::size_t>(g.k * pv));
  std::vector<std::int64_t> rows(static_cast<std::size_t>(taps));
  for (std::int64_t t = 0; t < taps; ++t) rows[static_cast<std::size_t>(t)] = t * pv;
  // The zeros past P, once (im2col and the copies below write the first P of each row only), on
  // both sides: a stale NaN left in the scratch would survive a product with zero.
  if (dyv) {
    for (std::int64_t r = 0; r < taps; ++r) std::fill(col + r * pv + p, col + (r + 1) * pv, T(0));
    for (std::int64_t k = 0; k < g.k; ++k) std::fill(dyv + k * pv + p, dyv + (k + 1) * pv, T(0));
  }
  for (std::int64_t n = begin; n < end; ++n) {
    im2col(g, x + n * g.in_size(), col, pv);
    const T* dyn = dy + n * g.out_size();
    if (dyv) {
      for (std::int64_t k = 0; k < g.k; ++k) std::copy_n(dyn + k * p, p, dyv + k * pv);
      dyn = dyv;
    }
    weight_tiles<T, Bytes>(g, WeightRuns{0, lanes, pv / lanes, lanes, lanes, pv, rows.data()}, col, dyn, sums);
  }
  add_lanes<T, Bytes>(sums, size, dw_acc);
}

// 64-byte vectors in an AVX-512 build where a row of OW outputs pads to no more lanes than with
// 32 (cifar10_quick's 32, the TF CNN's 28; not LeNet's 24, which 16 lanes pad to 32), else 32.
// ablate_micro on an Emerald Rapids Xeon (two 512-bit FMA ports; 1 thread, us, 32 / 64 bytes):
// cifar10_quick's conv1 forward 6,298 / 4,444, backward data 8,631 / 5,952, weights 7,486 /
// 4,609; the TF CNN's 1,087 / 1,022, 1,358 / 1,158, 1,495 / 1,107; LeNet's forward 578 / 737.
// (On the 2-core Zen 4 a 512-bit FMA issues at the rate of two 256-bit ones: not measured there.)
template <class T, class F> void with_vector_bytes(const ConvGeometry& g, F&& f) {
#if defined(__AVX512F__)
  auto padded = [&](std::int64_t lanes) { return (g.ow + lanes - 1) / lanes * lanes; };
  if (padded(kLanes<T, 64>) == padded(kLanes<T, 32>)) return f(Int<64>{});
#endif
  f(Int<32>{});
}

#if defined(__AVX512F__)
// Whether the weight gradient goes over im2col (backward_weights_flat): where the rows pad to
// more lanes with 64-byte vectors than with 32, which with_vector_bytes would then take.
template <class T> bool flat_weights(const ConvGeometry& g) {
  auto padded = [&](std::int64_t lanes) { return (g.ow + lanes - 1) / lanes * lanes; };
  return padded(kLanes<T, 64>) != padded(kLanes<T, 32>);
}
#endif

}  // namespace

template <class T>
void few_channels_forward(const ConvGeometry& g, const T* x, const T* w, const T* bias, T* y, std::int64_t begin,
                          std::int64_t end) {
#if defined(__AVX512F__)
  // Rows that pad badly (as for the weight gradient, flat_weights): the pixels end to end.
  if (flat_weights<T>(g) && shifted_rows_fit(g, kLanes<T, 64>)) return forward_shifted<64>(g, x, w, bias, y, begin, end);
#endif
  with_vector_bytes<T>(g, [&](auto bytes) { forward_with<decltype(bytes)::value>(g, x, w, bias, y, begin, end); });
}

template <class T>
void few_channels_backward_data(const ConvGeometry& g, const T* dy, const T* w, T* dx, std::int64_t begin,
                                std::int64_t end) {
  with_vector_bytes<T>(g, [&](auto bytes) { backward_data_with<decltype(bytes)::value>(g, dy, w, dx, begin, end); });
}

// Over the padded image where its rows take 64-byte vectors (or no AVX-512), else over im2col
// with them (flat_weights).
template <class T>
void few_channels_backward_weights(const ConvGeometry& g, const T* x, const T* dy, T* dw_acc, std::int64_t begin,
                                   std::int64_t end) {
#if defined(__AVX512F__)
  if (flat_weights<T>(g)) return dot_backward_weights(g, x, dy, dw_acc, begin, end);
#endif
  with_vector_bytes<T>(g, [&](auto bytes) { backward_weights_with<decltype(bytes)::value>(g, x, dy, dw_acc, begin, end); });
}

template <class T>
void dot_backward_weights(const ConvGeometry& g, const T* x, const T* dy, T* dw_acc, std::int64_t begin,
                          std::int64_t end) {
#if defined(__AVX512F__)
  backward_weights_flat<64>(g, x, dy, dw_acc, begin, end);
#else
  backward_weights_flat<32>(g, x, dy, dw_acc, begin, end);
#endif
}

#define ABLATE_FEW_CHANNELS(T)                                                                                    \
  template void few_channels_forward<T>(const ConvGeometry&, const T*, const T*, const T*, T*, std::int64_t,   \
                                        std::int64_t);                                                          \
  template void few_channels_backward_data<T>(const ConvGeometry&, const T*, const T*, T*, std::int64_t,       \
                                              std::int64_t);                                                    \
  template void few_channels_backward_weights<T>(const ConvGeometry&, const T*, const T*, T*, std::int64_t,    \
                                                 std::int64_t);                                                 \
  template void dot_backward_weights<T>(const ConvGeometry&, const T*, const T*, T*, std::int64_t, std::int64_t);
ABLATE_FEW_CHANNELS(float)
ABLATE_FEW_CHANNELS(double)
#undef ABLATE_FEW_CHANNELS

}  // namespace ablate::kernels::cpu
