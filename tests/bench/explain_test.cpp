// `ablate explain` (bench/cli/explain_command.cpp): on Caffe's LeNet, the TensorFlow CNN and a
// transformer block, tiny batches of synthetic data in f64 on the reference backend, the three strategies' ops
// that match have equal FLOPs and output checksums (within 1e-9), every op is labelled, the
// trace's peak is the record's peak_tensor_bytes, the memory plan's rectangles never overlap,
// and there is one dot file per graph pass that ran, the last one the compiled graph. A golden
// file pins the op sequence a learner sees for LeNet (phases, layers, ops, shapes, bytes; no
// times or checksums). A change meant to alter it regenerates the file with
//   ABLATE_WRITE_GOLDEN=tests/bench/golden/explain_lenet_ops.txt build/test_bench --gtest_filter='Explain*Golden*'
// and updates docs/tour.md with it.
#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include "command_runner.h"
#include "kernels/registry.h"

namespace fs = std::filesystem;
using ablate::bench::testing::slurp;
using Json = nlohmann::json;

namespace {

const char* kLenet = "--framework caffe --batch 2 --precision f64 --backend reference";
const char* kLenetGraph = "--framework caffe --batch 2 --precision f64";  // ablate graph: always reference
const char* kTfCnn = "--framework tensorflow --batch 2 --precision f64 --backend reference";

class Explain : public ablate::bench::testing::CommandTest {
 protected:
  // Runs ablate explain with `flags` into DIR/out; returns step.json.
  Json explain(const std::string& flags) {
    const auto o = ablate("explain " + flags + " --out " + (dir_ / "out").string());
    EXPECT_EQ(o.exit_code, 0) << o.err << o.out;
    return Json::parse(slurp(dir_ / "out" / "step.json"));
  }
  fs::path out(const std::string& name) const { return dir_ / "out" / name; }
};

// Matched rows: every strategy ran the op; FLOPs equal and checksums within 1e-9. Returns the count.
int check_matched_rows(const Json& step) {
  int matched = 0;
  for (const Json& row : step["rows"]) {
    const Json& at = row["ops"];
    if (std::any_of(at.begin(), at.end(), [](const Json& i) { return i.is_null(); })) continue;
    ++matched;
    const Json& first = step["strategies"][0]["ops"][at[0].get<std::size_t>()];
    for (std::size_t s = 1; s < at.size(); ++s) {
      const Json& other = step["strategies"][s]["ops"][at[s].get<std::size_t>()];
      EXPECT_EQ(other["flops"], first["flops"]) << row.dump();
      EXPECT_EQ(other["bytes_written"], first["bytes_written"]) << row.dump();
      if (first["checksum"].is_null() || other["checksum"].is_null()) continue;
      const double a = first["checksum"], b = other["checksum"];
      EXPECT_LE(std::abs(a - b), 1e-9 * std::max({1.0, std::abs(a), std::abs(b)})) << row.dump();
    }
    EXPECT_LE(row["checksum_gap"].get<double>(), 1e-9) << row.dump();
  }
  return matched;
}

void check_labelled(const Json& step) {
  const std::vector<std::string> phases = {"forward", "backward", "update", "zero_grad"};
  for (const Json& s : step["strategies"]) {
    ASSERT_FALSE(s["ops"].empty()) << s["strategy"];
    for (const Json& op : s["ops"]) {
      EXPECT_NE(std::find(phases.begin(), phases.end(), op["phase"].get<std::string>()), phases.end()) << op.dump();
      EXPECT_FALSE(op["layer"].get<std::string>().empty()) << s["strategy"] << ": " << op.dump();
      EXPECT_FALSE(op["entry"].get<std::string>().empty()) << s["strategy"] << ": " << op.dump();
    }
  }
}

TEST_F(Explain, LenetMatchedRowsAgreeAndEveryOpIsLabelled) {
  const Json step = explain(kLenet);
  ASSERT_EQ(step["strategies"].size(), 3u);
  EXPECT_GE(check_matched_rows(step), 15);
  check_labelled(step);
  // The same model, weights and batch: the same loss, and every update matched.
  for (const Json& s : step["strategies"]) EXPECT_NEAR(s["loss"].get<double>(), step["strategies"][0]["loss"].get<double>(), 1e-12);
  // Every update matched but ip1's and ip2's weights: the static graph folds their gradient into
  // the update (update_fusion), one op in a row of its own beside the others' update rows.
  int matched = 0, folded = 0;
  for (const Json& row : step["rows"]) {
    if (row["phase"] != "update") continue;
    bool all = true;
    for (const Json& i : row["ops"]) all = all && !i.is_null();
    matched += all ? 1 : 0;
    for (std::size_t k = 0; k < row["ops"].size(); ++k) {
      const Json& i = row["ops"][k];
      if (!i.is_null() && step["strategies"][k]["ops"][i.get<std::size_t>()]["op"] == "linear_backward_weights_update") ++folded;
    }
  }
  EXPECT_EQ(matched, 6);  // conv1, conv2: weight and bias; ip1, ip2: bias
  EXPECT_EQ(folded, 2);
  for (const char* file : {"step.txt", "trace.json", "memory_plan.svg", "net.dot", "tape.dot", "graph.before.dot",
                           "graph.after.dot", "index.html"})
    EXPECT_TRUE(fs::exists(out(file))) << file;
}

TEST_F(Explain, TensorflowCnnMatchedRowsAgreeAndEveryOpIsLabelled) {
  const Json step = explain(kTfCnn);
  EXPECT_GE(check_matched_rows(step), 10);
  check_labelled(step);
}

TEST_F(Explain, TracePeakIsTheRecordsPeak) {
  const Json step = explain(kLenet);
  const Json trace = Json::parse(slurp(out("trace.json")));
  for (std::size_t s = 0; s < step["strategies"].size(); ++s) {
    const int pid = static_cast<int>(s) + 1;
    std::int64_t peak = 0, live = 0;
    std::size_t spans = 0;
    for (const Json& e : trace["traceEvents"]) {
      if (e["pid"] != pid) continue;
      if (e["ph"] == "C" && e["name"] == "peak tensor bytes") peak = std::max(peak, e["args"]["peak"].get<std::int64_t>());
      if (e["ph"] == "C" && e["name"] == "live tensor bytes") live = std::max(live, e["args"]["live"].get<std::int64_t>());
      if (e["ph"] == "X" && e["cat"] == "op") ++spans;
    }
    const Json& record = step["strategies"][s];
    EXPECT_EQ(peak, record["peak_tensor_bytes"].get<std::int64_t>()) << record["strategy"];
    EXPECT_GT(live, 0);
    EXPECT_LE(live, peak);
    EXPECT_EQ(spans, record["ops"].size()) << record["strategy"];
  }
}

TEST_F(Explain, MemoryPlanRectanglesNeverOverlap) {
  explain(kLenet + std::string(" --strategies static"));
  const std::string svg = slurp(out("memory_plan.svg"));
  const std::regex rect(R"re(data-first="(\d+)" data-last="(\d+)" data-offset="(\d+)" data-bytes="(\d+)")re");
  struct Box { long first, last, offset, bytes; };
  std::vector<Box> boxes;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), rect); it != std::sregex_iterator(); ++it)
    boxes.push_back({std::stol((*it)[1]), std::stol((*it)[2]), std::stol((*it)[3]), std::stol((*it)[4])});
  ASSERT_GE(boxes.size(), 10u);
  bool shared = false;  // some bytes serve two tensors at different times: the plan reuses memory
  for (std::size_t i = 0; i < boxes.size(); ++i)
    for (std::size_t j = i + 1; j < boxes.size(); ++j) {
      const Box &a = boxes[i], &b = boxes[j];
      const bool same_time = a.first <= b.last && b.first <= a.last;
      const bool same_bytes = a.offset < b.offset + b.bytes && b.offset < a.offset + a.bytes;
      EXPECT_FALSE(same_time && same_bytes) << "groups " << i << " and " << j << " overlap";
      shared = shared || same_bytes;
    }
  EXPECT_TRUE(shared);
}

