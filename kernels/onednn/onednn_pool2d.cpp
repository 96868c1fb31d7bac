// Pooling on oneDNN primitives: max (forward_training keeps oneDNN's argmax workspace in the
// interface's u8 `workspace` tensor) and average with padded cells counted
// (pooling_avg_include_padding: Caffe, Torch) or not (pooling_avg_exclude_padding: TF SAME).
// The frameworks' output-size rules (Pool2dParams) become oneDNN's asymmetric padding:
// padding_r = (out - 1) * stride + kernel - in - pad_l. When that is negative (floor rounding
// drops the last rows), the input is cropped to the rows the windows reach instead.
// Windows that oneDNN would average differently (Caffe's ceil mode clipping the divisor at
// in + pad, windows wholly inside the padding) fall back to CpuBackend's loop, and so does
// max pooling's backward under pool_gradient() all; max pooling of 2x2 windows at stride 2 runs
// CpuBackend's loops for speed (below). Channel-blocked and channels-last tensors
// (kernels/tensor.h) pool on ablate's blocked loops (kernels/cpu/pool2d_blocked.h), the
// primitive never (below).

#include "kernels/cpu/pool2d_blocked.h"
#include "kernels/cpu/pool_windows.h"
#include "kernels/onednn/dnnl_desc.h"
#include "kernels/onednn/onednn_backend_impl.h"

namespace ablate::kernels::onednn {

namespace {

using dnnl::algorithm;

// One pooling, resolved: src_crop is the part of x [N,C,H,W] the windows read.
struct PoolShape {
  memory::dims src, src_crop, dst, kernel, strides, pad_l, pad_r;
  algorithm alg = algorithm::pooling_max;
  bool supported = true;  // false: oneDNN's result would differ from the interface's rule

