// Model FLOPs from the shapes of shape inference (see flops.h).
#include "models/flops.h"

#include "kernels/tensor.h"
#include "models/shape_inference.h"

namespace ablate::models {

ModelFlops model_flops(const ModelSpec& spec, std::int64_t batch) {
  const std::vector<LayerShapes> shapes = infer_shapes(spec, batch);
  ModelFlops out;
  for (std::size_t i = 0; i < spec.layers.size(); ++i) {
    const std::string& type = spec.layers[i].type;
    const LayerShapes& s = shapes[i];
    if (s.params.empty() || type == "bias") continue;
    // Every counted layer does 2 multiply-add flops per (output value, weight value it reads):
    //   convolution: output [N,K,OH,OW] x weight per output plane C*KH*KW
    //   conv_map:    N*OH*OW x every weight [T,KH,KW]
    //   inner_product: output [N,O] x weight per output I
    const auto& weight = s.params[0];
    double flops = 0;
    const double out_numel = static_cast<double>(kernels::shape_numel(s.output));
    const double weight_numel = static_cast<double>(kernels::shape_numel(weight));
    if (type == "convolution" || type == "inner_product")
      flops = 2 * out_numel * weight_numel / static_cast<double>(weight[0]);
    else if (type == "conv_map")
      flops = 2 * static_cast<double>(s.output[0] * s.output[2] * s.output[3]) * weight_numel;
    if (flops == 0) continue;
    out.forward += flops;
    out.per_layer.emplace_back(spec.layers[i].name, flops);
  }
  return out;
}

}  // namespace ablate::models
