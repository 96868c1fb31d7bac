// Concat forward and backward along the channel axis through Backend::concat_forward and
// concat_backward (see concat_layer.h).
#include "graph/layerwise/concat_layer.h"
#include "graph/layerwise/layer_factory.h"

namespace ablate::graph::layerwise {

void ConcatLayer::reshape(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top) {
  kernels::Shape out = bottom[0]->shape();
  if (out.size() < 2) fail("expects bottoms [N, C, ...], got " + kernels::shape_string(out));
  for (std::size_t k = 1; k < bottom.size(); ++k) {
    const kernels::Shape& in = bottom[k]->shape();
    bool fits = in.size() == out.size();
    for (std::size_t d = 0; fits && d < in.size(); ++d) fits = d == 1 || in[d] == out[d];
    if (!fits)
      fail("joins bottoms whose shapes differ beyond the channel axis: " + kernels::shape_string(bottom[0]->shape()) +
           " and " + kernels::shape_string(in));
    out[1] += in[1];
  }
  top[0]->reshape(out);
}

void ConcatLayer::forward(const std::vector<Blob*>& bottom, const std::vector<Blob*>& top, const LayerContext&) {
  std::vector<const kernels::Tensor*> xs;
  for (const Blob* b : bottom) xs.push_back(&b->data());
  backend_.concat_forward(xs, top[0]->data());
}

// The op writes every bottom's slice: a bottom whose propagate_down is unset (the model input
// without force_backward, or a Split top of it) has a diff that nothing reads.
void ConcatLayer::run_backward(const std::vector<Blob*>& top, const std::vector<bool>& propagate_down,
                               const std::vector<Blob*>& bottom) {
  bool any = false;
  for (bool p : propagate_down) any = any || p;
  if (!any) return;
  std::vector<kernels::Tensor*> dxs;
  for (Blob* b : bottom) dxs.push_back(&b->diff());
  backend_.concat_backward(top[0]->diff(), dxs);
}

ABLATE_LAYERWISE_LAYER(concat, ConcatLayer);

}  // namespace ablate::graph::layerwise
