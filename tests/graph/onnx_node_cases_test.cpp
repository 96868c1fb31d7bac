// ONNX's own operator tests (libonnx-testdata: data/node/<case>/model.onnx with
// test_data_set_0/input_k.pb and output_0.pb) for every op the importer maps: each case is
// imported forward-only (models/onnx/onnx_import.h), its weights fed as graph inputs given as
// values, and run forward on every CPU backend (graph/static/forward_runner.h) within ONNX's
// backend-test tolerance (|y - expected| <= 1e-7 + 1e-3 |expected|). Every case is printed as
// run or skipped with its reason (the importer's refusal, or a shape the harness cannot feed);
// the test fails when a supported op has no case run.
//
// Where an ablate model cannot hold an ONNX op test as written, the harness wraps the case's
// own node in exact (bit-for-bit) ops and says so:
//   Add, Concat   two graph inputs, and an ablate model reads one: the inputs joined along
//                 axis 1 into one input X, each taken back out of X by a selector (a Gemm
//                 [N, sum C] -> [N, C_k] of 0/1 weights for rank 2, a 1x1 Conv for ranks 3-4,
//                 a rank-3 [N, C, L] read as [N, C, L, 1]: the same values in the same order)
//   Softmax, LogSoftmax over a rank-2 input: an identity Gemm before the node, so that the
//                 node reads an inner_product's [N, F] (the model input is [N, F, 1, 1])
//   Flatten       an identity Gemm after it (a Flatten alone aliases its input: no layer)
//   LayerNormalization, ReduceMean on [N, T, D]: tokens before the node, as a ViT makes them:
//                 X fed transposed as an image [N, D, T, 1], an identity 1x1 Conv, Reshape to
//                 [N, D, T] and Transpose perm [0, 2, 1] (a permutation: X exactly)
//   LayerNormalization on [N, F]: an identity Gemm before it; on [N, C, H, W]: an identity 1x1
//                 Conv before it; only its output Y is compared (Mean and InvStdDev dropped:
//                 an ablate model has one output)
//   Transpose     of [N, A, B]: X read as [N, A, B, 1], an identity 1x1 Conv, Reshape to
//                 [N, A, B] (an image's positions, which perm [0, 2, 1] makes tokens)
// A forward-only Softmax runs as log_softmax; exp of its output is compared.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <map>
#include <set>

#include <onnx/onnx_pb.h>

#include "graph/engine.h"
#include "graph/static/forward_runner.h"
#include "graph/static/static_engine.h"
#include "kernels/registry.h"
#include "models/checked_model.h"
#include "models/onnx/onnx_import.h"

