// Register-tiled GEMM (see tiled_gemm.h). One tile loop over operands of several kinds: op(A)
// dense (A or A^T) or an image's im2col matrix read in place; B dense or an image's columns
// read in place; C dense or an image's columns added in place.
#include "kernels/cpu/tiled_gemm.h"

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>

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

// op(A) as it lies in memory: element (i, p) at a[i * lda + p], or at a[i + p * lda] for A^T
// (Transposed: a compile-time stride of 1 along the depth or the rows keeps the tile's five
// broadcast addresses to one register each).
template <class T, bool Transposed> struct DenseA {
  const T* a;
  std::int64_t lda;
  T at(int i, int p) const { return Transposed ? a[i + p * lda] : a[i * lda + p]; }
  DenseA rows(int i) const { return {Transposed ? a + i : a + i * lda, lda}; }
  DenseA depth(int p0) const { return {Transposed ? a + p0 * lda : a + p0, lda}; }
};

// A as an image's im2col matrix read in place (the weight gradient): element (r, q) at
// x[taps[r] + pixels[q]], the offsets of tap r and of output pixel q's window in the image.
template <class T> struct ImageA {
  const T* x;
  const std::int64_t *taps, *pixels;
  T at(int i, int q) const { return x[taps[i] + pixels[q]]; }
  ImageA rows(int i) const { return {x, taps + i, pixels}; }
  ImageA depth(int q0) const { return {x, taps, pixels + q0}; }
};

// B as it lies in memory: row p at b + p * ldb.
template <class T> struct DenseB {
  const T* b;
  std::int64_t ldb;
  Vec<T> vector(int p, int v) const { return load(b + p * ldb + v * kLanes<T>); }
  T at(int p, int j) const { return b[p * ldb + j]; }
  DenseB column(int j) const { return {b + j, ldb}; }
  DenseB depth(int p0) const { return {b + p0 * ldb, ldb}; }
};

// C as it lies in memory: C = alpha * product + beta * C (beta = 0: C not read).
template <class T> struct DenseC {
  T* c;
  std::int64_t ldc;
  void update(int r, int v, Vec<T> product, T beta) const {
    T* out = c + r * ldc + v * kLanes<T>;
    store(out, beta == T(0) ? product : product + beta * load(out));
  }
  T& at(int i, int j) const { return c[i * ldc + j]; }
  DenseC column(int j) const { return {c + j, ldc}; }
  DenseC rows(int i) const { return {c + i * ldc, ldc}; }
};

