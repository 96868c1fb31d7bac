// What every op of ops.h does after its forward: decide whether to record (gradients on and
// some input requiring one), and if so link the node to its inputs and wrap the output.
// Private to graph/dynamic/*_ops.cpp.
#pragma once

#include <initializer_list>
#include <memory>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "graph/dynamic/node.h"
#include "graph/dynamic/variable.h"
#include "kernels/op_label.h"

namespace ablate::graph::dynamic {

// The context of an op's inputs (the undefined ones, optional biases, are skipped); throws
// naming the op when an input is missing or the inputs come from different contexts.
template <class Inputs>
Context& op_context_of(const char* op, const Inputs& inputs) {
  Context* context = nullptr;
  for (const Variable* v : inputs) {
    if (!v->defined()) continue;
    if (context && &v->context() != context)
      throw std::invalid_argument(std::string(op) + ": inputs belong to different tape contexts");
    context = &v->context();
  }
  if (!context) throw std::invalid_argument(std::string(op) + ": its input is an undefined Variable");
  return *context;
}
inline Context& op_context(const char* op, std::initializer_list<const Variable*> inputs) {
  return op_context_of(op, inputs);
}
// The same for an op of any number of inputs (add of a list, concat).
inline Context& op_context(const char* op, const std::vector<const Variable*>& inputs) {
  return op_context_of(op, inputs);
}

template <class Inputs>
bool should_record_of(const Context& context, const Inputs& inputs) {
  if (!context.grad_enabled()) return false;
  for (const Variable* v : inputs)
    if (v->requires_grad()) return true;
  return false;
}
inline bool should_record(const Context& context, std::initializer_list<const Variable*> inputs) {
  return should_record_of(context, inputs);
}

// The op's output: a plain value when nothing is recorded, else the output of `node`, whose
// edges point at `inputs` (in argument order; an undefined or gradient-free input gets an
// empty edge). `make_node` runs only when recording.
template <class Inputs, class MakeNode>
Variable op_output_of(Context& context, kernels::Tensor value, const Inputs& inputs, MakeNode&& make_node) {
  if (!should_record_of(context, inputs)) return Variable(context, std::move(value));
  std::shared_ptr<Node> node = make_node();
  node->edges.reserve(inputs.size());
  for (const Variable* v : inputs) {
    Edge e;
    if (v->requires_grad()) {
      if (v->is_leaf())
        e.leaf = v->impl();
      else
        e.node = v->node();
    }
    node->edges.push_back(std::move(e));
  }
  node->sequence = context.next_sequence();
  node->layer = kernels::current_op_label().layer;
  return Variable::from_node(context, std::move(value), std::move(node));
}
template <class MakeNode>
Variable op_output(Context& context, kernels::Tensor value, std::initializer_list<const Variable*> inputs,
                   MakeNode&& make_node) {
  return op_output_of(context, std::move(value), inputs, std::forward<MakeNode>(make_node));
}
template <class MakeNode>
Variable op_output(Context& context, kernels::Tensor value, const std::vector<const Variable*>& inputs,
                   MakeNode&& make_node) {
  return op_output_of(context, std::move(value), inputs, std::forward<MakeNode>(make_node));
}

// An optional input's value, or an empty tensor (the Backend's "no bias").
inline const kernels::Tensor& value_or_none(const Variable& v) {
  static const kernels::Tensor none;
  return v.defined() ? v.value() : none;
}

// Throws std::invalid_argument "<op>: <what> is <tensor>; expected <expected>" unless `ok`.
// `expected` is a string literal, or a callable making the text (only on failure: the check
// runs on every op, and the tape's overhead per op is measured in nanoseconds).
template <class Expected>
void require(bool ok, const char* op, const char* what, const kernels::Tensor& t, Expected&& expected) {
  if (ok) return;
  std::string text;
  if constexpr (std::is_invocable_v<Expected>)
    text = expected();
  else
    text = expected;
  throw std::invalid_argument(std::string(op) + ": " + what + " is " + t.describe() + "; expected " + text);
}

}  // namespace ablate::graph::dynamic