namespace ablate::graph {
namespace {

namespace fs = std::filesystem;
using models::GivenValues;
namespace onnx_import = models::onnx_import;

const char* kNodeRoot = "/usr/share/libonnx-testdata/data/node";

// The ops the importer maps, with the case-name prefixes of their tests.
const std::map<std::string, std::vector<std::string>> kOpCases = {
    {"Conv", {"test_conv", "test_basic_conv"}},
    {"MaxPool", {"test_maxpool"}},
    {"AveragePool", {"test_averagepool"}},
    {"Gemm", {"test_gemm"}},
    {"MatMul", {"test_matmul"}},
    {"Relu", {"test_relu"}},
    {"Tanh", {"test_tanh"}},
    {"Sigmoid", {"test_sigmoid"}},
    {"BatchNormalization", {"test_batchnorm"}},
    {"Add", {"test_add"}},
    {"Concat", {"test_concat"}},
    {"GlobalAveragePool", {"test_globalaveragepool"}},
    {"LRN", {"test_lrn"}},
    {"Softmax", {"test_softmax"}},
    {"LogSoftmax", {"test_logsoftmax"}},
    {"Flatten", {"test_flatten"}},
    {"Dropout", {"test_dropout"}},
    {"LayerNormalization", {"test_layer_normalization"}},
    {"Transpose", {"test_transpose"}},
    {"ReduceMean", {"test_reduce_mean"}},
};

struct Skip {
  std::string reason;
};

onnx::ModelProto read_model(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  onnx::ModelProto m;
  if (!m.ParseFromIstream(&in)) throw Skip{"model.onnx does not parse"};
  return m;
}

GivenValues read_tensor(const fs::path& path) {
  try {
    return onnx_import::read_tensor_file(path.string());
  } catch (const std::invalid_argument& e) {
    throw Skip{std::string("test data: ") + e.what()};
  }
}

onnx::TensorProto tensor(const std::string& name, const std::vector<std::int64_t>& dims, const std::vector<float>& values) {
  onnx::TensorProto t;
  t.set_name(name);
  t.set_data_type(onnx::TensorProto::FLOAT);
  for (auto d : dims) t.add_dims(d);
  for (float v : values) t.add_float_data(v);
  return t;
}

void set_input(onnx::GraphProto& g, const std::string& name, const std::vector<std::int64_t>& dims) {
  auto* v = g.add_input();
  v->set_name(name);
  auto* tt = v->mutable_type()->mutable_tensor_type();
  tt->set_elem_type(onnx::TensorProto::FLOAT);
  for (auto d : dims) tt->mutable_shape()->add_dim()->set_dim_value(d);
}

onnx::NodeProto* add_node(onnx::GraphProto& g, const std::string& op, std::vector<std::string> in, std::string out) {
  auto* n = g.add_node();
  n->set_op_type(op);
  n->set_name(out);
  for (auto& i : in) n->add_input(i);
  n->add_output(out);
  return n;
}

void set_ints(onnx::NodeProto* n, const std::string& name, const std::vector<std::int64_t>& v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INTS);
  for (std::int64_t x : v) a->add_ints(x);
}

void set_int(onnx::NodeProto* n, const std::string& name, std::int64_t v) {
  auto* a = n->add_attribute();
  a->set_name(name);
  a->set_type(onnx::AttributeProto::INT);
  a->set_i(v);
}

// A model of the case's opsets with an empty graph.
onnx::ModelProto shell(const onnx::ModelProto& original) {
  onnx::ModelProto m;
  m.set_ir_version(original.ir_version());
  *m.mutable_opset_import() = original.opset_import();
  m.mutable_graph()->set_name(original.graph().name());
  return m;
}

// An identity Gemm (transB 1, B = I) reading `in` [N, f], writing `out`.
void identity_gemm(onnx::GraphProto& g, const std::string& in, const std::string& out, std::int64_t f) {
  std::vector<float> eye(static_cast<std::size_t>(f * f), 0.0f);
  for (std::int64_t i = 0; i < f; ++i) eye[static_cast<std::size_t>(i * f + i)] = 1.0f;
  *g.add_initializer() = tensor(out + ".eye", {f, f}, eye);
  set_int(add_node(g, "Gemm", {in, out + ".eye"}, out), "transB", 1);
}

// An identity 1x1 Conv (weight [c, c, 1, 1] = I) reading `in`, writing `out`.
void identity_conv(onnx::GraphProto& g, const std::string& in, const std::string& out, std::int64_t c) {
  std::vector<float> eye(static_cast<std::size_t>(c * c), 0.0f);
  for (std::int64_t i = 0; i < c; ++i) eye[static_cast<std::size_t>(i * c + i)] = 1.0f;
  *g.add_initializer() = tensor(out + ".eye", {c, c, 1, 1}, eye);
  add_node(g, "Conv", {in, out + ".eye"}, out);
}

// Reshape of `in` to the constant `dims`, writing `out`.
void reshape_to(onnx::GraphProto& g, const std::string& in, const std::string& out, const std::vector<std::int64_t>& dims) {
  onnx::TensorProto* shape = g.add_initializer();
  shape->set_name(out + ".shape");
  shape->set_data_type(onnx::TensorProto::INT64);
  shape->add_dims(static_cast<std::int64_t>(dims.size()));
  for (std::int64_t d : dims) shape->add_int64_data(d);
  add_node(g, "Reshape", {in, out + ".shape"}, out);
}

struct PreparedCase {
  onnx::ModelProto model;
  onnx_import::ImportOptions options;
  GivenValues x;                 // the model input's values
  std::string wrapped;           // how the harness wrapped the case ("" when not)
};

// Add / Concat: the inputs joined along axis 1 into X, selectors take each back.
PreparedCase join_inputs(const onnx::ModelProto& original, const std::vector<GivenValues>& inputs) {
  const onnx::NodeProto& node = original.graph().node(0);
  const std::size_t rank = inputs[0].shape.size();
  for (const auto& in : inputs)
    if (in.shape.size() != rank || in.shape[0] != inputs[0].shape[0])
      throw Skip{"inputs of different ranks or batches (broadcasting): the harness joins inputs of one batch and rank"};
  if (rank < 2 || rank > 4) throw Skip{"rank-" + std::to_string(rank) + " inputs: the harness joins [N, C, ...] inputs of rank 2 to 4"};
  if (node.op_type() == "Concat" && rank > 2)
    for (const auto& a : node.attribute())
      if (a.name() == "axis" && a.i() < 0)
        throw Skip{"negative axis on rank-" + std::to_string(rank) + " inputs, which the harness reads as rank 4"};
  std::vector<std::int64_t> rest(inputs[0].shape.begin() + 2, inputs[0].shape.end());
  while (rank > 2 && rest.size() < 2) rest.push_back(1);
  std::int64_t inner = 1;
  for (auto d : rest) inner *= d;
  for (const auto& in : inputs) {
    std::int64_t n = 1;
    for (std::size_t d = 2; d < in.shape.size(); ++d) n *= in.shape[d];
    if (n != inner) throw Skip{"inputs differ beyond axis 1 (broadcasting)"};
  }
  const std::int64_t batch = inputs[0].shape[0];
  std::int64_t total = 0;
  for (const auto& in : inputs) total += in.shape[1];
  PreparedCase p;
  p.model = shell(original);
  onnx::GraphProto& g = *p.model.mutable_graph();
  std::vector<std::int64_t> xdims{batch, total};
  xdims.insert(xdims.end(), rest.begin(), rest.end());
  set_input(g, "X", xdims);
  p.x.shape = xdims;
  for (std::int64_t n = 0; n < batch; ++n)
    for (const auto& in : inputs) {
      const std::int64_t block = in.shape[1] * inner;
      p.x.values.insert(p.x.values.end(), in.values.begin() + n * block, in.values.begin() + (n + 1) * block);
    }
  onnx::NodeProto copy = node;
  copy.clear_input();
  std::int64_t offset = 0;
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    const std::int64_t c = inputs[k].shape[1];
    std::vector<float> select(static_cast<std::size_t>(c * total), 0.0f);
    for (std::int64_t i = 0; i < c; ++i) select[static_cast<std::size_t>(i * total + offset + i)] = 1.0f;
    const std::string out = "selected" + std::to_string(k);
    if (rank == 2) {
      *g.add_initializer() = tensor(out + ".w", {c, total}, select);
      set_int(add_node(g, "Gemm", {"X", out + ".w"}, out), "transB", 1);
    } else {
      *g.add_initializer() = tensor(out + ".w", {c, total, 1, 1}, select);
      add_node(g, "Conv", {"X", out + ".w"}, out);
    }
    copy.add_input(out);
    offset += c;
  }
  *g.add_node() = copy;
  *g.add_output() = original.graph().output(0);
  p.wrapped = rank == 2 ? "inputs joined into one, taken back by selector Gemms"
                        : "inputs joined into one, taken back by selector 1x1 Convs";
  return p;
}

