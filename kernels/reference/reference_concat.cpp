// Concatenation along axis 1 (Caffe's Concat layer, ONNX Concat axis=1, torch.cat(xs, 1)) as
// the plain index loop: view each tensor as [N, C, inner] with inner the product of the
// dimensions after axis 1; part k fills channels [offset_k, offset_k + C_k) of the whole, with
// offset_k = C_0 + ... + C_{k-1}. The backward is the same loop with the copy reversed: each
// dx is its channel slice of dy (overwritten, as Caffe's ConcatLayer::Backward_cpu does).
#include "kernels/reference/reference_backend_impl.h"
#include "kernels/reference/reference_loops.h"

namespace ablate::kernels::reference {
namespace {

// whole [N, C, inner] and parts[k] [N, C_k, inner]: join copies the parts into the whole,
// split the whole into the parts.
template <class T, class Part>
void concat_loops(const std::vector<Part*>& parts, T* whole, std::int64_t N, std::int64_t C, std::int64_t inner,
                  bool split) {
  std::int64_t offset = 0;
  for (Part* part : parts) {
    const std::int64_t Ck = part->dim(1);
    // const_cast: in a join (split false) the part is only read.
    T* p = const_cast<T*>(part->template data<T>());
    for (std::int64_t n = 0; n < N; ++n)
      for (std::int64_t c = 0; c < Ck; ++c)
        for (std::int64_t i = 0; i < inner; ++i) {
          T& w = whole[(n * C + offset + c) * inner + i];
          T& x = p[(n * Ck + c) * inner + i];
          if (split) x = w;
          else w = x;
        }
    offset += Ck;
  }
}

// The product of the dimensions after axis 1 (1 for [N, C]).
std::int64_t inner_size(const Shape& s) {
  std::int64_t inner = 1;
  for (std::size_t d = 2; d < s.size(); ++d) inner *= s[d];
  return inner;
}

}  // namespace

void ReferenceBackend::concat_forward_impl(const std::vector<const Tensor*>& xs, Tensor& y) {
  with_float_type(y.dtype(), [&](auto tag) {
    concat_loops(xs, y.data<decltype(tag)>(), y.dim(0), y.dim(1), inner_size(y.shape()), false);
  });
}

void ReferenceBackend::concat_backward_impl(const Tensor& dy, const std::vector<Tensor*>& dxs) {
  with_float_type(dy.dtype(), [&](auto tag) {
    using T = decltype(tag);
    concat_loops(dxs, const_cast<T*>(dy.data<T>()), dy.dim(0), dy.dim(1), inner_size(dy.shape()), true);
  });
}

}  // namespace ablate::kernels::reference
