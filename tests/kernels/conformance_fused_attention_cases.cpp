// Conformance cases of fused attention: q, k, v [B, T, d] spread to +-3 (scores large enough
// that the running max changes between blocks), odd T with blocks that do not divide it, a block
// of 1, a block of T and a block larger than T, d = 1, and one case whose batch indices split
// over threads on the CPU backends. The backward reads the forward's own o and lse.
#include <string>

#include "conformance.h"

namespace ablate::kernels::test {
namespace {

void add_fused_attention(std::vector<Case>& cases, std::uint64_t& seed, std::int64_t b, std::int64_t t, std::int64_t d,
                         double scale, std::int64_t block) {
  const std::string label = "B" + std::to_string(b) + " T" + std::to_string(t) + " d" + std::to_string(d) + " scale " +
                            std::to_string(scale) + " block " + std::to_string(block);
  const Shape shape{b, t, d};
  const double sums = static_cast<double>(t * d);
  cases.push_back({"fused_attention_forward", label, seed++, [=](OpRun& r) {
                     Tensor q = r.input(shape, -3.0, 3.0), k = r.input(shape, -3.0, 3.0), v = r.input(shape);
                     Tensor o = r.output(shape), lse = r.output({b, t});
                     r.backend().fused_attention_forward(q, k, v, scale, block, o, lse);
                     r.keep("o", o, sums);
                     r.keep("lse", lse, sums);
                   }});
  cases.push_back({"fused_attention_backward", label, seed++, [=](OpRun& r) {
                     Tensor q = r.input(shape, -3.0, 3.0), k = r.input(shape, -3.0, 3.0), v = r.input(shape);
                     Tensor dout = r.input(shape);
                     Tensor o = r.output(shape), lse = r.output({b, t});
                     Tensor dq = r.output(shape), dk = r.output(shape), dv = r.output(shape);
                     r.backend().fused_attention_forward(q, k, v, scale, block, o, lse);
                     r.backend().fused_attention_backward(q, k, v, o, lse, dout, scale, block, dq, dk, dv);
                     r.keep("dq", dq, 4 * sums);
                     r.keep("dk", dk, 4 * sums);
                     r.keep("dv", dv, 4 * sums);
                   }});
}

}  // namespace

std::vector<Case> fused_attention_cases() {
  std::vector<Case> cases;
  std::uint64_t seed = 9700;
  add_fused_attention(cases, seed, 3, 17, 5, 0.5, 4);    // 17 = 4 + 4 + 4 + 4 + 1
  add_fused_attention(cases, seed, 2, 17, 8, 0.25, 5);   // 5 + 5 + 5 + 2
  add_fused_attention(cases, seed, 2, 17, 3, 1.0, 1);    // one key per block
  add_fused_attention(cases, seed, 1, 17, 4, 0.5, 17);   // one block: the plain softmax
  add_fused_attention(cases, seed, 2, 9, 1, 1.0, 64);    // a block larger than T; d = 1
  add_fused_attention(cases, seed, 1, 1, 6, 0.5, 3);     // one token: p = 1
  add_fused_attention(cases, seed, 64, 16, 16, 0.25, 8); // vit-tiny's shape at batch 16: splits over threads
  return cases;
}

}  // namespace ablate::kernels::test
