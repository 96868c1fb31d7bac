// Multi-head self-attention as a PyTorch module with separate projections exports it
// (torch.onnx, opsets 13 to 17), anchored at its Softmax:
//   q, k, v  = Add(MatMul(x, Bq), bq), ...        (Linear: B = Wᵀ [D, D] a constant, often a
//              Transpose of the weight; the Add optional, its operands in either order)
//   heads(t) = Transpose(Reshape(t, [-1 | 0, T, h, dh]), perm [0, 2, 1, 3])    [N, h, T, dh]
//   kᵀ       = Transpose(Reshape(k, ...), perm [0, 2, 3, 1])  or  Transpose(heads(k), perm [0, 1, 3, 2])
//   s        = Div(MatMul(heads(q), kᵀ), √dh)  (or Mul by 1/√dh)
//   p        = Softmax(s, axis -1)
//   o        = Reshape(Transpose(MatMul(p, heads(v)), perm [0, 2, 1, 3]), [-1 | 0, T, D])
//   y        = Add(MatMul(o, Bo), bo)
// All three projections read the same x, and every value inside is read only inside. This is
// ablate's `attention` layer (models/README.md: nn.MultiheadAttention with separate projections):
// one MultiHeadSelfAttention node (attributes heads, tokens) reading x and eight constants,
// `<name>#query_weight` [D, D] (= Wq, [out, in]), `<name>#query_bias` [D] (zeros where the
// Linear has none), key, value and out alike; ops/attention.cpp maps it.
// A Softmax over a MatMul of two activations that departs from this form (another scale, a
// mask, heads joined otherwise) is an error naming the node where it departs.
#include <cmath>
#include <stdexcept>

#include "models/onnx/naming.h"
#include "models/onnx/onnx_import.h"
#include "models/onnx/op_mapping.h"
#include "models/onnx/patterns/fusion.h"

namespace ablate::models::onnx_import::patterns {
namespace {

struct Projection {
  std::vector<const onnx::NodeProto*> nodes;
  std::string input;
  GivenValues weight;  // [O, I]
  GivenValues bias;    // [O]
};

struct Heads {
  std::vector<const onnx::NodeProto*> nodes;
  std::string source;  // the [N, T, D] value split
  std::int64_t tokens = 0, heads = 0, head_width = 0;
};

class Matcher {
 public:
  Matcher(const GraphIndex& g, const std::string& source, const onnx::NodeProto& softmax)
      : g_(g), source_(source), softmax_(softmax) {}

  PatternMatch match();

 private:
  [[noreturn]] void fail(const onnx::NodeProto& node, const std::string& problem) const {
    throw std::invalid_argument(source_ + ": " + node_label(node, g_.index_of(node)) + ": " + problem +
                                " (in the multi-head attention around " + node_label(softmax_, g_.index_of(softmax_)) +
                                "; ablate maps softmax(Q Kᵀ / √dh) V with Q, K, V and the output projected by "
                                "constant weights, docs/onnx.md)");
  }
  // `value`'s one reader (no graph output), of op `op`; else an error at `from`.
  const onnx::NodeProto& next(const std::string& value, const std::string& op, const onnx::NodeProto& from) const {
    const onnx::NodeProto* n = g_.only_reader(value, op);
    if (!n) fail(from, "its output is expected to be read by one " + op + " node only");
    return *n;
  }
  // The producer of `value`, of op `op`, whose output nothing else reads; else an error at `from`.
  const onnx::NodeProto& before(const std::string& value, const std::string& op, const onnx::NodeProto& from) const {
    const onnx::NodeProto* n = g_.produced_by(value, op);
    if (!n) fail(from, "its input '" + value + "' is expected to come from a " + op + " node");
    if (g_.readers(value).size() != 1 || g_.is_graph_output(value))
      fail(*n, "its output is read outside the attention");
    return *n;
  }
  void expect_perm(const onnx::NodeProto& t, const std::vector<std::int64_t>& perm) const {
    if (GraphIndex::ints(t, "perm") != perm) fail(t, "perm is expected to be " + dims_string(perm));
  }
  // The constant shape of a Reshape, its first entry the batch (-1 or 0).
  std::vector<std::int64_t> reshape_to(const onnx::NodeProto& r) const {
    const std::optional<GivenValues> shape = r.input_size() == 2 ? g_.constant(r.input(1)) : std::nullopt;
    if (!shape) fail(r, "its shape is not a constant");
    std::vector<std::int64_t> dims;
    for (double v : shape->values) dims.push_back(static_cast<std::int64_t>(v));
    if (dims.empty() || (dims[0] != -1 && !(dims[0] == 0 && GraphIndex::int_attribute(r, "allowzero").value_or(0) == 0)))
      fail(r, "shape " + dims_string(dims) + " is expected to keep the batch as -1 (or 0)");
    return dims;
  }
  Heads heads(const std::string& value, const std::vector<std::int64_t>& perm, const onnx::NodeProto& from) const;
  Heads key_heads(const std::string& value, const onnx::NodeProto& from) const;
  Projection projection_into(const std::string& value, const onnx::NodeProto& from) const;
  Projection projection_from(const std::string& value, const onnx::NodeProto& from) const;
  GivenValues bias_vector(const GivenValues& c, std::int64_t outputs, const onnx::NodeProto& add) const;

