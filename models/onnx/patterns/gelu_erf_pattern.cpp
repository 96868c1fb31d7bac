// GELU in its erf form, as torch.onnx (opsets 9 to 17) writes nn.GELU():
//   u = Div(x, √2)   (or Mul(x, 1/√2))
//   e = Erf(u);  a = Add(e, 1);  m = Mul(x, a);  y = Mul(m, 0.5)
// (each Add and Mul with its operands in either order), y = x · Φ(x) = ½x(1 + erf(x/√2)):
// ablate's exact `gelu`. The constants are compared within 1e-6 relative (the file holds √2
// rounded to float32, 1.41421354; ablate computes with the exact value, as PyTorch's module).
// Replaced by one Gelu node (approximate "none"). An Erf outside this form stays an Erf node,
// which the walk refuses by name.
#include <cmath>

#include "models/onnx/patterns/fusion.h"

namespace ablate::models::onnx_import::patterns {
namespace {

// The other input of a two-input node when one input is `value`, else "".
std::string other_input(const onnx::NodeProto& n, const std::string& value) {
  if (n.input_size() != 2) return "";
  if (n.input(0) == value) return n.input(1);
  if (n.input(1) == value) return n.input(0);
  return "";
}

}  // namespace

std::vector<PatternMatch> find_gelu_erf(const GraphIndex& g, const std::string&) {
  std::vector<PatternMatch> matches;
  const double sqrt2 = std::sqrt(2.0);
  for (const onnx::NodeProto& erf : g.nodes()) {
    if (erf.op_type() != "Erf" || erf.input_size() != 1 || erf.output_size() != 1) continue;
    // u = x / √2 or x · (1/√2), x an activation
    const std::string& u = erf.input(0);
    const onnx::NodeProto* scale = g.produced_by(u, "Div");
    std::string x;
    if (scale && scale->input_size() == 2 && g.scalar(scale->input(1)) && close_to(*g.scalar(scale->input(1)), sqrt2)) {
      x = scale->input(0);
    } else if ((scale = g.produced_by(u, "Mul")) && scale->input_size() == 2) {
      for (int k = 0; k < 2 && x.empty(); ++k)
        if (auto s = g.scalar(scale->input(k)); s && close_to(*s, 1 / sqrt2)) x = scale->input(1 - k);
    }
    if (x.empty() || g.constant(x) || g.readers(u).size() != 1 || g.is_graph_output(u)) continue;
    const onnx::NodeProto* add = g.only_reader(erf.output(0), "Add");
    if (!add) continue;
    const std::string one = other_input(*add, erf.output(0));
    if (one.empty() || !g.scalar(one) || !close_to(*g.scalar(one), 1.0)) continue;
    const onnx::NodeProto* mul = g.only_reader(add->output(0), "Mul");
    if (!mul || other_input(*mul, add->output(0)) != x) continue;
    const onnx::NodeProto* half = g.only_reader(mul->output(0), "Mul");
    if (!half) continue;
    const std::string h = other_input(*half, mul->output(0));
    if (h.empty() || !g.scalar(h) || !close_to(*g.scalar(h), 0.5)) continue;

    PatternMatch m;
    const std::vector<const onnx::NodeProto*> parts{scale, &erf, add, mul, half};
    for (const auto* n : parts) m.replaced.push_back(g.index_of(*n));
    m.node.set_op_type("Gelu");
    m.node.set_name(common_name(parts, half->name().empty() ? half->output(0) : half->name()));
    m.node.add_input(x);
    m.node.add_output(half->output(0));
    auto* a = m.node.add_attribute();
    a->set_name("approximate");
    a->set_type(onnx::AttributeProto::STRING);
    a->set_s("none");
    matches.push_back(std::move(m));
  }
  return matches;
}

}  // namespace ablate::models::onnx_import::patterns
