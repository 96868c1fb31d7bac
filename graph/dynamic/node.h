// Node: one recorded op of the tape (PyTorch's autograd Node, Torch7's module backward). It
// keeps what its backward needs (inputs, output, workspaces) and an edge per input: to the
// node that made that input, or to a leaf that requires a gradient, or nothing.
// InputGrads is how a node's backward hands gradients to its inputs: out(i) gives a tensor to
// write input i's gradient into (the Backend's backward ops overwrite their outputs), and the
// tape adds it to what input i has received from its other uses; pass(i, g) hands on a
// gradient unchanged (identity ops: bias add, reshape, add).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <string_view>
#include <vector>

#include "graph/dynamic/variable.h"

namespace ablate::graph::dynamic {

class Node;

struct Edge {
  std::shared_ptr<Node> node;          // an input made by an op: its gradient goes to node->grad
  std::shared_ptr<VariableImpl> leaf;  // a leaf input that requires a gradient: to leaf->grad
  bool wanted() const { return node != nullptr || leaf != nullptr; }
};

class InputGrads {
 public:
  InputGrads(Context& context, Node& node) : context_(context), node_(node) {}
  InputGrads(const InputGrads&) = delete;
  InputGrads& operator=(const InputGrads&) = delete;

  kernels::Backend& backend() const { return context_.backend(); }
  Context& context() const { return context_; }
  // Whether input i needs a gradient at all.
  bool wanted(std::size_t i) const;
  // The tensor to write input i's gradient into (shape and dtype of that input; overwritten
  // by the caller). It is the input's own gradient when this is the first one it receives,
  // else a temporary that finish() adds to it. Call at most once per input.
  // `channel_block`: the input's layout (kernels/tensor.h), a blocked input's gradient in it.
  kernels::Tensor& out(std::size_t i, const kernels::Shape& shape, kernels::DType dtype, int channel_block = 0);
  kernels::Tensor& out(std::size_t i, const kernels::Tensor& like) {
    return out(i, like.shape(), like.dtype(), like.channel_block());
  }
  // Input i's gradient is `g` itself: shared when it is the input's first gradient (once per
  // backward call, so that two inputs never share storage), else copied or added. A later
  // pass of g to the input that shares it (add(a, a)) sums into a new tensor, leaving g as it
  // was for the inputs after it.
  void pass(std::size_t i, const kernels::Tensor& g);
  // Adds the temporaries of out() to their inputs' gradients (the tape calls it).
  void finish();

 private:
  struct Pending {
    kernels::Tensor* target = nullptr;
    kernels::Tensor temp;
  };
  // Input i's gradient tensor; `first` tells whether it has received nothing yet.
  kernels::Tensor& target(std::size_t i, const kernels::Shape& shape, kernels::DType dtype, int channel_block,
                          bool& first);

  Context& context_;
  Node& node_;
  // The accumulations of one node's backward: the first four inline (no allocation on the
  // tape's hot path), more (a concat of many inputs) in overflow_.
  Pending& next_pending();
  std::array<Pending, 4> pending_;
  std::size_t pending_count_ = 0;
  std::deque<Pending> overflow_;  // a deque: out() hands out references to its elements
  bool shared_ = false;
  Node* shared_with_ = nullptr;  // the input node whose gradient is pass()'s g itself
};

class Node {
 public:
  virtual ~Node() = default;
  virtual const char* name() const = 0;  // "conv2d", "relu", ...
  // From dy, the gradient of the op's output, writes the gradient of each wanted input.
  virtual void backward(const kernels::Tensor& dy, InputGrads& grads) = 0;
  // The tensors kept for backward (PyTorch's saved tensors): what the tape holds alive.
  virtual std::vector<kernels::Tensor*> saved() { return {}; }
  // Drops them (once backward has run, as PyTorch frees the graph).
  void release() {
    for (kernels::Tensor* t : saved()) *t = {};
  }

  std::vector<Edge> edges;     // one per input, in the op's argument order
  std::uint64_t sequence = 0;  // position on the tape: every input was made earlier
  kernels::Tensor grad;        // the output's gradient, accumulated during backward
  std::uint64_t visit = 0;     // backward's reachability mark
  bool released = false;       // backward has run and the saved tensors are gone
  std::string_view layer;      // the model layer that recorded it (kernels/op_label.h), or empty
};

}  // namespace ablate::graph::dynamic
