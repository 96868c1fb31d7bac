// Pieces the ONNX op mappings (models/onnx/ops/) share.
#pragma once

#include <optional>

#include "models/onnx/onnx_import.h"
#include "models/onnx/op_mapping.h"

namespace ablate::models::onnx_import::ops {

// The value an added layer outputs: its ablate shape is its ONNX shape (the ops that add
// layers keep ONNX's rank).
OnnxValue layer_output(NodeContext& c, const std::string& layer);

// A constant that ONNX broadcasting (right-aligned) adds along axis 1 of a value of shape
// `out` only, as a [K] vector (K = out[1]): shapes [K], [1, K] for out [N, K]; [K, 1, 1],
// [1, K, 1, 1] for out [N, K, H, W]; any shape of one element (repeated K times). Nullopt
// for any other shape.
std::optional<GivenValues> channel_vector(const GivenValues& c, const Dims& out);

// A [R, C] matrix transposed to [C, R].
GivenValues transposed(const GivenValues& m);

// An axis attribute normalised against `rank` (negative counts from the end); refuses one
// outside [-rank, rank).
int normalized_axis(const NodeContext& c, const std::string& attribute, std::int64_t axis, std::size_t rank);

}  // namespace ablate::models::onnx_import::ops