// One image's im2col matrix [taps, OH*OW] never written (stride 1, no padding; tiled_gemm.h):
// row r (tap c, i, j) starts at image + taps[r], and pixel q = (oh, ow) lies oh * in_w + ow past
// it. A vector holds kLanes consecutive pixels (Vectors: how they lie): inside one output row
// (out_w a multiple of kLanes: one load), or as two halves each inside a row (out_w a multiple
// of kLanes / 2: two loads joined), in_w apart where a vector is two whole rows (LeNet's conv2,
// out_w 8), otherwise where the second half's first pixel lies (LeNet's conv1, out_w 24).
enum class Vectors { in_row, two_rows, halves };
template <class T, Vectors Mode> struct ImageColumns {
  const std::int64_t* taps;
  std::int64_t out_w, in_w;
  std::int64_t pixel[kWidest] = {};  // offset of the v-th vector's first pixel in a column block
  std::int64_t high[kWidest] = {};   // halves: offset of its second half's first pixel

  std::int64_t offset(std::int64_t q) const { return q / out_w * in_w + q % out_w; }
  ImageColumns column(int j) const {
    ImageColumns c = *this;
    for (int v = 0; v < kWidest; ++v) {
      c.pixel[v] = offset(j + v * kLanes<T>);
      c.high[v] = offset(j + v * kLanes<T> + kLanes<T> / 2);
    }
    return c;
  }
  ImageColumns rows(int r0) const {
    ImageColumns c = *this;
    c.taps += r0;
    return c;
  }
  // The v-th vector of row r of the image at x (the row's start first: one address a row,
  // shared by its vectors).
  template <class P> P* vector_at(P* x, int r, int v) const { return x + taps[r] + pixel[v]; }
  // How far its second half lies past its first.
  std::int64_t second_half(int v) const {
    if constexpr (Mode == Vectors::two_rows) return in_w;
    else return high[v] - pixel[v];
  }

  typedef T Half __attribute__((vector_size(kBytes / 2)));
  Vec<T> gather(const T* at, int v) const {
    if constexpr (Mode == Vectors::in_row) return load(at);
    else return joined(at, at + second_half(v), std::make_index_sequence<kLanes<T>>());
  }
  void add(T* at, int v, Vec<T> sum) const {
    if constexpr (Mode == Vectors::in_row) {
      store(at, load(at) + sum);
    } else {
      constexpr int h = kLanes<T> / 2;
      T* second = at + second_half(v);
      const Half lo = half(sum, std::make_index_sequence<h>()), hi = half(sum, offset_by<h>(std::make_index_sequence<h>()));
      Half low, high;
      std::memcpy(&low, at, sizeof low);
      std::memcpy(&high, second, sizeof high);
      low += lo, high += hi;
      std::memcpy(at, &low, sizeof low);
      std::memcpy(second, &high, sizeof high);
    }
  }

 private:
  template <std::size_t... I> static Vec<T> joined(const T* low, const T* high, std::index_sequence<I...>) {
    Half lo, hi;
    std::memcpy(&lo, low, sizeof lo);
    std::memcpy(&hi, high, sizeof hi);
    return __builtin_shufflevector(lo, hi, I...);
  }
  template <std::size_t... I> static Half half(Vec<T> v, std::index_sequence<I...>) { return __builtin_shufflevector(v, v, I...); }
  template <std::size_t N, std::size_t... I> static std::index_sequence<(I + N)...> offset_by(std::index_sequence<I...>) { return {}; }
};

// B as an image's columns read in place (the forward).
template <class T, Vectors Mode> struct ColumnsB {
  const T* x;
  ImageColumns<T, Mode> columns;
  Vec<T> vector(int p, int v) const { return columns.gather(columns.vector_at(x, p, v), v); }
  T at(int p, int q) const { return x[columns.taps[p] + columns.offset(q)]; }
  ColumnsB column(int j) const { return {x, columns.column(j)}; }
  ColumnsB depth(int p0) const { return {x, columns.rows(p0)}; }
};

// C as an image's columns added in place (the data gradient: col2im folded into the store).
template <class T, Vectors Mode> struct ColumnsC {
  T* dx;
  ImageColumns<T, Mode> columns;
  void update(int r, int v, Vec<T> product, T) const { columns.add(columns.vector_at(dx, r, v), v, product); }
  T& at(int i, int q) const { return dx[columns.taps[i] + columns.offset(q)]; }
  ColumnsC column(int j) const { return {dx, columns.column(j)}; }
  ColumnsC rows(int i) const { return {dx, columns.rows(i)}; }
};

// C tile [R, V vectors] at c: = alpha * op(A)[R, depth] x B[depth, V vectors] + beta * C.
template <class T, int R, int V, class A, class B, class C>
void tile(int depth, T alpha, const A& a, const B& b, T beta, const C& c) {
  Vec<T> acc[R][V];
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < V; ++v) acc[r][v] = Vec<T>{};
  for (int p = 0; p < depth; ++p) {
    Vec<T> row[V];
    for (int v = 0; v < V; ++v) row[v] = held_in_register(b.vector(p, v));
    for (int r = 0; r < R; ++r) {
      const Vec<T> ar = a.at(r, p) - Vec<T>{};  // a broadcast straight from memory
      for (int v = 0; v < V; ++v) acc[r][v] += ar * row[v];
    }
  }
  for (int r = 0; r < R; ++r)
    for (int v = 0; v < V; ++v) c.update(r, v, alpha * acc[r][v], beta);
}

