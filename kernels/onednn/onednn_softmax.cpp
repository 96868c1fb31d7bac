// Softmax and log-softmax over the rows of x [N,K] on oneDNN's softmax and logsoftmax
// primitives (axis 1): softmax y = exp(x) / sum_k exp(x); log-softmax y = x - log sum_k exp(x)
// with backward dx = dy - exp(y) * sum_k dy (Torch's LogSoftMax feeding ClassNLLCriterion).
// Attention's scaled softmax over the last axis, y = softmax(s x), is the same primitive on x
// viewed as [rows, K] after y = s x (oneDNN 2.6's softmax has no input scale): its vectorised
// exp is what the shared loop's scalar std::exp lacks.
#include "kernels/onednn/dnnl_desc.h"
#include "kernels/onednn/onednn_backend_impl.h"

namespace ablate::kernels::onednn {

namespace {

dnnl::logsoftmax_forward::primitive_desc logsoftmax_pd(const memory::dims& dims, const dnnl::primitive_attr& attr,
                                                       const dnnl::engine& engine) {
  dnnl::logsoftmax_forward::desc desc(dnnl::prop_kind::forward_training, f32_md(dims, tag::nc), 1);
  return dnnl::logsoftmax_forward::primitive_desc(desc, attr, engine);
}

}  // namespace

void OnednnBackend::softmax_forward_impl(const Tensor& x, Tensor& y) {
  if (x.dtype() != DType::f32) return CpuBackend::softmax_forward_impl(x, y);
  if (x.numel() == 0) return;
  const auto dims = dims_of(x.shape());

  CacheKey key("softmax_fwd");
  key.add(x.shape());
  CachedPrimitive& prim = primitive(key, [&](CachedPrimitive& entry) {
    dnnl::softmax_forward::desc desc(dnnl::prop_kind::forward_inference, f32_md(dims, tag::nc), 1);
    dnnl::softmax_forward::primitive_desc pd(desc, attr(), engine_);
    entry.primitive = dnnl::softmax_forward(pd);
    entry.add_input(engine_, DNNL_ARG_SRC, f32_md(dims, tag::nc), pd.src_desc());
    entry.add_output(engine_, DNNL_ARG_DST, f32_md(dims, tag::nc), pd.dst_desc());
    entry.add_scratchpad(engine_, pd.scratchpad_desc());
  });
  run(prim, {{DNNL_ARG_SRC, x.raw_data()}, {DNNL_ARG_DST, y.raw_data()}});
}

void OnednnBackend::softmax_last_forward_impl(const Tensor& x, double scale, Tensor& y) {
  if (x.dtype() != DType::f32 || x.numel() == 0) return CpuBackend::softmax_last_forward_impl(x, scale, y);
  const std::int64_t k = x.dim(x.ndim() - 1);
  copy_impl(x, y);
  if (scale != 1) scale_impl(y, scale);
  Tensor rows = y.reshaped({y.numel() / k, k});
  softmax_forward_impl(rows, rows);  // in place
}

void OnednnBackend::log_softmax_forward_impl(const Tensor& x, Tensor& y) {
  if (x.dtype() != DType::f32) return CpuBackend::log_softmax_forward_impl(x, y);
  if (x.numel() == 0) return;
  const auto dims = dims_of(x.shape());

  CacheKey key("logsoftmax_fwd");
  key.add(x.shape());
  CachedPrimitive& prim = primitive(key, [&](CachedPrimitive& entry) {
    auto pd = logsoftmax_pd(dims, attr(), engine_);
    entry.primitive = dnnl::logsoftmax_forward(pd);
    entry.add_input(engine_, DNNL_ARG_SRC, f32_md(dims, tag::nc), pd.src_desc());
    entry.add_output(engine_, DNNL_ARG_DST, f32_md(dims, tag::nc), pd.dst_desc());
    entry.add_scratchpad(engine_, pd.scratchpad_desc());
  });
  run(prim, {{DNNL_ARG_SRC, x.raw_data()}, {DNNL_ARG_DST, y.raw_data()}});
}

void OnednnBackend::log_softmax_backward_impl(const Tensor& y, const Tensor& dy, Tensor& dx) {
  if (y.dtype() != DType::f32) return CpuBackend::log_softmax_backward_impl(y, dy, dx);
  if (y.numel() == 0) return;
  const auto dims = dims_of(y.shape());

  CacheKey key("logsoftmax_bwd");
  key.add(y.shape());
  CachedPrimitive& prim = primitive(key, [&](CachedPrimitive& entry) {
    auto hint = logsoftmax_pd(dims, attr(), engine_);
    dnnl::logsoftmax_backward::desc desc(f32_md(dims, tag::nc), f32_md(dims, tag::nc), 1);
    dnnl::logsoftmax_backward::primitive_desc pd(desc, attr(), engine_, hint);
    entry.primitive = dnnl::logsoftmax_backward(pd);
    entry.add_input(engine_, DNNL_ARG_DST, f32_md(dims, tag::nc), pd.dst_desc());
    entry.add_input(engine_, DNNL_ARG_DIFF_DST, f32_md(dims, tag::nc), pd.diff_dst_desc());
    entry.add_output(engine_, DNNL_ARG_DIFF_SRC, f32_md(dims, tag::nc), pd.diff_src_desc());
    entry.add_scratchpad(engine_, pd.scratchpad_desc());
  });
  run(prim, {{DNNL_ARG_DST, y.raw_data()}, {DNNL_ARG_DIFF_DST, dy.raw_data()}, {DNNL_ARG_DIFF_SRC, dx.raw_data()}});
}

}  // namespace ablate::kernels::onednn
