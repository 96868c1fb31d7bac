// ONNX export: a ModelSpec and its weights written as the inference graph of an ONNX model
// (onnx::ModelProto, opset 13, or 17 where a layer needs LayerNormalization; float32), the form
// ONNX Runtime and the other frameworks read.
// The training-only parts go: the loss layer is dropped and the graph's one output is what the
// loss read (softmax_loss: the logits [N, classes]; log_softmax + nll_loss: the LogSoftmax
// output), dropout passes its input through (evaluation), batch normalisation uses its running
// statistics.
//
// Each ablate layer becomes the ONNX nodes that compute what its evaluation forward computes;
// a node is named after its layer (helper nodes "<layer>/<Op>"), its output tensor too, and
// its weights are initializers "<layer>.weight", "<layer>.bias", "<layer>.running_mean", ...:
//   convolution      Conv (explicit pads; TF SAME as its computed pads)
//   conv_map         Conv with a dense weight [K, C, KH, KW], zero where the table connects no
//                    input plane to an output plane (Torch's SpatialConvolutionMap, forward alike)
//   pooling          MaxPool / AveragePool, ceil_mode 0 and explicit pads that give ablate's
//                    output size: Caffe's ceil rounding as extra bottom/right padding (padded
//                    cells are never a maximum); an average divides by count_include_pad=1
//                    (Caffe, Torch: the window inside the padding) or 0 (TF SAME: real cells
//                    only). Caffe's average whose last window reaches past its padding divides
//                    by a count ONNX cannot express: refused, naming the layer.
//   global_avg_pool  GlobalAveragePool
//   inner_product    Flatten (axis 1, when the input is not [N, F]) and Gemm (transB = 1)
//   bias             Add of the constant [C, 1, 1] ([C] after an inner product)
//   relu, tanh, sigmoid  Relu, Tanh, Sigmoid
//   gelu             none: its erf form x * (erf(x / sqrt 2) + 1) * 0.5 (as torch.onnx writes
//                    nn.GELU); tanh: 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))
//   batch_norm       BatchNormalization with the running statistics as inputs; Caffe's
//                    convention as its test-time mean and variance (sums / scale factor);
//                    without affine, scale 1 and shift 0
//   lrn              LRN (ONNX's alpha is Caffe's: divided by size)
//   add, concat      Add (Sum for more than two inputs), Concat axis 1
//   log_softmax      LogSoftmax axis 1
//   dropout          none: its readers read its input
//   tokens, pos_embed, layer_norm, linear, token_mean, attention: the forms torch.onnx writes a
//                    ViT's modules in, which the importer reads back (export_tokens.cpp):
//                    Reshape + Transpose, Add of [1, T, D], LayerNormalization (opset 17),
//                    MatMul + Add, ReduceMean over axis 1, and multi-head self-attention as its
//                    MatMul / Reshape / Transpose / Mul / Softmax subgraph
// Errors (std::invalid_argument) name the layer and what cannot be exported.
#pragma once

#include <map>
#include <string>

#include <onnx/onnx_pb.h>

#include "models/model_spec.h"

namespace ablate::models::onnx_export {

// The opset of a model whose operators all exist at 13 (a later one where a layer needs it).
inline constexpr int kExportOpset = 13;
// The model input's name in the exported graph (`data`, as model files name it).
inline constexpr const char* kInputName = "data";

struct ExportResult {
  onnx::ModelProto model;
  std::string output;  // the graph output's name (the layer whose output the loss read)
  std::string note;    // what the export changed: the loss dropped, dropout omitted
};

// The inference graph of `spec` with the values of every parameter and state tensor by name
// ("conv1.weight", "bn1.running_mean"); a missing value or one of another shape is an error
// naming the tensor. `doc` becomes the model's doc_string (where the weights came from).
ExportResult export_model(const ModelSpec& spec, const std::map<std::string, GivenValues>& values,
                          const std::string& doc = "");

// A float32 TensorProto of `values` named `name` (an ONNX test-data tensor file's content).
onnx::TensorProto float_tensor(const std::string& name, const GivenValues& values);

}  // namespace ablate::models::onnx_export
