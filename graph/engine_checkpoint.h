// An engine's state as checkpoint tensors, the same for every strategy (they all train
// graph::Parameter with the shared Optimizer and WeightAverage):
//   "<parameter>"                  the value       ("conv1.weight")
//   "<parameter>.state0", ".state1" the optimizer's state (history / velocity / Adam m, v)
//   "<parameter>.average"          the weight average's shadow
//   "<layer>.<state>"              a state tensor (Engine::state_tensors: "bn1.running_mean")
// and metadata "strategy" and "optimizer_updates". An engine that keeps its optimizer state
// itself (Engine::own_state: the static strategy's variables "conv1.weight/momentum", whose
// store holds the state tensors by the same names) gives its tensors by its own names. Values are copied to the host to be saved
// and back to the backend's device to be restored.
#pragma once

#include "graph/checkpoint_file.h"
#include "graph/engine.h"

namespace ablate::graph {

// Adds the engine's tensors and metadata to `checkpoint`; throws std::invalid_argument if the
// engine has no shared optimizer (it cannot be checkpointed).
void capture_engine_state(Engine& engine, Checkpoint& checkpoint);
// Overwrites the engine's state from `checkpoint`. A checkpoint of another model (a missing
// tensor, another shape or dtype) throws std::invalid_argument naming the tensor and both
// shapes; the engine is then unchanged.
void restore_engine_state(Engine& engine, const Checkpoint& checkpoint);

}  // namespace ablate::graph