// One dot per pass that ran; the last is the compiled graph, which `ablate graph` writes too.
void check_pass_dots(const fs::path& dir, const std::string& graph_flags,
                     const ablate::bench::testing::Outcome& graph, const fs::path& graph_after) {
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(dir / "passes")) files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  ASSERT_FALSE(files.empty());
  // `ablate graph` prints one line per rewriting pass that ran and one for memory planning.
  const std::regex pass_line("\n  [a-z_]+ +[0-9]+ rewrites");
  const auto rewrites = std::distance(std::sregex_iterator(graph.out.begin(), graph.out.end(), pass_line), std::sregex_iterator());
  EXPECT_EQ(static_cast<long>(files.size()), rewrites + 1) << graph_flags << "\n" << graph.out;
  EXPECT_EQ(slurp(files.back()), slurp(dir / "graph.after.dot"));
  EXPECT_EQ(slurp(files.back()), slurp(graph_after));
}

TEST_F(Explain, OneDotPerPassTheLastTheCompiledGraph) {
  explain(kLenet + std::string(" --strategies static"));
  const auto graph = ablate(std::string("graph ") + kLenetGraph + " --dot " + (dir_ / "g.dot").string());
  ASSERT_EQ(graph.exit_code, 0) << graph.err;
  check_pass_dots(dir_ / "out", kLenet, graph, dir_ / "g.after.dot");
}

