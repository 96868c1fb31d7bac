// Conformance cases of the fused elementwise chain (Backend::fused_elementwise): the chains the
// static strategy's elementwise_fusion pass builds (conv -> bias -> relu, Theano's pool -> bias
// -> tanh, the dropout mask times the ReLU gradient, an activation gradient then a scale), a
// chain of every step kind with one operand read twice, the output aliasing the first input or an
// operand a step reads (the CPU loop then keeps its private block),
// [N,C], [N,C,H,W] and 1-D tensors, and one large enough to cross the CPU loop's blocks and
// threads. Each element is the result of at most a handful of roundings: reduction 1.
#include "conformance.h"

namespace ablate::kernels::test {
namespace {

ChainStep step(ChainOp op, int operand = -1, Activation a = Activation::relu, double alpha = 1.0) {
  return {op, a, alpha, operand};
}

struct Chain {
  const char* name;
  std::vector<ChainStep> steps;
  int operands;  // inputs besides input 0; a bias_add operand is [C], the others input 0's shape
  int out_is;    // -1: a tensor of its own; k: input k (0: in place; 1: an operand the steps read)
};

std::vector<Chain> chains() {
  using A = Activation;
  using O = ChainOp;
  return {
      {"bias_add, relu", {step(O::bias_add, 1), step(O::activation, -1, A::relu)}, 1, -1},
      {"bias_add, tanh (in place)", {step(O::bias_add, 1), step(O::activation, -1, A::tanh)}, 1, 0},
      {"mul, activation_grad relu", {step(O::mul, 1), step(O::activation_grad, 2, A::relu)}, 2, -1},
      {"mul, activation_grad relu (out is the mask)", {step(O::mul, 1), step(O::activation_grad, 2, A::relu)}, 2, 1},
      {"activation_grad tanh, scale", {step(O::activation_grad, 1, A::tanh), step(O::scale, -1, A::relu, -0.75)}, 1,
       0},
      {"every kind, an operand twice",
       {step(O::scale, -1, A::relu, 1.5), step(O::add, 1), step(O::activation, -1, A::sigmoid), step(O::mul, 2),
        step(O::bias_add, 3), step(O::activation_grad, 1, A::sigmoid), step(O::add, 2), step(O::activation, -1, A::tanh)},
       3, -1},
  };
}

// Input k of the chain: a bias [C] where a bias_add step reads it, else x's shape.
Shape operand_shape(const Chain& c, int k, const Shape& x) {
  for (const ChainStep& s : c.steps)
    if (s.operand == k && s.op == ChainOp::bias_add) return {x[1]};
  return x;
}

void add_chain_case(std::vector<Case>& cases, const Chain& c, const Shape& x, std::uint64_t seed) {
  cases.push_back({"fused_elementwise", std::string(c.name) + ", x " + shape_string(x), seed, [c, x](OpRun& r) {
                     std::vector<Tensor> held;
                     held.push_back(r.input(x));
                     for (int k = 1; k <= c.operands; ++k) held.push_back(r.input(operand_shape(c, k, x)));
                     Tensor out = c.out_is >= 0 ? held[static_cast<std::size_t>(c.out_is)] : r.output(x);
                     std::vector<const Tensor*> inputs;
                     for (const Tensor& t : held) inputs.push_back(&t);
                     r.backend().fused_elementwise(inputs, c.steps, out);
                     r.keep("out", out);
                   }});
}

}  // namespace

std::vector<Case> fused_elementwise_cases() {
  std::vector<Case> cases;
  Rng rng(0xF05E);
  std::uint64_t seed = 7600;
  for (const Chain& c : chains()) {
    const bool has_bias = c.steps.front().op == ChainOp::bias_add || c.operands >= 3;
    add_chain_case(cases, c, {random_int(rng, 1, 3), random_int(rng, 1, 5), random_int(rng, 1, 9), random_int(rng, 1, 9)},
                   seed++);
    add_chain_case(cases, c, {random_int(rng, 1, 7), random_int(rng, 1, 13)}, seed++);
    if (!has_bias) add_chain_case(cases, c, {random_int(rng, 1, 300)}, seed++);
    add_chain_case(cases, c, {2, 8, 70, 70}, seed++);  // 78,400 elements: many blocks, two threads
  }
  return cases;
}

}  // namespace ablate::kernels::test
