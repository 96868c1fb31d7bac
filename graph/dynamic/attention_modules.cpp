// Forward of the Vision Transformer's modules (see attention_modules.h).
#include "graph/dynamic/attention_modules.h"

#include <cmath>

#include "graph/dynamic/module_factory.h"
#include "graph/dynamic/ops.h"
#include "models/layer_params.h"

namespace ablate::graph::dynamic {
namespace {

const std::vector<int> kHeadsApart{0, 2, 1, 3};  // [N, T, H, dh] <-> [N, H, T, dh]

}  // namespace

Variable TokensModule::forward(const Variable& x, const ForwardContext&) {
  if (x.value().ndim() != 4) fail("expects an input [N, C, H, W], got " + x.value().describe());
  const kernels::Shape& s = x.shape();
  return permute(reshape(x, {s[0], s[1], s[2] * s[3]}), {0, 2, 1});
}

PosEmbedModule::PosEmbedModule(const models::LayerSpec& spec, std::vector<Variable> parameters)
    : Module(spec, std::move(parameters)) {
  expect_parameters(1);
}

Variable PosEmbedModule::forward(const Variable& x, const ForwardContext&) {
  const kernels::Shape& s = x.shape();
  if (x.value().ndim() != 3 || parameter(0).shape() != kernels::Shape{s[1], s[2]})
    fail("expects tokens fitting its embedding " + parameter(0).value().describe() + ", got " + x.value().describe());
  return reshape(bias_add(reshape(x, {s[0], s[1] * s[2]}), reshape(parameter(0), {s[1] * s[2]})), s);
}

Variable TokenMeanModule::forward(const Variable& x, const ForwardContext&) {
  if (x.value().ndim() != 3) fail("expects tokens [N, T, D], got " + x.value().describe());
  const kernels::Shape& s = x.shape();
  return reshape(pool2d(reshape(x, {s[0], 1, s[1], s[2]}), models::token_mean_pool_params(s[1], s[2])), {s[0], s[2]});
}

LayerNormModule::LayerNormModule(const models::LayerSpec& spec, std::vector<Variable> parameters)
    : Module(spec, std::move(parameters)), epsilon_(models::layer_norm_epsilon(spec)) {
  expect_parameters(2);
}

Variable LayerNormModule::forward(const Variable& x, const ForwardContext&) {
  return layer_norm(x, parameter(0), parameter(1), epsilon_);
}

AttentionModule::AttentionModule(const models::LayerSpec& spec, std::vector<Variable> parameters)
    : Module(spec, std::move(parameters)),
      heads_(models::attention_heads(spec)),
      dropout_(models::attention_keep(spec), models::attention_dropout_key(spec), spec_) {
  expect_parameters(models::attention_parameter_suffixes().size());
}

Variable AttentionModule::forward(const Variable& x, const ForwardContext& context) {
  if (x.value().ndim() != 3 || x.shape()[2] % heads_ != 0)
    fail("expects tokens [N, T, D] with D divisible by heads=" + std::to_string(heads_) + ", got " + x.value().describe());
  const std::int64_t n = x.shape()[0], t = x.shape()[1], d = x.shape()[2], dh = d / heads_;
  const Variable rows = reshape(x, {n * t, d});
  // Projection k (0 query, 1 key, 2 value) as [N * H, T, dh].
  auto heads = [&](int k) {
    const Variable p = linear(rows, parameter(2 * k), parameter(2 * k + 1));
    return reshape(permute(reshape(p, {n, t, heads_, dh}), kHeadsApart), {n * heads_, t, dh});
  };
  const Variable q = heads(0), k = heads(1), v = heads(2);
  Variable p = softmax_last(batched_matmul(q, k, false, true), 1.0 / std::sqrt(static_cast<double>(dh)));
  // Dropout on the weights, its mask drawn over [N, H, T, T] (a sample's rows together).
  if (dropout_.drops(context)) p = reshape(dropout_.apply(reshape(p, {n, heads_, t, t}), context), {n * heads_, t, t});
  const Variable o = permute(reshape(batched_matmul(p, v, false, false), {n, heads_, t, dh}), kHeadsApart);
  return reshape(linear(reshape(o, {n * t, d}), parameter(6), parameter(7)), {n, t, d});
}

ABLATE_DYNAMIC_MODULE(tokens, module_maker<TokensModule>());
ABLATE_DYNAMIC_MODULE(pos_embed, module_maker<PosEmbedModule>());
ABLATE_DYNAMIC_MODULE(token_mean, module_maker<TokenMeanModule>());
ABLATE_DYNAMIC_MODULE(layer_norm, module_maker<LayerNormModule>());
ABLATE_DYNAMIC_MODULE(attention, module_maker<AttentionModule>());

}  // namespace ablate::graph::dynamic