TEST_F(Explain, SwitchingFusionOffRemovesItsPassAndItsFusedOp) {
  const Json step = explain(kLenet + std::string(" --strategies static --passes all,-elementwise_fusion"));
  const auto graph = ablate(std::string("graph ") + kLenetGraph + " --passes-off elementwise_fusion --dot " + (dir_ / "g.dot").string());
  ASSERT_EQ(graph.exit_code, 0) << graph.err;
  check_pass_dots(dir_ / "out", "-elementwise_fusion", graph, dir_ / "g.after.dot");
  for (const auto& entry : fs::directory_iterator(out("passes")))
    EXPECT_EQ(entry.path().string().find("elementwise_fusion"), std::string::npos) << entry.path();
  for (const Json& op : step["strategies"][0]["ops"]) EXPECT_NE(op["op"], "fused_elementwise") << op.dump();
}

// One transformer block (docs/models/vit-block.model) side by side: the three strategies' matched
// ops agree in f64 (the layer-wise attention's backward takes the projections in the tape's
// order, value first, so each row pairs like with like); with every pass the static graph runs
// attention as fused_attention_forward and _backward, which the other strategies do not (rows
// of their own), and shows the attention_fusion pass as a dot file; with it off the static
// graph runs the same batched_gemm and softmax_last_forward rows as the others.
TEST_F(Explain, VitBlockUnderTheThreeStrategiesWithAttentionFusedAndNot) {
  const std::string vit = std::string("--framework tensorflow --model ") + ABLATE_SOURCE_DIR +
                          "/docs/models/vit-block.model --batch 2 --precision f64 --backend reference";
  auto ops_of = [](const Json& strategy) {
    std::vector<std::string> ops;
    for (const Json& op : strategy["ops"]) ops.push_back(op["op"]);
    return ops;
  };
  auto count = [](const std::vector<std::string>& ops, const char* op) { return std::count(ops.begin(), ops.end(), op); };
  const Json fused = explain(vit + " --passes all");
  ASSERT_EQ(fused["strategies"].size(), 3u);
  EXPECT_GE(check_matched_rows(fused), 40);
  check_labelled(fused);
  for (const Json& s : fused["strategies"])
    EXPECT_NEAR(s["loss"].get<double>(), fused["strategies"][0]["loss"].get<double>(), 1e-12) << s["strategy"];
  const auto layerwise = ops_of(fused["strategies"][0]), fused_static = ops_of(fused["strategies"][2]);
  EXPECT_EQ(count(layerwise, "softmax_last_forward"), 1);
  EXPECT_EQ(count(layerwise, "fused_attention_forward"), 0);
  EXPECT_EQ(count(fused_static, "fused_attention_forward"), 1);
  EXPECT_EQ(count(fused_static, "fused_attention_backward"), 1);
  EXPECT_EQ(count(fused_static, "softmax_last_forward"), 0);
  EXPECT_EQ(count(fused_static, "batched_gemm"), 0);
  bool pass_dot = false;
  for (const auto& entry : fs::directory_iterator(out("passes")))
    pass_dot = pass_dot || entry.path().filename().string().find("attention_fusion") != std::string::npos;
  EXPECT_TRUE(pass_dot) << "no passes/NN-attention_fusion.dot";

  const Json unfused = explain(vit + " --passes all,-attention_fusion");
  EXPECT_GE(check_matched_rows(unfused), 50);
  const auto plain_static = ops_of(unfused["strategies"][2]);
  EXPECT_EQ(count(plain_static, "fused_attention_forward"), 0);
  EXPECT_EQ(count(plain_static, "softmax_last_forward"), 1);
  EXPECT_EQ(count(plain_static, "batched_gemm"), count(layerwise, "batched_gemm"));
}

// `ablate graph --framework F` rewrites the graph with the passes F's preset trains with (TF 1.3's
// own set, Theano's FAST_RUN), not every pass, and says which set it shows.
TEST_F(Explain, GraphShowsThePassesThePresetTrainsWith) {
  const auto tf = ablate("graph --framework tensorflow --batch 2 --dot " + (dir_ / "tf.dot").string());
  ASSERT_EQ(tf.exit_code, 0) << tf.err;
  EXPECT_HAS(tf.out, "passes shown: constant_folding, cse, dce, buffer_forwarding, refcount_allocation (the tensorflow-");
  EXPECT_HAS(tf.out, "preset's set, what tensorflow trains with)");
  EXPECT_EQ(tf.out.find("elementwise_fusion"), std::string::npos) << "TF 1.3 did not fuse:\n" << tf.out;
  const auto theano = ablate("graph --framework theano --batch 2 --dot " + (dir_ / "th.dot").string());
  ASSERT_EQ(theano.exit_code, 0) << theano.err;
  EXPECT_HAS(theano.out, "passes shown: constant_folding, cse, dce, elementwise_fusion, inplace, refcount_allocation (the theano-");
  const auto every = ablate("graph --framework tensorflow --batch 2 --passes all --passes-off cse --dot " + (dir_ / "all.dot").string());
  ASSERT_EQ(every.exit_code, 0) << every.err;
  EXPECT_HAS(every.out, "(--passes all, less --passes-off cse)");
  EXPECT_HAS(every.out, "elementwise_fusion");
  const auto caffe = ablate(std::string("graph ") + kLenetGraph + " --dot " + (dir_ / "c.dot").string());
  EXPECT_HAS(caffe.out, "(every pass: the caffe-mnist preset names no pass set)");
}

