// Factory of the onednn backend (see onednn_backend.cpp for what it reproduces).
#pragma once

#include <memory>
#include <vector>

#include "kernels/backend.h"
#include "kernels/backend_options.h"

namespace ablate::kernels {

std::unique_ptr<Backend> make_onednn_backend(const BackendOptions& options = {});
// The convolution lowerings it takes (kernels/cpu/conv_lowering.h), its default first.
std::vector<cpu::ConvLowering> onednn_conv_lowerings();

}  // namespace ablate::kernels
