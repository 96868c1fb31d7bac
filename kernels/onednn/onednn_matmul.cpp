// Batched matrix products (attention's scores Q K^T and P V, and their gradients) on oneDNN's
// matmul primitive: c[i] = alpha op(a[i]) op(b[i]) + beta c[i] for every i of the batch in one
// call, op(t) = t or t^T, a [B,M,K] (or [B,K,M] transposed), b [B,K,N] (or [B,N,K]),
// c [B,M,N], all contiguous. A transposed operand is described to oneDNN as the logical
// [B,M,K] or [B,K,N] with swapped strides, so nothing is copied; alpha is the output scale,
// beta a sum post-op. The default loop of one GEMM per item (batched_gemm_loop.cpp) calls
// dnnl_sgemm B times on 16x16 matrices for vit-tiny, which is where its step went; the
// primitive runs the whole batch as one JIT kernel split over the threads.
#include "kernels/onednn/dnnl_desc.h"
#include "kernels/onednn/onednn_backend_impl.h"

namespace ablate::kernels::onednn {

namespace {

// [B, R, C] of a contiguous tensor stored as [B, R, C], or as [B, C, R] when `transposed`.
memory::desc batched_md(std::int64_t batch, std::int64_t rows, std::int64_t cols, bool transposed) {
  const memory::dims strides = transposed ? memory::dims{rows * cols, 1, rows} : memory::dims{rows * cols, cols, 1};
  return memory::desc({batch, rows, cols}, memory::data_type::f32, strides);
}

}  // namespace

void OnednnBackend::batched_gemm_impl(bool trans_a, bool trans_b, double alpha, const Tensor& a, const Tensor& b,
                                      double beta, Tensor& c) {
  if (c.dtype() != DType::f32) return CpuBackend::batched_gemm_impl(trans_a, trans_b, alpha, a, b, beta, c);
  const std::int64_t batch = c.dim(0), m = c.dim(1), n = c.dim(2), k = trans_a ? a.dim(1) : a.dim(2);
  if (c.numel() == 0) return;
  CacheKey key("batched_matmul");
  key.add({batch, m, n, k}).add(trans_a).add(trans_b).add_real(alpha).add_real(beta);
  CachedPrimitive& prim = primitive(key, [&](CachedPrimitive& entry) {
    const memory::desc src = batched_md(batch, m, k, trans_a), weights = batched_md(batch, k, n, trans_b),
                       dst = batched_md(batch, m, n, false);
    dnnl::primitive_attr attributes = attr();
    if (alpha != 1) attributes.set_output_scales(0, {static_cast<float>(alpha)});
    if (beta != 0) {
      dnnl::post_ops sum;
      sum.append_sum(static_cast<float>(beta));
      attributes.set_post_ops(sum);
    }
    dnnl::matmul::primitive_desc pd(dnnl::matmul::desc(src, weights, dst), attributes, engine_);
    entry.primitive = dnnl::matmul(pd);
    entry.add_input(engine_, DNNL_ARG_SRC, src, pd.src_desc());
    entry.add_input(engine_, DNNL_ARG_WEIGHTS, weights, pd.weights_desc());
    entry.add_output(engine_, DNNL_ARG_DST, dst, pd.dst_desc());
    entry.add_scratchpad(engine_, pd.scratchpad_desc());
  });
  run(prim, {{DNNL_ARG_SRC, a.raw_data()}, {DNNL_ARG_WEIGHTS, b.raw_data()}, {DNNL_ARG_DST, c.raw_data()}});
}

}  // namespace ablate::kernels::onednn
