// Factory of the dynamic strategy: eager ops recorded on a tape and run backward in reverse
// order, as Torch7 and PyTorch train (see dynamic_engine.cpp, autograd.h, sequential.h).
#pragma once

#include <memory>

#include "graph/engine.h"

namespace ablate::graph::dynamic {

std::unique_ptr<Engine> make_dynamic_engine(const models::ModelSpec& spec, kernels::Backend& backend,
                                            const EngineOptions& options);

}  // namespace ablate::graph::dynamic
