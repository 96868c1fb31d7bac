// Factory of the openblas backend (see openblas_backend.cpp for what it reproduces).
#pragma once

#include <memory>

#include "kernels/backend.h"
#include "kernels/backend_options.h"

namespace ablate::kernels {

std::unique_ptr<Backend> make_openblas_backend(const BackendOptions& options = {});

}  // namespace ablate::kernels
