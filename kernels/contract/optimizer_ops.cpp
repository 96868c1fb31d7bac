// The contract of the optimizer updates (kernels/backend.h, kernels/op_params.h): the
// parameter w is float, its gradient and state tensors have w's dtype and shape; Adam's step
// counts from 1. Also the fused weight gradient + update's contract and its unfused default.
#include <cmath>
#include <initializer_list>
#include <utility>

#include "kernels/backend.h"
#include "kernels/contract/observed_call.h"
#include "kernels/contract/op_check.h"
#include "kernels/contract/op_flops.h"
#include "kernels/non_finite.h"

namespace ablate::kernels {
namespace {

void checked_state(const OpCheck& check, const Tensor& w,
                   std::initializer_list<std::pair<const char*, const Tensor*>> state) {
  check.floating("w", w);
  for (auto [name, t] : state) check.like_shape(name, *t, w, w.shape());
}

void check_adam_step(const OpCheck& check, const AdamParams& p) {
  if (p.t < 1) check.fail("step t " + std::to_string(p.t) + ", expected at least 1 (the first update is t = 1)");
}

}  // namespace

void Backend::caffe_sgd_update(Tensor& w, Tensor& g, Tensor& history, const CaffeSgdParams& p) {
  checked_state(OpCheck(*this, Op::caffe_sgd_update), w, {{"g", &g}, {"history", &history}});
  observed_call(*this, Op::caffe_sgd_update, {{&w, &g, &history}, nullptr, {}}, [&] { caffe_sgd_update_impl(w, g, history, p); });
}

void Backend::torch_sgd_update(Tensor& w, Tensor& g, Tensor& velocity, const TorchSgdParams& p) {
  checked_state(OpCheck(*this, Op::torch_sgd_update), w, {{"g", &g}, {"velocity", &velocity}});
  observed_call(*this, Op::torch_sgd_update, {{&w, &g, &velocity}, nullptr, {}}, [&] { torch_sgd_update_impl(w, g, velocity, p); });
}

void Backend::adam_update(Tensor& w, const Tensor& g, Tensor& m, Tensor& v, const AdamParams& p) {
  const OpCheck check(*this, Op::adam_update);
  checked_state(check, w, {{"g", &g}, {"m", &m}, {"v", &v}});
  check_adam_step(check, p);
  observed_call(*this, Op::adam_update, {{&w, &m, &v}, nullptr, {&g}}, [&] { adam_update_impl(w, g, m, v, p); });
}

std::int64_t Backend::linear_backward_weights_update(const Tensor& x, const Tensor& dy, Tensor& w,
                                                     const std::vector<Tensor*>& state, Tensor& dbias,
                                                     const UpdateParams& p, bool check_finite) {
  const OpCheck check(*this, Op::linear_backward_weights_update);
  const std::int64_t n = check.weight_gradient(x, dy, "w", w, dbias);
  if (state.size() != update_state_count(p))
    check.fail(std::to_string(state.size()) + " state tensors; the update keeps " + std::to_string(update_state_count(p)));
  for (const Tensor* t : state) check.like_shape("state", *t, w, w.shape());
  if (const auto* adam = std::get_if<AdamParams>(&p)) check_adam_step(check, *adam);
  OpWrites writes{{&w, &dbias}, nullptr, {&x, &dy}};
  for (std::size_t k = 0; k < state.size(); ++k) writes.outputs[2 + k] = state[k];
  // Its FLOPs are the product's (2 N I O); the update's few per weight are not counted.
  return observed_call(*this, Op::linear_backward_weights_update, writes, [&] { return flops::linear(w, n); },
                       [&] { return linear_backward_weights_update_impl(x, dy, w, state, dbias, p, check_finite); });
}

std::int64_t Backend::linear_backward_weights_update_impl(const Tensor& x, const Tensor& dy, Tensor& w,
                                                          const std::vector<Tensor*>& state, Tensor& dbias,
                                                          const UpdateParams& p, bool check_finite) {
  if (unfused_gradient_.numel() < w.numel() || unfused_gradient_.dtype() != w.dtype() ||
      unfused_gradient_.device() != w.device())
    unfused_gradient_ = Tensor({w.numel()}, w.dtype(), &allocator());
  Tensor dw = unfused_gradient_.slice0(0, w.numel()).reshaped(w.shape());
  linear_backward_weights_impl(x, dy, dw, dbias);
  // A device's gradient is summed there first (as check_finite_gradients does) and copied to
  // the host only when the sum is not finite.
  const bool device = dw.device() != Device::cpu;
  if (check_finite && (!device || !std::isfinite(sum_squares_impl(dw)))) {
    Tensor host = dw;
    if (device) {
      host = Tensor(dw.shape(), dw.dtype());
      copy_impl(dw, host);
    }
    const std::int64_t bad = host.dtype() == DType::f64 ? count_non_finite(host.data<double>(), host.numel())
                                                         : count_non_finite(host.data<float>(), host.numel());
    if (bad > 0) return bad;
  }
  std::visit(
      [&](const auto& params) {
        using P = std::decay_t<decltype(params)>;
        if constexpr (std::is_same_v<P, CaffeSgdParams>) caffe_sgd_update_impl(w, dw, *state[0], params);
        else if constexpr (std::is_same_v<P, TorchSgdParams>) torch_sgd_update_impl(w, dw, *state[0], params);
        else adam_update_impl(w, dw, *state[0], *state[1], params);
      },
      p);
  return 0;
}

}  // namespace ablate::kernels
