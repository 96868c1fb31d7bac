// The plane loops of the CPU connection-table convolution (conv_map.cpp): one input plane,
// one kernel and one output plane at a time, the work of one connection. Two layouts:
//  - flat (stride 1, the usual case: Torch's CIFAR-10 and LeNet-5 C3 layers): the input plane
//    is zero-padded to Hp x Wp (a copy only when there is padding) and the output is computed
//    "wide", Wp columns per row of which the first OW are real. Then output element q and tap
//    (a, b) read input element q + a*Wp + b, so every tap is one long contiguous loop of
//    len = (OH - 1)*Wp + OW elements that vectorizes (the last row stops at OW so that no read
//    leaves the padded plane); backward data is the same loop over dy placed in a larger zero
//    plane (the full correlation with the rotated kernel);
//  - rows (any stride): for each output row and tap, the output columns whose input column is
//    inside the image (Torch's validXCorr2Dptr and fullConv2Dptr loop the same way).
// Sums over taps run in T in a fixed order; the weight gradient's sums over output pixels in
// double (per column in T over the images of the flat layout).
#pragma once

#include <algorithm>
#include <cstdint>

#include "kernels/cpu/accumulate.h"
#include "kernels/cpu/conv_geometry.h"

namespace ablate::kernels::cpu::conv_map {

// --- flat layout (stride 1) ----------------------------------------------------------------
struct Flat {
  std::int64_t hp = 0, wp = 0, len = 0;  // padded plane, length of the wide output
  bool padded = false;                   // whether the input needs a zero-padded copy
  bool gaps = false;                     // whether wide rows have columns past OW
};

inline bool flat_applies(const ConvGeometry& g) { return g.p.stride_h == 1 && g.p.stride_w == 1; }

inline Flat flat_layout(const ConvGeometry& g) {
  Flat f;
  f.hp = g.h + g.p.pad_top + g.p.pad_bottom;
  f.wp = g.w + g.p.pad_left + g.p.pad_right;
  f.len = (g.oh - 1) * f.wp + g.ow;
  f.padded = f.hp != g.h || f.wp != g.w;
  f.gaps = f.wp != g.ow;
  return f;
}

// The input plane [H,W] as the padded [Hp,Wp] plane: itself, or a zero-padded copy in `scratch`.
template <class T> const T* padded_plane(const ConvGeometry& g, const Flat& f, const T* in, T* scratch) {
  if (!f.padded) return in;
  std::fill(scratch, scratch + f.hp * f.wp, T(0));
  for (std::int64_t h = 0; h < g.h; ++h)
    std::copy(in + h * g.w, in + (h + 1) * g.w, scratch + (h + g.p.pad_top) * f.wp + g.p.pad_left);
  return scratch;
}

// An output plane [OH,OW] in the wide layout (zero in the gap columns): itself when there
// are no gaps, else a copy in `scratch` of f.len elements.
template <class T> const T* wide_plane(const ConvGeometry& g, const Flat& f, const T* out, T* scratch) {
  if (!f.gaps) return out;
  std::fill(scratch, scratch + f.len, T(0));
  for (std::int64_t oh = 0; oh < g.oh; ++oh) std::copy(out + oh * g.ow, out + (oh + 1) * g.ow, scratch + oh * f.wp);
  return scratch;
}

// wide [len] += corr(in, k) in a flat layout of row width wp: wide[q] += k[a,b] * in[q + a*wp + b].
template <class T>
void flat_correlate_add(const ConvGeometry& g, std::int64_t wp, std::int64_t len, const T* in, const T* k, T* wide) {
  for (std::int64_t a = 0; a < g.kh; ++a)
    for (std::int64_t b = 0; b < g.kw; ++b) {
      const T wv = k[a * g.kw + b];
      const T* src = in + a * wp + b;
      for (std::int64_t q = 0; q < len; ++q) wide[q] += wv * src[q];
    }
}

// Backward data at stride 1 as the "full" correlation: dx = corr(dy placed in a zero plane of
// (H + KH - 1) x (W + KW - 1) at offset (KH-1-pad_top, KW-1-pad_left), k rotated by 180
// degrees), run flat like the forward with row width W + KW - 1 and output length
// (H - 1)*(W + KW - 1) + W. The accumulator stays in place for every tap (scattering into
// shifted dx rows instead would store to overlapping addresses and stall).
struct Full {
  std::int64_t rows = 0, cols = 0, len = 0;
};
inline Full full_layout(const ConvGeometry& g) {
  Full f;
  f.rows = g.h + g.kh - 1;
  f.cols = g.w + g.kw - 1;
  f.len = (g.h - 1) * f.cols + g.w;
  return f;
}

// dy [OH,OW] placed for the full correlation into `out` [rows, cols] (zero elsewhere).
template <class T> void full_plane(const ConvGeometry& g, const Full& f, const T* dy, T* out) {
  std::fill(out, out + f.rows * f.cols, T(0));
  const std::int64_t dr = g.kh - 1 - g.p.pad_top, dc = g.kw - 1 - g.p.pad_left;
  const std::int64_t ow0 = std::max<std::int64_t>(0, -dc), ow1 = std::min<std::int64_t>(g.ow, f.cols - dc);
  for (std::int64_t oh = 0; oh < g.oh; ++oh) {
    const std::int64_t r = oh + dr;
    if (r < 0 || r >= f.rows || ow0 >= ow1) continue;
    std::copy(dy + oh * g.ow + ow0, dy + oh * g.ow + ow1, out + r * f.cols + ow0 + dc);
  }
}

// k [KH,KW] rotated by 180 degrees.
template <class T> void rotated_kernel(const ConvGeometry& g, const T* k, T* out) {
  const std::int64_t taps = g.kh * g.kw;
  for (std::int64_t j = 0; j < taps; ++j) out[j] = k[taps - 1 - j];
}

// columns[(a*KW + b)*len + q] += in_padded[q + a*Wp + b] * wide_dy[q]: the terms of the
// weight gradient of tap (a, b), kept per output element (in T, summed over the images) so
// that the loop vectorizes without a reduction; the caller adds each tap's columns up in
// double (sum_run). The gaps of wide dy are zero, so gap columns stay zero.
template <class T> void flat_correlate_grad_add(const ConvGeometry& g, const Flat& f, const T* in, const T* wide_dy,
                                                T* columns) {
  for (std::int64_t a = 0; a < g.kh; ++a)
    for (std::int64_t b = 0; b < g.kw; ++b) {
      const T* src = in + a * f.wp + b;
      T* col = columns + (a * g.kw + b) * f.len;
      for (std::int64_t q = 0; q < f.len; ++q) col[q] += src[q] * wide_dy[q];
    }
}

// --- rows (any stride) -----------------------------------------------------------------
// The output columns [begin, end) whose tap b reads a real input column:
// 0 <= ow * stride - pad + b < in.
struct Span {
  std::int64_t begin, end;
};
inline Span tap_span(std::int64_t b, std::int64_t pad, std::int64_t stride, std::int64_t in, std::int64_t out) {
  const std::int64_t lo = pad - b, hi = in - 1 + pad - b;  // lo <= ow * stride <= hi
  if (hi < 0) return {0, 0};
  const std::int64_t first = lo <= 0 ? 0 : (lo + stride - 1) / stride;
  const std::int64_t last = std::min(hi / stride + 1, out);
  return {first, std::max(first, last)};
}

// Calls f(oh, h, a, b, at, span) for every output row oh and kernel tap (a, b) whose input row
// h lies inside the image: output column ow in span reads input column ow * stride_w + at.
template <class F> void for_each_row_tap(const ConvGeometry& g, F&& f) {
  for (std::int64_t b0 = 0; b0 < g.kw; b0 += 16) {  // spans of up to 16 taps, computed once
    const std::int64_t b1 = std::min(g.kw, b0 + 16);
    Span spans[16];
    for (std::int64_t b = b0; b < b1; ++b) spans[b - b0] = tap_span(b, g.p.pad_left, g.p.stride_w, g.w, g.ow);
    for (std::int64_t oh = 0; oh < g.oh; ++oh)
      for (std::int64_t a = 0; a < g.kh; ++a) {
        const std::int64_t h = oh * g.p.stride_h - g.p.pad_top + a;
        if (h < 0 || h >= g.h) continue;
        for (std::int64_t b = b0; b < b1; ++b) f(oh, h, a, b, b - g.p.pad_left, spans[b - b0]);
      }
  }
}

// out [OH,OW] += corr(in [H,W], k [KH,KW]), padding skipped.
template <class T> void rows_correlate_add(const ConvGeometry& g, const T* in, const T* k, T* out) {
  const std::int64_t s = g.p.stride_w;
  for_each_row_tap(g, [&](std::int64_t oh, std::int64_t h, std::int64_t a, std::int64_t b, std::int64_t at, Span span) {
    const T wv = k[a * g.kw + b];
    const T* src = in + h * g.w;
    T* dst = out + oh * g.ow;
    for (std::int64_t ow = span.begin; ow < span.end; ++ow) dst[ow] += wv * src[ow * s + at];
  });
}

// dx [H,W] += the transpose of rows_correlate_add.
template <class T> void rows_correlate_transpose_add(const ConvGeometry& g, const T* dy, const T* k, T* dx) {
  const std::int64_t s = g.p.stride_w;
  for_each_row_tap(g, [&](std::int64_t oh, std::int64_t h, std::int64_t a, std::int64_t b, std::int64_t at, Span span) {
    const T wv = k[a * g.kw + b];
    T* dst = dx + h * g.w;
    const T* src = dy + oh * g.ow;
    for (std::int64_t ow = span.begin; ow < span.end; ++ow) dst[ow * s + at] += wv * src[ow];
  });
}

// acc[(a*KW + b)*OW + ow] += in[h, ow*s + at] * dy[oh, ow] summed over oh, per column so that
// the loop vectorizes; the caller adds the columns up in order once all images are in.
template <class T> void rows_correlate_grad_add(const ConvGeometry& g, const T* in, const T* dy, double* acc) {
  const std::int64_t s = g.p.stride_w;
  for_each_row_tap(g, [&](std::int64_t oh, std::int64_t h, std::int64_t a, std::int64_t b, std::int64_t at, Span span) {
    const T* src = in + h * g.w;
    const T* d = dy + oh * g.ow;
    double* row = acc + (a * g.kw + b) * g.ow;
    for (std::int64_t ow = span.begin; ow < span.end; ++ow) row[ow] += double(src[ow * s + at]) * double(d[ow]);
  });
}

}  // namespace ablate::kernels::cpu::conv_map
