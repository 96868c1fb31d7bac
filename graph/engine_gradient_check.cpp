// Central differences through the Engine interface (see engine_gradient_check.h).
#include "graph/engine_gradient_check.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include "kernels/op_label.h"

namespace ablate::graph {
namespace {

// Copies the gradient of parameter `name` as the update op of that parameter receives it.
class GradientCatcher final : public kernels::OpObserver {
 public:
  explicit GradientCatcher(const std::string& name) : name_(name), in_graph_("update/" + name) {}
  void begin(kernels::OpCall& call) override {
    const kernels::OpLabel& label = kernels::current_op_label();
    if (label.entry != name_ && label.entry != in_graph_) return;
    const kernels::Tensor* g = nullptr;
    if (call.op == kernels::Op::caffe_sgd_update || call.op == kernels::Op::torch_sgd_update) g = call.writes.outputs[1];
    if (call.op == kernels::Op::adam_update) g = call.writes.inputs[0];
    if (g != nullptr && caught.empty()) caught = g->clone();
  }
  void end(const kernels::OpCall&, bool) override {}
  kernels::Tensor caught;

 private:
  std::string name_, in_graph_;
};

}  // namespace

double central_difference(const std::function<double()>& loss, kernels::Tensor& data, std::int64_t i, double eps) {
  const double v = data.at(i);
  data.set(i, v + eps);
  const double plus = loss();
  data.set(i, v - eps);
  const double minus = loss();
  data.set(i, v);
  return (plus - minus) / (2 * eps);
}

std::vector<GradientSample> check_parameter_gradient(Engine& engine, const std::string& name, const kernels::Tensor& x,
                                                     const kernels::Tensor& labels, std::int64_t iteration, int count,
                                                     double eps) {
  const std::vector<Parameter*> params = engine.parameters();
  auto it = std::find_if(params.begin(), params.end(), [&](const Parameter* p) { return p->name == name; });
  if (it == params.end()) {
    std::string known;
    for (const Parameter* p : params) known += (known.empty() ? "" : ", ") + p->name;
    throw std::invalid_argument("--parameter '" + name + "': the model has no such parameter; it has " + known);
  }
  kernels::Tensor& w = (*it)->value;
  if (w.dtype() != kernels::DType::f64 || w.device() != kernels::Device::cpu)
    throw std::invalid_argument("--parameter '" + name + "' is " + w.describe() +
                                (w.device() == kernels::Device::cpu ? "" : " on a device") +
                                "; the gradient check needs f64 on a host backend (--precision f64)");
  std::vector<kernels::Tensor> saved;
  for (const Parameter* p : params) saved.push_back(p->value.clone());
  auto restore = [&] {
    for (std::size_t i = 0; i < params.size(); ++i) params[i]->value.copy_from(saved[i]);
  };
  auto loss_at = [&] {
    const double loss = engine.train_step(x, labels, iteration);
    restore();
    return loss;
  };

  GradientCatcher catcher(name);
  kernels::Backend& backend = engine.backend();
  kernels::OpObserver* previous = backend.observer();
  backend.set_observer(&catcher);
  try {
    loss_at();
  } catch (...) {
    backend.set_observer(previous);
    throw;
  }
  backend.set_observer(previous);
  if (catcher.caught.empty())
    throw std::logic_error("gradient check of " + name + ": no update op of that parameter ran in " + engine.strategy() +
                           (engine.strategy() == "static"
                                ? " (the update_fusion pass folds a fully connected layer's weight gradient into its "
                                  "update, never forming it whole: run without it, --passes all,-update_fusion)"
                                : ""));

  std::vector<GradientSample> out;
  const std::int64_t n = w.numel(), samples = std::min<std::int64_t>(std::max(count, 1), n);
  for (std::int64_t k = 0; k < samples; ++k) {
    GradientSample s;
    s.index = samples == 1 ? 0 : k * (n - 1) / (samples - 1);
    s.analytic = catcher.caught.at(s.index);
    s.numeric = central_difference(loss_at, w, s.index, eps);  // loss_at puts every parameter back
    s.relative_error = std::abs(s.analytic - s.numeric) / std::max(1e-8, std::abs(s.analytic) + std::abs(s.numeric));
    out.push_back(s);
  }
  return out;
}

}  // namespace ablate::graph
