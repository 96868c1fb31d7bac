// The forward graph of a checked model (see model_builder.h): placeholders, then each
// layer's registered LayerGraph in file order.
#include "graph/static/model_builder.h"

#include "models/layer_params.h"

namespace ablate::graph::static_graph {

LayerRegistry<LayerGraph>& layer_graph_registry() {
  static LayerRegistry<LayerGraph> registry("static");
  return registry;
}

ModelGraphBuilder::ModelGraphBuilder(const models::CheckedModel& model, std::int64_t batch, kernels::DType dtype,
                                     Phase phase)
    : model_(model), phase_(phase), m_{Graph(dtype), {}, {}, {}, {}, {}, {}, {}, {}} {
  m_.x = source(OpKind::placeholder, "x", model.input_shape(batch), dtype);
  m_.labels = source(OpKind::placeholder, "labels", {batch}, kernels::DType::i32);
}

Value ModelGraphBuilder::source(OpKind op, const std::string& name, kernels::Shape shape, kernels::DType dtype) {
  Attrs a;
  a.shape = std::move(shape);
  a.dtype = dtype;
  a.key = name;
  return m_.graph.out(m_.graph.add(op, name, {}, a));
}

Value ModelGraphBuilder::op(OpKind kind, const models::LayerSpec& l, std::vector<Value> inputs, Attrs a,
                            const char* suffix) {
  return m_.graph.out(
      m_.graph.add(kind, l.name + "/" + (suffix ? suffix : op_name(kind)), std::move(inputs), std::move(a)));
}

Value ModelGraphBuilder::parameter(const models::LayerSpec& l, const char* suffix, const kernels::Shape& shape) {
  const models::ParamSettings s = models::param_settings(l, suffix);
  const std::string name = l.name + "." + suffix;
  Value v = source(OpKind::variable, name, shape, m_.graph.dtype());
  m_.parameters.push_back({name, v, s.lr_mult, s.decay_mult});
  return v;
}

Value ModelGraphBuilder::state(const models::LayerSpec& l, const std::string& suffix, const kernels::Shape& shape) {
  const std::string name = l.name + "." + suffix;
  Value v = source(OpKind::variable, name, shape, m_.graph.dtype());
  m_.state.push_back({name, v});
  return v;
}

Value ModelGraphBuilder::with_bias(const models::LayerSpec& l, Value y, bool bias) {
  if (!bias) return y;
  return op(OpKind::bias_add, l, {y, parameter(l, "bias", {shape(y)[1]})});
}

void ModelGraphBuilder::set_loss(Value scores, Value loss) {
  m_.scores = scores;
  m_.loss = loss;
}

ModelGraph ModelGraphBuilder::build() {
  std::vector<Value> outputs(model_.size());
  for (std::size_t i = 0; i < model_.size(); ++i) {
    const models::LayerSpec& l = model_.layer(i);
    std::vector<Value> x;
    for (const int input : model_.inputs(i)) x.push_back(input < 0 ? m_.x : outputs[static_cast<std::size_t>(input)]);
    outputs[i] = layer_graph_registry().at(l)(*this, l, model_.type(i), x);
  }
  m_.output = outputs.back();
  return std::move(m_);
}

ModelGraph build_model_graph(const models::CheckedModel& model, std::int64_t batch, kernels::DType dtype, Phase phase) {
  if (batch <= 0)
    throw std::invalid_argument("model '" + model.name() + "': batch size " + std::to_string(batch) +
                                "; expected a positive count");
  return ModelGraphBuilder(model, batch, dtype, phase).build();
}

}  // namespace ablate::graph::static_graph