// The last `rows` (< R) rows of a column of tiles, as one tile of that height.
template <class T, int R, int V, class A, class B, class C>
void last_rows(int rows, int depth, T alpha, const A& a, const B& b, T beta, const C& c) {
  if constexpr (R > 1) {
    if (rows == R) tile<T, R, V>(depth, alpha, a, b, beta, c);
    else last_rows<T, R - 1, V>(rows, depth, alpha, a, b, beta, c);
  } else {
    tile<T, 1, V>(depth, alpha, a, b, beta, c);
  }
}

// The tiles of the V vectors of columns of b and c, for every row.
template <class T, int V, class A, class B, class C>
void tile_column(int m, int depth, T alpha, const A& a, const B& b, T beta, const C& c) {
  constexpr int R = kAccumulators / V;
  int i = 0;
  for (; i + R <= m; i += R) tile<T, R, V>(depth, alpha, a.rows(i), b, beta, c.rows(i));
  if (i < m) last_rows<T, R - 1, V>(m - i, depth, alpha, a.rows(i), b, beta, c.rows(i));
}

// One block of rows of B, [depth, n].
template <class T, class A, class B, class C>
void block(int m, int n, int depth, T alpha, const A& a, const B& b, T beta, const C& c) {
  constexpr int lanes = kLanes<T>;
  int j = 0;
  for (; j + kWidest * lanes <= n; j += kWidest * lanes)
    tile_column<T, kWidest>(m, depth, alpha, a, b.column(j), beta, c.column(j));
  if (j + 2 * lanes <= n) {
    tile_column<T, 2>(m, depth, alpha, a, b.column(j), beta, c.column(j));
    j += 2 * lanes;
  }
  if (j + lanes <= n) {
    tile_column<T, 1>(m, depth, alpha, a, b.column(j), beta, c.column(j));
    j += lanes;
  }
  for (; j < n; ++j)  // columns past the last whole vector
    for (int i = 0; i < m; ++i) {
      T s = 0;
      for (int p = 0; p < depth; ++p) s += a.at(i, p) * b.at(p, j);
      T& out = c.at(i, j);
      out = beta == T(0) ? alpha * s : alpha * s + beta * out;
    }
}

// The blocks of kDepth rows of B; each block after the first adds to what the ones before it
// stored. Kept out of line: inlined into its caller, GCC ran out of general registers in the
// implicit columns' tile (the broadcast and half-row addresses moved through vector registers:
// 22 -> 38 us for one image of LeNet's conv2).
template <class T, class A, class B, class C>
__attribute__((noinline)) void blocks(int m, int n, int k, T alpha, const A& a, const B& b, T beta, const C& c) {
  for (int p0 = 0; p0 < k; p0 += kDepth)
    block(m, n, std::min(kDepth, k - p0), alpha, a.depth(p0), b.depth(p0), p0 == 0 ? beta : T(1), c);
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
  if (trans_a) blocks(m, n, k, alpha, DenseA<T, true>{a, lda}, DenseB<T>{b, ldb}, beta, DenseC<T>{c, ldc});
  else blocks(m, n, k, alpha, DenseA<T, false>{a, lda}, DenseB<T>{b, ldb}, beta, DenseC<T>{c, ldc});
}

template <class T> bool implicit_columns_fit(std::int64_t out_h, std::int64_t out_w) {
  constexpr int lanes = kLanes<T>;
  return out_w % (lanes / 2) == 0 && out_h * out_w % lanes == 0;
}

