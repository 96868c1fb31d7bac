// The end of an imported model: its one graph output must be the last layer's output; a training
// import appends softmax_loss (logits, or a dropped final Softmax) or nll_loss (LogSoftmax) and
// says so in the note; a forward_only import appends nothing and sets ModelSpec::forward_only.
#include <stdexcept>

#include "models/onnx/importer.h"

namespace ablate::models::onnx_import {

void Importer::finish(ImportResult& result) {
  if (graph_.output_size() != 1)
    fail("the graph has " + std::to_string(graph_.output_size()) + " outputs; an ablate model has exactly one");
  const std::string& out_name = graph_.output(0).name();
  auto it = values_.find(out_name);
  if (it == values_.end()) fail("graph output '" + out_name + "' is produced by no node");
  const OnnxValue& out = it->second;
  if (out.is_constant() || out.layer == kModelInput || spec_.layers.empty())
    fail("graph output '" + out_name + "' is " + (out.is_constant() ? "a constant" : "the model input itself") +
         ": the model has no layer to run");
  if (out.layer != spec_.layers.back().name)
    fail("graph output '" + out_name + "' is the output of layer '" + out.layer + "', but layer '" +
         spec_.layers.back().name + "' comes after it and leads to no output (an ablate model ends in its last layer)");
  const Dims ablate_out = ablate_shape(out.layer);
  std::string note;
  if (options_.forward_only) {
    spec_.forward_only = true;
    spec_.classes = out.shape.size() == 2 ? static_cast<int>(out.shape[1]) : 0;
    result.output_is_log_softmax = end_ == ModelEnd::softmax_as_log_softmax;
    if (result.output_is_log_softmax)
      note = "the final Softmax runs as log_softmax: exp of the model's output is the ONNX output";
  } else {
    if (out.shape.size() != 2 || ablate_out.size() != 2)
      fail("graph output '" + out_name + "' is " + dims_string(out.shape) +
           "; a model to train ends in logits or log-probabilities [N, classes] (to run one forward only, import it "
           "with forward_only)");
    spec_.classes = static_cast<int>(out.shape[1]);
    LayerSpec loss;
    loss.name = "loss";
    loss.inputs = {out.layer};
    loss.source = source_;
    if (end_ == ModelEnd::log_softmax) {
      loss.type = "nll_loss";
      note = "the model ends in LogSoftmax [N, " + std::to_string(spec_.classes) + "]: nll_loss appended for training";
    } else {
      loss.type = "softmax_loss";
      const bool dropped = end_ == ModelEnd::dropped_softmax;
      note = std::string("the model ends in ") + (dropped ? "Softmax over " : "") + "logits [N, " +
             std::to_string(spec_.classes) + "]" + (dropped ? ": the Softmax dropped and" : ":") +
             " softmax_loss appended for training";
    }
    spec_.layers.push_back(std::move(loss));
  }
  result.note = note;
}

}  // namespace ablate::models::onnx_import