PreparedCase prepare_case(const fs::path& dir, const onnx::ModelProto& original);

// The case's node reading what `build` makes of the graph input X (renamed "X.fed", of shape
// `fed`) in place of X; `build` adds its nodes and returns the value the node reads.
void wrap_first_input(PreparedCase& p, const std::vector<std::int64_t>& fed,
                      const std::function<std::string(onnx::GraphProto&, const std::string&)>& build, const std::string& how) {
  onnx::GraphProto& g = *p.model.mutable_graph();
  onnx::NodeProto node = g.node(0);
  g.clear_node();
  onnx::ValueInfoProto& in = *g.mutable_input(0);
  in.set_name(in.name() + ".fed");
  auto* shape = in.mutable_type()->mutable_tensor_type()->mutable_shape();
  shape->clear_dim();
  for (std::int64_t d : fed) shape->add_dim()->set_dim_value(d);
  node.set_input(0, build(g, in.name()));
  *g.add_node() = node;
  p.wrapped = how;
}

// X [N, T, D] as tokens: fed transposed [N, D, T], an identity 1x1 Conv, Reshape, Transpose [0, 2, 1].
void tokens_before(PreparedCase& p) {
  const std::int64_t n = p.x.shape[0], t = p.x.shape[1], d = p.x.shape[2];
  GivenValues fed{{n, d, t, 1}, std::vector<double>(p.x.values.size())};
  for (std::int64_t b = 0; b < n; ++b)
    for (std::int64_t i = 0; i < t; ++i)
      for (std::int64_t k = 0; k < d; ++k)
        fed.values[static_cast<std::size_t>((b * d + k) * t + i)] = p.x.values[static_cast<std::size_t>((b * t + i) * d + k)];
  p.x = fed;
  wrap_first_input(p, fed.shape, [&](onnx::GraphProto& g, const std::string& x) {
    identity_conv(g, x, "image", d);
    reshape_to(g, "image", "positions", {-1, d, t});
    set_ints(add_node(g, "Transpose", {"positions"}, "tokens"), "perm", {0, 2, 1});
    return std::string("tokens");
  }, "tokens before it: X fed transposed, an identity 1x1 Conv, Reshape, Transpose [0, 2, 1]");
}

