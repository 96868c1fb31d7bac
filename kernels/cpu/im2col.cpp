// im2col / col2im loops (see im2col.h). Each row of the column matrix is one (c, i, j) tap;
// along it, output row oh reads input row oh*stride_h - pad_top + i, and within that row the
// outputs ow whose tap lands inside the image form one contiguous range [lo, hi) (a strided
// run of the input row). The ranges depend only on i (rows) and j (columns), so they are
// computed once per call; rows and columns outside them are the zero padding.
#include "kernels/cpu/im2col.h"

#include <algorithm>
#include <cstring>
#include <vector>

namespace ablate::kernels::cpu {
namespace {

std::int64_t ceil_div(std::int64_t a, std::int64_t b) { return a >= 0 ? (a + b - 1) / b : -((-a) / b); }
std::int64_t floor_div(std::int64_t a, std::int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); }

// Outputs o in [lo, hi) whose tap t lands inside the input: 0 <= o*stride - pad + t < in.
struct Run {
  std::int64_t lo, hi;
};
Run inside_run(std::int64_t out, std::int64_t in, std::int64_t stride, std::int64_t pad, std::int64_t tap) {
  std::int64_t lo = std::min(out, std::max<std::int64_t>(0, ceil_div(pad - tap, stride)));
  std::int64_t hi = std::min<std::int64_t>(out, floor_div(in - 1 + pad - tap, stride) + 1);
  return {lo, std::max(lo, hi)};
}

struct Runs {
  std::vector<Run> rows, cols;  // per kernel row i, per kernel column j
};
Runs runs_of(const ConvGeometry& g) {
  Runs r;
  for (std::int64_t i = 0; i < g.kh; ++i) r.rows.push_back(inside_run(g.oh, g.h, g.p.stride_h, g.p.pad_top, i));
  for (std::int64_t j = 0; j < g.kw; ++j) r.cols.push_back(inside_run(g.ow, g.w, g.p.stride_w, g.p.pad_left, j));
  return r;
}

// dst[q] = src[q * stride] (or dst[q * stride] += src[q]) for q < n. The runs are short (OW
// values): blocks of 8 become single vector operations inline, where a plain loop would
// become a memcpy call or a vector loop too wide for the run.
template <class T> inline void gather_run(T* __restrict dst, const T* __restrict src, std::int64_t n, std::int64_t stride) {
  if (stride == 1) {
    std::int64_t q = 0;
    for (; q + 8 <= n; q += 8)
      for (int l = 0; l < 8; ++l) dst[q + l] = src[q + l];
    for (; q < n; ++q) dst[q] = src[q];
  } else {
    for (std::int64_t q = 0; q < n; ++q) dst[q] = src[q * stride];
  }
}
template <class T> inline void scatter_add_run(T* __restrict dst, const T* __restrict src, std::int64_t n, std::int64_t stride) {
  if (stride == 1) {
    std::int64_t q = 0;
    for (; q + 8 <= n; q += 8)
      for (int l = 0; l < 8; ++l) dst[q + l] += src[q + l];
    for (; q < n; ++q) dst[q] += src[q];
  } else {
    for (std::int64_t q = 0; q < n; ++q) dst[q * stride] += src[q];
  }
}

}  // namespace

template <class T> void im2col(const ConvGeometry& g, const T* x, T* col, std::int64_t ld) {
  const std::int64_t sh = g.p.stride_h, sw = g.p.stride_w, pt = g.p.pad_top, pl = g.p.pad_left;
  const Runs runs = runs_of(g);
  for (std::int64_t c = 0; c < g.c; ++c) {
    const T* plane = x + c * g.h * g.w;
    for (std::int64_t i = 0; i < g.kh; ++i) {
      const Run rows = runs.rows[static_cast<std::size_t>(i)];
      for (std::int64_t j = 0; j < g.kw; ++j) {
        const Run cols = runs.cols[static_cast<std::size_t>(j)];
        T* row = col + ((c * g.kh + i) * g.kw + j) * ld;
        std::fill(row, row + rows.lo * g.ow, T(0));
        std::fill(row + rows.hi * g.ow, row + g.oh * g.ow, T(0));
        const std::int64_t count = cols.hi - cols.lo;
        // Output row oh reads input row oh*sh - pt + i from column cols.lo*sw - pl + j on.
        const T* src = plane + (rows.lo * sh - pt + i) * g.w + cols.lo * sw - pl + j;
        T* dst = row + rows.lo * g.ow;
        if (cols.lo == 0 && cols.hi == g.ow) {
          for (std::int64_t oh = rows.lo; oh < rows.hi; ++oh, src += sh * g.w, dst += g.ow) gather_run(dst, src, count, sw);
        } else {
          for (std::int64_t oh = rows.lo; oh < rows.hi; ++oh, src += sh * g.w, dst += g.ow) {
            std::fill(dst, dst + cols.lo, T(0));
            gather_run(dst + cols.lo, src, count, sw);
            std::fill(dst + cols.hi, dst + g.ow, T(0));
          }
        }
      }
    }
  }
}

