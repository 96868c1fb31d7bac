// Factory of the dynamic strategy: eager ops recorded on a tape and run backward in reverse
// order, as Torch7 and PyTorch train (see dynamic_engine.cpp, autograd.h, sequential.h).
// Reached through the table of strategies (graph/engine.h make_engine), which checks the
// options first.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "graph/engine.h"

namespace ablate::graph::dynamic {

std::unique_ptr<Engine> make_dynamic_engine(const models::CheckedModel& model, kernels::Backend& backend,
                                            const EngineOptions& options);
// The catalogued layer types without a module (module_factory.h).
std::vector<std::string> missing_builders();

}  // namespace ablate::graph::dynamic
