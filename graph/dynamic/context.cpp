// Host scalars and the workspace memory of the tape's Context (see context.h).
#include "graph/dynamic/context.h"

#include "graph/blocked_layers.h"
#include "kernels/op_label.h"

namespace ablate::graph::dynamic {

Context::Context(kernels::Backend& backend, kernels::Allocator& allocator, kernels::Allocator& host_allocator)
    : backend_(backend), allocator_(allocator), host_allocator_(host_allocator) {}

int Context::conv_output_block(kernels::DType dtype, std::int64_t channels) const {
  if (!blocked_layout_) return 0;
  return graph::conv_output_block(backend_.channel_block_for(dtype, kernels::current_op_label().layer), channels);
}

kernels::Tensor Context::host_scalar(double value) const {
  kernels::Tensor t({1}, kernels::DType::f64, &host_allocator_);
  t.data<double>()[0] = value;
  return t;
}

kernels::Tensor Context::to_device(const kernels::Tensor& host, kernels::DType dtype) const {
  kernels::Tensor t = empty(host.shape(), dtype);
  if (t.device() == kernels::Device::cpu) {
    t.copy_from(host);  // a memcpy, or the f32 <-> f64 conversion of the input
  } else if (host.dtype() == dtype) {
    backend_.copy(host, t);
  } else {
    kernels::Tensor converted(host.shape(), dtype, &host_allocator_);
    converted.copy_from(host);
    backend_.copy(converted, t);
  }
  return t;
}

kernels::Tensor Context::workspace(const WorkspaceKey& key) const {
  auto it = workspaces_.find(key);
  if (it == workspaces_.end()) return {};
  const WorkspaceKind& kind = it->second;
  return kernels::Tensor(kind.shape, kind.dtype, &allocator_).with_channel_block(kind.channel_block);
}

void Context::remember_workspace(const WorkspaceKey& key, const kernels::Tensor& filled) {
  if (filled.empty() || workspaces_.count(key)) return;
  workspaces_.emplace(key, WorkspaceKind{filled.shape(), filled.dtype(), filled.channel_block()});
}

}  // namespace ablate::graph::dynamic