  PoolShape(const Tensor& x, const Pool2dParams& p) : src(dims_of(x.shape())), src_crop(src) {
    dst = {src[0], src[1], p.out_h, p.out_w};
    kernel = {p.kernel_h, p.kernel_w};
    strides = {p.stride_h, p.stride_w};
    pad_l = {p.pad_top, p.pad_left};
    const int limit[2] = {p.pad_bottom_limit, p.pad_right_limit};
    pad_r = {0, 0};
    for (int i = 0; i < 2; ++i) {
      const auto r = (dst[2 + i] - 1) * strides[i] + kernel[i] - src[2 + i] - pad_l[i];
      if (r < 0) src_crop[2 + i] += r;  // the last rows/columns are never read
      pad_r[i] = r < 0 ? 0 : r;
      if (pad_l[i] >= kernel[i] || pad_r[i] >= kernel[i]) supported = false;  // a window of padding only
      if (p.kind == PoolKind::avg && p.avg_count_padding && pad_r[i] > limit[i]) supported = false;
    }
    if (p.kind == PoolKind::avg)
      alg = p.avg_count_padding ? algorithm::pooling_avg_include_padding : algorithm::pooling_avg_exclude_padding;
  }
  bool cropped() const { return src_crop != src; }
  // x as the caller holds it (NCHW): the cropped window of the full tensor.
  memory::desc user_src_md() const { return f32_md(src, tag::nchw).submemory_desc(src_crop, {0, 0, 0, 0}); }
  void add_to(CacheKey& key) const {
    key.add(src).add(dst).add(kernel).add(strides).add(pad_l).add(static_cast<std::int64_t>(alg));
  }
};

// Blocked and channels-last tensors pool on ablate's loops: faster than the primitive in
// either layout (batch 64 / 50, 2 threads, AVX-512 Xeon, medians of 3, `ablate_micro
// --benchmark_filter=pool/`, 2026-12-05): LeNet's pool1 NHWC [C = 20] forward 0.16 ms against
// the primitive's 0.43, backward 0.12 against 0.41; pool2 NHWC [C = 50] 0.03 / 0.03 against
// 0.08 / 0.11; the TF CNN's 3x3 SAME pool1 nChw16c 0.39 / 0.30 against 0.80 / 0.64 (in the
// TF CNN's static step, where the inputs arrive from memory, the two are level: 1.47 / 1.86 ms
// a step against 1.45 / 1.72, `ablate run --passes all --profile`). (Before
// their max forward ran in two vector passes the loops were half the primitive's speed there;
// cifar10_quick's Caffe-ceil average pools, which the primitive averages otherwise, took
// 12.9-14.7 ms backward a step on NCHW copies converted there and back, 3.9-4.4 on the loops.)
// So the primitive only ever sees NCHW. Max pooling of 2x2 windows at stride 2 (cpu::two_by_two:
// LeNet's, the TF MNIST CNN's) runs the NCHW loops too: LeNet's pool1 [64, 20, 24, 24] at 2
// threads forward 0.86 ms on the primitive against 0.12, backward 0.73 against 0.11 (`ablate_micro
// --benchmark_filter=pool/lenet_pool1`, Emerald Rapids Xeon, 2026-12-06). Both route each window's
// gradient to its first largest cell (the conformance tie cases), so the results are equal.
bool on_two_by_two_loops(const Tensor& x, const Pool2dParams& p) {
  return p.kind == PoolKind::max && x.dtype() == DType::f32 && cpu::two_by_two(cpu::pool_geometry(x, p), p);
}

dnnl::pooling_forward::primitive_desc forward_pd(const PoolShape& s, const dnnl::primitive_attr& attr,
                                                 const dnnl::engine& engine) {
  dnnl::pooling_forward::desc desc(dnnl::prop_kind::forward_training, s.alg, f32_md(s.src_crop, tag::nchw),
                                   f32_md(s.dst, tag::nchw), s.strides, s.kernel, s.pad_l, s.pad_r);
  return dnnl::pooling_forward::primitive_desc(desc, attr, engine);
}

}  // namespace

void OnednnBackend::pool2d_forward_impl(const Tensor& x, Tensor& y, Tensor& workspace, const Pool2dParams& p) {
  if (x.channel_block() > 0) return cpu::pool2d_blocked_forward(loop_threads_, x, y, workspace, p);
  PoolShape s(x, p);
  if (x.dtype() != DType::f32 || !s.supported || on_two_by_two_loops(x, p))
    return CpuBackend::pool2d_forward_impl(x, y, workspace, p);
  CacheKey key("pool2d_fwd");
  s.add_to(key);
  CachedPrimitive& prim = primitive(key, [&](CachedPrimitive& entry) {
    auto pd = forward_pd(s, attr(), engine_);
    entry.primitive = dnnl::pooling_forward(pd);
    entry.add_input(engine_, DNNL_ARG_SRC, s.user_src_md(), pd.src_desc());
    entry.add_output(engine_, DNNL_ARG_DST, f32_md(s.dst, tag::nchw), pd.dst_desc());
    add_workspace_and_scratchpad(entry, engine_, pd, /*forward=*/true);
  });
  run_forward_with_workspace(prim, stream_, x, y, workspace);
}

void OnednnBackend::pool2d_backward_impl(const Tensor& x, const Tensor& y, const Tensor& dy, const Tensor& workspace,
                                         Tensor& dx, const Pool2dParams& p) {
  if (x.channel_block() > 0)
    return cpu::pool2d_blocked_backward(loop_threads_, pool_gradient(), x, y, dy, workspace, dx, p);
  PoolShape s(x, p);
  // oneDNN's max-pooling backward routes dy to one cell per window: Theano's gradient to every
  // maximal cell (PoolGradient::all) is the shared loop's, which reads x and y.
  if (x.dtype() != DType::f32 || !s.supported || on_two_by_two_loops(x, p) ||
      (p.kind == PoolKind::max && pool_gradient() == PoolGradient::all))
    return CpuBackend::pool2d_backward_impl(x, y, dy, workspace, dx, p);
  CacheKey key("pool2d_bwd");
  s.add_to(key);
  CachedPrimitive& prim = primitive(key, [&](CachedPrimitive& entry) {
    auto hint = forward_pd(s, attr(), engine_);
    dnnl::pooling_backward::desc desc(s.alg, f32_md(s.src_crop, tag::nchw), f32_md(s.dst, tag::nchw), s.strides,
                                      s.kernel, s.pad_l, s.pad_r);
    dnnl::pooling_backward::primitive_desc pd(desc, attr(), engine_, hint);
    entry.primitive = dnnl::pooling_backward(pd);
    entry.add_input(engine_, DNNL_ARG_DIFF_DST, f32_md(s.dst, tag::nchw), pd.diff_dst_desc());
    entry.add_output(engine_, DNNL_ARG_DIFF_SRC, s.user_src_md(), pd.diff_src_desc());
    add_workspace_and_scratchpad(entry, engine_, pd, /*forward=*/false);
  });
  if (s.cropped()) dx.zero();  // rows and columns no window reads get no gradient
  if (prim.workspace_bytes == 0) {
    run(prim, {{DNNL_ARG_DIFF_DST, dy.raw_data()}, {DNNL_ARG_DIFF_SRC, dx.raw_data()}});
    return;
  }
  check_workspace(OpCheck(*this, Op::pool2d_backward), workspace, prim.workspace_bytes, "pool2d_forward");
  run(prim, {{DNNL_ARG_DIFF_DST, dy.raw_data()}, {DNNL_ARG_DIFF_SRC, dx.raw_data()},
             {DNNL_ARG_WORKSPACE, workspace.raw_data()}});
}

}  // namespace ablate::kernels::onednn
