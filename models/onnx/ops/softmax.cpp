// ONNX Softmax and LogSoftmax (opsets 1, 11: over the input flattened to [N, prod(axis:)],
// axis default 1; opset 13: along `axis` alone, default -1), only at the end of the model,
// over the classes of [N, classes] (opset 13: a rank-2 input, axis 1 or -1; before: axis 1).
//   LogSoftmax -> an ablate `log_softmax` layer; a training import appends nll_loss
//   Softmax    -> dropped (softmax_loss, appended by a training import, applies it); a
//                 forward_only import runs it as log_softmax and says so (exp of the output
//                 is ONNX's softmax): ablate has no softmax layer of its own
// Refused: not the graph output, another axis, an input that is not [N, classes] to ablate.
#include "models/onnx/ops/op_kit.h"

namespace ablate::models::onnx_import::ops {
namespace {

void softmax_like(NodeContext& c, bool log) {
  c.refuse_unknown_attributes({"axis"});
  const OnnxValue& x = c.activation(0);
  if (!c.output_is_graph_output(0) || c.readers_of_output(0) != 1)
    c.refuse("output 0 ('" + c.node().output(0) + "')", "is not the graph output alone; ablate maps " + c.node().op_type() +
                                                             " only at the end of a model, over the classes");
  const bool flattening = c.opset() < 13;
  const std::int64_t axis = c.get_int("axis", flattening ? 1 : -1);
  if (!flattening && x.shape.size() != 2)
    c.refuse("input 0", "is " + dims_string(x.shape) + "; at opset 13 ablate maps it over the classes of [N, classes] only");
  if (normalized_axis(c, "axis", axis, x.shape.size()) != 1)
    c.refuse("axis", "= " + std::to_string(axis) + " is not supported (the class axis 1 of [N, classes])");
  if (x.layer == kModelInput || c.ablate_shape(x.layer).size() != 2)
    c.refuse("input 0", "is " + dims_string(c.ablate_shape(x.layer)) +
                            " to ablate; its " + (log ? "log_softmax" : "softmax") + " reads [N, classes] (the output of an "
                            "inner_product, Gemm or MatMul)");
  if (!log && !c.forward_only()) {
    c.set_end(ModelEnd::dropped_softmax);
    c.set_output(0, x);
    return;
  }
  OnnxValue y;
  y.layer = c.add_layer("log_softmax", {}, {x.layer});
  y.shape = x.shape;
  c.set_end(log ? ModelEnd::log_softmax : ModelEnd::softmax_as_log_softmax);
  c.set_output(0, y);
}

void softmax(NodeContext& c) { softmax_like(c, false); }
void log_softmax(NodeContext& c) { softmax_like(c, true); }

ABLATE_ONNX_OP("Softmax", softmax);
ABLATE_ONNX_OP("LogSoftmax", log_softmax);

}  // namespace
}  // namespace ablate::models::onnx_import::ops
