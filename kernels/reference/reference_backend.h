// Factory of the reference backend (see reference_backend.cpp for what it reproduces).
#pragma once

#include <memory>

#include "kernels/backend.h"

namespace ablate::kernels {

std::unique_ptr<Backend> make_reference_backend();

}  // namespace ablate::kernels
