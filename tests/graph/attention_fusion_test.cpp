// The attention_fusion pass (graph/static/attention_fusion_pass.cpp): on a hand-built
// attention with its symbolic gradient, the five forward and gradient products and the softmax
// pair become one fused_attention and one fused_attention_grad node with the same loss and
// gradients (f64, reference and openblas); what does not match stays (a fetched score matrix, a
// context product with alpha 2); an evaluation graph fuses its forward alone; on vit-block's
// training graph the memory plan loses every [B, T, T] buffer; and trained end to end, vit-tiny
// under the static strategy with the pass on equals the pass off in f64 and the layer-wise
// strategy, losses and weights, with the pass named in the engine's report.
#include <algorithm>
#include <cmath>

#include <gtest/gtest.h>

#include "graph/static/autodiff.h"
#include "graph/static/passes.h"
#include "graph/static/training_graph.h"
#include "graph_test_util.h"
#include "kernels/registry.h"
#include "models/model_spec.h"
#include "fetch_compare.h"
#include "static_test_util.h"

namespace ablate::graph {
namespace {

using static_graph::Attrs;
using static_graph::Graph;
using static_graph::OpKind;
using static_graph::Value;
using testing::GraphKit;

int live(const Graph& g, OpKind op) {
  int n = 0;
  for (int id : g.execution_order()) n += g.node(id).op == op;
  return n;
}

struct Attention {
  Value q, k, v, scores, p, o;
};

// q, k, v [6, 17, 4] variables; scores = 0.5 q k^T; p = softmax_last(scores; 0.7); o = p v.
Attention attention(GraphKit& kit, double context_alpha = 1.0) {
  Attention a;
  a.q = kit.variable("q", {6, 17, 4}, 1);
  a.k = kit.variable("k", {6, 17, 4}, 2);
  a.v = kit.variable("v", {6, 17, 4}, 3);
  Attrs qk;
  qk.trans_b = true;
  qk.alpha = 0.5;
  a.scores = kit.op(OpKind::batched_matmul, "attn/scores", {a.q, a.k}, qk);
  Attrs soft;
  soft.alpha = 0.7;
  a.p = kit.op(OpKind::softmax_last, "attn/softmax", {a.scores}, soft);
  Attrs pv;
  pv.alpha = context_alpha;
  a.o = kit.op(OpKind::batched_matmul, "attn/context", {a.p, a.v}, pv);
  return a;
}

// loss = sum((o w)^2) for a fixed w, and its gradients at q, k and v, all fetched.
void add_loss_and_gradients(GraphKit& kit, const Attention& a) {
  const Value w = kit.variable("w", {6, 17, 4}, 4);
  const Value loss = kit.op(OpKind::sum_squares, "loss", {kit.op(OpKind::mul, "weighted", {a.o, w})});
  kit.graph.fetches.push_back(loss);
  for (const Value& g : static_graph::add_gradients(kit.graph, loss, {a.q, a.k, a.v})) kit.graph.fetches.push_back(g);
}

TEST(AttentionFusion, FusesTheForwardAndItsGradientWithTheSameResults) {
  for (const char* name : {"reference", "openblas"}) {
    SCOPED_TRACE(name);
    auto backend = kernels::make_backend(name, 1);
    GraphKit kit(*backend);
    add_loss_and_gradients(kit, attention(kit));
    auto on = kit.session();
    auto off = kit.session({"attention_fusion"});
    const Graph& fused = on->graph();
    EXPECT_EQ(live(fused, OpKind::fused_attention), 1);
    EXPECT_EQ(live(fused, OpKind::fused_attention_grad), 1);
    EXPECT_EQ(live(fused, OpKind::batched_matmul), 0);
    EXPECT_EQ(live(fused, OpKind::softmax_last), 0);
    EXPECT_EQ(live(fused, OpKind::softmax_last_grad), 0);
    EXPECT_EQ(live(off->graph(), OpKind::batched_matmul), 6);  // S, O, dP, dV, dQ, dK
    EXPECT_EQ(live(off->graph(), OpKind::fused_attention), 0);
    for (int id : fused.execution_order())
      if (fused.node(id).op == OpKind::fused_attention) {
        EXPECT_EQ(fused.node(id).name, "attn/fused_attention");
        EXPECT_DOUBLE_EQ(fused.node(id).attrs.alpha, 0.35);  // 0.5 (the product) x 0.7 (the softmax)
        EXPECT_EQ(fused.node(id).attrs.block, static_graph::kAttentionBlock);
      }
    const auto& rewrites = on->stats().passes.rewrites;
    const auto it = std::find_if(rewrites.begin(), rewrites.end(), [](const auto& r) { return r.first == "attention_fusion"; });
    ASSERT_NE(it, rewrites.end());
    EXPECT_EQ(it->second, 1);
    testing::expect_fetches_close(testing::run_and_fetch(*on), testing::run_and_fetch(*off), 1e-12);
  }
}

TEST(AttentionFusion, LeavesWhatDoesNotMatch) {
  auto backend = kernels::make_backend("reference");
  {  // the scores are fetched: they must exist
    GraphKit kit(*backend);
    const Attention a = attention(kit);
    add_loss_and_gradients(kit, a);
    kit.graph.fetches.push_back(a.scores);
    auto s = kit.session();
    EXPECT_EQ(live(s->graph(), OpKind::fused_attention), 0);
    EXPECT_EQ(live(s->graph(), OpKind::softmax_last), 1);
  }
  {  // softmax(...) 2 v is not the fused op's function
    GraphKit kit(*backend);
    add_loss_and_gradients(kit, attention(kit, 2.0));
    EXPECT_EQ(live(kit.session()->graph(), OpKind::fused_attention), 0);
  }
  {  // the probabilities read by another node too
    GraphKit kit(*backend);
    const Attention a = attention(kit);
    kit.graph.fetches.push_back(kit.op(OpKind::copy, "attn/p_copy", {a.p}));
    EXPECT_EQ(live(kit.session()->graph(), OpKind::fused_attention), 0);
  }
}

TEST(AttentionFusion, AForwardOnlyGraphFusesItsForward) {
  auto backend = kernels::make_backend("reference");
  GraphKit kit(*backend);
  const Attention a = attention(kit);
  kit.graph.fetches.push_back(a.o);
  auto on = kit.session();
  auto off = kit.session({"attention_fusion"});
  EXPECT_EQ(live(on->graph(), OpKind::fused_attention), 1);
  EXPECT_EQ(live(on->graph(), OpKind::fused_attention_grad), 0);
  testing::expect_fetches_close(testing::run_and_fetch(*on), testing::run_and_fetch(*off), 1e-12);
}

models::ModelSpec vit_block() { return models::load_model(std::string(ABLATE_SOURCE_DIR) + "/docs/models/vit-block.model"); }

// The planned arena has no [B, T, T] buffer left: scores, probabilities and their gradients go.
TEST(AttentionFusion, VitBlockTrainingGraphKeepsNoScoreMatrix) {
  auto backend = kernels::make_backend("openblas", 1);
  const models::ModelSpec spec = vit_block();
  const EngineOptions options = testing::adam_options(4, kernels::DType::f32);
  auto graph_of = [&](std::vector<std::string> disabled) {
    auto tg = static_graph::build_training_graph(models::CheckedModel(spec), 4, options);
    static_graph::run_passes(tg.graph, disabled, *backend);
    return std::move(tg.graph);
  };
  const Graph on = graph_of({}), off = graph_of({"attention_fusion"});
  auto square_buffers = [](const Graph& g) {  // [N * heads, T, T] = [4 * 2, 16, 16]
    int n = 0;
    for (int id : g.execution_order())
      for (const auto& t : g.node(id).outputs) n += t.shape == kernels::Shape{8, 16, 16};
    return n;
  };
  EXPECT_EQ(square_buffers(on), 0);
  EXPECT_GE(square_buffers(off), 4);  // S, P, dP, dS
  EXPECT_EQ(live(on, OpKind::fused_attention), 1);
  EXPECT_EQ(live(on, OpKind::fused_attention_grad), 1);
}

struct Trained {
  std::vector<double> losses;
  std::vector<kernels::Tensor> weights;
  EngineReport report;
};

Trained train(const std::string& strategy, const models::ModelSpec& spec, kernels::Backend& backend,
              std::vector<std::string> disabled, int steps) {
  EngineOptions options;
  options.dtype = kernels::DType::f64;
  options.batch = 2;
  options.seed = 17;
  // Torch's SGD, as strategy_equivalence_test: Adam would scale the key bias's rounding-level
  // gradient (0 in exact arithmetic) up to steps of its own, different in each order of sums.
  options.optimizer.type = "torch_sgd";
  options.optimizer.lr.policy = "torch_decay";
  options.optimizer.lr.base_lr = 0.05;
  options.disabled_passes = std::move(disabled);
  auto engine = make_engine(strategy, spec, backend, options);
  Trained out;
  for (int step = 0; step < steps; ++step) {
    auto batch = testing::random_batch(spec, 2, kernels::DType::f32, 300 + static_cast<std::uint64_t>(step));
    out.losses.push_back(engine->train_step(batch.x, batch.labels, step));
  }
  for (Parameter* p : engine->parameters()) out.weights.push_back(p->value.clone());
  out.report = engine->report();
  return out;
}

std::string setting(const EngineReport& r, const std::string& key) {
  for (const auto& [k, v] : r.settings)
    if (k == key) return v;
  return "(none)";
}

void expect_agree(const Trained& a, const Trained& b, double tolerance, const std::string& what) {
  ASSERT_EQ(a.losses.size(), b.losses.size());
  for (std::size_t s = 0; s < a.losses.size(); ++s)
    EXPECT_NEAR(a.losses[s], b.losses[s], tolerance * std::abs(b.losses[s])) << what << " step " << s;
  ASSERT_EQ(a.weights.size(), b.weights.size());
  for (std::size_t i = 0; i < a.weights.size(); ++i) {
    double scale = 1e-5, diff = 0;  // the floor: attention's key bias stays at rounding level
    for (std::int64_t j = 0; j < a.weights[i].numel(); ++j) {
      scale = std::max(scale, std::abs(b.weights[i].at(j)));
      diff = std::max(diff, std::abs(a.weights[i].at(j) - b.weights[i].at(j)));
    }
    EXPECT_LE(diff, tolerance * scale) << what << " parameter " << i;
  }
}

TEST(AttentionFusion, VitTinyStaticWithThePassEqualsWithoutAndLayerwiseInF64) {
  auto backend = kernels::make_backend("openblas", 1);
  const models::ModelSpec spec = models::load_model("vit-tiny");
  const int steps = 5;
  const Trained on = train("static", spec, *backend, {}, steps);
  const Trained off = train("static", spec, *backend, {"attention_fusion"}, steps);
  const Trained layerwise = train("layerwise", spec, *backend, {}, steps);
  EXPECT_NE(on.losses.front(), on.losses.back()) << "the model did not train";
  expect_agree(on, off, 1e-9, "static, pass on vs off");
  expect_agree(on, layerwise, 1e-9, "static with the pass vs layerwise");
  EXPECT_NE(setting(on.report, "passes_on").find("attention_fusion"), std::string::npos) << setting(on.report, "passes_on");
  EXPECT_NE(setting(off.report, "passes_off").find("attention_fusion"), std::string::npos) << setting(off.report, "passes_off");
  double rewrites = -1;
  for (const auto& [k, v] : on.report.counters)
    if (k == "pass_attention_fusion_rewrites") rewrites = v;
  EXPECT_EQ(rewrites, 4);  // one per block
}

}  // namespace
}  // namespace ablate::graph
