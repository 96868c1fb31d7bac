// Convolution on oneDNN primitives: forward with bias and the epilogue's activation as an
// eltwise post-op (Conv2dParams::activation; TF's MKL _FusedConv2D ran BiasAdd + Relu so),
// backward data, backward weights with bias (as Intel's MKL-DNN builds of Caffe and TensorFlow
// ran them). Tensors crossing the
// interface are NCHW / OIHW, or channel-blocked activations (nChw16c, kernels/tensor.h: the
// blocked_layout passes), or channels-last ones (NHWC, the layer-wise pass's layout where the
// channels are not a multiple of the block); the primitive runs in the layout of
// OnednnOptions::conv_layout (conv_layout.h; autotune times nhwc among the others), or in the
// library's blocked one when an activation arrives in its blocks, its cache entry holding the
// reordered copies where the primitive's layout and the caller's differ.
// Geometry: OH = (H + pad_top + pad_bottom - KH) / stride_h + 1.
#include <optional>
#include <stdexcept>
#include <string>

#include "kernels/onednn/dnnl_desc.h"
#include "kernels/onednn/onednn_backend_impl.h"

namespace ablate::kernels::onednn {

namespace {

using dnnl::algorithm;
using dnnl::prop_kind;

// Dims of one convolution: src [N,C,H,W], weights [K,C,KH,KW], dst [N,K,OH,OW].
struct ConvShape {
  memory::dims src, weights, dst, bias;
  memory::dims strides, pad_l, pad_r;
  bool with_bias = false;

