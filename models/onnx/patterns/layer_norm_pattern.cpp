// Layer normalisation over the last axis in its decomposed form, as torch.onnx writes
// nn.LayerNorm below opset 17 (where ONNX has no LayerNormalization):
//   mean = ReduceMean(x, axes [-1]);  d = Sub(x, mean)
//   var  = ReduceMean(Pow(d, 2), axes [-1]);  y = Div(d, Sqrt(Add(var, eps)))
//   out  = Add(Mul(y, scale), bias)        (the Add optional; Add and Mul operands in either order)
// with keepdims 1, scale and bias constants and eps a constant scalar. Replaced by one ONNX
// LayerNormalization node (axis -1, epsilon eps; ops/layer_normalization.cpp maps it) reading x
// and the constants `<name>#scale`, `<name>#bias` (zeros without the Add).
#include "models/onnx/patterns/fusion.h"

namespace ablate::models::onnx_import::patterns {
namespace {

bool reduces_last_axis(const onnx::NodeProto& r) {
  return GraphIndex::ints(r, "axes") == std::vector<std::int64_t>{-1} && GraphIndex::int_attribute(r, "keepdims").value_or(1) == 1;
}

// The constant operand of a two-input node whose other operand is `value`, else nullopt.
std::optional<GivenValues> constant_beside(const GraphIndex& g, const onnx::NodeProto& n, const std::string& value) {
  if (n.input_size() != 2) return std::nullopt;
  for (int k = 0; k < 2; ++k)
    if (n.input(k) == value) return g.constant(n.input(1 - k));
  return std::nullopt;
}

}  // namespace

std::vector<PatternMatch> find_layer_norm(const GraphIndex& g, const std::string&) {
  std::vector<PatternMatch> matches;
  for (const onnx::NodeProto& mean : g.nodes()) {
    if (mean.op_type() != "ReduceMean" || mean.input_size() != 1 || !reduces_last_axis(mean)) continue;
    const std::string& x = mean.input(0);
    const onnx::NodeProto* sub = g.only_reader(mean.output(0), "Sub");
    if (!sub || sub->input_size() != 2 || sub->input(0) != x || sub->input(1) != mean.output(0)) continue;
    const std::string& d = sub->output(0);
    const auto& readers = g.readers(d);
    if (readers.size() != 2 || g.is_graph_output(d)) continue;
    const onnx::NodeProto* pow = nullptr;
    const onnx::NodeProto* div = nullptr;
    for (int r : readers) {
      const onnx::NodeProto& n = g.nodes()[static_cast<std::size_t>(r)];
      if (n.op_type() == "Pow" && n.input_size() == 2 && n.input(0) == d) pow = &n;
      if (n.op_type() == "Div" && n.input_size() == 2 && n.input(0) == d) div = &n;
    }
    if (!pow || !div || !g.scalar(pow->input(1)) || *g.scalar(pow->input(1)) != 2.0) continue;
    const onnx::NodeProto* var = g.only_reader(pow->output(0), "ReduceMean");
    if (!var || !reduces_last_axis(*var)) continue;
    const onnx::NodeProto* add_eps = g.only_reader(var->output(0), "Add");
    if (!add_eps) continue;
    const std::optional<GivenValues> eps = constant_beside(g, *add_eps, var->output(0));
    if (!eps || eps->values.size() != 1) continue;
    const onnx::NodeProto* sqrt = g.only_reader(add_eps->output(0), "Sqrt");
    if (!sqrt || g.only_reader(sqrt->output(0), "Div") != div || div->input(1) != sqrt->output(0)) continue;
    const onnx::NodeProto* mul = g.only_reader(div->output(0), "Mul");
    if (!mul) continue;
    const std::optional<GivenValues> scale = constant_beside(g, *mul, div->output(0));
    if (!scale) continue;
    const onnx::NodeProto* add_bias = g.only_reader(mul->output(0), "Add");
    std::optional<GivenValues> bias = add_bias ? constant_beside(g, *add_bias, mul->output(0)) : std::nullopt;
    if (!bias) add_bias = nullptr;

    std::vector<const onnx::NodeProto*> parts{&mean, sub, pow, var, add_eps, sqrt, div, mul};
    if (add_bias) parts.push_back(add_bias);
    PatternMatch m;
    for (const auto* n : parts) m.replaced.push_back(g.index_of(*n));
    const std::string name = common_name(parts, mean.name().empty() ? mean.output(0) : mean.name());
    if (!bias) bias = GivenValues{scale->shape, std::vector<double>(scale->values.size(), 0.0)};
    m.constants[name + "#scale"] = *scale;
    m.constants[name + "#bias"] = *bias;
    m.node.set_op_type("LayerNormalization");
    m.node.set_name(name);
    m.node.add_input(x);
    m.node.add_input(name + "#scale");
    m.node.add_input(name + "#bias");
    m.node.add_output(parts.back()->output(0));
    auto* axis = m.node.add_attribute();
    axis->set_name("axis");
    axis->set_type(onnx::AttributeProto::INT);
    axis->set_i(-1);
    auto* epsilon = m.node.add_attribute();
    epsilon->set_name("epsilon");
    epsilon->set_type(onnx::AttributeProto::FLOAT);
    epsilon->set_f(static_cast<float>(eps->values[0]));
    matches.push_back(std::move(m));
  }
  return matches;
}

}  // namespace ablate::models::onnx_import::patterns
