// The static strategy's persistent tensors (see variable_store.h).
#include "graph/static/variable_store.h"

#include <stdexcept>

namespace ablate::graph::static_graph {

kernels::Tensor& VariableStore::at(const std::string& name) {
  auto it = tensors_.find(name);
  if (it == tensors_.end()) throw std::invalid_argument("static graph: variable '" + name + "' is not in the store");
  return it->second;
}

kernels::Tensor& VariableStore::create(const std::string& name, const kernels::Shape& shape, kernels::DType dtype,
                                       kernels::Backend& backend) {
  auto it = tensors_.find(name);
  if (it != tensors_.end()) {
    if (it->second.shape() != shape || it->second.dtype() != dtype)
      throw std::invalid_argument("static graph: variable '" + name + "' is " + it->second.describe() + "; asked for " +
                                  kernels::dtype_name(dtype) + kernels::shape_string(shape));
    return it->second;
  }
  kernels::Tensor t(shape, dtype, &backend.allocator());
  backend.fill(t, 0.0);
  return tensors_[name] = t;
}

kernels::Tensor& VariableStore::assign(const std::string& name, const kernels::Tensor& value, kernels::Backend& backend) {
  kernels::Tensor& t = create(name, value.shape(), value.dtype(), backend);
  copy_in(value, t, backend);
  return t;
}

std::int64_t VariableStore::bytes() const {
  std::int64_t total = 0;
  for (const auto& [name, t] : tensors_) total += static_cast<std::int64_t>(t.bytes());
  return total;
}

std::vector<std::string> VariableStore::names() const {
  std::vector<std::string> out;
  for (const auto& [name, t] : tensors_) out.push_back(name);
  return out;
}

kernels::Tensor to_device(const kernels::Tensor& host, kernels::Backend& backend) {
  if (backend.device() == kernels::Device::cpu) return host;
  kernels::Tensor t(host.shape(), host.dtype(), &backend.allocator());
  backend.copy(host, t);
  return t;
}

void copy_in(const kernels::Tensor& src, kernels::Tensor& dst, kernels::Backend& backend) {
  if (dst.device() == kernels::Device::cpu) {
    dst.copy_from(src);  // a memcpy, or the f32 <-> f64 conversion of the input
    return;
  }
  if (src.dtype() == dst.dtype()) {
    backend.copy(src, dst);
    return;
  }
  kernels::Tensor converted(src.shape(), dst.dtype());
  converted.copy_from(src);
  backend.copy(converted, dst);
}

}  // namespace ablate::graph::static_graph
