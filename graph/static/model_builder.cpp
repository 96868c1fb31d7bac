// The forward graph of a ModelSpec (see model_builder.h). Layer geometry comes from
// models/layer_params.h, the same rules every strategy reads.
#include "graph/static/model_builder.h"

#include <map>
#include <stdexcept>

#include "models/layer_params.h"

namespace ablate::graph::static_graph {
namespace {

class Builder {
 public:
  Builder(const models::ModelSpec& spec, std::int64_t batch, kernels::DType dtype, Phase phase)
      : spec_(spec), phase_(phase), m_{Graph(dtype), {}, {}, {}, {}, {}} {
    if (spec.input_shape.size() != 3)
      throw std::invalid_argument("model '" + spec.name + "' (" + spec.source + ") needs an input shape C H W");
    if (spec.layers.empty()) throw std::invalid_argument("model '" + spec.name + "' (" + spec.source + ") has no layers");
    const auto& in = spec.input_shape;
    m_.x = source(OpKind::placeholder, "x", "x", {batch, in[0], in[1], in[2]}, dtype);
    m_.labels = source(OpKind::placeholder, "labels", "labels", {batch}, kernels::DType::i32);
  }

  ModelGraph build() {
    for (std::size_t i = 0; i < spec_.layers.size(); ++i) add_layer(i);
    return std::move(m_);
  }

 private:
  Graph& g() { return m_.graph; }

  Value source(OpKind op, const std::string& name, const std::string& key, kernels::Shape shape, kernels::DType dtype) {
    Attrs a;
    a.shape = std::move(shape);
    a.dtype = dtype;
    a.key = key;
    return g().out(g().add(op, name, {}, a));
  }

  Value op(OpKind kind, const models::LayerSpec& l, std::vector<Value> inputs, Attrs a = {}, const char* suffix = nullptr) {
    return g().out(g().add(kind, l.name + "/" + (suffix ? suffix : op_name(kind)), std::move(inputs), std::move(a)));
  }

  Value parameter(const models::LayerSpec& l, const char* suffix, const kernels::Shape& shape) {
    const bool weight = std::string(suffix) == "weight";
    const models::ParamSettings s = weight ? models::weight_settings(l) : models::bias_settings(l);
    const std::string name = l.name + "." + suffix;
    Value v = source(OpKind::variable, name, name, shape, g().dtype());
    m_.parameters.push_back({name, v, s.lr_mult, s.decay_mult});
    return v;
  }

  [[noreturn]] void fail(const models::LayerSpec& l, const std::string& what) const {
    throw std::invalid_argument(l.source + ": layer '" + l.name + "' (" + l.type + "): " + what);
  }

  const kernels::Shape& shape(Value v) { return g().type(v).shape; }

  Value with_bias(const models::LayerSpec& l, Value y, bool bias) {
    if (!bias) return y;
    return op(OpKind::bias_add, l, {y, parameter(l, "bias", {shape(y)[1]})});
  }

  Value convolution(const models::LayerSpec& l, Value x) {
    const kernels::Shape& in = shape(x);
    if (in.size() != 4) fail(l, "its input " + g().describe(x) + " is not [N, C, H, W]");
    const models::ConvGeometry geo = models::conv_geometry(l, static_cast<int>(in[2]), static_cast<int>(in[3]));
    Attrs a;
    a.conv = geo.params;
    if (l.type == "conv_map") {
      const std::vector<std::int32_t> table = models::connection_table(l, static_cast<int>(in[1]));
      const std::int64_t pairs = static_cast<std::int64_t>(table.size() / 2);
      kernels::Tensor t({pairs, 2}, kernels::DType::i32);
      for (std::size_t i = 0; i < table.size(); ++i) t.data<std::int32_t>()[i] = table[i];
      Value w = parameter(l, "weight", {pairs, geo.kernel_h, geo.kernel_w});
      Value tv = g().out(g().add_constant(l.name + "/table", t));
      a.outputs = geo.outputs;
      return with_bias(l, op(OpKind::conv2d_map, l, {x, w, tv}, a), geo.bias);
    }
    Value w = parameter(l, "weight", {geo.outputs, in[1], geo.kernel_h, geo.kernel_w});
    return with_bias(l, op(OpKind::conv2d, l, {x, w}, a), geo.bias);
  }

