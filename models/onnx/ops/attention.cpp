// The node standing for a multi-head self-attention subgraph (patterns/attention_pattern.cpp):
// inputs x [N, T, D] and, as constants, the query, key, value and out weights [D, D] ([out, in])
// and biases [D]; attributes heads and tokens (T as the subgraph's Reshapes name it). Maps to
// one ablate `attention heads=h` layer (models/README.md), given <layer>.query_weight,
// <layer>.query_bias, ... <layer>.out_bias.
// Refused: x not [N, T, D] with the subgraph's T and D = heads · dh.
#include "models/onnx/ops/op_kit.h"
#include "models/onnx/patterns/fusion.h"

namespace ablate::models::onnx_import::ops {
namespace {

void attention(NodeContext& c) {
  c.refuse_unknown_attributes({"heads", "tokens"});
  const OnnxValue& x = c.activation(0);
  const std::int64_t heads = c.get_int("heads", 1), tokens = c.get_int("tokens", 0);
  const GivenValues& query = c.constant(1);
  const std::int64_t width = query.shape.at(0);
  if (x.shape.size() != 3 || x.shape[1] != tokens || x.shape[2] != width)
    c.refuse("input 0 (x)", "is " + dims_string(x.shape) + "; the attention splits [N, " + std::to_string(tokens) + ", " +
                                std::to_string(width) + "] into heads");
  if (x.layer == kModelInput || c.ablate_shape(x.layer).size() != 3)
    c.refuse("input 0 (x)", "is no token tensor [N, T, D] to ablate (the output of tokens, linear, layer_norm, ...)");
  const std::string layer = c.add_layer("attention", {{"heads", std::to_string(heads)}}, {x.layer});
  const char* roles[] = {"query", "key", "value", "out"};
  for (int r = 0; r < 4; ++r) {
    c.give(layer + "." + roles[r] + "_weight", c.constant(1 + 2 * r));
    c.give(layer + "." + roles[r] + "_bias", c.constant(2 + 2 * r));
  }
  c.set_output(0, layer_output(c, layer));
}

ABLATE_ONNX_PATTERN_OP(patterns::kAttentionOp, attention);

}  // namespace
}  // namespace ablate::models::onnx_import::ops
