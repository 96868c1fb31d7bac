// Fully connected layers (Caffe's InnerProduct, Torch's nn.Linear) on oneDNN's inner
// product primitive: y [N,O] = x [N,I] w^T + bias, w [O,I]; backward data dx = dy w;
// backward weights dw = dy^T x, dbias = sum over N of dy.
//
// Backward weights over many rows and few weights (a transformer's projections: N = batch x
// tokens = 2048 rows for a 64x64 weight) leaves the primitive's threads idle, since there is
// little output to split: the N rows are cut into chunks of kReductionChunk, each chunk's
// dy_c^T x_c one single-threaded dnnl_sgemm, the chunks spread over the threads, and their
// products summed in chunk order (so the result is the same at 2 threads or more; one thread
// keeps the primitive).
#include <algorithm>
#include <stdexcept>
#include <vector>

#include "kernels/cpu/bias_loops.h"
#include "kernels/onednn/dnnl_desc.h"
#include "kernels/onednn/onednn_backend_impl.h"

namespace ablate::kernels::onednn {

namespace {

struct LinearShape {
  memory::dims src, weights, dst, bias;
  bool with_bias;
  LinearShape(std::int64_t n, std::int64_t in, std::int64_t out, bool with_bias)
      : src({n, in}), weights({out, in}), dst({n, out}), bias({out}), with_bias(with_bias) {}
  void add_to(CacheKey& key) const { key.add(src).add(weights).add(with_bias); }
};

// x [N,I] (or dx), w [O,I] (or dw), checked by the contract.
LinearShape linear_shape(const Tensor& x, const Tensor& w, bool with_bias) {
  return LinearShape(x.dim(0), x.dim(1), w.dim(0), with_bias);
}

dnnl::inner_product_forward::primitive_desc forward_pd(const LinearShape& s, const dnnl::primitive_attr& attr,
                                                       const dnnl::engine& engine) {
  auto src = f32_md(s.src, tag::nc), weights = f32_md(s.weights, tag::oi), dst = f32_md(s.dst, tag::nc);
  auto desc = s.with_bias ? dnnl::inner_product_forward::desc(dnnl::prop_kind::forward_training, src, weights,
                                                              f32_md(s.bias, tag::x), dst)
                          : dnnl::inner_product_forward::desc(dnnl::prop_kind::forward_training, src, weights, dst);
  return dnnl::inner_product_forward::primitive_desc(desc, attr, engine);
}

constexpr std::int64_t kReductionChunk = 1024;

// Chunked when there are at least two chunks and dw is small (at most 256 x 256: a larger one
// gives the primitive output enough to split).
bool chunked_reduction(std::int64_t n, std::int64_t in, std::int64_t out, int threads) {
  return threads > 1 && n >= 2 * kReductionChunk && in * out <= 256 * 256;
}

// dw [O,I] = sum over the chunks c of dy_c^T [O, rows] x_c [rows, I].
void chunked_backward_weights(int threads, std::int64_t n, std::int64_t in, std::int64_t out, const float* x,
                              const float* dy, float* dw) {
  const std::int64_t chunks = (n + kReductionChunk - 1) / kReductionChunk, size = in * out;
  std::vector<float> partial(static_cast<std::size_t>(chunks * size));
  bool failed = false;
#pragma omp parallel for num_threads(threads) schedule(static) reduction(|| : failed)
  for (std::int64_t c = 0; c < chunks; ++c) {
    const std::int64_t first = c * kReductionChunk, rows = std::min(kReductionChunk, n - first);
    // Inside the parallel region dnnl_sgemm runs on the calling thread alone.
    failed = failed || dnnl_sgemm('T', 'N', out, in, rows, 1.f, dy + first * out, out, x + first * in, in, 0.f,
                                  partial.data() + c * size, in) != dnnl_success;
  }
  if (failed) throw std::runtime_error("dnnl_sgemm of a backward-weights chunk failed");
#pragma omp parallel for num_threads(threads) schedule(static)
  for (std::int64_t i = 0; i < size; ++i) {
    float sum = 0;
    for (std::int64_t c = 0; c < chunks; ++c) sum += partial[c * size + i];
    dw[i] = sum;
  }
}

}  // namespace

void OnednnBackend::linear_forward_impl(const Tensor& x, const Tensor& w, const Tensor& bias, Tensor& y) {
  if (x.dtype() != DType::f32) return CpuBackend::linear_forward_impl(x, w, bias, y);
  LinearShape s = linear_shape(x, w, !bias.empty());
  CacheKey key("linear_fwd");
  s.add_to(key);
  CachedPrimitive& prim = primitive(key, [&](CachedPrimitive& entry) {
    auto pd = forward_pd(s, attr(), engine_);
    entry.primitive = dnnl::inner_product_forward(pd);
    entry.add_input(engine_, DNNL_ARG_SRC, f32_md(s.src, tag::nc), pd.src_desc());
    entry.add_input(engine_, DNNL_ARG_WEIGHTS, f32_md(s.weights, tag::oi), pd.weights_desc());
    if (s.with_bias) entry.add_input(engine_, DNNL_ARG_BIAS, f32_md(s.bias, tag::x), pd.bias_desc());
    entry.add_output(engine_, DNNL_ARG_DST, f32_md(s.dst, tag::nc), pd.dst_desc());
    entry.add_scratchpad(engine_, pd.scratchpad_desc());
  });
  if (s.with_bias)
    run(prim, {{DNNL_ARG_SRC, x.raw_data()}, {DNNL_ARG_WEIGHTS, w.raw_data()}, {DNNL_ARG_BIAS, bias.raw_data()},
               {DNNL_ARG_DST, y.raw_data()}});
  else
    run(prim, {{DNNL_ARG_SRC, x.raw_data()}, {DNNL_ARG_WEIGHTS, w.raw_data()}, {DNNL_ARG_DST, y.raw_data()}});
}

void OnednnBackend::linear_backward_data_impl(const Tensor& dy, const Tensor& w, Tensor& dx) {
  if (dy.dtype() != DType::f32) return CpuBackend::linear_backward_data_impl(dy, w, dx);
  LinearShape s = linear_shape(dx, w, false);
  CacheKey key("linear_bwd_data");
  s.add_to(key);
  CachedPrimitive& prim = primitive(key, [&](CachedPrimitive& entry) {
    auto hint = forward_pd(s, attr(), engine_);
    dnnl::inner_product_backward_data::desc desc(f32_md(s.src, tag::nc), f32_md(s.weights, tag::oi),
                                                 f32_md(s.dst, tag::nc));
    dnnl::inner_product_backward_data::primitive_desc pd(desc, attr(), engine_, hint);
    entry.primitive = dnnl::inner_product_backward_data(pd);
    entry.add_input(engine_, DNNL_ARG_DIFF_DST, f32_md(s.dst, tag::nc), pd.diff_dst_desc());
    entry.add_input(engine_, DNNL_ARG_WEIGHTS, f32_md(s.weights, tag::oi), pd.weights_desc());
    entry.add_output(engine_, DNNL_ARG_DIFF_SRC, f32_md(s.src, tag::nc), pd.diff_src_desc());
    entry.add_scratchpad(engine_, pd.scratchpad_desc());
  });
  run(prim, {{DNNL_ARG_DIFF_DST, dy.raw_data()}, {DNNL_ARG_WEIGHTS, w.raw_data()}, {DNNL_ARG_DIFF_SRC, dx.raw_data()}});
}

void OnednnBackend::linear_backward_weights_impl(const Tensor& x, const Tensor& dy, Tensor& dw, Tensor& dbias) {
  if (x.dtype() != DType::f32) return CpuBackend::linear_backward_weights_impl(x, dy, dw, dbias);
  if (chunked_reduction(x.dim(0), x.dim(1), dw.dim(0), threads_)) {
    chunked_backward_weights(threads_, x.dim(0), x.dim(1), dw.dim(0), x.data<float>(), dy.data<float>(), dw.data<float>());
    if (!dbias.empty()) cpu::channel_bias_grad(loop_threads_, dy.data<float>(), x.dim(0), dw.dim(0), 1, dbias.data<float>());
    return;
  }
  LinearShape s = linear_shape(x, dw, !dbias.empty());
  CacheKey key("linear_bwd_weights");
  s.add_to(key);
  CachedPrimitive& prim = primitive(key, [&](CachedPrimitive& entry) {
    auto hint = forward_pd(s, attr(), engine_);
    auto src = f32_md(s.src, tag::nc), diff_w = f32_md(s.weights, tag::oi), diff_dst = f32_md(s.dst, tag::nc);
    auto desc = s.with_bias
                    ? dnnl::inner_product_backward_weights::desc(src, diff_w, f32_md(s.bias, tag::x), diff_dst)
                    : dnnl::inner_product_backward_weights::desc(src, diff_w, diff_dst);
    dnnl::inner_product_backward_weights::primitive_desc pd(desc, attr(), engine_, hint);
    entry.primitive = dnnl::inner_product_backward_weights(pd);
    entry.add_input(engine_, DNNL_ARG_SRC, f32_md(s.src, tag::nc), pd.src_desc());
    entry.add_input(engine_, DNNL_ARG_DIFF_DST, f32_md(s.dst, tag::nc), pd.diff_dst_desc());
    entry.add_output(engine_, DNNL_ARG_DIFF_WEIGHTS, f32_md(s.weights, tag::oi), pd.diff_weights_desc());
    if (s.with_bias) entry.add_output(engine_, DNNL_ARG_DIFF_BIAS, f32_md(s.bias, tag::x), pd.diff_bias_desc());
    entry.add_scratchpad(engine_, pd.scratchpad_desc());
  });
  if (s.with_bias)
    run(prim, {{DNNL_ARG_SRC, x.raw_data()}, {DNNL_ARG_DIFF_DST, dy.raw_data()}, {DNNL_ARG_DIFF_WEIGHTS, dw.raw_data()},
               {DNNL_ARG_DIFF_BIAS, dbias.raw_data()}});
  else
    run(prim, {{DNNL_ARG_SRC, x.raw_data()}, {DNNL_ARG_DIFF_DST, dy.raw_data()}, {DNNL_ARG_DIFF_WEIGHTS, dw.raw_data()}});
}

}  // namespace ablate::kernels::onednn
