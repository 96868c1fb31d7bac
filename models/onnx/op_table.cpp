// The table of ONNX op mappings (op_mapping.h): each mapping in ops/ registers itself at
// start-up; the walk finds a node's mapping by op type. Also the number and shape texts the
// mappings write.
#include <cstdio>
#include <map>
#include <stdexcept>

#include "models/onnx/op_mapping.h"

namespace ablate::models::onnx_import {

namespace {

std::map<std::string, OpMapping>& op_table() {
  static std::map<std::string, OpMapping> table;
  return table;
}

}  // namespace

bool register_op_mapping(OpMapping mapping) {
  const std::string op = mapping.op_type;
  if (!op_table().emplace(op, std::move(mapping)).second)
    throw std::logic_error("ONNX op mapping '" + op + "' registered twice");
  return true;
}

const OpMapping* find_op_mapping(const std::string& op_type) {
  auto it = op_table().find(op_type);
  return it == op_table().end() ? nullptr : &it->second;
}

std::string supported_ops() {
  std::string out;
  for (const auto& [op, mapping] : op_table())
    if (!mapping.pattern_only) out += (out.empty() ? "" : ", ") + op;
  return out;
}

std::string recognised_subgraphs() {
  return "GELU's erf form (Div, Erf, Add, Mul, Mul), layer normalisation below opset 17 (ReduceMean, Sub, Pow, "
         "ReduceMean, Add, Sqrt, Div, Mul, Add), multi-head self-attention (MatMul, Add, Reshape, Transpose, "
         "Div or Mul, Softmax; docs/onnx.md)";
}

std::string number(double value) {
  char buffer[40];
  std::snprintf(buffer, sizeof buffer, "%.17g", value);
  return buffer;
}

std::string dims_string(const Dims& dims) {
  std::string out = "[";
  for (std::size_t i = 0; i < dims.size(); ++i) out += (i ? ", " : "") + std::to_string(dims[i]);
  return out + "]";
}

}  // namespace ablate::models::onnx_import