  const GraphIndex& g_;
  const std::string& source_;
  const onnx::NodeProto& softmax_;
};

Heads Matcher::heads(const std::string& value, const std::vector<std::int64_t>& perm, const onnx::NodeProto& from) const {
  Heads h;
  const onnx::NodeProto& t = before(value, "Transpose", from);
  expect_perm(t, perm);
  const onnx::NodeProto& r = before(t.input(0), "Reshape", t);
  const std::vector<std::int64_t> dims = reshape_to(r);
  if (dims.size() != 4 || dims[1] < 1 || dims[2] < 1 || dims[3] < 1)
    fail(r, "shape " + dims_string(dims) + " is expected to split [N, T, D] into heads [N, T, h, dh]");
  h.nodes = {&t, &r};
  h.source = r.input(0);
  h.tokens = dims[1], h.heads = dims[2], h.head_width = dims[3];
  return h;
}

Heads Matcher::key_heads(const std::string& value, const onnx::NodeProto& from) const {
  const onnx::NodeProto& t = before(value, "Transpose", from);
  const std::vector<std::int64_t> perm = GraphIndex::ints(t, "perm");
  if (perm == std::vector<std::int64_t>{0, 2, 3, 1}) return heads(value, perm, from);  // Kᵀ in one Transpose
  if (perm != std::vector<std::int64_t>{0, 1, 3, 2}) fail(t, "perm is expected to be [0, 2, 3, 1] or [0, 1, 3, 2] (Kᵀ per head)");
  Heads h = heads(t.input(0), {0, 2, 1, 3}, t);
  h.nodes.push_back(&t);
  return h;
}

GivenValues Matcher::bias_vector(const GivenValues& c, std::int64_t outputs, const onnx::NodeProto& add) const {
  bool vector = static_cast<std::int64_t>(c.values.size()) == outputs && !c.shape.empty() && c.shape.back() == outputs;
  for (std::size_t d = 0; vector && d + 1 < c.shape.size(); ++d) vector = c.shape[d] == 1;
  if (!vector) fail(add, "the constant " + dims_string(c.shape) + " is no bias [" + std::to_string(outputs) + "]");
  GivenValues b;
  b.shape = {outputs};
  b.values = c.values;
  return b;
}

// The projection Add(MatMul(x, B), b) or MatMul(x, B) whose output is `value`.
Projection Matcher::projection_into(const std::string& value, const onnx::NodeProto& from) const {
  Projection p;
  std::string product = value;
  std::optional<GivenValues> bias;
  const onnx::NodeProto* add = g_.produced_by(value, "Add");
  if (add) {
    if (g_.readers(value).size() != 1 || g_.is_graph_output(value)) fail(*add, "its output is read outside the attention");
    for (int k = 0; k < 2 && !bias; ++k)
      if (auto c = g_.constant(add->input(k)); c && g_.produced_by(add->input(1 - k), "MatMul")) {
        bias = c;
        product = add->input(1 - k);
      }
    if (!bias) fail(*add, "is expected to add a constant bias to a MatMul (the projection)");
    p.nodes.push_back(add);
  }
  const onnx::NodeProto& mm = before(product, "MatMul", add ? *add : from);
  const std::optional<GivenValues> b = g_.constant(mm.input(1));
  if (!b || b->shape.size() != 2 || g_.constant(mm.input(0)))
    fail(mm, "is expected to multiply an activation by a constant weight [D, D] (the projection)");
  p.nodes.push_back(&mm);
  p.input = mm.input(0);
  p.weight = permuted(*b, {1, 0});
  p.bias = bias ? bias_vector(*bias, b->shape[1], *add) : GivenValues{{b->shape[1]}, std::vector<double>(static_cast<std::size_t>(b->shape[1]), 0.0)};
  return p;
}

// The output projection reading `value`: MatMul(value, B), then an Add of a constant bias if
// that is the product's one reader.
Projection Matcher::projection_from(const std::string& value, const onnx::NodeProto& from) const {
  const onnx::NodeProto& mm = next(value, "MatMul", from);
  const std::optional<GivenValues> b = mm.input(0) == value ? g_.constant(mm.input(1)) : std::nullopt;
  if (!b || b->shape.size() != 2) fail(mm, "is expected to multiply the joined heads by a constant weight [D, D] (the output projection)");
  Projection p;
  p.nodes.push_back(&mm);
  p.input = value;
  p.weight = permuted(*b, {1, 0});
  p.bias = GivenValues{{b->shape[1]}, std::vector<double>(static_cast<std::size_t>(b->shape[1]), 0.0)};
  if (const onnx::NodeProto* add = g_.only_reader(mm.output(0), "Add")) {
    const std::string other = add->input(0) == mm.output(0) ? add->input(1) : add->input(0);
    if (auto c = g_.constant(other)) {
      p.bias = bias_vector(*c, b->shape[1], *add);
      p.nodes.push_back(add);
    }
  }
  return p;
}

PatternMatch Matcher::match() {
  // s = scale(Q Kᵀ)
  const std::string& s = softmax_.input(0);
  const onnx::NodeProto* scale = g_.produced_by(s, "Div");
  bool divides = scale != nullptr;
  if (!scale) scale = g_.produced_by(s, "Mul");
  if (!scale || scale->input_size() != 2) fail(softmax_, "its input is expected to be Q Kᵀ scaled by a Div or Mul");
  if (g_.readers(s).size() != 1 || g_.is_graph_output(s)) fail(*scale, "its output is read outside the attention");
  int product_input = 0;
  std::optional<double> factor = g_.scalar(scale->input(1));
  if (!factor && !divides) factor = g_.scalar(scale->input(0)), product_input = 1;
  if (!factor) fail(*scale, "is expected to scale by a constant scalar");
  const onnx::NodeProto& scores = before(scale->input(product_input), "MatMul", *scale);
  const Heads q = heads(scores.input(0), {0, 2, 1, 3}, scores);
  const Heads k = key_heads(scores.input(1), scores);
  const double root = std::sqrt(static_cast<double>(q.head_width));
  if (!close_to(divides ? *factor : 1 / *factor, root))
    fail(*scale, std::string(divides ? "divides" : "multiplies") + " the scores by " + number(*factor) +
                     "; ablate's attention scales them by 1/√dh = 1/" + number(root));
  const auto axis = GraphIndex::int_attribute(softmax_, "axis").value_or(-1);
  if (axis != -1 && axis != 3) fail(softmax_, "axis " + std::to_string(axis) + " is not the last axis of the scores [N, h, T, T]");
  // o = P V, heads joined back, projected
  const onnx::NodeProto& pv = next(softmax_.output(0), "MatMul", softmax_);
  if (pv.input(0) != softmax_.output(0)) fail(pv, "is expected to multiply the attention weights by V (P V)");
  const Heads v = heads(pv.input(1), {0, 2, 1, 3}, pv);
  const onnx::NodeProto& join = next(pv.output(0), "Transpose", pv);
  expect_perm(join, {0, 2, 1, 3});
  const onnx::NodeProto& flat = next(join.output(0), "Reshape", join);
  const std::vector<std::int64_t> dims = reshape_to(flat);
  const std::int64_t width = q.heads * q.head_width;
  if (dims.size() != 3 || dims[1] != q.tokens || dims[2] != width)
    fail(flat, "shape " + dims_string(dims) + " is expected to join the heads to [-1, " + std::to_string(q.tokens) + ", " +
                   std::to_string(width) + "]");
  for (const Heads* h : {&k, &v})
    if (h->tokens != q.tokens || h->heads != q.heads || h->head_width != q.head_width)
      fail(*h->nodes.back(), "splits into heads [N, " + std::to_string(h->tokens) + ", " + std::to_string(h->heads) + ", " +
                                 std::to_string(h->head_width) + "], Q into [N, " + std::to_string(q.tokens) + ", " +
                                 std::to_string(q.heads) + ", " + std::to_string(q.head_width) + "]");
  const Projection pq = projection_into(q.source, *q.nodes.back());
  const Projection pk = projection_into(k.source, *k.nodes.back());
  const Projection pv_ = projection_into(v.source, *v.nodes.back());
  const Projection out = projection_from(flat.output(0), flat);
  if (pk.input != pq.input || pv_.input != pq.input)
    fail(*(pk.input != pq.input ? pk : pv_).nodes.back(), "projects another input than Q's ('" + pq.input +
                                                              "'): ablate's attention is self-attention");
  for (const Projection* p : {&pq, &pk, &pv_, &out})
    if (p->weight.shape != std::vector<std::int64_t>{width, width})
      fail(*p->nodes.back(), "has a weight " + dims_string(p->weight.shape) + " (as [out, in]); ablate's attention has [" +
                                 std::to_string(width) + ", " + std::to_string(width) + "]");

  std::vector<const onnx::NodeProto*> parts{scale, &scores, &softmax_, &pv, &join, &flat};
  for (const Heads* h : {&q, &k, &v}) parts.insert(parts.end(), h->nodes.begin(), h->nodes.end());
  for (const Projection* p : {&pq, &pk, &pv_, &out}) parts.insert(parts.end(), p->nodes.begin(), p->nodes.end());
  PatternMatch m;
  for (const auto* n : parts) m.replaced.push_back(g_.index_of(*n));
  const std::string name = common_name(parts, softmax_.name().empty() ? softmax_.output(0) : softmax_.name());
  m.node.set_op_type(kAttentionOp);
  m.node.set_name(name);
  m.node.add_input(pq.input);
  const std::vector<std::pair<std::string, const Projection*>> projections{
      {"query", &pq}, {"key", &pk}, {"value", &pv_}, {"out", &out}};
  for (const auto& [role, p] : projections) {
    m.node.add_input(name + "#" + role + "_weight");
    m.node.add_input(name + "#" + role + "_bias");
    m.constants[name + "#" + role + "_weight"] = p->weight;
    m.constants[name + "#" + role + "_bias"] = p->bias;
  }
  m.node.add_output(out.nodes.back()->output(0));
  for (const auto& [key, value] : {std::pair<std::string, std::int64_t>{"heads", q.heads}, {"tokens", q.tokens}}) {
    auto* a = m.node.add_attribute();
    a->set_name(key);
    a->set_type(onnx::AttributeProto::INT);
    a->set_i(value);
  }
  return m;
}

}  // namespace

std::vector<PatternMatch> find_attention(const GraphIndex& g, const std::string& source) {
  std::vector<PatternMatch> matches;
  for (const onnx::NodeProto& n : g.nodes()) {
    if (n.op_type() != "Softmax" || n.input_size() != 1) continue;
    // Attention-like: the Softmax reads a scaled (or plain) MatMul of two activations.
    const std::string& s = n.input(0);
    const onnx::NodeProto* scale = g.produced_by(s, "Div");
    if (!scale) scale = g.produced_by(s, "Mul");
    const onnx::NodeProto* mm = g.produced_by(s, "MatMul");
    for (int k = 0; scale && !mm && k < scale->input_size(); ++k) mm = g.produced_by(scale->input(k), "MatMul");
    if (!mm || mm->input_size() != 2 || g.constant(mm->input(0)) || g.constant(mm->input(1))) continue;
    matches.push_back(Matcher(g, source, n).match());
  }
  return matches;
}

}  // namespace ablate::models::onnx_import::patterns
