// The ONNX importer's constants and model input: every initializer (and every value given for a
// graph input by ImportOptions::input_values) becomes a constant value; the one remaining graph
// input, [N, C, H, W], [N, C, L] or [N, F] with N symbolic or any, becomes the model's
// `input C H W` (trailing 1s) and the import's batch.
#include <cstdint>
#include <stdexcept>

#include "models/onnx/importer.h"

namespace ablate::models::onnx_import {

void Importer::read_constants_and_input() {
  for (const auto& t : graph_.initializer()) {
    OnnxValue v;
    v.constant = tensor_values(t, source_ + ": initializer '" + t.name() + "'");
    v.shape = v.constant->shape;
    values_[t.name()] = std::move(v);
  }
  for (const auto& [name, given] : options_.input_values) {
    bool found = false;
    for (const auto& in : graph_.input()) found = found || in.name() == name;
    if (!found) fail("a value is given for graph input '" + name + "', which the graph does not have");
    OnnxValue v;
    v.constant = given;
    v.shape = given.shape;
    values_[name] = std::move(v);
  }
  const onnx::ValueInfoProto* input = nullptr;
  std::vector<std::string> names;
  for (const auto& in : graph_.input()) {
    if (values_.count(in.name())) continue;  // an initializer listed as an input (older exporters), or given
    names.push_back(in.name());
    input = &in;
  }
  if (names.size() != 1) {
    std::string list;
    for (const auto& n : names) list += (list.empty() ? "" : ", ") + n;
    fail("the graph has " + std::to_string(names.size()) + " inputs that are not initializers (" +
         (list.empty() ? "none" : list) + "); an ablate model reads exactly one input [N, C, H, W]");
  }
  const std::string what = "graph input '" + input->name() + "'";
  if (!input->type().has_tensor_type()) fail(what + " is not a tensor");
  const auto& tt = input->type().tensor_type();
  if (tt.elem_type() != onnx::TensorProto::FLOAT && tt.elem_type() != onnx::TensorProto::DOUBLE)
    fail(what + " has element type " + onnx::TensorProto::DataType_Name(static_cast<onnx::TensorProto::DataType>(tt.elem_type())) +
         "; ablate models read float (or double) inputs");
  if (!tt.has_shape()) fail(what + " has no shape; expected [N, C, H, W], [N, C, L] or [N, F]");
  const int rank = tt.shape().dim_size();
  if (rank < 2 || rank > 4)
    fail(what + " has rank " + std::to_string(rank) + "; expected [N, C, H, W], [N, C, L] or [N, F] (the batch first)");
  Dims shape;
  for (int d = 0; d < rank; ++d) {
    const auto& dim = tt.shape().dim(d);
    if (d == 0) {
      batch_ = dim.has_dim_value() && dim.dim_value() > 0 ? dim.dim_value() : 1;  // symbolic or any: the batch
      shape.push_back(batch_);
      continue;
    }
    if (!dim.has_dim_value() || dim.dim_value() < 1 || dim.dim_value() > INT32_MAX)
      fail(what + " dimension " + std::to_string(d) + " is " +
           (dim.has_dim_param() ? "symbolic ('" + dim.dim_param() + "')" : std::to_string(dim.dim_value())) +
           "; only the batch dimension may be symbolic");
    shape.push_back(dim.dim_value());
  }
  spec_.input_shape.clear();
  for (int d = 1; d < 4; ++d) spec_.input_shape.push_back(d < rank ? static_cast<int>(shape[static_cast<std::size_t>(d)]) : 1);
  OnnxValue v;
  v.shape = shape;
  v.layer = kModelInput;
  values_[input->name()] = std::move(v);
}

}  // namespace ablate::models::onnx_import
