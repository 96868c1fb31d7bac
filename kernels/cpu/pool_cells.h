// L consecutive output cells of one row whose pooling windows lie wholly inside the image, as
// vectors of L lanes (GCC vector extensions; L = 16, 8, 4, 2 from fixed_widths.h, 1 scalar).
// Cell l's window (its part inside the image) starts at plane index at + l * stride; tap t adds
// taps[t] (i * W + j, in row-major order). For each tap the L values are one load (stride 1),
// two loads and an even-lane shuffle (stride 2: cifar10_quick's and the TF CNN's 3x3 pools), or
// L scalar reads (other strides). Written as vectors because the plain loop over L cells, unrolled by
// the compiler, left its max selects as compare-and-branch per cell (ablate_micro
// pool/cifar_pool1 forward, 3x3 windows at stride 2: 14 ms on 2 threads). Never reads past the
// last window's last cell.
#pragma once

#include <cstdint>
#include <cstring>
#include <utility>
#include <vector>

namespace ablate::kernels::cpu::pool_cells {

template <class T, int L> struct LanesOf { typedef T type __attribute__((vector_size(L * sizeof(T)))); };
template <class T, int L> using Lanes = typename LanesOf<T, L>::type;

// in[0], in[2], ..., in[2L - 2] from a = in[0, L) and b = in[L - 1, 2L - 1): lane I is a's lane 2I
// in the first half, b's lane 2I + 1 - L (index 2I + 1 of a:b) in the second.
template <class V, int... I> V even_lanes(V a, V b, std::integer_sequence<int, I...>) {
  constexpr int half = static_cast<int>(sizeof...(I)) / 2;
  return __builtin_shufflevector(a, b, (I < half ? 2 * I : 2 * I + 1)...);
}

// in[l * stride] for l < L; S is the stride when known at compile time (1 or 2), else 0.
template <int L, int S, class T> Lanes<T, L> cells(const T* in, std::int32_t stride) {
  Lanes<T, L> v;
  if constexpr (S == 1) {
    std::memcpy(&v, in, sizeof v);
  } else if constexpr (S == 2) {
    Lanes<T, L> a, b;
    std::memcpy(&a, in, sizeof a);
    std::memcpy(&b, in + L - 1, sizeof b);
    v = even_lanes(a, b, std::make_integer_sequence<int, L>{});
  } else {
    for (int l = 0; l < L; ++l) v[l] = in[l * stride];
  }
  return v;
}

// Max over each window: strict > over the taps in order keeps the first largest (row-major),
// its plane index into idx (Caffe's mask).
template <int L, int S, class T>
void max_cells(const T* in, std::int32_t at, std::int32_t stride, const std::vector<std::int32_t>& taps, T* out,
               std::int32_t* idx) {
  if constexpr (L == 1) {
    T best = in[at];
    std::int32_t where = at;
    for (std::size_t t = 1; t < taps.size(); ++t)
      if (in[at + taps[t]] > best) {
        best = in[at + taps[t]];
        where = at + taps[t];
      }
    *out = best;
    *idx = where;
  } else {
    using Index = Lanes<std::int32_t, L>;
    Index first;
    for (int l = 0; l < L; ++l) first[l] = at + l * stride;
    Lanes<T, L> best = cells<L, S>(in + at, stride);
    Index where = first;
    for (std::size_t t = 1; t < taps.size(); ++t) {
      const Lanes<T, L> v = cells<L, S>(in + at + taps[t], stride);
      const auto larger = v > best;
      best = larger ? v : best;
      where = __builtin_convertvector(larger, Index) ? first + taps[t] : where;
    }
    std::memcpy(out, &best, sizeof best);
    std::memcpy(idx, &where, sizeof where);
  }
}

// Sum over each window over `divisor` (the caller's rule: Caffe's and Torch's count the padding).
template <int L, int S, class T>
void avg_cells(const T* in, std::int32_t at, std::int32_t stride, const std::vector<std::int32_t>& taps, T divisor,
               T* out) {
  if constexpr (L == 1) {
    T sum = 0;
    for (std::int32_t tap : taps) sum += in[at + tap];
    *out = sum / divisor;
  } else {
    Lanes<T, L> sum = {};
    for (std::int32_t tap : taps) sum += cells<L, S>(in + at + tap, stride);
    sum /= divisor;
    std::memcpy(out, &sum, sizeof sum);
  }
}

}  // namespace ablate::kernels::cpu::pool_cells
