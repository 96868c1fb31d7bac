// The optimizers' update of one parameter (see update_rule.h).
#include "graph/optim/update_rule.h"

#include <type_traits>
#include <variant>

namespace ablate::graph {

int optimizer_state_count(const std::string& type) { return type == "adam" || type == "adamw" ? 2 : 1; }

std::optional<kernels::UpdateParams> update_params(const OptimizerConfig& config, const UpdateStep& step, double lr_mult,
                                                   double decay_mult) {
  const double lr = step.rate * lr_mult;
  const double decay = config.weight_decay * decay_mult;
  const std::string& type = config.type;
  if (type == "caffe_sgd") return kernels::CaffeSgdParams{lr, config.momentum, decay};
  if (type == "torch_sgd" || type == "gd") {
    const bool gd = type == "gd";
    kernels::TorchSgdParams p;
    p.lr = lr;
    p.momentum = gd ? 0.0 : config.momentum;
    p.dampening = gd ? 0.0 : config.dampening;
    p.weight_decay = decay;
    p.nesterov = gd ? false : config.nesterov;
    p.first_step = step.first_update;
    return p;
  }
  if (decay != 0) return std::nullopt;  // adam's L2 term or adamw's decoupled decay: a pass of its own
  kernels::AdamParams p;
  p.lr = lr;
  p.beta1 = config.beta1;
  p.beta2 = config.beta2;
  p.epsilon = config.epsilon;
  p.t = step.iteration + 1;
  return p;
}

void apply_update(kernels::Backend& backend, const OptimizerConfig& config, const UpdateStep& step, double lr_mult,
                  double decay_mult, kernels::Tensor& value, kernels::Tensor& grad, kernels::Tensor* const* state) {
  const double lr = step.rate * lr_mult;
  const double decay = config.weight_decay * decay_mult;
  const bool adam_decay = decay != 0 && (config.type == "adam" || config.type == "adamw");
  if (adam_decay && config.type == "adamw")
    // Loshchilov & Hutter's decoupled weight decay, torch.optim.AdamW: w <- w (1 - lr decay),
    // then the Adam step on the plain gradient
    backend.scale(value, 1.0 - lr * decay);
  else if (adam_decay)
    backend.axpy(decay, value, grad);  // L2 in the loss, as TF's models write it
  // Adam's decay is done above: its step then takes the gradient as it is (decay_mult 0).
  std::visit(
      [&](const auto& p) {
        using P = std::decay_t<decltype(p)>;
        if constexpr (std::is_same_v<P, kernels::CaffeSgdParams>) backend.caffe_sgd_update(value, grad, *state[0], p);
        else if constexpr (std::is_same_v<P, kernels::TorchSgdParams>) backend.torch_sgd_update(value, grad, *state[0], p);
        else backend.adam_update(value, grad, *state[0], *state[1], p);
      },
      *update_params(config, step, lr_mult, adam_decay ? 0.0 : decay_mult));
}

}  // namespace ablate::graph
