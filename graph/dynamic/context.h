// Context: what every eager op of the tape needs besides its inputs: the Backend that runs it,
// the allocator its tensors come from (the caching allocator, or the backend's own), the host
// allocator for scalars (losses), the grad mode (torch.no_grad) and the sequence counter that
// orders the tape. PyTorch keeps these as global state (the current device, the
// CUDACachingAllocator, the thread's GradMode); here each engine owns one Context, and every
// Variable points to the Context it was made in.
#pragma once

#include <cstdint>
#include <map>
#include <utility>

#include "kernels/backend.h"

namespace ablate::graph::dynamic {

// Identifies the call site of an op with a backend-private workspace (see Context::workspace).
struct WorkspaceKey {
  int op = 0;  // the op's own tag (pooling kind, LRN)
  kernels::Shape input, output;
  bool operator<(const WorkspaceKey& other) const {
    return std::tie(op, input, output) < std::tie(other.op, other.input, other.output);
  }
};

class Context {
 public:
  // `allocator` makes the tape's tensors on the backend's device; `host_allocator` the host
  // scalars (for a host backend, the same allocator). Both must outlive every tensor made here.
  Context(kernels::Backend& backend, kernels::Allocator& allocator, kernels::Allocator& host_allocator);
  Context(const Context&) = delete;
  Context& operator=(const Context&) = delete;

  kernels::Backend& backend() const { return backend_; }
  kernels::Allocator& allocator() const { return allocator_; }
  kernels::Allocator& host_allocator() const { return host_allocator_; }
  // A tensor on the backend's device from the tape's allocator, its values whatever the
  // allocator left (torch.empty): every op that asks for one writes it whole (each kernel's
  // conformance cases start its outputs from random values, tests/kernels/conformance.h).
  // `channel_block`: its layout (kernels/tensor.h; 0, NCHW, unless the blocked layout below).
  kernels::Tensor empty(const kernels::Shape& shape, kernels::DType dtype, int channel_block = 0) const {
    return kernels::Tensor::uninitialized(shape, dtype, &allocator_).with_channel_block(channel_block);
  }
  // The same of t's shape, dtype and layout.
  kernels::Tensor empty_like(const kernels::Tensor& t) const { return empty(t.shape(), t.dtype(), t.channel_block()); }

  // The blocked layout (EngineOptions::blocked_layout; Intel's MKL-DNN builds of Torch and
  // PyTorch's to_mkldnn tensors): a convolution writes its output in its layer's backend's
  // channel block where the backend has one (channels-last where the block does not divide
  // the channels), batch norm, pooling, LRN and the elementwise ops keep their input's layout,
  // and Sequential converts a blocked input back to NCHW before any other layer
  // (graph/blocked_layers.h). Off: every tensor NCHW.
  bool blocked_layout() const { return blocked_layout_; }
  void set_blocked_layout(bool on) { blocked_layout_ = on; }
  // The layout a convolution of the current layer (kernels/op_label.h) writes an output of
  // `channels` channels in: 0 unless the blocked layout is on and the layer's backend has a
  // block B; then B where it divides the channels, else the channels (channels-last).
  int conv_output_block(kernels::DType dtype, std::int64_t channels) const;
  // `host` (f32, f64 or i32, on the host) copied to the backend's device as `dtype`, from the
  // tape's allocator (a batch and its labels entering the tape).
  kernels::Tensor to_device(const kernels::Tensor& host, kernels::DType dtype) const;
  // An f64 [1] host tensor holding `value`: losses and sums are host scalars, as the backend
  // returns them.
  kernels::Tensor host_scalar(double value) const;

  bool grad_enabled() const { return grad_enabled_; }
  void set_grad_enabled(bool enabled) { grad_enabled_ = enabled; }
  // The position of the next node on the tape (1, 2, ...).
  std::uint64_t next_sequence() { return ++sequence_; }

  // A backend fills pooling's argmax indices, LRN's scale or oneDNN's workspace into a tensor
  // it shapes itself (and allocates, when the tensor handed in does not fit). The context
  // remembers the shape and dtype the backend chose per call site, so that the next call's
  // workspace comes from the tape's allocator already fitting, and the backend allocates
  // nothing: workspace() is empty the first time, then a fresh tensor of the remembered kind.
  kernels::Tensor workspace(const WorkspaceKey& key) const;
  void remember_workspace(const WorkspaceKey& key, const kernels::Tensor& filled);

 private:
  kernels::Backend& backend_;
  kernels::Allocator& allocator_;
  kernels::Allocator& host_allocator_;
  bool grad_enabled_ = true;
  bool blocked_layout_ = false;
  std::uint64_t sequence_ = 0;
  struct WorkspaceKind {
    kernels::Shape shape;
    kernels::DType dtype;
    int channel_block;  // a blocked LRN's scale is in its input's layout
  };
  std::map<WorkspaceKey, WorkspaceKind> workspaces_;
};

// torch.no_grad(): while it lives, ops record nothing on the tape (evaluation).
class NoGradGuard {
 public:
  explicit NoGradGuard(Context& context) : context_(context), previous_(context.grad_enabled()) {
    context.set_grad_enabled(false);
  }
  ~NoGradGuard() { context_.set_grad_enabled(previous_); }
  NoGradGuard(const NoGradGuard&) = delete;
  NoGradGuard& operator=(const NoGradGuard&) = delete;

 private:
  Context& context_;
  bool previous_;
};

}  // namespace ablate::graph::dynamic
