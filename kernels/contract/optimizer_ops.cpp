// The contract of the optimizer updates (kernels/backend.h, kernels/op_params.h): the
// parameter w is float, its gradient and state tensors have w's dtype and shape; Adam's step
// counts from 1.
#include <initializer_list>
#include <utility>

#include "kernels/backend.h"
#include "kernels/contract/observed_call.h"
#include "kernels/contract/op_check.h"

namespace ablate::kernels {
namespace {

void checked_state(const OpCheck& check, const Tensor& w,
                   std::initializer_list<std::pair<const char*, const Tensor*>> state) {
  check.floating("w", w);
  for (auto [name, t] : state) check.like_shape(name, *t, w, w.shape());
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
  if (p.t < 1) check.fail("step t " + std::to_string(p.t) + ", expected at least 1 (the first update is t = 1)");
  observed_call(*this, Op::adam_update, {{&w, &m, &v}, nullptr, {&g}}, [&] { adam_update_impl(w, g, m, v, p); });
}

}  // namespace ablate::kernels
