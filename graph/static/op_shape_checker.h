// The checks shape inference makes of a node's inputs (op_shapes.cpp and the attention ops'
// op_shapes_attention.cpp): each failure throws std::invalid_argument naming the node, its op,
// the input and what was expected. Private to graph/static's shape rules.
#pragma once

#include <stdexcept>
#include <string>
#include <utility>

#include "graph/static/graph_ir.h"

namespace ablate::graph::static_graph {

class Checker {
 public:
  Checker(const Graph& g, const Node& n) : g_(g), n_(n) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw std::invalid_argument("static graph: node '" + n_.name + "' (" + op_name(n_.op) + "): " + what);
  }
  const TensorType& in(std::size_t k) const { return g_.type(n_.inputs[k]); }
  const kernels::Shape& shape(std::size_t k) const { return in(k).shape; }
  std::string desc(std::size_t k) const { return "input " + std::to_string(k) + " " + g_.describe(n_.inputs[k]); }

  void arity(std::size_t least, std::size_t most) const {
    const std::size_t got = n_.inputs.size();
    if (got < least || got > most)
      fail("has " + std::to_string(got) + " inputs; expected " + std::to_string(least) +
           (most != least ? " to " + std::to_string(most) : std::string()));
  }
  void dims(std::size_t k, int d, const char* layout) const {
    if (static_cast<int>(shape(k).size()) != d) fail(desc(k) + " is not " + layout);
  }
  void dtype(std::size_t k, kernels::DType want) const {
    if (in(k).dtype != want) fail(desc(k) + " has dtype " + kernels::dtype_name(in(k).dtype) + "; expected " +
                                  kernels::dtype_name(want));
  }
  void host(std::size_t k) const {
    if (!in(k).host) fail(desc(k) + " is not a host scalar");
  }
  // Inputs a and b must have equal shapes (and dtypes).
  void same(std::size_t a, std::size_t b) const {
    if (shape(a) != shape(b) || in(a).dtype != in(b).dtype) fail(desc(a) + " and " + desc(b) + " differ; expected equal shapes");
  }
  // Input k must have shape `want`.
  void exactly(std::size_t k, const kernels::Shape& want, const std::string& why) const {
    if (shape(k) != want) fail(desc(k) + " does not fit " + desc(0) + "; expected " + kernels::shape_string(want) + " (" + why + ")");
  }
  // Output of `shape` with input k's dtype, a host scalar when input k is one.
  TensorType like(std::size_t k, kernels::Shape s) const { return {std::move(s), in(k).dtype, in(k).host}; }

 private:
  const Graph& g_;
  const Node& n_;
};

// The output types of the attention ops (op_kind.h: reshape, permute, batched_matmul,
// softmax_last, layer_norm and their gradients) and of fused_attention and its gradient.
std::vector<TensorType> attention_outputs(const Checker& c, const Node& n);
std::vector<TensorType> fused_attention_outputs(const Checker& c, const Node& n);

}  // namespace ablate::graph::static_graph
