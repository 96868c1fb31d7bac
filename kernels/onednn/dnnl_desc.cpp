// Workspace handling of the onednn backend's pooling and LRN (see dnnl_desc.h).
#include "kernels/onednn/dnnl_desc.h"

#include <stdexcept>

namespace ablate::kernels::onednn {

void ensure_workspace(Tensor& workspace, std::size_t bytes) {
  const auto n = static_cast<std::int64_t>(bytes);
  if (workspace.empty() || workspace.dtype() != DType::u8 || workspace.numel() != n) workspace = Tensor({n}, DType::u8);
}

void check_workspace(const Tensor& workspace, std::size_t bytes, const char* op, const char* producer) {
  if (workspace.empty() || workspace.dtype() != DType::u8 || workspace.numel() != static_cast<std::int64_t>(bytes))
    throw std::invalid_argument(std::string(op) + ": workspace is " + workspace.describe() + ", expected u8[" +
                                std::to_string(bytes) + "] as filled by " + producer +
                                " of the onednn backend on the same shapes");
}

}  // namespace ablate::kernels::onednn
