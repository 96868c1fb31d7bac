// VariableStore: the persistent tensors of the static strategy, by name: the model's
// parameters ("conv1.weight"), the optimizer's slots ("conv1.weight/momentum") and the running
// statistics ("bn1.running_mean"), as a
// TensorFlow session's variables outlive every run. Sessions compiled from different graphs
// of one engine (the training graph, an evaluation graph per batch size) share them.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "kernels/backend.h"

namespace ablate::graph::static_graph {

class VariableStore {
 public:
  bool has(const std::string& name) const { return tensors_.count(name) != 0; }
  // The tensor of `name`; throws std::invalid_argument naming it when absent.
  kernels::Tensor& at(const std::string& name);
  // Adds `name` as zeros of `shape` on the backend's device, or returns it when it exists
  // with that shape and dtype (throws when it exists with another).
  kernels::Tensor& create(const std::string& name, const kernels::Shape& shape, kernels::DType dtype,
                          kernels::Backend& backend);
  // Adds `name` with a copy of the host tensor `value` on the backend's device.
  kernels::Tensor& assign(const std::string& name, const kernels::Tensor& value, kernels::Backend& backend);
  std::int64_t bytes() const;
  std::vector<std::string> names() const;

 private:
  std::map<std::string, kernels::Tensor> tensors_;
};

// A host tensor copied to the backend's device (the same tensor on a host backend).
kernels::Tensor to_device(const kernels::Tensor& host, kernels::Backend& backend);
// `src` (host) copied into `dst` (on the backend's device), converting f32 <-> f64 on the host.
void copy_in(const kernels::Tensor& src, kernels::Tensor& dst, kernels::Backend& backend);

}  // namespace ablate::graph::static_graph
