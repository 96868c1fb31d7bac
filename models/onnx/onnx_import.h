// ONNX import: an ONNX model (onnx::ModelProto, libonnx's protobuf classes) turned into the
// ModelSpec every strategy builds from, its initializers the spec's given initial values
// (ModelSpec::given, by ablate's tensor names "<layer>.weight", "<layer>.bias",
// "<layer>.running_mean", "<layer>.running_var"). There is no engine path of its own: an
// imported model trains and evaluates as a model file does (models::load_model reads
// `net.onnx` through here).
//
// The graph walk (importer.cpp) visits the nodes in order (ONNX requires topological
// order); each node's op type has one mapping (models/onnx/ops/<op>.cpp, registered in the
// table of op_mapping.h) that turns it into ablate layers, folds it into the layer before it
// (a constant bias Add) or aliases its input (Flatten, Reshape to [N, -1], Identity).
//   model input   the one graph input that is no initializer (and no given input): ONNX shape
//                 [N, C, H, W], [N, C, L] or [N, F] (the batch N symbolic or any) becomes
//                 `input C H W`, trailing dimensions 1 ([N, F] -> input F 1 1)
//   layer names   the node's name, else its first output's, made of letters, digits, '_'
//                 and '-' ("/layer1/conv/Conv" -> "layer1_conv_Conv"), unique
//   the end       a model ending in logits [N, classes] gets `softmax_loss` appended (a final
//                 Softmax is dropped first); one ending in LogSoftmax gets `nll_loss`; the
//                 note says so. `classes` is the output's last dimension.
//   forward_only  (ImportOptions) no loss is appended and ModelSpec::forward_only is set: the
//                 model runs forward only (ONNX's operator tests, single ops without a loss);
//                 a final Softmax becomes log_softmax and the result says so
//                 (output_is_log_softmax: exp of the output is ONNX's).
// Errors (std::invalid_argument) name the file, and for a node its name, op type and the
// attribute or input at fault, with the supported op set; nothing is returned half-built
// (the spec is checked as a CheckedModel, its given values against the shapes, first).
#pragma once

#include <map>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "models/model_spec.h"

namespace ablate::models::onnx_import {

// The opsets whose semantics the mappings follow (the default domain). A model declaring an
// older opset imports where its nodes carry only attributes the mappings know (an old
// version's own attributes, e.g. BatchNormalization's `spatial`, are refused by name).
inline constexpr int kMaxOpset = 17;
inline constexpr int kMinTestedOpset = 9;

struct ImportOptions {
  // Keep the graph's own output, append no loss (ModelSpec::forward_only).
  bool forward_only = false;
  // Graph inputs that are weights rather than the model input (ONNX's operator tests feed
  // Conv's W or Gemm's B as inputs), with their values: treated as initializers.
  std::map<std::string, GivenValues> input_values;
};

struct ImportResult {
  ModelSpec spec;
  // What the importer changed, for the caller to print ("" when nothing): the loss appended,
  // a final Softmax dropped.
  std::string note;
  // forward_only with a final Softmax: the last layer is log_softmax (exp of it is ONNX's output).
  bool output_is_log_softmax = false;
};

// True when `path` ends in ".onnx" (any case).
bool is_onnx_path(const std::string& path);

// Reads and imports an ONNX file; a missing, truncated or non-ONNX file is an error naming it.
ImportResult import_file(const std::string& path, const ImportOptions& options = {});
// Imports a model already read; `source` names it in errors and becomes ModelSpec::source.
ImportResult import_model(const onnx::ModelProto& model, const std::string& source,
                          const ImportOptions& options = {});

// The values of a tensor (float, double, int32 or int64; raw_data or the typed fields), in
// row-major order; `what` names it in errors.
GivenValues tensor_values(const onnx::TensorProto& tensor, const std::string& what);
// A serialized TensorProto file (ONNX's test_data_set_*/input_0.pb).
GivenValues read_tensor_file(const std::string& path);

// The ONNX op types the importer maps, sorted ("Add, AveragePool, ...").
std::string supported_ops();

}  // namespace ablate::models::onnx_import
