// Capture and restore of an engine's state (see engine_checkpoint.h).
#include "graph/engine_checkpoint.h"

#include <stdexcept>
#include <string>

#include "graph/optim/optimizer.h"
#include "graph/optim/weight_average.h"

namespace ablate::graph {

namespace {

// Every (name, live tensor) pair of the engine's state, in a fixed order; `state` keeps the
// engine's state tensors alive for the pointers. The optimizer's state is made (zeros) if no
// step has run yet, so every checkpoint holds it.
std::vector<std::pair<std::string, kernels::Tensor*>> checkpoint_tensors(Engine& engine, std::vector<StateTensor>& state) {
  Engine::OwnState own;
  if (engine.own_state(own)) return own.tensors;  // the running statistics among its variables
  Optimizer* optimizer = engine.optimizer();
  if (!optimizer)
    throw std::invalid_argument("strategy '" + engine.strategy() + "' does not expose its optimizer: no checkpoints");
  const std::vector<Parameter*> params = engine.parameters();
  optimizer->prepare_resume(params, optimizer->updates());
  std::vector<std::pair<std::string, kernels::Tensor*>> out;
  WeightAverage* average = engine.weight_average();
  for (std::size_t i = 0; i < params.size(); ++i) {
    out.emplace_back(params[i]->name, &params[i]->value);
    const auto slots = optimizer->state(i);
    for (std::size_t k = 0; k < slots.size(); ++k)
      out.emplace_back(params[i]->name + ".state" + std::to_string(k), slots[k]);
    if (average) out.emplace_back(params[i]->name + ".average", &average->shadows().at(i));
  }
  state = engine.state_tensors();
  for (StateTensor& s : state) out.emplace_back(s.name, &s.value);
  return out;
}

}  // namespace

void capture_engine_state(Engine& engine, Checkpoint& checkpoint) {
  kernels::Backend& backend = engine.backend();
  backend.synchronize();
  std::vector<StateTensor> state;
  for (const auto& [name, live] : checkpoint_tensors(engine, state)) {
    kernels::Tensor host(live->shape(), live->dtype());
    if (live->device() == kernels::Device::cpu)
      host.copy_from(*live);
    else
      backend.copy(*live, host);
    checkpoint.tensors.emplace_back(name, std::move(host));
  }
  checkpoint.metadata["strategy"] = engine.strategy();
  Engine::OwnState own;
  const std::int64_t updates = engine.own_state(own) ? *own.updates : engine.optimizer()->updates();
  checkpoint.metadata["optimizer_updates"] = std::to_string(updates);
}

void restore_engine_state(Engine& engine, const Checkpoint& checkpoint) {
  std::vector<StateTensor> state;
  const auto live = checkpoint_tensors(engine, state);
  for (const auto& [name, tensor] : live) {  // check everything before changing anything
    const kernels::Tensor* saved = nullptr;
    for (const auto& [n, t] : checkpoint.tensors)
      if (n == name) saved = &t;
    if (!saved) throw std::invalid_argument("checkpoint of another model or optimizer: it has no tensor '" + name + "'");
    if (saved->shape() != tensor->shape() || saved->dtype() != tensor->dtype())
      throw std::invalid_argument("checkpoint of another model: tensor '" + name + "' is " + saved->describe() +
                                  " in the checkpoint and " + tensor->describe() + " in this run");
  }
  const std::string& updates_text = checkpoint.meta("optimizer_updates");
  std::int64_t updates = 0;
  try {
    updates = std::stoll(updates_text);
  } catch (const std::exception&) {
    throw std::invalid_argument("checkpoint metadata optimizer_updates '" + updates_text + "' is not a count");
  }
  for (const auto& [name, tensor] : live) {
    const kernels::Tensor& saved = checkpoint.tensor(name);
    if (tensor->device() == kernels::Device::cpu)
      tensor->copy_from(saved);
    else
      engine.backend().copy(saved, *tensor);
  }
  Engine::OwnState own;
  if (engine.own_state(own))
    *own.updates = updates;
  else
    engine.optimizer()->prepare_resume(engine.parameters(), updates);
}

}  // namespace ablate::graph
