// Local response normalisation across channels on oneDNN's lrn_across_channels primitive,
// the same formula as Caffe's LRN layer (ACROSS_CHANNELS):
//   y = x / (k + alpha / size * sum_{c' in window(c)} x_{c'}^2)^beta.
// Forward runs as forward_training and keeps oneDNN's workspace (when the implementation
// has one) in the interface's u8 `workspace`; backward reads x, dy and that workspace.
// The primitives run in NHWC, reordering the interface's NCHW tensors in and out: on NCHW,
// oneDNN 2.6 has a JIT kernel only for forward with size 5 and otherwise its reference loops
// (measured on [128,64,12,12], size 9, 1 thread: NCHW 31 ms forward, 253 ms backward; NHWC
// 1.3 ms and 1.8 ms before the reorders; the shared loops 11.5 ms each). Channel-blocked and
// channels-last tensors (kernels/tensor.h) run on ablate's blocked loops
// (kernels/cpu/lrn_blocked.h) instead of the primitive: the TF CNN's norm1 ([50,64,12,12], size
// 9, 2 threads, AVX-512 Xeon, medians of 3, `ablate_micro --benchmark_filter=lrn/`) took 0.95
// ms forward and 0.50 backward nChw16c on the primitive (its NHWC kernel plus the reorders),
// 0.36 and 0.39 on the loops; in NHWC 0.83 / 0.21 against 0.34 / 0.35. The same loops over
// NCHW (a strided gather per pixel) were slower than the primitive's 1.0 / 0.59 ms: 1.27 / 1.94.
#include "kernels/cpu/lrn_blocked.h"
#include "kernels/onednn/dnnl_desc.h"
#include "kernels/onednn/onednn_backend_impl.h"

namespace ablate::kernels::onednn {

namespace {

dnnl::lrn_forward::primitive_desc lrn_forward_pd(const memory::dims& dims, const LrnParams& p,
                                                 const dnnl::primitive_attr& attr, const dnnl::engine& engine) {
  dnnl::lrn_forward::desc desc(dnnl::prop_kind::forward_training, dnnl::algorithm::lrn_across_channels,
                               f32_md(dims, tag::nhwc), p.size, static_cast<float>(p.alpha),
                               static_cast<float>(p.beta), static_cast<float>(p.k));
  return dnnl::lrn_forward::primitive_desc(desc, attr, engine);
}

void lrn_key(CacheKey& key, const Tensor& x, const LrnParams& p) {
  // x's layout is every tensor's: the contract runs LRN in one layout (layout_check.h)
  key.add(x.shape()).add(p.size).add_real(p.alpha).add_real(p.beta).add_real(p.k).add(x.channel_block());
}

}  // namespace

void OnednnBackend::lrn_forward_impl(const Tensor& x, Tensor& y, Tensor& workspace, const LrnParams& p) {
  if (x.dtype() != DType::f32) return CpuBackend::lrn_forward_impl(x, y, workspace, p);
  if (x.channel_block() > 0) return cpu::lrn_blocked_forward(loop_threads_, x, y, workspace, p);
  const auto dims = dims_of(x.shape());

  CacheKey key("lrn_fwd");
  lrn_key(key, x, p);
  CachedPrimitive& prim = primitive(key, [&](CachedPrimitive& entry) {
    auto pd = lrn_forward_pd(dims, p, attr(), engine_);
    entry.primitive = dnnl::lrn_forward(pd);
    entry.add_input(engine_, DNNL_ARG_SRC, f32_md(dims, activation_tag(x)), pd.src_desc());
    entry.add_output(engine_, DNNL_ARG_DST, f32_md(dims, activation_tag(y)), pd.dst_desc());
    add_workspace_and_scratchpad(entry, engine_, pd, /*forward=*/true);
  });
  run_forward_with_workspace(prim, stream_, x, y, workspace);
}

void OnednnBackend::lrn_backward_impl(const Tensor& x, const Tensor& y, const Tensor& dy, const Tensor& workspace,
                                      Tensor& dx, const LrnParams& p) {
  if (x.dtype() != DType::f32) return CpuBackend::lrn_backward_impl(x, y, dy, workspace, dx, p);
  if (x.channel_block() > 0) return cpu::lrn_blocked_backward(loop_threads_, x, y, dy, workspace, dx, p);
  const auto dims = dims_of(x.shape());

  CacheKey key("lrn_bwd");
  lrn_key(key, x, p);
  CachedPrimitive& prim = primitive(key, [&](CachedPrimitive& entry) {
    auto hint = lrn_forward_pd(dims, p, attr(), engine_);
    dnnl::lrn_backward::desc desc(dnnl::algorithm::lrn_across_channels, f32_md(dims, tag::nhwc),
                                  f32_md(dims, tag::nhwc), p.size, static_cast<float>(p.alpha),
                                  static_cast<float>(p.beta), static_cast<float>(p.k));
    dnnl::lrn_backward::primitive_desc pd(desc, attr(), engine_, hint);
    entry.primitive = dnnl::lrn_backward(pd);
    entry.add_input(engine_, DNNL_ARG_SRC, f32_md(dims, activation_tag(x)), pd.src_desc());
    entry.add_input(engine_, DNNL_ARG_DIFF_DST, f32_md(dims, activation_tag(dy)), pd.diff_dst_desc());
    entry.add_output(engine_, DNNL_ARG_DIFF_SRC, f32_md(dims, activation_tag(dx)), pd.diff_src_desc());
    add_workspace_and_scratchpad(entry, engine_, pd, /*forward=*/false);
  });
  if (prim.workspace_bytes == 0) {
    run(prim, {{DNNL_ARG_SRC, x.raw_data()}, {DNNL_ARG_DIFF_DST, dy.raw_data()}, {DNNL_ARG_DIFF_SRC, dx.raw_data()}});
    return;
  }
  check_workspace(OpCheck(*this, Op::lrn_backward), workspace, prim.workspace_bytes, "lrn_forward");
  run(prim, {{DNNL_ARG_SRC, x.raw_data()}, {DNNL_ARG_DIFF_DST, dy.raw_data()}, {DNNL_ARG_DIFF_SRC, dx.raw_data()},
             {DNNL_ARG_WORKSPACE, workspace.raw_data()}});
}

}  // namespace ablate::kernels::onednn
