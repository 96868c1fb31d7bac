// The contract of concatenation along axis 1 (kernels/backend.h; Caffe's Concat, ONNX Concat
// with axis=1): at least one part; every tensor allocated, of the first part's float dtype and
// rank (>= 2), equal to it in every dimension but axis 1; the whole's axis 1 the sum of the
// parts'. The whole (y, dy) and the parts (xs, dxs) may not share memory.
#include "kernels/backend.h"
#include "kernels/contract/observed_call.h"
#include "kernels/contract/op_check.h"

#include <string>

namespace ablate::kernels {
namespace {

std::string part_name(const char* parts, std::size_t k) { return std::string(parts) + "[" + std::to_string(k) + "]"; }

// "[2, C, 4, 4]": t's shape with its axis 1 left open.
std::string open_axis_one(const Tensor& t) {
  std::string s = "[";
  for (int i = 0; i < t.ndim(); ++i) s += (i ? ", " : "") + (i == 1 ? std::string("C") : std::to_string(t.dim(i)));
  return s + "]";
}

// Checks the parts against each other and the whole against them: `lead` fixes the dtype and
// every dimension but axis 1 (the first part in forward, dy in backward). Returns the shape
// the whole must have.
template <class Part>
Shape checked_parts(const OpCheck& check, const char* parts, const std::vector<Part*>& ts, const char* lead_arg,
                    const Tensor& lead) {
  if (ts.empty()) check.fail(std::string(parts) + " is empty, expected at least one tensor");
  Shape whole = lead.shape();
  whole[1] = 0;
  for (std::size_t k = 0; k < ts.size(); ++k) {
    const std::string arg = part_name(parts, k);
    if (ts[k] == nullptr) check.fail(arg + " is null, expected a tensor");
    const Tensor& t = *ts[k];
    check.like(arg.c_str(), t, lead);
    Shape expected = lead.shape();
    expected[1] = t.ndim() == lead.ndim() ? t.dim(1) : -1;
    if (t.shape() != expected)
      check.fail(arg + " is " + t.describe() + ", expected shape " + open_axis_one(lead) + " (" + lead_arg +
                 "'s dimensions but axis 1)");
    whole[1] += t.dim(1);
  }
  return whole;
}

void rank_two(const OpCheck& check, const char* arg, const Tensor& t) {
  check.floating(arg, t);
  if (t.ndim() < 2) check.fail(std::string(arg) + " is " + t.describe() + ", expected rank >= 2 ([N, C, ...])");
}

template <class Part>
void separate(const OpCheck& check, const char* whole_arg, const Tensor& whole, const char* parts,
              const std::vector<Part*>& ts) {
  for (std::size_t k = 0; k < ts.size(); ++k)
    if (shares_memory(whole, *ts[k]))
      check.fail(std::string(whole_arg) + " shares memory with " + part_name(parts, k) + ", expected separate tensors");
}

}  // namespace

void Backend::concat_forward(const std::vector<const Tensor*>& xs, Tensor& y) {
  const OpCheck check(*this, Op::concat_forward);
  if (xs.empty()) check.fail("xs is empty, expected at least one tensor");
  if (xs[0] == nullptr) check.fail("xs[0] is null, expected a tensor");
  rank_two(check, "xs[0]", *xs[0]);
  const Shape whole = checked_parts(check, "xs", xs, "xs[0]", *xs[0]);
  check.like_shape("y", y, *xs[0], whole);
  separate(check, "y", y, "xs", xs);
  OpWrites writes{{&y}};
  for (std::size_t k = 0; k < xs.size() && k < writes.inputs.size(); ++k) writes.inputs[k] = xs[k];
  observed_call(*this, Op::concat_forward, writes, [&] { concat_forward_impl(xs, y); });
}

void Backend::concat_backward(const Tensor& dy, const std::vector<Tensor*>& dxs) {
  const OpCheck check(*this, Op::concat_backward);
  rank_two(check, "dy", dy);
  const Shape whole = checked_parts(check, "dxs", dxs, "dy", dy);
  if (whole[1] != dy.dim(1))
    check.fail("dxs have " + std::to_string(whole[1]) + " channels in all, dy " + dy.describe() + " has " +
               std::to_string(dy.dim(1)));
  separate(check, "dy", dy, "dxs", dxs);
  OpWrites writes{{}, nullptr, {&dy}};
  for (std::size_t k = 0; k < dxs.size() && k < writes.outputs.size(); ++k) writes.outputs[k] = dxs[k];
  observed_call(*this, Op::concat_backward, writes, [&] { concat_backward_impl(dy, dxs); });
}

}  // namespace ablate::kernels
