// Factory of the reference backend: plain single-threaded C++ loops, the oracle every other
// backend is tested against (see reference_backend_impl.h for the class).
#pragma once

#include <memory>

#include "kernels/backend.h"
#include "kernels/backend_options.h"

namespace ablate::kernels {

std::unique_ptr<Backend> make_reference_backend(const BackendOptions& options = {});

}  // namespace ablate::kernels