PreparedCase prepare(const fs::path& dir, const onnx::ModelProto& original) {
  PreparedCase p = prepare_case(dir, original);
  p.options.forward_only = true;
  return p;
}

PreparedCase prepare_case(const fs::path& dir, const onnx::ModelProto& original) {
  const onnx::GraphProto& graph = original.graph();
  std::vector<GivenValues> inputs;
  for (int k = 0; k < graph.input_size(); ++k)
    inputs.push_back(read_tensor(dir / "test_data_set_0" / ("input_" + std::to_string(k) + ".pb")));
  if (inputs.empty()) throw Skip{"no graph input"};
  const std::string op = graph.node(0).op_type();
  if ((op == "Add" || op == "Concat") && inputs.size() >= 2) return join_inputs(original, inputs);
  PreparedCase p;
  p.model = original;
  p.x = inputs[0];
  for (std::size_t k = 1; k < inputs.size(); ++k) p.options.input_values[graph.input(static_cast<int>(k)).name()] = inputs[k];
  onnx::GraphProto& g = *p.model.mutable_graph();
  if ((op == "Softmax" || op == "LogSoftmax") && inputs[0].shape.size() == 2) {
    onnx::NodeProto node = g.node(0);
    g.clear_node();
    identity_gemm(g, graph.input(0).name(), "identity", inputs[0].shape[1]);
    node.set_input(0, "identity");
    *g.add_node() = node;
    p.wrapped = "an identity Gemm before it";
  }
  const std::size_t rank = inputs[0].shape.size();
  if (op == "LayerNormalization") {  // Y only
    while (g.output_size() > 1) g.mutable_output()->RemoveLast();
    while (g.node(0).output_size() > 1) g.mutable_node(0)->mutable_output()->RemoveLast();
    if (rank == 2) {
      onnx::NodeProto node = g.node(0);
      g.clear_node();
      identity_gemm(g, graph.input(0).name(), "identity", inputs[0].shape[1]);
      node.set_input(0, "identity");
      *g.add_node() = node;
      p.wrapped = "an identity Gemm before it; Y only";
    } else if (rank == 3) {
      tokens_before(p);
      p.wrapped += "; Y only";
    } else if (rank == 4) {
      wrap_first_input(p, inputs[0].shape, [&](onnx::GraphProto& gr, const std::string& x) {
        identity_conv(gr, x, "identity", inputs[0].shape[1]);
        return std::string("identity");
      }, "an identity 1x1 Conv before it; Y only");
    }
  }
  if (op == "ReduceMean" && rank == 3) tokens_before(p);
  if (op == "Transpose" && rank == 3) {
    const std::int64_t a = inputs[0].shape[1], b = inputs[0].shape[2];
    p.x.shape.push_back(1);
    wrap_first_input(p, p.x.shape, [&](onnx::GraphProto& gr, const std::string& x) {
      identity_conv(gr, x, "image", a);
      reshape_to(gr, "image", "positions", {-1, a, b});
      return std::string("positions");
    }, "X read as an image [N, A, B, 1]: an identity 1x1 Conv, Reshape to [N, A, B]");
  }
  if (op == "Flatten") {
    const GivenValues expected = read_tensor(dir / "test_data_set_0" / "output_0.pb");
    if (expected.shape.size() != 2) throw Skip{"expected output is not 2-D"};
    const std::string flat = g.node(0).output(0);
    g.mutable_node(0)->set_output(0, flat + ".flat");
    identity_gemm(g, flat + ".flat", flat, expected.shape[1]);
    p.wrapped = "an identity Gemm after it";
  }
  return p;
}

