// ReLU, tanh and sigmoid on oneDNN's eltwise primitive. The interface's backward gets y, not
// x (so a framework may run the forward in place, as Caffe's ReLU layer does), hence the
// *_use_dst_for_bwd algorithms: relu dx = dy * (y > 0), tanh dx = dy * (1 - y^2), logistic
// dx = dy * y * (1 - y). GELU (eltwise_gelu_erf / eltwise_gelu_tanh) reads x in its backward.
// Elementwise, so any shape runs as one 1-D tensor of numel values.
#include <stdexcept>
#include <string>

#include "kernels/onednn/dnnl_desc.h"
#include "kernels/onednn/onednn_backend_impl.h"

namespace ablate::kernels::onednn {

namespace {

dnnl::algorithm eltwise_algorithm(Activation a) {
  switch (a) {
    case Activation::relu: return dnnl::algorithm::eltwise_relu_use_dst_for_bwd;
    case Activation::tanh: return dnnl::algorithm::eltwise_tanh_use_dst_for_bwd;
    case Activation::sigmoid: return dnnl::algorithm::eltwise_logistic_use_dst_for_bwd;
    case Activation::gelu:
    case Activation::gelu_tanh: break;  // run as gelu_forward/backward by Backend::activation_*
  }
  throw std::invalid_argument(std::string("activation ") + activation_name(a) + ": expected relu, tanh or sigmoid");
}

// GELU reads its input x in the backward (eltwise_gelu_erf, eltwise_gelu_tanh).
dnnl::algorithm gelu_algorithm(GeluApprox approx) {
  return approx == GeluApprox::exact ? dnnl::algorithm::eltwise_gelu_erf : dnnl::algorithm::eltwise_gelu_tanh;
}

dnnl::eltwise_forward::primitive_desc eltwise_forward_pd(dnnl::algorithm alg, std::int64_t n,
                                                         const dnnl::primitive_attr& attr, const dnnl::engine& engine) {
  dnnl::eltwise_forward::desc desc(dnnl::prop_kind::forward_training, alg, f32_md({n}, tag::a), 0.f, 0.f);
  return dnnl::eltwise_forward::primitive_desc(desc, attr, engine);
}

}  // namespace

void OnednnBackend::eltwise_forward(dnnl::algorithm alg, const Tensor& x, Tensor& y) {
  const std::int64_t n = x.numel();
  if (n == 0) return;
  CacheKey key("eltwise_fwd");
  key.add(static_cast<std::int64_t>(alg)).add(n);
  CachedPrimitive& prim = primitive(key, [&](CachedPrimitive& entry) {
    auto pd = eltwise_forward_pd(alg, n, attr(), engine_);
    entry.primitive = dnnl::eltwise_forward(pd);
    entry.add_input(engine_, DNNL_ARG_SRC, f32_md({n}, tag::a), pd.src_desc());
    entry.add_output(engine_, DNNL_ARG_DST, f32_md({n}, tag::a), pd.dst_desc());
    entry.add_scratchpad(engine_, pd.scratchpad_desc());
  });
  run(prim, {{DNNL_ARG_SRC, x.raw_data()}, {DNNL_ARG_DST, y.raw_data()}});
}

void OnednnBackend::eltwise_backward(dnnl::algorithm alg, int data_arg, const Tensor& data, const Tensor& dy,
                                     Tensor& dx) {
  const std::int64_t n = data.numel();
  if (n == 0) return;
  CacheKey key("eltwise_bwd");
  key.add(static_cast<std::int64_t>(alg)).add(n);
  CachedPrimitive& prim = primitive(key, [&](CachedPrimitive& entry) {
    auto hint = eltwise_forward_pd(alg, n, attr(), engine_);
    dnnl::eltwise_backward::desc desc(alg, f32_md({n}, tag::a), f32_md({n}, tag::a), 0.f, 0.f);
    dnnl::eltwise_backward::primitive_desc pd(desc, attr(), engine_, hint);
    entry.primitive = dnnl::eltwise_backward(pd);
    entry.add_input(engine_, data_arg, f32_md({n}, tag::a), data_arg == DNNL_ARG_DST ? pd.dst_desc() : pd.src_desc());
    entry.add_input(engine_, DNNL_ARG_DIFF_DST, f32_md({n}, tag::a), pd.diff_dst_desc());
    entry.add_output(engine_, DNNL_ARG_DIFF_SRC, f32_md({n}, tag::a), pd.diff_src_desc());
    entry.add_scratchpad(engine_, pd.scratchpad_desc());
  });
  run(prim, {{data_arg, data.raw_data()}, {DNNL_ARG_DIFF_DST, dy.raw_data()}, {DNNL_ARG_DIFF_SRC, dx.raw_data()}});
}

void OnednnBackend::activation_forward_impl(Activation a, const Tensor& x, Tensor& y) {
  if (x.dtype() != DType::f32) return CpuBackend::activation_forward_impl(a, x, y);
  eltwise_forward(eltwise_algorithm(a), x, y);
}

void OnednnBackend::activation_backward_impl(Activation a, const Tensor& y, const Tensor& dy, Tensor& dx) {
  if (y.dtype() != DType::f32) return CpuBackend::activation_backward_impl(a, y, dy, dx);
  eltwise_backward(eltwise_algorithm(a), DNNL_ARG_DST, y, dy, dx);  // the *_use_dst_for_bwd algorithms read y
}

void OnednnBackend::gelu_forward_impl(const Tensor& x, Tensor& y, GeluApprox approx) {
  if (x.dtype() != DType::f32) return CpuBackend::gelu_forward_impl(x, y, approx);
  eltwise_forward(gelu_algorithm(approx), x, y);
}

void OnednnBackend::gelu_backward_impl(const Tensor& x, const Tensor& dy, Tensor& dx, GeluApprox approx) {
  if (x.dtype() != DType::f32) return CpuBackend::gelu_backward_impl(x, dy, dx, approx);
  eltwise_backward(gelu_algorithm(approx), DNNL_ARG_SRC, x, dy, dx);
}

}  // namespace ablate::kernels::onednn
