// ModelSpec: the strategy-neutral description of a network, read from a small text file
// (format in models/README.md). The layer-wise, dynamic and static engines all build from it.
//
//   # comment
//   model lenet                      name of the model
//   input 1 28 28                    C H W of one sample
//   classes 10
//   layer conv1 convolution outputs=20 kernel=5 weight_init=xavier bias_lr_mult=2
//   layer pool1 pooling mode=max kernel=2 stride=2
//   ...
//   layer loss softmax_loss
//
// A layer takes the previous layer's output unless it names `input=LAYER` (`input=a,b` for a
// layer of several inputs: add, concat). `data` names the model input.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace ablate::models {

struct LayerSpec {
  std::string name;
  std::string type;   // one of layer_types()
  // The layers that feed it, in order (`input=a,b`); empty: the previous layer (the model
  // input for the first). kModelInput ("data") names the model input.
  std::vector<std::string> inputs;
  std::map<std::string, std::string> params;
  std::string source;  // "file:line" for error messages
  int line = 0;

  bool has(const std::string& key) const { return params.count(key) != 0; }
  // Typed getters: a missing key returns the fallback; a malformed value throws naming
  // source, layer, key and value.
  int get_int(const std::string& key, int fallback) const;
  double get_double(const std::string& key, double fallback) const;
  std::string get_string(const std::string& key, const std::string& fallback) const;
  // The same, but a missing key throws.
  int require_int(const std::string& key) const;
  double require_double(const std::string& key) const;
  // "lenet.model:5: layer 'conv1' (convolution)" (without the source when it is empty), the
  // prefix of every error about the layer; fail() throws std::invalid_argument with it.
  std::string where() const;
  [[noreturn]] void fail(const std::string& what) const;
};

// The name by which `input=` refers to the model input (Caffe's "data" blob); no layer may
// take it.
inline constexpr const char* kModelInput = "data";

// Values given for parameters and state tensors by name ("conv1.weight"), in row-major order:
// an imported model's initial weights (ONNX initializers). Every strategy starts from them
// instead of drawing (models/parameters.h).
struct GivenValues {
  std::vector<std::int64_t> shape;
  std::vector<double> values;
};

struct ModelSpec {
  std::string name;
  std::string source;            // file name or "<zoo>/lenet.model"
  std::vector<int> input_shape;  // C, H, W
  int classes = 0;
  std::vector<LayerSpec> layers;
  // Initial values by tensor name (empty: every tensor drawn by its initializer).
  std::map<std::string, GivenValues> given;
  // A model that only runs forward (an imported ONNX operator graph without a loss): the
  // last layer need not be a loss and classes may be 0 (CheckedModel); no engine trains it
  // (graph::make_engine refuses it), graph/static/forward_runner.h runs it.
  bool forward_only = false;
  // What an importer changed ("" for a model file): "the model ends in logits [N, 10]:
  // softmax_loss appended for training". The caller prints it.
  std::string note;

  const LayerSpec& layer(const std::string& name) const;  // throws if absent
};

// Layer types and, for each, the parameters it accepts (documented in models/README.md).
const std::map<std::string, std::vector<std::string>>& layer_types();

// Parses model text; `source` names it in errors ("lenet.model:12: unknown layer type 'conv'").
ModelSpec parse_model(const std::string& text, const std::string& source);
// Reads a file, or a zoo model by name ("lenet") when `path_or_name` is not a file. A path
// ending in ".onnx" is an ONNX model, imported (models/onnx/onnx_import.h) with the loss
// appended; ModelSpec::note says what the import changed, for the caller to print.
ModelSpec load_model(const std::string& path_or_name);

}  // namespace ablate::models
