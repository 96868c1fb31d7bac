// Which layers a strategy that keeps a channel-blocked layout between its layers (the
// layer-wise --blocked-layout, graph/layerwise/net.h; the dynamic strategy's, graph/dynamic/
// context.h) lets read a blocked input (kernels/tensor.h), and in which layout a convolution
// writes. Intel Caffe's MKL-DNN engine and Intel's MKL-DNN Torch kept such private layouts in
// their blobs and tensors the same way. (The static strategy decides per value in its
// blocked_layout pass, graph/static/blocked_layout_pass.cpp, with rules of its own for the
// graph's ops, and conv_output_block below.)
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace ablate::graph {

// Convolution, pooling, LRN and batch norm: blocked where their layer's backend runs a block.
inline bool blocked_layer_type(const std::string& type) {
  return type == "convolution" || type == "pooling" || type == "lrn" || type == "batch_norm";
}
// The elementwise activations: any one layout.
inline bool elementwise_layer_type(const std::string& type) {
  return type == "relu" || type == "sigmoid" || type == "tanh" || type == "gelu";
}

// Whether a layer of `type` whose backend runs channel block `layer_block` (0: none) takes its
// inputs, of blocks `input_blocks`, as they are: the types above; an add whose inputs share one
// blocked layout (with none known yet, it may); nothing else.
inline bool layer_takes_blocked(const std::string& type, int layer_block, const std::vector<int>& input_blocks) {
  if (blocked_layer_type(type)) return layer_block > 0;
  if (elementwise_layer_type(type)) return true;
  if (type == "add")
    return input_blocks.empty() ||
           (input_blocks[0] > 0 && std::all_of(input_blocks.begin(), input_blocks.end(),
                                               [&](int b) { return b == input_blocks[0]; }));
  return false;
}

// The layout of a convolution's output of `channels` channels on a backend of block `block`:
// the block where it divides the channels, channels-last (a block of all of them) where not;
// 0 without a block.
inline int conv_output_block(int block, std::int64_t channels) {
  if (block <= 0 || channels <= 0) return 0;
  return channels % block == 0 ? block : static_cast<int>(channels);
}

}  // namespace ablate::graph