std::vector<std::string> cpu_backends() {
  std::vector<std::string> out;
  for (const std::string& name : kernels::backend_names())
    if (name == "reference" || name == "eigen" || name == "openblas" || name == "onednn") out.push_back(name);
  return out;
}

// Runs one case on every backend; returns the failures ("" when every backend matched).
std::string run_case(const fs::path& dir, const PreparedCase& p, const std::vector<std::string>& backends) {
  const onnx_import::ImportResult imported = [&] {
    try {
      return onnx_import::import_model(p.model, (dir / "model.onnx").string(), p.options);
    } catch (const std::invalid_argument& e) {
      throw Skip{std::string("import refused: ") + e.what()};
    }
  }();
  for (const models::LayerSpec& layer : imported.spec.layers)
    for (const std::string& missing : static_graph::missing_builders())
      if (layer.type == missing) throw Skip{"the static strategy has no builder for layer type '" + missing + "' yet"};
  const models::CheckedModel model(imported.spec);
  const kernels::Shape shape = model.input_shape(p.x.shape.at(0));
  kernels::Tensor x(shape, kernels::DType::f32);
  if (static_cast<std::int64_t>(p.x.values.size()) != x.numel()) throw Skip{"input numel differs from the model input"};
  for (std::int64_t i = 0; i < x.numel(); ++i) x.set(i, p.x.values[static_cast<std::size_t>(i)]);
  const GivenValues expected = read_tensor(dir / "test_data_set_0" / "output_0.pb");
  std::string failures;
  for (const std::string& backend_name : backends) {
    auto backend = kernels::make_backend(backend_name);
    const kernels::Tensor y = static_graph::run_forward(model, *backend, x);
    if (y.numel() != static_cast<std::int64_t>(expected.values.size())) {
      failures += " " + backend_name + ": output " + y.describe() + " has " + std::to_string(y.numel()) +
                  " values, expected " + std::to_string(expected.values.size()) + ";";
      continue;
    }
    int bad = 0;
    std::string first;
    for (std::int64_t i = 0; i < y.numel(); ++i) {
      const double got = imported.output_is_log_softmax ? std::exp(y.at(i)) : y.at(i);
      const double want = expected.values[static_cast<std::size_t>(i)];
      if (!(std::abs(got - want) <= 1e-7 + 1e-3 * std::abs(want))) {
        if (bad++ == 0) first = "element " + std::to_string(i) + ": " + std::to_string(got) + " vs " + std::to_string(want);
      }
    }
    if (bad) failures += " " + backend_name + ": " + std::to_string(bad) + " values off (" + first + ");";
  }
  return failures;
}

