// Register-tiled GEMM (see tiled_gemm.h). Element (i, j) of op(A) is a[i * row + j * col]:
// row = lda, col = 1 for A, and row = 1, col = lda for A^T, so one tile serves both.
#include "kernels/cpu/tiled_gemm.h"

#include <algorithm>
#include <cstdint>
#include <cstring>

#include "kernels/cpu/held_in_register.h"

namespace ablate::kernels::cpu {
namespace {

constexpr int kBytes = tiled_gemm_lanes<char>();  // 64 or 32
template <class T> struct VecOf { typedef T type __attribute__((vector_size(kBytes))); };
template <class T> using Vec = typename VecOf<T>::type;
template <class T> constexpr int kLanes = tiled_gemm_lanes<T>();

// Tile shape: kAccumulators vectors of C in registers, V wide (4, 2 or 1 along a row of C) by
// R = kAccumulators / V rows, beside the loaded row of B and a broadcast: 20 + 4 + 1 of
// the 32 vector registers with AVX-512, 8 + 4 + 1 of 16 otherwise. Narrow products (few columns)
// take the taller tiles, so that enough independent FMAs are in flight.
constexpr int kAccumulators = kBytes == 64 ? 20 : 8;
constexpr int kWidest = 4;
// Rows of B per block: 128 rows of a 4-vector column of tiles are 32 KiB of f32 (64 KiB of f64).
constexpr int kDepth = 128;

template <class T> inline Vec<T> load(const T* p) {
  Vec<T> v;
  std::memcpy(&v, p, sizeof v);
  return v;
}
template <class T> inline void store(T* p, Vec<T> v) { std::memcpy(p, &v, sizeof v); }

struct OperandA {
  std::int64_t row, col;  // element (i, j) at i * row + j * col
};

// C tile [R, V vectors] at c: = alpha * op(A)[R, depth] x B[depth, V vectors] + beta * C.
template <class T, int R, int V>
void tile(int depth, T alpha, const T* a, OperandA sa, const T* b, int ldb, T beta, T* c, int ldc) {
  Vec<T> acc[R][V];
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < V; ++v) acc[r][v] = Vec<T>{};
  for (int p = 0; p < depth; ++p) {
    Vec<T> row[V];
    for (int v = 0; v < V; ++v) row[v] = held_in_register(load(b + std::int64_t{p} * ldb + v * kLanes<T>));
    for (int r = 0; r < R; ++r) {
      const Vec<T> ar = a[r * sa.row + p * sa.col] - Vec<T>{};  // a broadcast straight from memory
      for (int v = 0; v < V; ++v) acc[r][v] += ar * row[v];
    }
  }
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < V; ++v) {
      T* out = c + std::int64_t{r} * ldc + v * kLanes<T>;
      store(out, beta == T(0) ? alpha * acc[r][v] : alpha * acc[r][v] + beta * load(out));
    }
}

// The last `rows` (< R) rows of a column of tiles, as one tile of that height.
template <class T, int R, int V>
void last_rows(int rows, int depth, T alpha, const T* a, OperandA sa, const T* b, int ldb, T beta, T* c, int ldc) {
  if constexpr (R > 1) {
    if (rows == R) tile<T, R, V>(depth, alpha, a, sa, b, ldb, beta, c, ldc);
    else last_rows<T, R - 1, V>(rows, depth, alpha, a, sa, b, ldb, beta, c, ldc);
  } else {
    tile<T, 1, V>(depth, alpha, a, sa, b, ldb, beta, c, ldc);
  }
}

// The tiles of the V vectors of columns at b and c, for every row.
template <class T, int V>
void tile_column(int m, int depth, T alpha, const T* a, OperandA sa, const T* b, int ldb, T beta, T* c, int ldc) {
  constexpr int R = kAccumulators / V;
  int i = 0;
  for (; i + R <= m; i += R) tile<T, R, V>(depth, alpha, a + i * sa.row, sa, b, ldb, beta, c + std::int64_t{i} * ldc, ldc);
  if (i < m)
    last_rows<T, R - 1, V>(m - i, depth, alpha, a + i * sa.row, sa, b, ldb, beta, c + std::int64_t{i} * ldc, ldc);
}

// One block of rows of B, [depth, n].
template <class T>
void block(int m, int n, int depth, T alpha, const T* a, OperandA sa, const T* b, int ldb, T beta, T* c, int ldc) {
  constexpr int lanes = kLanes<T>;
  int j = 0;
  for (; j + kWidest * lanes <= n; j += kWidest * lanes)
    tile_column<T, kWidest>(m, depth, alpha, a, sa, b + j, ldb, beta, c + j, ldc);
  if (j + 2 * lanes <= n) {
    tile_column<T, 2>(m, depth, alpha, a, sa, b + j, ldb, beta, c + j, ldc);
    j += 2 * lanes;
  }
  if (j + lanes <= n) {
    tile_column<T, 1>(m, depth, alpha, a, sa, b + j, ldb, beta, c + j, ldc);
    j += lanes;
  }
  for (; j < n; ++j)  // columns past the last whole vector
    for (int i = 0; i < m; ++i) {
      T s = 0;
      for (int p = 0; p < depth; ++p) s += a[i * sa.row + p * sa.col] * b[std::int64_t{p} * ldb + j];
      T& out = c[std::int64_t{i} * ldc + j];
      out = beta == T(0) ? alpha * s : alpha * s + beta * out;
    }
}

}  // namespace

template <class T>
void tiled_gemm(bool trans_a, int m, int n, int k, T alpha, const T* a, int lda, const T* b, int ldb, T beta, T* c,
                int ldc) {
  if (m <= 0 || n <= 0) return;
  if (k <= 0) {  // C = beta * C
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < n; ++j) c[std::int64_t{i} * ldc + j] = beta == T(0) ? T(0) : beta * c[std::int64_t{i} * ldc + j];
    return;
  }
  const OperandA sa = trans_a ? OperandA{1, lda} : OperandA{lda, 1};
  // Each block after the first adds to what the ones before it stored.
  for (int p0 = 0; p0 < k; p0 += kDepth)
    block(m, n, std::min(kDepth, k - p0), alpha, a + p0 * sa.col, sa, b + std::int64_t{p0} * ldb, ldb, p0 == 0 ? beta : T(1),
          c, ldc);
}

template void tiled_gemm<float>(bool, int, int, int, float, const float*, int, const float*, int, float, float*, int);
template void tiled_gemm<double>(bool, int, int, int, double, const double*, int, const double*, int, double, double*,
                                 int);

}  // namespace ablate::kernels::cpu
