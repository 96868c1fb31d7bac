// The onednn backend's convolution autotuner (ConvLayout::autotune, conv_layout.h): of the
// primitives built for one convolution in each concrete layout, the one that runs fastest on
// the call's own tensors is kept, as cuDNN's cudnnFind and PyTorch's cudnn.benchmark do.
#pragma once

#include <initializer_list>
#include <memory>
#include <string>
#include <vector>

#include "kernels/onednn/primitive_cache.h"

namespace ablate::kernels::onednn {

// The fastest of `candidates` on `bindings`: each runs once to warm up (first touch of its
// buffers), then `timed_runs` rounds run each once; the lowest wall time of a single run
// wins and is returned with its label set to its name in `names`.
std::unique_ptr<CachedPrimitive> fastest(std::vector<std::unique_ptr<CachedPrimitive>> candidates,
                                         const std::vector<std::string>& names, dnnl::stream& stream,
                                         std::initializer_list<Binding> bindings, int timed_runs = 3);

}  // namespace ablate::kernels::onednn
