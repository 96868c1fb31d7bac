// Forward of the batch normalisation module (see batch_norm_module.h).
#include "graph/dynamic/batch_norm_module.h"

#include "graph/batch_norm_statistics.h"
#include "graph/dynamic/module_factory.h"
#include "graph/dynamic/ops.h"

namespace ablate::graph::dynamic {

BatchNormModule::BatchNormModule(const models::LayerSpec& spec, std::vector<Variable> parameters,
                                 std::vector<kernels::Tensor> state)
    : Module(spec, std::move(parameters)), params_(models::batch_norm_params(spec)), state_(std::move(state)) {
  expect_parameters(params_.affine ? 2 : 0);
  const std::size_t want = params_.style == models::MomentumStyle::torch ? 2 : 3;
  if (state_.size() != want)
    fail("given " + std::to_string(state_.size()) + " state tensors; expected " + std::to_string(want));
}

Variable BatchNormModule::forward(const Variable& x, const ForwardContext& context) {
  const kernels::Tensor& v = x.value();
  if ((v.ndim() != 2 && v.ndim() != 4) || v.dim(1) != state_[0].dim(0))
    fail("expects an input [N, " + std::to_string(state_[0].dim(0)) + "] or [N, " + std::to_string(state_[0].dim(0)) +
         ", H, W], got " + v.describe());
  static const Variable none;
  const Variable& weight = params_.affine ? parameter(0) : none;
  const Variable& bias = params_.affine ? parameter(1) : none;
  kernels::Backend& backend = x.context().backend();
  if (context.train) {
    if (context.sample >= 0)
      fail("cannot train one sample at a time (Torch's per-sample mode): each sample would be normalised by its own "
           "statistics; train with whole batches");
    kernels::Tensor mean, var;
    Variable y = batch_norm(x, weight, bias, params_.epsilon, mean, var);
    std::vector<kernels::Tensor*> state;
    for (kernels::Tensor& t : state_) state.push_back(&t);
    update_running_statistics(backend, params_, values_per_channel(v.shape()), mean, var, state);
    return y;
  }
  kernels::Tensor mean = x.context().empty({v.dim(1)}, v.dtype()), var = x.context().empty({v.dim(1)}, v.dtype());
  std::vector<const kernels::Tensor*> state;
  for (const kernels::Tensor& t : state_) state.push_back(&t);
  inference_statistics(backend, params_, state, mean, var);
  return batch_norm_inference(x, weight, bias, mean, var, params_.epsilon);
}

ABLATE_DYNAMIC_MODULE(batch_norm, module_maker<BatchNormModule>());

}  // namespace ablate::graph::dynamic
