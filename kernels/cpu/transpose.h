// A matrix transposed into another, dst[c][r] = src[r][c], for the tiled_gemm lowering's weight
// gradient (conv2d.cpp: dY^T per image, the gradient back from dW^T). Square blocks of L x L,
// L the lanes of a 64-byte vector (32-byte without AVX-512), go through registers: L rows
// loaded, log2(L) rounds of zips (row i with row i + L/2, lanes interleaved: after the rounds
// rows are columns), L rows stored; the edges past the last whole block element by element.
// A scalar loop ran LeNet's 20 x 576 output gradient at about a nanosecond an element.
#pragma once

#include <cstdint>
#include <cstring>
#include <utility>

namespace ablate::kernels::cpu {

namespace transpose_detail {

#ifdef __AVX512F__
constexpr int kBytes = 64;
#else
constexpr int kBytes = 32;
#endif
template <class T> constexpr int kLanes = kBytes / static_cast<int>(sizeof(T));
template <class T> struct VecOf { typedef T type __attribute__((vector_size(kBytes))); };
template <class T> using Vec = typename VecOf<T>::type;

// Lanes 0, L, 1, L+1, ... of (a, b) from lane `first` of each on: the low or high half zipped.
template <class T, std::size_t First, std::size_t... I> Vec<T> zip(Vec<T> a, Vec<T> b, std::index_sequence<I...>) {
  return __builtin_shufflevector(a, b, (I % 2 ? kLanes<T> + First + I / 2 : First + I / 2)...);
}

// One L x L block: dst[c * ldd + r] = src[r * lds + c] for r, c < L.
template <class T> void block(const T* src, std::int64_t lds, T* dst, std::int64_t ldd) {
  constexpr int L = kLanes<T>;
  constexpr auto lanes = std::make_index_sequence<L>();
  Vec<T> row[L], next[L];
  for (int r = 0; r < L; ++r) std::memcpy(&row[r], src + r * lds, sizeof(Vec<T>));
  for (int round = 1; round < L; round *= 2) {
    for (int i = 0; i < L / 2; ++i) {
      next[2 * i] = zip<T, 0>(row[i], row[i + L / 2], lanes);
      next[2 * i + 1] = zip<T, L / 2>(row[i], row[i + L / 2], lanes);
    }
    for (int r = 0; r < L; ++r) row[r] = next[r];
  }
  for (int c = 0; c < L; ++c) std::memcpy(dst + c * ldd, &row[c], sizeof(Vec<T>));
}

}  // namespace transpose_detail

// dst[c * ldd + r] = src[r * lds + c] for r < rows, c < cols.
template <class T>
void transpose_into(const T* src, std::int64_t rows, std::int64_t cols, std::int64_t lds, T* dst, std::int64_t ldd) {
  constexpr std::int64_t L = transpose_detail::kLanes<T>;
  const std::int64_t whole_rows = rows / L * L, whole_cols = cols / L * L;
  for (std::int64_t r = 0; r < whole_rows; r += L)
    for (std::int64_t c = 0; c < whole_cols; c += L) transpose_detail::block(src + r * lds + c, lds, dst + c * ldd + r, ldd);
  for (std::int64_t r = 0; r < rows; ++r) {  // the edges: columns past the blocks, then rows past them
    for (std::int64_t c = r < whole_rows ? whole_cols : 0; c < cols; ++c) dst[c * ldd + r] = src[r * lds + c];
  }
}

}  // namespace ablate::kernels::cpu
