// Batch checks shared by the layer-wise, dynamic and static engines.
#include "graph/batch_check.h"

#include <stdexcept>
#include <string>

namespace ablate::graph {

std::int64_t check_batch(const models::ModelSpec& spec, const kernels::Tensor& x, const kernels::Tensor& labels,
                         const char* what) {
  const auto& in = spec.input_shape;
  const kernels::Shape expected{x.ndim() > 0 ? x.dim(0) : 0, in[0], in[1], in[2]};
  if (x.empty() || x.ndim() != 4 || x.shape() != expected || x.dim(0) <= 0)
    throw std::invalid_argument(std::string(what) + ": input " + x.describe() + " does not fit model '" + spec.name +
                                "'; expected [N, " + std::to_string(in[0]) + ", " + std::to_string(in[1]) + ", " +
                                std::to_string(in[2]) + "] with N >= 1");
  if (x.dtype() != kernels::DType::f32 && x.dtype() != kernels::DType::f64)
    throw std::invalid_argument(std::string(what) + ": input " + x.describe() + " must be f32 or f64");
  if (labels.empty() || labels.dtype() != kernels::DType::i32 || labels.numel() != x.dim(0))
    throw std::invalid_argument(std::string(what) + ": labels " + labels.describe() + " do not match input " +
                                x.describe() + "; expected i32[" + std::to_string(x.dim(0)) + "]");
  const std::int32_t* label = labels.data<std::int32_t>();
  for (std::int64_t n = 0; n < labels.numel(); ++n)
    if (label[n] < 0 || label[n] >= spec.classes)
      throw std::invalid_argument(std::string(what) + ": label " + std::to_string(label[n]) + " of sample " +
                                  std::to_string(n) + " is out of range; model '" + spec.name + "' has classes 0.." +
                                  std::to_string(spec.classes - 1));
  return x.dim(0);
}

}  // namespace ablate::graph
