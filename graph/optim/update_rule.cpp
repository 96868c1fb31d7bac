// The optimizers' update of one parameter (see update_rule.h).
#include "graph/optim/update_rule.h"

namespace ablate::graph {

int optimizer_state_count(const std::string& type) { return type == "adam" || type == "adamw" ? 2 : 1; }

void apply_update(kernels::Backend& backend, const OptimizerConfig& config, const UpdateStep& step, double lr_mult,
                  double decay_mult, kernels::Tensor& value, kernels::Tensor& grad, kernels::Tensor* const* state) {
  const double lr = step.rate * lr_mult;
  const double decay = config.weight_decay * decay_mult;
  const std::string& type = config.type;
  if (type == "caffe_sgd") {
    backend.caffe_sgd_update(value, grad, *state[0], {lr, config.momentum, decay});
  } else if (type == "torch_sgd" || type == "gd") {
    const bool gd = type == "gd";
    kernels::TorchSgdParams p;
    p.lr = lr;
    p.momentum = gd ? 0.0 : config.momentum;
    p.dampening = gd ? 0.0 : config.dampening;
    p.weight_decay = decay;
    p.nesterov = gd ? false : config.nesterov;
    p.first_step = step.first_update;
    backend.torch_sgd_update(value, grad, *state[0], p);
  } else {  // adam, adamw
    if (type == "adamw") {
      // Loshchilov & Hutter's decoupled weight decay, torch.optim.AdamW: w <- w (1 - lr decay),
      // then the Adam step on the plain gradient
      if (decay != 0) backend.scale(value, 1.0 - lr * decay);
    } else if (decay != 0) {
      backend.axpy(decay, value, grad);  // L2 in the loss, as TF's models write it
    }
    kernels::AdamParams p;
    p.lr = lr;
    p.beta1 = config.beta1;
    p.beta2 = config.beta2;
    p.epsilon = config.epsilon;
    p.t = step.iteration + 1;
    backend.adam_update(value, grad, *state[0], *state[1], p);
  }
}

}  // namespace ablate::graph
