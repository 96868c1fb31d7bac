// Gives a Backend by name ("reference", "eigen", "openblas", "onednn", "cuda" when built).
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "kernels/backend.h"

namespace ablate::kernels {

// Names of the backends compiled into this build, in a stable order.
std::vector<std::string> backend_names();
// A new backend with its thread setting applied; an unknown name throws an error that
// lists the known ones.
std::unique_ptr<Backend> make_backend(const std::string& name, int threads = 1);

}  // namespace ablate::kernels
