// Factory of the eigen backend (see eigen_backend.cpp for what it reproduces).
#pragma once

#include <memory>

#include "kernels/backend.h"

namespace ablate::kernels {

std::unique_ptr<Backend> make_eigen_backend();

}  // namespace ablate::kernels