namespace {
// f(n, Mode) for a product of m x k over the n = OH x OW pixels of an image, Mode the way its
// vectors lie; throws naming `what` where they do not (implicit_columns_fit) or it is empty.
template <class T, class F>
void with_vectors(const char* what, int m, int k, std::int64_t out_h, std::int64_t out_w, F&& f) {
  const int n = static_cast<int>(out_h * out_w);
  if (m <= 0 || n <= 0 || k <= 0 || !implicit_columns_fit<T>(out_h, out_w))
    throw std::logic_error(std::string(what) + ": no vectors of whole pixels in rows of " + std::to_string(out_w));
  if (out_w % kLanes<T> == 0) f(n, std::integral_constant<Vectors, Vectors::in_row>());
  else if (2 * out_w == kLanes<T>) f(n, std::integral_constant<Vectors, Vectors::two_rows>());
  else f(n, std::integral_constant<Vectors, Vectors::halves>());
}
}  // namespace

template <class T>
void tiled_gemm_columns(int m, int k, const T* a, int lda, const T* x, const std::int64_t* taps, std::int64_t out_h,
                        std::int64_t out_w, std::int64_t in_w, T* c) {
  with_vectors<T>("tiled_gemm_columns", m, k, out_h, out_w, [&](int n, auto mode) {
    blocks(m, n, k, T(1), DenseA<T, false>{a, lda}, ColumnsB<T, decltype(mode)::value>{x, {taps, out_w, in_w}}, T(0),
           DenseC<T>{c, n});
  });
}

template <class T>
void tiled_gemm_add_columns(int m, int k, const T* a, int lda, const T* b, const std::int64_t* taps, std::int64_t out_h,
                            std::int64_t out_w, std::int64_t in_w, T* dx) {
  with_vectors<T>("tiled_gemm_add_columns", m, k, out_h, out_w, [&](int n, auto mode) {  // A^T x B
    blocks(m, n, k, T(1), DenseA<T, true>{a, lda}, DenseB<T>{b, n}, T(1),
           ColumnsC<T, decltype(mode)::value>{dx, {taps, out_w, in_w}});
  });
}

template <class T>
void tiled_gemm_image_a(int m, int n, int k, const T* x, const std::int64_t* taps, const std::int64_t* pixels, const T* b,
                        int ldb, T beta, T* c, int ldc) {
  if (m <= 0 || n <= 0 || k <= 0) throw std::logic_error("tiled_gemm_image_a: an empty product");
  blocks(m, n, k, T(1), ImageA<T>{x, taps, pixels}, DenseB<T>{b, ldb}, beta, DenseC<T>{c, ldc});
}

template void tiled_gemm<float>(bool, int, int, int, float, const float*, int, const float*, int, float, float*, int);
template void tiled_gemm<double>(bool, int, int, int, double, const double*, int, const double*, int, double, double*,
                                 int);
template bool implicit_columns_fit<float>(std::int64_t, std::int64_t);
template bool implicit_columns_fit<double>(std::int64_t, std::int64_t);
template void tiled_gemm_columns<float>(int, int, const float*, int, const float*, const std::int64_t*, std::int64_t,
                                        std::int64_t, std::int64_t, float*);
template void tiled_gemm_columns<double>(int, int, const double*, int, const double*, const std::int64_t*, std::int64_t,
                                         std::int64_t, std::int64_t, double*);
template void tiled_gemm_image_a<float>(int, int, int, const float*, const std::int64_t*, const std::int64_t*,
                                        const float*, int, float, float*, int);
template void tiled_gemm_image_a<double>(int, int, int, const double*, const std::int64_t*, const std::int64_t*,
                                         const double*, int, double, double*, int);
template void tiled_gemm_add_columns<float>(int, int, const float*, int, const float*, const std::int64_t*, std::int64_t,
                                            std::int64_t, std::int64_t, float*);
template void tiled_gemm_add_columns<double>(int, int, const double*, int, const double*, const std::int64_t*,
                                             std::int64_t, std::int64_t, std::int64_t, double*);

}  // namespace ablate::kernels::cpu
