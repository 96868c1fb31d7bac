// The shared Optimizer: state tensors, the gradient hook and checks around the update rule
// of graph/optim/update_rule.h (see optimizer.h).
#include "graph/optim/optimizer.h"

#include <stdexcept>
#include <string>

#include "graph/optim/gradient_check.h"
#include "graph/optim/update_rule.h"
#include "kernels/op_label.h"

namespace ablate::graph {

Optimizer::Optimizer(const OptimizerConfig& config, kernels::Backend& backend)
    : config_(config), backend_(backend) {
  validate(config_);
}

double Optimizer::learning_rate(std::int64_t iteration) const {
  return graph::learning_rate(config_.lr, iteration);
}

void Optimizer::allocate_state(const std::vector<Parameter*>& params) {
  const bool adam = optimizer_state_count(config_.type) == 2;
  slots_.clear();
  slots_.reserve(params.size());
  for (const Parameter* p : params) {
    const kernels::OpLabelScope label({"update", kernels::layer_of_parameter(p->name), p->name});
    Slot slot;
    slot.first = kernels::Tensor(p->value.shape(), p->value.dtype(), &backend_.allocator());
    backend_.fill(slot.first, 0.0);
    if (adam) {
      slot.second = kernels::Tensor(p->value.shape(), p->value.dtype(), &backend_.allocator());
      backend_.fill(slot.second, 0.0);
    }
    slots_.push_back(std::move(slot));
  }
}

void Optimizer::check_same_parameters(const std::vector<Parameter*>& params) const {
  if (params.size() != slots_.size())
    throw std::invalid_argument("optimizer step with " + std::to_string(params.size()) +
                                " parameters; the optimizer state holds " + std::to_string(slots_.size()));
  for (std::size_t i = 0; i < params.size(); ++i)
    if (params[i]->value.shape() != slots_[i].first.shape() || params[i]->value.dtype() != slots_[i].first.dtype())
      throw std::invalid_argument("optimizer step: parameter " + params[i]->name + " is " +
                                  params[i]->value.describe() + "; its optimizer state is " +
                                  slots_[i].first.describe());
}

void Optimizer::step(const std::vector<Parameter*>& params, std::int64_t iteration) {
  if (updates_ == 0 && slots_.empty()) allocate_state(params);
  check_same_parameters(params);
  if (gradient_hook_) gradient_hook_(params);
  // After the hook: a distributed run checks the averaged gradients, the same on every rank.
  if (config_.check_gradients) check_finite_gradients(params, iteration, backend_);
  const UpdateStep update{learning_rate(iteration), iteration, updates_ == 0};
  for (std::size_t i = 0; i < params.size(); ++i) {
    Parameter& p = *params[i];
    if (p.grad.shape() != p.value.shape() || p.grad.dtype() != p.value.dtype())
      throw std::invalid_argument("optimizer step: the gradient of " + p.name + " is " + p.grad.describe() +
                                  "; expected " + p.value.describe());
    kernels::Tensor* const state[] = {&slots_[i].first, &slots_[i].second};
    const kernels::OpLabelScope label({"update", kernels::layer_of_parameter(p.name), p.name});
    apply_update(backend_, config_, update, p.lr_mult, p.decay_mult, p.value, p.grad, state);
  }
  ++updates_;
}

void Optimizer::prepare_resume(const std::vector<Parameter*>& params, std::int64_t updates) {
  if (updates < 0) throw std::invalid_argument("optimizer resume at " + std::to_string(updates) + " updates");
  if (slots_.empty()) allocate_state(params);
  check_same_parameters(params);
  updates_ = updates;
}

std::vector<kernels::Tensor*> Optimizer::state(std::size_t i) {
  if (slots_.empty()) return {};
  if (i >= slots_.size())
    throw std::out_of_range("optimizer state of parameter " + std::to_string(i) + "; there are " +
                            std::to_string(slots_.size()));
  std::vector<kernels::Tensor*> out{&slots_[i].first};
  if (!slots_[i].second.empty()) out.push_back(&slots_[i].second);
  return out;
}

}  // namespace ablate::graph
