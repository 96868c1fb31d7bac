// LayerType: everything about one kind of layer that does not depend on the execution
// strategy, written once per type in models/layers/<type>.cpp (as Caffe writes one file per
// layer class and registers it with REGISTER_LAYER_CLASS):
//   - the keys a model file may give it and the rule of each value, and the check that its
//     keys fit together (run by the parser);
//   - its shape rule: output, parameter and state shapes from the input shape;
//   - the initializer fans of its parameters;
//   - its forward FLOPs and the scratch memory its forward needs;
//   - whether it may write its output over its input, and whether its backward reads its
//     output (so that no layer may overwrite that output in place);
//   - whether it is a loss, and for an element-wise activation which Backend activation it is.
// The catalogue (layer_catalog.h) holds one LayerType per type name; shape inference,
// parameters, FLOPs, the memory estimate and every strategy read it instead of comparing
// type names. A new layer type is one new file in models/layers/; unless it is an
// element-wise activation, each strategy also registers a builder for it
// (graph/layer_registry.h).
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "kernels/op_params.h"
#include "models/model_spec.h"
#include "models/value_rules.h"

namespace ablate::models {

using Dims = std::vector<std::int64_t>;

struct KeyRule {
  std::string key;
  ValueRule rule;
};

// A state tensor of a layer: changed by its training forward, read at test time, never
// trained (BatchNorm's running statistics: PyTorch's buffers, TF's non-trainable
// moving_mean / moving_variance, Caffe's BatchNorm blobs with lr_mult 0).
struct StateShape {
  std::string suffix;   // "running_mean"
  Dims shape;
  double initial = 0;   // every element starts at this value
};

// The shapes of one layer for a batch of N samples.
struct LayerShapes {
  std::string name;
  Dims input;                            // [N, C, H, W] or [N, F]: the first input
  std::vector<Dims> inputs;              // every input in order (inputs[0] == input)
  Dims output;                           // loss layers: [1]
  std::vector<Dims> params;              // weight, bias shapes (empty if none)
  std::vector<std::string> param_names;  // the suffix of each: "weight", "bias"
  std::vector<StateShape> state;         // its state tensors (empty for most layers)

  void add_param(const std::string& suffix, Dims shape) {
    param_names.push_back(suffix);
    params.push_back(std::move(shape));
  }
};

// The fans an initializer reads for one parameter; 0 means the tensor's own
// (models/initializers.h: fan_in = numel / shape[0], fan_out = numel / shape[1]).
struct ParamFans {
  double fan_out = 0, fan_in = 0;
};

// What the fan rule of a layer sees: the layer, its shapes, and the window area of the layer
// that first reads its output when that reader pools (Theano's conv fan_out divides by it;
// 0 when the first reader does not pool).
struct FanArgs {
  const LayerSpec& layer;
  const LayerShapes& shapes;
  double reader_pooled_area = 0;
};

struct LayerType {
  std::string name;            // the type name of model files: "convolution"
  std::vector<KeyRule> keys;   // the keys it accepts; `input` is added for every type
  bool loss = false;           // ends the model: input [N, classes], output [1], the batch mean
  // How many inputs a layer of the type reads (`input=a,b`): most read one; add and concat
  // two or more (max_inputs 0: no upper bound).
  int min_inputs = 1, max_inputs = 1;
  // Throws (LayerSpec::fail) when keys do not fit together: a required key missing, a key
  // that another excludes. Null: any combination of accepted keys is fine.
  std::function<void(const LayerSpec&)> check_keys;
  // Fills s.output, s.params and s.state from s.input (`model` gives the classes to a loss);
  // throws naming the layer when the input does not fit. Required.
  std::function<void(const LayerSpec&, const ModelSpec& model, LayerShapes& s)> shape;
  // The initializer of a parameter whose <suffix>_init key is absent, by suffix (BatchNorm's
  // scale: {"weight", "constant:1"}); a suffix not listed: weight xavier, bias constant:0.
  std::vector<std::pair<std::string, std::string>> default_inits;
  // The fans of each parameter, in s.params order. Null: every parameter's own fans.
  std::function<std::vector<ParamFans>(const FanArgs&)> fans;
  // For a layer that reduces windows of its input (pooling): the window area. Null: none.
  std::function<double(const LayerSpec&)> pooled_area;
  // Forward floating-point operations for the batch of `s` (2 per multiply-add). Null: 0,
  // not counted (memory-bound layers, a few percent of the work).
  std::function<double(const LayerSpec&, const LayerShapes& s)> flops;
  // Elements of scratch its forward needs for the whole batch beyond its output (the
  // convolution's im2col buffer). Null: none.
  std::function<double(const LayerSpec&, const LayerShapes& s)> workspace_elements;
  // Its output may overwrite its input (Caffe's in-place ReLU and Dropout).
  bool in_place = false;
  // Its backward reads its output values (tanh: 1 - y^2, sigmoid: y (1 - y), pooling, LRN,
  // log_softmax), so the layer above it must not overwrite them in place. ReLU reads only
  // where y > 0, which an in-place ReLU or Dropout above keeps wherever the gradient it passes
  // down is non-zero: false.
  bool backward_reads_output = false;
  // An element-wise activation: the Backend activation of a layer of this type (forward
  // activation_forward, backward activation_backward). Every strategy runs such a type
  // through its one activation builder. Null: not an activation.
  std::function<kernels::Activation(const LayerSpec&)> activation;
  // An activation whose backward reads its input x rather than its output y (GELU): every
  // strategy hands Backend::activation_backward x instead of y. Such a type cannot run in
  // place (its output would overwrite the x its backward reads).
  bool backward_reads_input = false;
};

// Adds a type to the catalogue (ABLATE_LAYER_TYPE does it at start-up). A second type of
// the same name, or one without a shape rule, is a logic_error.
bool register_layer_type(LayerType type);

}  // namespace ablate::models

// Registers the LayerType that `describe()` returns, at start-up, from the file that writes it
// (models/layers/<type>.cpp). The library is linked whole (CMakeLists.txt), so no
// registration is dropped by the linker.
#define ABLATE_LAYER_TYPE(describe) \
  [[maybe_unused]] static const bool ablate_layer_type_registered = ::ablate::models::register_layer_type(describe())