// A row of im2row is, per (c, i), the KW taps of one input row: a contiguous run whatever the
// stride (the stride moves the run from pixel to pixel), clipped where it leaves the image.
// A pixel whose window lies inside the image copies each run of up to 8 taps as one block of 8
// (one vector move): the extra elements land where the next run or the zeroed tail is written
// after them, and the block is read only where it stays inside x.
template <class T> void im2row(const ConvGeometry& g, const T* x, T* row, std::int64_t ld) {
  const std::int64_t sh = g.p.stride_h, sw = g.p.stride_w, pt = g.p.pad_top, pl = g.p.pad_left;
  const std::int64_t taps = g.col_rows(), kw = g.kw, kh = g.kh, plane = g.h * g.w;
  for (std::int64_t oh = 0; oh < g.oh; ++oh)
    for (std::int64_t ow = 0; ow < g.ow; ++ow, row += ld) {
      const std::int64_t top = oh * sh - pt, left = ow * sw - pl;  // input row of i = 0, column of j = 0
      const std::int64_t last = (g.c - 1) * plane + (top + kh - 1) * g.w + left;  // the last run's start
      T* dst = row;
      if (kw <= 8 && top >= 0 && top + kh <= g.h && left >= 0 && left + kw <= g.w && last + 8 <= g.in_size() &&
          taps - kw + 8 <= ld) {
        for (std::int64_t c = 0; c < g.c; ++c) {
          const T* src = x + c * plane + top * g.w + left;
          for (std::int64_t i = 0; i < kh; ++i, src += g.w, dst += kw) std::memcpy(dst, src, 8 * sizeof(T));
        }
      } else {
        const std::int64_t j_lo = std::clamp<std::int64_t>(-left, 0, kw), j_hi = std::clamp<std::int64_t>(g.w - left, j_lo, kw);
        for (std::int64_t c = 0; c < g.c; ++c)
          for (std::int64_t i = 0; i < kh; ++i, dst += kw) {
            const std::int64_t ih = top + i;
            std::fill(dst, dst + kw, T(0));
            if (ih < 0 || ih >= g.h) continue;
            const T* src = x + c * plane + ih * g.w;
            std::copy(src + (left + j_lo), src + (left + j_hi), dst + j_lo);
          }
      }
      std::fill(row + taps, row + ld, T(0));
    }
}

template <class T> void col2im(const ConvGeometry& g, const T* col, std::int64_t ld, T* dx) {
  const std::int64_t sh = g.p.stride_h, sw = g.p.stride_w, pt = g.p.pad_top, pl = g.p.pad_left;
  const Runs runs = runs_of(g);
  std::fill(dx, dx + g.in_size(), T(0));
  for (std::int64_t c = 0; c < g.c; ++c) {
    T* plane = dx + c * g.h * g.w;
    for (std::int64_t i = 0; i < g.kh; ++i) {
      const Run rows = runs.rows[static_cast<std::size_t>(i)];
      for (std::int64_t j = 0; j < g.kw; ++j) {
        const Run cols = runs.cols[static_cast<std::size_t>(j)];
        const std::int64_t count = cols.hi - cols.lo;
        const T* src = col + ((c * g.kh + i) * g.kw + j) * ld + rows.lo * g.ow + cols.lo;
        T* dst = plane + (rows.lo * sh - pt + i) * g.w + cols.lo * sw - pl + j;
        for (std::int64_t oh = rows.lo; oh < rows.hi; ++oh, src += g.ow, dst += sh * g.w) scatter_add_run(dst, src, count, sw);
      }
    }
  }
}

template void im2col<float>(const ConvGeometry&, const float*, float*, std::int64_t);
template void im2col<double>(const ConvGeometry&, const double*, double*, std::int64_t);
template void im2row<float>(const ConvGeometry&, const float*, float*, std::int64_t);
template void im2row<double>(const ConvGeometry&, const double*, double*, std::int64_t);
template void col2im<float>(const ConvGeometry&, const float*, std::int64_t, float*);
template void col2im<double>(const ConvGeometry&, const double*, std::int64_t, double*);

}  // namespace ablate::kernels::cpu
