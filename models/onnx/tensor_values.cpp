// ONNX tensors (onnx::TensorProto) read as GivenValues: float, double, int32 or int64, from
// raw_data (little-endian, as ONNX stores it) or the typed fields, row-major; and a serialized
// TensorProto file (ONNX's test_data_set_*/input_0.pb).
#include <cstring>
#include <fstream>
#include <stdexcept>

#include "models/onnx/onnx_import.h"
#include "models/onnx/op_mapping.h"

namespace ablate::models::onnx_import {

GivenValues tensor_values(const onnx::TensorProto& t, const std::string& what) {
  GivenValues g;
  std::int64_t count = 1;
  for (std::int64_t d : t.dims()) {
    if (d < 0) throw std::invalid_argument(what + ": tensor dimension " + std::to_string(d) + " is negative");
    g.shape.push_back(d);
    count *= d;
  }
  if (t.data_location() == onnx::TensorProto::EXTERNAL)
    throw std::invalid_argument(what + ": tensor data stored outside the file (external data) is not supported");
  const auto type = t.data_type();
  const std::string& raw = t.raw_data();
  auto take = [&](auto zero, int typed_size) {
    using T = decltype(zero);
    if (!raw.empty()) {
      if (raw.size() != static_cast<std::size_t>(count) * sizeof(T))
        throw std::invalid_argument(what + ": raw data of " + std::to_string(raw.size()) + " bytes for " +
                                    std::to_string(count) + " values of " + std::to_string(sizeof(T)) + " bytes");
      for (std::int64_t i = 0; i < count; ++i) {
        T v;
        std::memcpy(&v, raw.data() + i * static_cast<std::int64_t>(sizeof(T)), sizeof(T));  // little-endian, as ONNX stores
        g.values.push_back(static_cast<double>(v));
      }
    } else if (typed_size != count) {
      throw std::invalid_argument(what + ": " + std::to_string(typed_size) + " values for shape " + dims_string(g.shape));
    }
  };
  switch (type) {
    case onnx::TensorProto::FLOAT:
      take(float{}, t.float_data_size());
      if (raw.empty()) g.values.assign(t.float_data().begin(), t.float_data().end());
      break;
    case onnx::TensorProto::DOUBLE:
      take(double{}, t.double_data_size());
      if (raw.empty()) g.values.assign(t.double_data().begin(), t.double_data().end());
      break;
    case onnx::TensorProto::INT64:
      take(std::int64_t{}, t.int64_data_size());
      if (raw.empty()) g.values.assign(t.int64_data().begin(), t.int64_data().end());
      break;
    case onnx::TensorProto::INT32:
      take(std::int32_t{}, t.int32_data_size());
      if (raw.empty()) g.values.assign(t.int32_data().begin(), t.int32_data().end());
      break;
    default:
      throw std::invalid_argument(what + ": tensor data type " + onnx::TensorProto::DataType_Name(type) +
                                  " is not supported (float, double, int32 or int64)");
  }
  return g;
}

GivenValues read_tensor_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::invalid_argument(path + ": cannot read the tensor file");
  onnx::TensorProto t;
  if (!t.ParseFromIstream(&in)) throw std::invalid_argument(path + ": not a serialized ONNX TensorProto");
  return tensor_values(t, path);
}

}  // namespace ablate::models::onnx_import
