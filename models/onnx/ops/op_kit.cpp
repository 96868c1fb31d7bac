// Pieces the ONNX op mappings share (see op_kit.h).
#include "models/onnx/ops/op_kit.h"

namespace ablate::models::onnx_import::ops {

OnnxValue layer_output(NodeContext& c, const std::string& layer) {
  OnnxValue v;
  v.layer = layer;
  v.shape = c.ablate_shape(layer);
  return v;
}

std::optional<GivenValues> channel_vector(const GivenValues& c, const Dims& out) {
  if (out.size() < 2) return std::nullopt;
  const std::int64_t channels = out[1];
  GivenValues v;
  v.shape = {channels};
  if (c.values.size() == 1) {
    v.values.assign(static_cast<std::size_t>(channels), c.values[0]);
    return v;
  }
  if (c.shape.size() > out.size()) return std::nullopt;
  // Right-aligned: c.shape[i] meets out[i + offset]; only the one meeting axis 1 may be > 1.
  const std::size_t offset = out.size() - c.shape.size();
  for (std::size_t i = 0; i < c.shape.size(); ++i) {
    const bool channel_axis = i + offset == 1;
    if (c.shape[i] != (channel_axis ? channels : 1)) return std::nullopt;
  }
  if (offset > 1) return std::nullopt;  // the constant does not reach axis 1
  v.values = c.values;
  return v;
}

GivenValues transposed(const GivenValues& m) {
  const std::int64_t rows = m.shape.at(0), cols = m.shape.at(1);
  GivenValues t;
  t.shape = {cols, rows};
  t.values.resize(m.values.size());
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t k = 0; k < cols; ++k)
      t.values[static_cast<std::size_t>(k * rows + r)] = m.values[static_cast<std::size_t>(r * cols + k)];
  return t;
}

int normalized_axis(const NodeContext& c, const std::string& attribute, std::int64_t axis, std::size_t rank) {
  const auto r = static_cast<std::int64_t>(rank);
  if (axis < -r || axis >= r)
    c.refuse(attribute, "= " + std::to_string(axis) + " is outside [-" + std::to_string(r) + ", " + std::to_string(r) +
                            ") for an input of rank " + std::to_string(r));
  return static_cast<int>(axis < 0 ? axis + r : axis);
}

}  // namespace ablate::models::onnx_import::ops