  ConvShape(const Shape& x, const Shape& w, bool bias, const Conv2dParams& p)
      : src(dims_of(x)), weights(dims_of(w)), bias({w[0]}), with_bias(bias) {
    strides = {p.stride_h, p.stride_w};
    pad_l = {p.pad_top, p.pad_left};
    pad_r = {p.pad_bottom, p.pad_right};
    dst = {x[0], w[0], conv2d_out_size(static_cast<int>(x[2]), static_cast<int>(w[2]), p.stride_h, p.pad_top, p.pad_bottom),
           conv2d_out_size(static_cast<int>(x[3]), static_cast<int>(w[3]), p.stride_w, p.pad_left, p.pad_right)};
  }
  Shape dst_shape() const { return Shape(dst.begin(), dst.end()); }
  void add_to(CacheKey& key) const {
    key.add(src).add(weights).add(with_bias).add(strides).add(pad_l).add(pad_r);
  }
};

// The forward's attributes: the backend's, plus the epilogue as an eltwise post-op applied to
// the biased sum in f32 (relu, tanh, logistic; the contract refuses any other).
dnnl::primitive_attr with_epilogue(dnnl::primitive_attr attr, std::optional<Activation> activation) {
  if (!activation) return attr;
  algorithm alg = algorithm::eltwise_relu;
  switch (*activation) {
    case Activation::relu: alg = algorithm::eltwise_relu; break;
    case Activation::tanh: alg = algorithm::eltwise_tanh; break;
    case Activation::sigmoid: alg = algorithm::eltwise_logistic; break;
    case Activation::gelu:
    case Activation::gelu_tanh:
      throw std::invalid_argument(std::string("backend 'onednn': convolution epilogue ") + activation_name(*activation) +
                                  ": expected relu, tanh or sigmoid");
  }
  dnnl::post_ops ops;
  ops.append_eltwise(1.f, alg, 0.f, 0.f);
  attr.set_post_ops(ops);
  return attr;
}

// Layout tags of activations and weights in `layout` (conv_layout.h).
tag layout_activation_tag(ConvLayout layout) {
  return layout == ConvLayout::plain ? tag::nchw : layout == ConvLayout::nhwc ? tag::nhwc : tag::any;
}
tag weights_tag(ConvLayout layout) { return layout == ConvLayout::plain ? tag::oihw : tag::any; }

// The forward primitive descriptor; also the hint that the backward ones are built from.
dnnl::convolution_forward::primitive_desc forward_pd(const ConvShape& s, prop_kind prop, ConvLayout layout,
                                                     const dnnl::primitive_attr& attr, const dnnl::engine& engine) {
  const tag act = layout_activation_tag(layout), wt = weights_tag(layout);
  auto src = f32_md(s.src, act), weights = f32_md(s.weights, wt), dst = f32_md(s.dst, act);
  auto desc = s.with_bias ? dnnl::convolution_forward::desc(prop, algorithm::convolution_direct, src, weights,
                                                            f32_md(s.bias, tag::x), dst, s.strides, s.pad_l, s.pad_r)
                          : dnnl::convolution_forward::desc(prop, algorithm::convolution_direct, src, weights, dst,
                                                            s.strides, s.pad_l, s.pad_r);
  return dnnl::convolution_forward::primitive_desc(desc, attr, engine);
}

}  // namespace

void OnednnBackend::conv2d_forward_impl(const Tensor& x, const Tensor& w, const Tensor& bias, Tensor& y,
                                        const Conv2dParams& p) {
  if (x.dtype() != DType::f32 || !direct_conv()) return CpuBackend::conv2d_forward_impl(x, w, bias, y, p);
  const bool with_bias = !bias.empty();
  ConvShape s(x.shape(), w.shape(), with_bias, p);
  CacheKey key("conv2d_fwd");
  s.add_to(key);
  key.add(p.activation ? 1 + static_cast<std::int64_t>(*p.activation) : 0);  // the post-op: none, or which
  key.add(x.channel_block()).add(y.channel_block());
  auto build = [&](CachedPrimitive& entry, ConvLayout layout) {
    auto prop = options_.conv_forward_training ? prop_kind::forward_training : prop_kind::forward_inference;
    auto pd = forward_pd(s, prop, layout, with_epilogue(attr(), p.activation), engine_);
    entry.primitive = dnnl::convolution_forward(pd);
    entry.add_input(engine_, DNNL_ARG_SRC, f32_md(s.src, activation_tag(x)), pd.src_desc());
    entry.add_input(engine_, DNNL_ARG_WEIGHTS, f32_md(s.weights, tag::oihw), pd.weights_desc());
    if (s.with_bias) entry.add_input(engine_, DNNL_ARG_BIAS, f32_md(s.bias, tag::x), pd.bias_desc());
    entry.add_output(engine_, DNNL_ARG_DST, f32_md(s.dst, activation_tag(y)), pd.dst_desc());
    entry.add_scratchpad(engine_, pd.scratchpad_desc());
  };
  const bool blocked = library_blocked(x) || library_blocked(y);
  auto go = [&](std::initializer_list<Binding> bindings) { run(conv_primitive(key, build, bindings, blocked), bindings); };
  if (with_bias)
    go({{DNNL_ARG_SRC, x.raw_data()}, {DNNL_ARG_WEIGHTS, w.raw_data()}, {DNNL_ARG_BIAS, bias.raw_data()},
        {DNNL_ARG_DST, y.raw_data()}});
  else
    go({{DNNL_ARG_SRC, x.raw_data()}, {DNNL_ARG_WEIGHTS, w.raw_data()}, {DNNL_ARG_DST, y.raw_data()}});
}

void OnednnBackend::conv2d_backward_data_impl(const Tensor& dy, const Tensor& w, Tensor& dx, const Conv2dParams& p) {
  if (dy.dtype() != DType::f32 || !direct_conv()) return CpuBackend::conv2d_backward_data_impl(dy, w, dx, p);
  ConvShape s(dx.shape(), w.shape(), false, p);
  CacheKey key("conv2d_bwd_data");
  s.add_to(key);
  key.add(dy.channel_block()).add(dx.channel_block());
  auto build = [&](CachedPrimitive& entry, ConvLayout layout) {
    auto hint = forward_pd(s, prop_kind::forward_training, layout, attr(), engine_);
    const tag act = layout_activation_tag(layout), wt = weights_tag(layout);
    dnnl::convolution_backward_data::desc desc(algorithm::convolution_direct, f32_md(s.src, act),
                                               f32_md(s.weights, wt), f32_md(s.dst, act), s.strides, s.pad_l,
                                               s.pad_r);
    dnnl::convolution_backward_data::primitive_desc pd(desc, attr(), engine_, hint);
    entry.primitive = dnnl::convolution_backward_data(pd);
    entry.add_input(engine_, DNNL_ARG_DIFF_DST, f32_md(s.dst, activation_tag(dy)), pd.diff_dst_desc());
    entry.add_input(engine_, DNNL_ARG_WEIGHTS, f32_md(s.weights, tag::oihw), pd.weights_desc());
    entry.add_output(engine_, DNNL_ARG_DIFF_SRC, f32_md(s.src, activation_tag(dx)), pd.diff_src_desc());
    entry.add_scratchpad(engine_, pd.scratchpad_desc());
  };
  std::initializer_list<Binding> bindings = {
      {DNNL_ARG_DIFF_DST, dy.raw_data()}, {DNNL_ARG_WEIGHTS, w.raw_data()}, {DNNL_ARG_DIFF_SRC, dx.raw_data()}};
  run(conv_primitive(key, build, bindings, library_blocked(dy) || library_blocked(dx)), bindings);
}

void OnednnBackend::conv2d_backward_weights_impl(const Tensor& x, const Tensor& dy, Tensor& dw, Tensor& dbias,
                                                 const Conv2dParams& p) {
  if (x.dtype() != DType::f32 || !direct_conv()) return CpuBackend::conv2d_backward_weights_impl(x, dy, dw, dbias, p);
  const bool with_bias = !dbias.empty();
  ConvShape s(x.shape(), dw.shape(), with_bias, p);
  CacheKey key("conv2d_bwd_weights");
  s.add_to(key);
  key.add(x.channel_block()).add(dy.channel_block());
  auto build = [&](CachedPrimitive& entry, ConvLayout layout) {
    auto hint = forward_pd(s, prop_kind::forward_training, layout, attr(), engine_);
    const tag act = layout_activation_tag(layout), wt = weights_tag(layout);
    auto src = f32_md(s.src, act), diff_w = f32_md(s.weights, wt), diff_dst = f32_md(s.dst, act);
    auto desc = s.with_bias
                    ? dnnl::convolution_backward_weights::desc(algorithm::convolution_direct, src, diff_w,
                                                               f32_md(s.bias, tag::x), diff_dst, s.strides, s.pad_l,
                                                               s.pad_r)
                    : dnnl::convolution_backward_weights::desc(algorithm::convolution_direct, src, diff_w, diff_dst,
                                                               s.strides, s.pad_l, s.pad_r);
    dnnl::convolution_backward_weights::primitive_desc pd(desc, attr(), engine_, hint);
    entry.primitive = dnnl::convolution_backward_weights(pd);
    entry.add_input(engine_, DNNL_ARG_SRC, f32_md(s.src, activation_tag(x)), pd.src_desc());
    entry.add_input(engine_, DNNL_ARG_DIFF_DST, f32_md(s.dst, activation_tag(dy)), pd.diff_dst_desc());
    entry.add_output(engine_, DNNL_ARG_DIFF_WEIGHTS, f32_md(s.weights, tag::oihw), pd.diff_weights_desc());
    if (s.with_bias) entry.add_output(engine_, DNNL_ARG_DIFF_BIAS, f32_md(s.bias, tag::x), pd.diff_bias_desc());
    entry.add_scratchpad(engine_, pd.scratchpad_desc());
  };
  const bool blocked = library_blocked(x) || library_blocked(dy);
  auto go = [&](std::initializer_list<Binding> bindings) { run(conv_primitive(key, build, bindings, blocked), bindings); };
  if (with_bias)
    go({{DNNL_ARG_SRC, x.raw_data()}, {DNNL_ARG_DIFF_DST, dy.raw_data()}, {DNNL_ARG_DIFF_WEIGHTS, dw.raw_data()},
        {DNNL_ARG_DIFF_BIAS, dbias.raw_data()}});
  else
    go({{DNNL_ARG_SRC, x.raw_data()}, {DNNL_ARG_DIFF_DST, dy.raw_data()}, {DNNL_ARG_DIFF_WEIGHTS, dw.raw_data()}});
}

}  // namespace ablate::kernels::onednn
