// Helpers that turn the interface's plain tensors into oneDNN memory descriptors, and the
// workspace handling of pooling and LRN. The arguments arrive checked by the Backend's contract.
#pragma once

#include <string>

#include <oneapi/dnnl/dnnl.hpp>

#include "kernels/contract/op_check.h"
#include "kernels/onednn/primitive_cache.h"
#include "kernels/tensor.h"

namespace ablate::kernels::onednn {

using dnnl::memory;
using tag = dnnl::memory::format_tag;

inline memory::dims dims_of(const Shape& shape) { return memory::dims(shape.begin(), shape.end()); }

// f32 descriptor of `dims` in layout `t` (nchw, oihw, nc, oi, x, a, any).
inline memory::desc f32_md(const memory::dims& dims, tag t) {
  return memory::desc(dims, memory::data_type::f32, t);
}

// The caller-side layout of an activation tensor: nchw, nChw8c / nChw16c when it is
// channel-blocked in the library's blocks (kernels/tensor.h), nhwc when its one block holds
// all its channels otherwise (channels-last, Tensor::channels_last; with 8 or 16 channels the
// two name one layout).
tag activation_tag(const Tensor& t);
// Whether t is in one of the library's own channel blocks (nChw8c, nChw16c).
bool library_blocked(const Tensor& t);
// The layout tag of channel block `block` (0: nchw).
tag channel_block_tag(int block);

// A forward op's workspace: (re)allocates `workspace` as u8[bytes] unless it already is.
void ensure_workspace(Tensor& workspace, std::size_t bytes);
// A backward op's workspace: fails `check` unless it is u8[bytes] as `producer` left it.
void check_workspace(const OpCheck& check, const Tensor& workspace, std::size_t bytes, const char* producer);

// The last slots of a pooling or LRN entry: records pd's workspace size in `entry` and, when
// the implementation has one, adds it as an output (forward) or an input (backward); then the
// scratchpad.
void add_workspace_and_scratchpad(CachedPrimitive& entry, const dnnl::engine& engine,
                                  const dnnl::primitive_desc_base& pd, bool forward);
// Runs a forward pooling or LRN entry x -> y, binding `workspace` (made u8[bytes] first) when
// the entry has one.
void run_forward_with_workspace(CachedPrimitive& prim, dnnl::stream& stream, const Tensor& x, Tensor& y,
                                Tensor& workspace);

}  // namespace ablate::kernels::onednn
