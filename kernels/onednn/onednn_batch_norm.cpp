// Batch normalisation of channel-blocked activations (nChw16c / nChw8c, kernels/tensor.h) on
// oneDNN's batch_normalization primitives, and the reorders between layouts: what Intel's MKL
// builds of TensorFlow 1.x ran between their convolutions (_MklFusedBatchNorm on the MKL
// layout, _MklToTf where a plain op read it). The math is the Backend's (kernels/backend.h):
// x viewed per channel c over its M = N*H*W values,
//   training   mean[c], var[c] (biased, divides by M) of the batch; y = gamma (x - mean) / s + beta,
//              s = sqrt(var + eps)
//   backward   dbeta = sum dy, dgamma = sum dy x_hat, dx = gamma/s (dy - (dbeta + x_hat dgamma) / M)
// in f32 with oneDNN's own order of the sums (CpuBackend's loops sum in double: the two agree to
// f32 rounding, tests/kernels/channel_block_test.cpp). Plain tensors take CpuBackend's loops.
#include <vector>

#include "kernels/onednn/dnnl_desc.h"
#include "kernels/onednn/onednn_backend_impl.h"

namespace ablate::kernels::onednn {

namespace {

using dnnl::normalization_flags;
using dnnl::prop_kind;

normalization_flags flags_of(bool scale, bool shift, bool global_stats) {
  auto f = static_cast<normalization_flags>(0);
  if (scale) f = f | normalization_flags::use_scale;
  if (shift) f = f | normalization_flags::use_shift;
  if (global_stats) f = f | normalization_flags::use_global_stats;
  return f;
}

dnnl::batch_normalization_forward::primitive_desc forward_pd(const memory::desc& data, prop_kind prop, double epsilon,
                                                             normalization_flags flags, const dnnl::primitive_attr& attr,
                                                             const dnnl::engine& engine) {
  dnnl::batch_normalization_forward::desc desc(prop, data, static_cast<float>(epsilon), flags);
  return dnnl::batch_normalization_forward::primitive_desc(desc, attr, engine);
}

// The [C] arguments (mean, variance, scale, shift and their gradients) in the caller's layout.
void add_channel_args(CachedPrimitive& entry, const dnnl::engine& engine, std::int64_t channels,
                      std::initializer_list<int> inputs, std::initializer_list<int> outputs) {
  const auto md = f32_md({channels}, tag::x);
  for (int arg : inputs) entry.add_input(engine, arg, md, md);
  for (int arg : outputs) entry.add_output(engine, arg, md, md);
}

}  // namespace

int OnednnBackend::channel_block(DType dtype) const {
  if (dtype != DType::f32 || !direct_conv()) return 0;
  if (options_.conv_layout != ConvLayout::blocked && options_.conv_layout != ConvLayout::autotune) return 0;
  return dnnl::get_effective_cpu_isa() >= dnnl::cpu_isa::avx512_core ? 16 : 8;
}

void OnednnBackend::batch_norm_forward_training_impl(const Tensor& x, const Tensor& gamma, const Tensor& beta,
                                                     double epsilon, Tensor& y, Tensor& mean, Tensor& var) {
  if (x.channel_block() == 0)
    return CpuBackend::batch_norm_forward_training_impl(x, gamma, beta, epsilon, y, mean, var);
  blocked_batch_norm_forward(true, x, gamma, beta, mean.raw_data(), var.raw_data(), epsilon, y);
}

void OnednnBackend::batch_norm_forward_inference_impl(const Tensor& x, const Tensor& gamma, const Tensor& beta,
                                                      const Tensor& mean, const Tensor& var, double epsilon, Tensor& y) {
  if (x.channel_block() == 0)
    return CpuBackend::batch_norm_forward_inference_impl(x, gamma, beta, mean, var, epsilon, y);
  blocked_batch_norm_forward(false, x, gamma, beta, mean.raw_data(), var.raw_data(), epsilon, y);
}

void OnednnBackend::blocked_batch_norm_forward(bool training, const Tensor& x, const Tensor& gamma, const Tensor& beta,
                                               const void* mean, const void* var, double epsilon, Tensor& y) {
  const bool scale = !gamma.empty(), shift = !beta.empty();
  if (scale != shift)
    throw std::invalid_argument("onednn batch_norm_forward: a channel-blocked tensor with only one of gamma and beta");
  CacheKey key(training ? "batch_norm_fwd" : "batch_norm_inf");
  key.add(dims_of(x.shape())).add(x.channel_block()).add(scale).add_real(epsilon);
  const auto data = f32_md(dims_of(x.shape()), activation_tag(x));
  auto& entry = primitive(key, [&](CachedPrimitive& e) {
    // training writes the batch's mean and variance; inference reads the given ones
    auto pd = forward_pd(data, training ? prop_kind::forward_training : prop_kind::forward_inference, epsilon,
                         flags_of(scale, shift, !training), attr(), engine_);
    e.primitive = dnnl::batch_normalization_forward(pd);
    e.add_input(engine_, DNNL_ARG_SRC, data, pd.src_desc());
    e.add_output(engine_, DNNL_ARG_DST, data, pd.dst_desc());
    if (training)
      add_channel_args(e, engine_, x.dim(1), {}, {DNNL_ARG_MEAN, DNNL_ARG_VARIANCE});
    else
      add_channel_args(e, engine_, x.dim(1), {DNNL_ARG_MEAN, DNNL_ARG_VARIANCE}, {});
    if (scale) add_channel_args(e, engine_, x.dim(1), {DNNL_ARG_SCALE, DNNL_ARG_SHIFT}, {});
    e.add_scratchpad(engine_, pd.scratchpad_desc());
  });
  if (scale)
    run(entry, {{DNNL_ARG_SRC, x.raw_data()}, {DNNL_ARG_DST, y.raw_data()}, {DNNL_ARG_MEAN, mean},
                {DNNL_ARG_VARIANCE, var}, {DNNL_ARG_SCALE, gamma.raw_data()}, {DNNL_ARG_SHIFT, beta.raw_data()}});
  else
    run(entry, {{DNNL_ARG_SRC, x.raw_data()}, {DNNL_ARG_DST, y.raw_data()}, {DNNL_ARG_MEAN, mean}, {DNNL_ARG_VARIANCE, var}});
}

void OnednnBackend::batch_norm_backward_impl(const Tensor& x, const Tensor& dy, const Tensor& gamma, const Tensor& mean,
                                             const Tensor& var, double epsilon, Tensor& dx, Tensor& dgamma,
                                             Tensor& dbeta) {
  if (x.channel_block() == 0 && dy.channel_block() == 0)
    return CpuBackend::batch_norm_backward_impl(x, dy, gamma, mean, var, epsilon, dx, dgamma, dbeta);
  if (dx.empty())  // one layout for x, dy and dx: checked by the contract (layout_check.h)
    throw std::invalid_argument("onednn batch_norm_backward: a channel-blocked x " + x.describe() + " needs dx");
  // affine: the primitive computes dgamma and dbeta together (prop backward, scale and shift);
  // a gradient the caller did not ask for goes to a buffer of this call.
  const bool affine = !gamma.empty();
  CacheKey key("batch_norm_bwd");
  key.add(dims_of(x.shape())).add(x.channel_block()).add(affine).add_real(epsilon);
  const auto data = f32_md(dims_of(x.shape()), activation_tag(x));
  auto& entry = primitive(key, [&](CachedPrimitive& e) {
    const auto flags = flags_of(affine, affine, false);
    auto hint = forward_pd(data, prop_kind::forward_training, epsilon, flags, attr(), engine_);
    dnnl::batch_normalization_backward::desc desc(affine ? prop_kind::backward : prop_kind::backward_data, data, data,
                                                  static_cast<float>(epsilon), flags);
    dnnl::batch_normalization_backward::primitive_desc pd(desc, attr(), engine_, hint);
    e.primitive = dnnl::batch_normalization_backward(pd);
    e.add_input(engine_, DNNL_ARG_SRC, data, pd.src_desc());
    e.add_input(engine_, DNNL_ARG_DIFF_DST, data, pd.diff_dst_desc());
    e.add_output(engine_, DNNL_ARG_DIFF_SRC, data, pd.diff_src_desc());
    add_channel_args(e, engine_, x.dim(1), {DNNL_ARG_MEAN, DNNL_ARG_VARIANCE}, {});
    // oneDNN 2.6 checks that the shift is bound when use_shift is set, though its gradient does not read it
    if (affine)
      add_channel_args(e, engine_, x.dim(1), {DNNL_ARG_SCALE, DNNL_ARG_SHIFT}, {DNNL_ARG_DIFF_SCALE, DNNL_ARG_DIFF_SHIFT});
    e.add_scratchpad(engine_, pd.scratchpad_desc());
  });
  if (!affine) {
    run(entry, {{DNNL_ARG_SRC, x.raw_data()}, {DNNL_ARG_DIFF_DST, dy.raw_data()}, {DNNL_ARG_DIFF_SRC, dx.raw_data()},
                {DNNL_ARG_MEAN, mean.raw_data()}, {DNNL_ARG_VARIANCE, var.raw_data()}});
    return;
  }
  std::vector<float> unused_dgamma, unused_dbeta, zero_shift(static_cast<std::size_t>(x.dim(1)), 0.f);
  void* dg = dgamma.empty() ? (unused_dgamma.resize(static_cast<std::size_t>(x.dim(1))), unused_dgamma.data()) : dgamma.raw_data();
  void* db = dbeta.empty() ? (unused_dbeta.resize(static_cast<std::size_t>(x.dim(1))), unused_dbeta.data()) : dbeta.raw_data();
  run(entry, {{DNNL_ARG_SRC, x.raw_data()}, {DNNL_ARG_DIFF_DST, dy.raw_data()}, {DNNL_ARG_DIFF_SRC, dx.raw_data()},
              {DNNL_ARG_MEAN, mean.raw_data()}, {DNNL_ARG_VARIANCE, var.raw_data()}, {DNNL_ARG_SCALE, gamma.raw_data()},
              {DNNL_ARG_SHIFT, zero_shift.data()}, {DNNL_ARG_DIFF_SCALE, dg}, {DNNL_ARG_DIFF_SHIFT, db}});
}

void OnednnBackend::convert_channel_layout_impl(const Tensor& src, Tensor& dst) {
  if (src.dtype() != DType::f32) return Backend::convert_channel_layout_impl(src, dst);
  CacheKey key("channel_layout");
  key.add(dims_of(src.shape())).add(src.channel_block()).add(dst.channel_block());
  auto& entry = primitive(key, [&](CachedPrimitive& e) {
    const auto from = f32_md(dims_of(src.shape()), activation_tag(src));
    const auto to = f32_md(dims_of(dst.shape()), activation_tag(dst));
    // the reorder itself is the primitive: its source and destination are the caller's buffers
    e.primitive = dnnl::reorder(dnnl::memory(from, engine_), dnnl::memory(to, engine_));
    e.add_input(engine_, DNNL_ARG_FROM, from, from);
    e.add_output(engine_, DNNL_ARG_TO, to, to);
  });
  run(entry, {{DNNL_ARG_FROM, src.raw_data()}, {DNNL_ARG_TO, dst.raw_data()}});
}

}  // namespace ablate::kernels::onednn
