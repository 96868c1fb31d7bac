// ablate's own GEMM for the convolution loops (ConvLowering::tiled_gemm, conv_lowering.h): no
// library, register tiles written for one image's product, as ggml's and llm.c's CPU matmuls are
// written for theirs.
//   C [m, n] = alpha * op(A) [m, k] x B [k, n] + beta * C      (row-major; op(A) = A or A^T)
// B is read as it lies, never packed: in the convolution it is one image's im2col columns or
// output gradient (at most a few hundred KiB, in L2), and a block of kDepth of its rows stays in
// L1 while a column of tiles passes over it. A tile is R rows of C by V vectors along a row
// (5 x 4 with AVX-512; taller and narrower where C has few columns); each step of k broadcasts
// R elements of op(A) (one load each, folded into the broadcast) and loads V vectors of B's
// row k for R * V FMAs. Columns past the last whole vector run as scalar loops. The variants
// below read an image's im2col matrix in place as B or A, or add the product onto an image as
// its columns (conv_tiled.h), with the same tiles. Single-threaded: the loops run it inside
// their OpenMP workers, one image each.
#pragma once

#include <cstdint>

namespace ablate::kernels::cpu {

// beta == 0 does not read C (it may hold NaN); B is never transposed (the weight gradient, which
// would need B^T, is computed as its transpose or from im2row instead: conv2d.cpp).
template <class T>
void tiled_gemm(bool trans_a, int m, int n, int k, T alpha, const T* a, int lda, const T* b, int ldb, T beta, T* c,
                int ldc);

// The same tiles over one image's im2col columns read straight from the image (an implicit
// GEMM: no column matrix written), for a convolution of stride 1 and no padding:
//   C [m, OH*OW] = A [m, k] x B,  B [r, (oh, ow)] = x[taps[r] + oh * in_w + ow]
// with taps[r] the offset of tap r = (c, i, j) in the image, c * H * W + i * in_w + j. A vector
// of B is kLanes consecutive output pixels, in halves each inside one output row:
// implicit_columns_fit says whether OH x OW splits so (OW a multiple of half a vector, OH x OW of
// a whole one). C is written (no alpha, beta).
template <class T> bool implicit_columns_fit(std::int64_t out_h, std::int64_t out_w);
template <class T>
void tiled_gemm_columns(int m, int k, const T* a, int lda, const T* x, const std::int64_t* taps, std::int64_t out_h,
                        std::int64_t out_w, std::int64_t in_w, T* c);

// Its adjoint, col2im folded into the tiles' stores (the data gradient): the columns
// C [m, OH*OW] = A^T x B, A [k, m] (lda), B [k, OH*OW] dense, are added onto the image dx
// where the forward read them, dx[taps[r] + oh * in_w + ow] += C [r, (oh, ow)]. dx is not
// cleared first.
template <class T>
void tiled_gemm_add_columns(int m, int k, const T* a, int lda, const T* b, const std::int64_t* taps, std::int64_t out_h,
                            std::int64_t out_w, std::int64_t in_w, T* dx);

// The weight gradient's product, with an image's im2col matrix read in place as A (any stride,
// no padding): C [m, n] = A [m, k] x B [k, n] + beta * C, A [r, q] = x[taps[r] + pixels[q]],
// pixels[q] the offset of output pixel q's window, oh * stride_h * W + ow * stride_w.
template <class T>
void tiled_gemm_image_a(int m, int n, int k, const T* x, const std::int64_t* taps, const std::int64_t* pixels, const T* b,
                        int ldb, T beta, T* c, int ldc);

// Lanes of the tiles' vectors: 64-byte vectors in an AVX-512 build, 32-byte otherwise.
template <class T> constexpr int tiled_gemm_lanes() {
#ifdef __AVX512F__
  return 64 / sizeof(T);
#else
  return 32 / sizeof(T);
#endif
}

}  // namespace ablate::kernels::cpu
