// 2x2 max pooling at stride 2 (LeNet's pools) on f32 rows of at most 16 output cells, one
// AVX-512 vector per output row: the row's 2*OW input cells in two masked loads, split into even
// and odd columns by one two-source permute each, so that output lane l compares
//   r0[2l], r0[2l+1], r1[2l], r1[2l+1]   (r0 = input row 2*oh, r1 = the row below)
// in that order with a strict > (the first largest wins; a NaN never replaces, as in
// max_2x2_cells, pool2d.cpp). The backward writes each input cell once, dy where the workspace
// index names it and 0 elsewhere, interleaving even and odd columns back with the inverse
// permutes. The chunked loops of pool2d.cpp ran LeNet's rows of 12 as a chunk of 8 and a chunk of
// 4, each over the plane group again, at about 4 cycles an output cell; here a row is one pass:
// 32 images of LeNet's pool1 on one thread, warm in L2, forward 115-135 -> 79-80 us, backward
// 128-134 -> 114-117 (its writes bound it). pool2d.cpp takes these for rows of 9 to 16 cells
// (whole_rows); nothing here without AVX-512 (the chunked loops run there, and for f64).
#pragma once

#if defined(__AVX512F__)
#include <immintrin.h>

#include <cstdint>

namespace ablate::kernels::cpu::max_pool_2x2_rows {

constexpr std::int64_t kMaxCells = 16;

// The masks of a row of `cells` output cells (1..16): its outputs, and its 2*cells inputs over
// two vectors.
struct RowMasks {
  __mmask16 out, in_lo, in_hi;
  explicit RowMasks(std::int64_t cells) {
    auto first = [](std::int64_t n) {
      return static_cast<__mmask16>(n >= 16 ? 0xFFFF : (n <= 0 ? 0 : (1u << n) - 1u));
    };
    out = first(cells);
    in_lo = first(2 * cells);
    in_hi = first(2 * cells - 16);
  }
};

// Lane l: 2l and 2l+1 of the 32 lanes of (lo, hi); and back.
inline __m512i even_lanes() { return _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30); }
inline __m512i odd_lanes() { return _mm512_setr_epi32(1, 3, 5, 7, 9, 11, 13, 15, 17, 19, 21, 23, 25, 27, 29, 31); }
inline __m512i interleave_lo() { return _mm512_setr_epi32(0, 16, 1, 17, 2, 18, 3, 19, 4, 20, 5, 21, 6, 22, 7, 23); }
inline __m512i interleave_hi() { return _mm512_setr_epi32(8, 24, 9, 25, 10, 26, 11, 27, 12, 28, 13, 29, 14, 30, 15, 31); }
// 2l in lane l.
inline __m512i twice_lanes() { return _mm512_setr_epi32(0, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20, 22, 24, 26, 28, 30); }

// y[l], idx[l] for the row's cells; at0 = r0's index in its plane, below = the row stride W.
inline void forward(const float* r0, const float* r1, float* y, std::int32_t* idx, std::int32_t at0,
                    std::int32_t below, const RowMasks& m) {
  const __m512 a0 = _mm512_maskz_loadu_ps(m.in_lo, r0), b0 = _mm512_maskz_loadu_ps(m.in_hi, r0 + 16);
  const __m512 a1 = _mm512_maskz_loadu_ps(m.in_lo, r1), b1 = _mm512_maskz_loadu_ps(m.in_hi, r1 + 16);
  const __m512 right = _mm512_permutex2var_ps(a0, odd_lanes(), b0);
  const __m512 down = _mm512_permutex2var_ps(a1, even_lanes(), b1);
  const __m512 diagonal = _mm512_permutex2var_ps(a1, odd_lanes(), b1);
  const __m512i at = _mm512_add_epi32(_mm512_set1_epi32(at0), twice_lanes());
  __m512 best = _mm512_permutex2var_ps(a0, even_lanes(), b0);
  __m512i where = at;
  __mmask16 k = _mm512_cmp_ps_mask(right, best, _CMP_GT_OQ);
  best = _mm512_mask_blend_ps(k, best, right);
  where = _mm512_mask_add_epi32(where, k, at, _mm512_set1_epi32(1));
  k = _mm512_cmp_ps_mask(down, best, _CMP_GT_OQ);
  best = _mm512_mask_blend_ps(k, best, down);
  where = _mm512_mask_add_epi32(where, k, at, _mm512_set1_epi32(below));
  k = _mm512_cmp_ps_mask(diagonal, best, _CMP_GT_OQ);
  best = _mm512_mask_blend_ps(k, best, diagonal);
  where = _mm512_mask_add_epi32(where, k, at, _mm512_set1_epi32(below + 1));
  _mm512_mask_storeu_ps(y, m.out, best);
  _mm512_mask_storeu_epi32(idx, m.out, where);
}

// Rows r0 and r1 of dx from the row's dy and workspace indices (0 + dy, as the scatter adds it:
// a -0 dy gives +0).
inline void backward(const float* dy, const std::int32_t* idx, float* r0, float* r1, std::int32_t at0,
                     std::int32_t below, const RowMasks& m) {
  const __m512 d = _mm512_add_ps(_mm512_setzero_ps(), _mm512_maskz_loadu_ps(m.out, dy));
  const __m512i i = _mm512_maskz_loadu_epi32(m.out, idx);
  const __m512i at = _mm512_add_epi32(_mm512_set1_epi32(at0), twice_lanes());
  auto picked = [&](__m512i cell) { return _mm512_maskz_mov_ps(_mm512_cmpeq_epi32_mask(i, cell), d); };
  const __m512 e0 = picked(at), o0 = picked(_mm512_add_epi32(at, _mm512_set1_epi32(1)));
  const __m512 e1 = picked(_mm512_add_epi32(at, _mm512_set1_epi32(below)));
  const __m512 o1 = picked(_mm512_add_epi32(at, _mm512_set1_epi32(below + 1)));
  _mm512_mask_storeu_ps(r0, m.in_lo, _mm512_permutex2var_ps(e0, interleave_lo(), o0));
  _mm512_mask_storeu_ps(r0 + 16, m.in_hi, _mm512_permutex2var_ps(e0, interleave_hi(), o0));
  _mm512_mask_storeu_ps(r1, m.in_lo, _mm512_permutex2var_ps(e1, interleave_lo(), o1));
  _mm512_mask_storeu_ps(r1 + 16, m.in_hi, _mm512_permutex2var_ps(e1, interleave_hi(), o1));
}

}  // namespace ablate::kernels::cpu::max_pool_2x2_rows
#endif
