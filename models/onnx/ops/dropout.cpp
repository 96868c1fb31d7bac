// ONNX Dropout (opsets 7, 10: attribute ratio; 12, 13: inputs ratio and training_mode):
// in inference the identity; in training units dropped with probability ratio and the kept
// ones scaled by 1 / (1 - ratio). Maps to an ablate `dropout` layer with keep = 1 - ratio
// (inverted dropout, the identity when evaluating). The seed attribute is ignored (ablate's
// masks come from its own seed).
// Refused: ratio outside [0, 1), a ratio or training_mode computed by the graph,
// training_mode true (ablate decides the phase), the mask output used.
#include "models/onnx/ops/op_kit.h"

namespace ablate::models::onnx_import::ops {
namespace {

void dropout(NodeContext& c) {
  c.refuse_unknown_attributes({"ratio", "seed"});
  c.only_first_output();
  const OnnxValue& x = c.activation(0);
  double ratio = c.get_float("ratio", 0.5);
  if (c.has_input(1)) {
    if (c.constant(1).values.size() != 1) c.refuse("input 1 (ratio)", "is not a scalar");
    ratio = c.constant(1).values[0];
  }
  if (c.has_input(2) && (c.constant(2).values.size() != 1 || c.constant(2).values[0] != 0))
    c.refuse("input 2 (training_mode)", "is not false (ablate runs dropout by its own phase)");
  if (!(ratio >= 0 && ratio < 1)) c.refuse(c.has_input(1) ? "input 1 (ratio)" : "ratio", "= " + number(ratio) + " is outside [0, 1)");
  OnnxValue y;
  y.layer = c.add_layer("dropout", {{"keep", number(1.0 - ratio)}}, {x.layer});
  y.shape = x.shape;
  c.set_output(0, y);
}

ABLATE_ONNX_OP("Dropout", dropout);

}  // namespace
}  // namespace ablate::models::onnx_import::ops