  Value layer_value(const models::LayerSpec& l, std::size_t i, Value x) {
    const std::string& t = l.type;
    Attrs a;
    if (t == "convolution" || t == "conv_map") return convolution(l, x);
    if (t == "inner_product") {
      const kernels::Shape& in = shape(x);
      Value w = parameter(l, "weight", {models::layer_outputs(l), kernels::shape_numel(in) / in[0]});
      return with_bias(l, op(OpKind::linear, l, {x, w}), models::layer_has_bias(l));
    }
    if (t == "pooling") {
      const kernels::Shape& in = shape(x);
      if (in.size() != 4) fail(l, "its input " + g().describe(x) + " is not [N, C, H, W]");
      a.pool = models::pool_params(l, static_cast<int>(in[2]), static_cast<int>(in[3]));
      return op(OpKind::pool2d, l, {x}, a);
    }
    if (t == "bias") {
      if (shape(x).size() < 2) fail(l, "its input " + g().describe(x) + " is not [N, C, ...]");
      return with_bias(l, x, true);
    }
    if (t == "relu" || t == "tanh" || t == "sigmoid") {
      a.activation = t == "relu" ? kernels::Activation::relu
                     : t == "tanh" ? kernels::Activation::tanh : kernels::Activation::sigmoid;
      return op(OpKind::activation, l, {x}, a, t.c_str());
    }
    if (t == "lrn") {
      a.lrn = models::lrn_params(l);
      return op(OpKind::lrn, l, {x}, a);
    }
    if (t == "dropout") {
      const double keep = models::dropout_keep(l);
      if (!(keep > 0 && keep <= 1)) fail(l, "keep=" + std::to_string(keep) + ": expected a probability in (0, 1]");
      if (phase_ == Phase::test) return x;  // the identity at test time (inverted dropout)
      Attrs m;
      m.shape = shape(x);
      m.dtype = g().dtype();
      m.alpha = keep;
      m.key = l.name;
      Value mask = g().out(g().add(OpKind::dropout_mask, l.name + "/mask", {}, m));
      return op(OpKind::mul, l, {x, mask});
    }
    if (t == "log_softmax") return op(OpKind::log_softmax, l, {x});
    if (t == "softmax_loss" || t == "nll_loss") {
      if (i + 1 != spec_.layers.size()) fail(l, "a loss layer must be the last layer");
      const kernels::Shape& in = shape(x);
      if (in.size() != 2 || in[1] != spec_.classes)
        fail(l, "its input " + g().describe(x) + " is not [N, " + std::to_string(spec_.classes) + "] for the model's " +
                    std::to_string(spec_.classes) + " classes");
      m_.scores = x;
      const Value loss = op(t == "softmax_loss" ? OpKind::softmax_xent : OpKind::nll, l, {x, m_.labels});
      m_.loss = loss;
      return loss;
    }
    fail(l, "type '" + t + "' has no op in the static strategy");
  }

  void add_layer(std::size_t i) {
    const models::LayerSpec& l = spec_.layers[i];
    if (outputs_.count(l.name)) fail(l, "the layer name is used twice");
    const std::string input = l.input.empty() && i > 0 ? spec_.layers[i - 1].name : l.input;
    Value x = m_.x;
    if (!input.empty()) {
      auto it = outputs_.find(input);
      if (it == outputs_.end()) fail(l, "input '" + input + "' is not a layer defined before it");
      if (!it->second.valid()) fail(l, "input '" + input + "' is a loss and has no output");
      x = it->second;
    }
    const bool loss = l.type == "softmax_loss" || l.type == "nll_loss";
    if (i + 1 == spec_.layers.size() && !loss) fail(l, "the last layer must be a loss (softmax_loss or nll_loss)");
    Value y = layer_value(l, i, x);
    outputs_[l.name] = loss ? Value{} : y;
  }

  const models::ModelSpec& spec_;
  Phase phase_;
  ModelGraph m_;
  std::map<std::string, Value> outputs_;
};

}  // namespace

ModelGraph build_model_graph(const models::ModelSpec& spec, std::int64_t batch, kernels::DType dtype, Phase phase) {
  if (batch <= 0)
    throw std::invalid_argument("model '" + spec.name + "': batch size " + std::to_string(batch) + "; expected a positive count");
  if (dtype != kernels::DType::f32 && dtype != kernels::DType::f64)
    throw std::invalid_argument(std::string("model '") + spec.name + "': precision " + kernels::dtype_name(dtype) +
                                "; expected f32 or f64");
  return Builder(spec, batch, dtype, phase).build();
}

}  // namespace ablate::graph::static_graph