TEST(OnnxNodeCases, EverySupportedOpsCasesRunOnEveryCpuBackendWithinOnnxTolerance) {
  if (!fs::exists(kNodeRoot)) GTEST_SKIP() << kNodeRoot << " is absent (Debian's libonnx-testdata): no ONNX operator tests to run";
  const std::vector<std::string> backends = cpu_backends();
  ASSERT_FALSE(backends.empty());
  std::vector<fs::path> dirs;
  for (const auto& entry : fs::directory_iterator(kNodeRoot)) dirs.push_back(entry.path());
  std::sort(dirs.begin(), dirs.end());
  std::map<std::string, int> runs;
  int run = 0, skipped = 0;
  for (const fs::path& dir : dirs) {
    const std::string name = dir.filename().string();
    std::string family;
    for (const auto& [op, prefixes] : kOpCases)
      for (const auto& prefix : prefixes)
        if (name.rfind(prefix, 0) == 0) family = op;
    if (family.empty()) continue;
    std::string op = family;
    try {
      const onnx::ModelProto original = read_model(dir / "model.onnx");
      if (original.graph().node_size() != 1) throw Skip{std::to_string(original.graph().node_size()) + " nodes (an expanded function)"};
      op = original.graph().node(0).op_type();
      const PreparedCase p = prepare(dir, original);
      const std::string failures = run_case(dir, p, backends);
      std::cout << "  run   " << name << " (" << op << ")" << (p.wrapped.empty() ? "" : " [" + p.wrapped + "]")
                << (failures.empty() ? ": matches on every backend" : ": MISMATCH") << "\n";
      EXPECT_TRUE(failures.empty()) << name << ":" << failures;
      ++runs[op];
      ++run;
    } catch (const Skip& s) {
      std::cout << "  skip  " << name << " (" << op << "): " << s.reason << "\n";
      ++skipped;
    }
  }
  std::cout << run << " cases run on " << backends.size() << " backends, " << skipped << " skipped\n";
  // An op whose ablate layer type the static strategy cannot build yet is reported, not required.
  const std::vector<std::string> missing = static_graph::missing_builders();
  for (const auto& [op, prefixes] : kOpCases) {
    if (op == "Concat" && std::find(missing.begin(), missing.end(), "concat") != missing.end()) {
      std::cout << "Concat: no case required, the static strategy has no concat builder yet\n";
      continue;
    }
    EXPECT_GT(runs[op], 0) << "no case of supported op " << op << " ran";
  }
}

// A forward-only model (no loss) is refused by every strategy, with the reason.
TEST(OnnxNodeCases, EnginesRefuseToTrainAForwardOnlyModel) {
  models::ModelSpec spec;
  spec.name = "relu_only";
  spec.source = "relu.onnx";
  spec.input_shape = {2, 3, 3};
  spec.forward_only = true;
  models::LayerSpec relu;
  relu.name = "r";
  relu.type = "relu";
  spec.layers.push_back(relu);
  auto backend = kernels::make_backend("reference");
  EngineOptions options;
  options.batch = 2;
  for (const std::string& strategy : strategy_names()) {
    try {
      make_engine(strategy, spec, *backend, options);
      ADD_FAILURE() << strategy << " built an engine for a forward-only model";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("runs forward only"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("relu_only"), std::string::npos) << e.what();
    }
  }
  // The forward runner runs it: relu of x.
  kernels::Tensor x({2, 2, 3, 3}, kernels::DType::f32);
  for (std::int64_t i = 0; i < x.numel(); ++i) x.set(i, static_cast<double>(i % 5) - 2.0);
  const kernels::Tensor y = static_graph::run_forward(models::CheckedModel(spec), *backend, x);
  ASSERT_EQ(y.shape(), x.shape());
  for (std::int64_t i = 0; i < x.numel(); ++i) EXPECT_EQ(y.at(i), std::max(0.0, x.at(i)));
}

}  // namespace
}  // namespace ablate::graph
