// ShiftedRows: the taps of a convolution with output rows one input row apart (stride_h 1)
// read from KW shifted copies of the image instead of its im2col matrix:
//   xs [C][KW][OH+KH-1][OW], xs[c][j][r][ow] = x[c, r - pad_top, ow*stride_w - pad_left + j]
// (0 in the padding), the im2col of the same image with one tap row (KH = 1) and KH-1 more output
// rows. Tap (c, i, j)'s im2col row, its P = OH*OW pixels end to end, is then the run of xs[c][j]
// from row i on, because row oh + i of that copy follows row oh + i - 1 directly. KW copies of
// the image (13 KB for LeNet's conv1, held in L1) where im2col writes KH*KW (58 KB, read back
// from L2 by every register tile). The few-channel loops run their flat tiles over it
// (conv_few_channels.cpp).
#pragma once

#include <cstdint>
#include <vector>

#include "kernels/cpu/conv_geometry.h"
#include "kernels/cpu/im2col.h"

namespace ablate::kernels::cpu {

struct ShiftedRows {
  ConvGeometry rows;               // g with KH = 1 and OH + KH - 1 output rows
  std::vector<std::int64_t> taps;  // tap t's run starts at xs + taps[t]
  explicit ShiftedRows(const ConvGeometry& g) : rows(g) {
    rows.kh = 1;
    rows.oh = g.oh + g.kh - 1;
    for (std::int64_t c = 0; c < g.c; ++c)
      for (std::int64_t i = 0; i < g.kh; ++i)
        for (std::int64_t j = 0; j < g.kw; ++j) taps.push_back((c * g.kw + j) * rows.pixels() + i * g.ow);
  }
  std::int64_t size() const { return rows.col_rows() * rows.pixels(); }
  template <class T> void copy(const T* x, T* xs) const { im2col(rows, x, xs, rows.pixels()); }
};

// Whether the taps of one image can be read from ShiftedRows: stride_h 1 and the P pixels whole
// vectors (no lanes past P to keep at zero).
inline bool shifted_rows_fit(const ConvGeometry& g, std::int64_t lanes) {
  return g.p.stride_h == 1 && g.pixels() % lanes == 0;
}

}  // namespace ablate::kernels::cpu
