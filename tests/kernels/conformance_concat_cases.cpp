// Conformance cases of concatenation along axis 1 (concat_forward, concat_backward): 1 to 4
// parts of rank 2 and 4 with odd sizes, a part of one channel in every case, batch 1 and > 1,
// and one large case whose N * K blocks split over 2 threads on the CPU backends. A copy is
// exact: outputs must match the reference bit for bit; outputs start as garbage, so a backend
// that accumulates or leaves elements unwritten fails.
#include "conformance.h"

namespace ablate::kernels::test {
namespace {

// The parts' shapes: `whole` with axis 1 replaced by each of `channels`.
std::vector<Shape> part_shapes(const Shape& whole, const std::vector<std::int64_t>& channels) {
  std::vector<Shape> parts;
  for (std::int64_t c : channels) {
    Shape s = whole;
    s[1] = c;
    parts.push_back(s);
  }
  return parts;
}

std::string label(const std::vector<Shape>& parts) {
  std::string s;
  for (const Shape& p : parts) s += (s.empty() ? "" : " + ") + shape_string(p);
  return s;
}

void add_pair(std::vector<Case>& cases, std::uint64_t& seed, const Shape& whole, const std::vector<std::int64_t>& channels) {
  const std::vector<Shape> parts = part_shapes(whole, channels);
  cases.push_back({"concat_forward", label(parts), seed++, [parts, whole](OpRun& r) {
                     std::vector<Tensor> xs;
                     for (const Shape& s : parts) xs.push_back(r.input(s));
                     std::vector<const Tensor*> ptrs;
                     for (const Tensor& x : xs) ptrs.push_back(&x);
                     Tensor y = r.output(whole);
                     r.backend().concat_forward(ptrs, y);
                     r.keep("y", y, 1, true);
                   }});
  cases.push_back({"concat_backward", label(parts), seed++, [parts, whole](OpRun& r) {
                     Tensor dy = r.input(whole);
                     std::vector<Tensor> dxs;
                     for (const Shape& s : parts) dxs.push_back(r.output(s));
                     std::vector<Tensor*> ptrs;
                     for (Tensor& dx : dxs) ptrs.push_back(&dx);
                     r.backend().concat_backward(dy, ptrs);
                     for (std::size_t k = 0; k < dxs.size(); ++k) r.keep("dxs[" + std::to_string(k) + "]", dxs[k], 1, true);
                   }});
}

}  // namespace

std::vector<Case> concat_cases() {
  std::vector<Case> cases;
  Rng rng(0xC0CA7);
  std::uint64_t seed = 9000;
  for (int i = 0; i < 6; ++i) {
    const int count = 1 + i % 4;  // 1, 2, 3, 4, 1, 2 parts
    std::vector<std::int64_t> channels;
    for (int k = 0; k < count; ++k) channels.push_back(random_int(rng, 1, 7));
    channels[static_cast<std::size_t>(random_int(rng, 0, count - 1))] = 1;  // a part of one channel
    std::int64_t total = 0;
    for (std::int64_t c : channels) total += c;
    const std::int64_t n = i < 2 ? 1 : random_int(rng, 2, 5);
    add_pair(cases, seed, {n, total}, channels);
    add_pair(cases, seed, {n, total, random_int(rng, 1, 7), random_int(rng, 1, 7)}, channels);
  }
  // 64 samples x 4 parts of about 3.6 KB (f32) each: the CPU loops split the blocks over 2 threads.
  add_pair(cases, seed, {64, 16, 15, 15}, {3, 5, 1, 7});
  return cases;
}

}  // namespace ablate::kernels::test