// `ablate graph --backend onednn` compiles for oneDNN: in f32 on a residual network the
// blocked_layout pass makes values channel-blocked, labelled so in the dot file, with one
// conversion before the classifier; the default backend (reference) has no such layout.
TEST_F(Explain, GraphForOnednnShowsTheBlockedLayout) {
  const std::string flags = "graph --framework he --model resnet20 --dataset cifar10 --precision f32 --batch 2 ";
  const auto onednn = ablate(flags + "--backend onednn --dot " + (dir_ / "o.dot").string());
  ASSERT_EQ(onednn.exit_code, 0) << onednn.err;
  const auto reference = ablate(flags + "--dot " + (dir_ / "r.dot").string());
  ASSERT_EQ(reference.exit_code, 0) << reference.err;
  EXPECT_HAS(reference.out, "blocked_layout         0 rewrites");
  EXPECT_EQ(slurp(dir_ / "r.after.dot").find("nChw"), std::string::npos);
  if (ablate::kernels::make_backend("onednn", 1)->channel_block(ablate::kernels::DType::f32) == 0) GTEST_SKIP() << "no blocked layout here";
  EXPECT_EQ(onednn.out.find("blocked_layout         0 rewrites"), std::string::npos) << onednn.out;
  const std::string dot = slurp(dir_ / "o.after.dot");
  EXPECT_NE(dot.find(" nChw"), std::string::npos);
  EXPECT_NE(dot.find("pool/pool2d/to_plain"), std::string::npos);
}

// index.html stands alone: no script, nothing fetched, the memory plan, the net, the tape and
// the compiled graph drawn inline, every node of the net drawn.
TEST_F(Explain, PageIsSelfContainedAndDrawsItsGraphs) {
  explain(kLenet);
  const std::string html = slurp(out("index.html"));
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("src="), std::string::npos);
  EXPECT_EQ(html.find("href=\"http"), std::string::npos);
  std::size_t svgs = 0;
  for (auto at = html.find("<svg"); at != std::string::npos; at = html.find("<svg", at + 1)) ++svgs;
  EXPECT_EQ(svgs, 4u);  // memory plan, net, tape, compiled graph
  for (const char* layer : {"conv1 (Convolution)", "relu1 (ReLU)", "loss (SoftmaxWithLoss)", "ip1/bias_add+relu"})
    EXPECT_HAS(html, std::string(">") + layer + "<");
}

TEST_F(Explain, UnknownStrategyIsAnErrorNamingIt) {
  const auto o = ablate(std::string("explain ") + kLenet + " --strategies layerwise,eager --out " + (dir_ / "out").string());
  EXPECT_NE(o.exit_code, 0);
  EXPECT_HAS(o.err, "eager");
  EXPECT_FALSE(fs::exists(out("step.txt")));
}

// The op sequence of the tiny LeNet, one line per op: strategy, phase, layer, entry, op, the
// shapes read and written, bytes written.
std::string op_sequence(const Json& step) {
  std::string text;
  for (const Json& s : step["strategies"])
    for (const Json& op : s["ops"]) {
      std::string shapes;
      for (const Json& shape : op["shapes"]) shapes += shape.dump() + " ";
      text += s["strategy"].get<std::string>() + " " + op["phase"].get<std::string>() + " " +
              op["layer"].get<std::string>() + " " + op["entry"].get<std::string>() + " " + op["op"].get<std::string>() +
              " reads " + op["reads"].get<std::string>() + " writes " + shapes + op["bytes_written"].dump() + "\n";
    }
  return text;
}

TEST_F(Explain, LenetOpSequenceGolden) {
  const std::string actual = op_sequence(explain(kLenet));
  if (const char* write = std::getenv("ABLATE_WRITE_GOLDEN")) {
    std::ofstream(write) << actual;
    GTEST_SKIP() << "golden op sequence written to " << write;
  }
  const fs::path golden = fs::path(ABLATE_SOURCE_DIR) / "tests/bench/golden/explain_lenet_ops.txt";
  ASSERT_TRUE(fs::exists(golden)) << golden;
  EXPECT_EQ(actual, slurp(golden)) << "the op sequence a learner sees changed: regenerate " << golden
                                   << " (see this file's header) and update docs/tour.md";
}

}  // namespace
