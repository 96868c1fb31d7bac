// The refcount memory mode (refcount_allocation, TensorFlow 1.x's and Theano's allow_gc
// memory) and buffer_forwarding (TensorFlow's forward_input_or_allocate_output) of the static
// strategy: on a small graph, the peak of live transient bytes is the one the last-reader
// rule gives and forwarding lowers it; on a training graph, driven node by node, no tensor is
// freed or written over while a later node still reads it and everything is freed after the
// run; training gives the arena's losses under both executors; the report names the passes
// in effect.
#include <algorithm>
#include <cstdlib>
#include <map>

#include <gtest/gtest.h>

#include "graph/static/memory_mode.h"
#include "graph/static/passes.h"
#include "graph/static/refcount_memory.h"
#include "graph/static/training_graph.h"
#include "graph_test_util.h"
#include "kernels/registry.h"
#include "static_test_util.h"

namespace ablate::graph {
namespace {

using static_graph::OpKind;
using static_graph::Value;
using testing::GraphKit;

// TensorFlow 1.3's set (keep-list constant_folding,cse,dce,buffer_forwarding,refcount_allocation)
// and Theano 0.9's FAST_RUN set (constant_folding,cse,dce,elementwise_fusion,inplace,
// refcount_allocation), as the presets name them, written as the passes they leave out.
const std::vector<std::string> kTensorflow = {"attention_fusion", "conv_activation_fusion", "conv_pool_fusion", "elementwise_fusion", "update_fusion",
                                              "blocked_layout", "inplace", "memory_planning", "session_buffers"};
const std::vector<std::string> kTheano = {"attention_fusion", "conv_activation_fusion", "conv_pool_fusion", "update_fusion", "blocked_layout",
                                          "buffer_forwarding", "memory_planning", "session_buffers"};

TEST(StaticRefcountMemory, ModeFollowsTheMemoryPassesAndAllKeepsTheArena) {
  using static_graph::MemoryMode;
  EXPECT_EQ(static_graph::memory_settings({}).mode, MemoryMode::arena);
  EXPECT_EQ(static_graph::memory_settings({"memory_planning"}).mode, MemoryMode::session);  // as before
  EXPECT_EQ(static_graph::memory_settings({"memory_planning", "session_buffers", "refcount_allocation"}).mode,
            MemoryMode::session);
  EXPECT_EQ(static_graph::memory_settings(kTheano).mode, MemoryMode::refcount);
  EXPECT_FALSE(static_graph::memory_settings(kTheano).forwarding);
  EXPECT_TRUE(static_graph::memory_settings(kTensorflow).forwarding);
  EXPECT_FALSE(static_graph::memory_settings({"session_buffers"}).forwarding);  // arena: no forwarding
  EXPECT_FALSE(static_graph::pass_in_effect({}, "refcount_allocation"));
  EXPECT_TRUE(static_graph::pass_in_effect(kTensorflow, "buffer_forwarding"));
  EXPECT_FALSE(static_graph::pass_in_effect(kTensorflow, "inplace"));
}

// x -> a = relu(x) -> b = 2a -> c = a + b -> d = tanh(c), d fetched; each [4, 8] f64 = 256 bytes.
// Last readers: a's is c, b's is c, c's is d. Without forwarding a, b and c are live while c
// is written: 768 bytes. With forwarding c takes a's buffer (b still read a, but ran before),
// so at most a and b are live: 512. Theano's in-place pass makes c overwrite a statically: 512.
// (Fusion off, so that each op is a node of its own.)
TEST(StaticRefcountMemory, PeakBytesFollowTheLastReadersAndForwardingLowersThem) {
  auto backend = kernels::make_backend("reference");
  GraphKit k(*backend);
  const Value x = k.placeholder("x", {4, 8}, 1);
  const Value a = k.op(OpKind::activation, "a", {x});
  static_graph::Attrs two;
  two.alpha = 2;
  const Value b = k.op(OpKind::scale, "b", {a}, two);
  const Value c = k.op(OpKind::add, "c", {a, b});
  static_graph::Attrs tanh;
  tanh.activation = kernels::Activation::tanh;
  k.graph.fetches = {k.op(OpKind::activation, "d", {c}, tanh)};

  auto arena = k.session({"elementwise_fusion"});
  auto session = k.session({"elementwise_fusion", "memory_planning"});
  auto refcount = k.session({"elementwise_fusion", "inplace", "buffer_forwarding", "memory_planning", "session_buffers"});
  auto forwarding = k.session(kTensorflow);
  auto theano = k.session({"elementwise_fusion", "buffer_forwarding", "memory_planning", "session_buffers"});
  const auto expected = testing::run_and_fetch(*arena);
  for (auto* s : {session.get(), refcount.get(), forwarding.get(), theano.get()}) {
    testing::expect_identical(testing::run_and_fetch(*s), expected);
    testing::expect_identical(testing::run_and_fetch(*s, 1), expected);  // a second run allocates again
  }
  EXPECT_EQ(refcount->stats().refcount_peak_bytes, 3 * 256);
  EXPECT_EQ(refcount->stats().forwarded_buffers, 0);
  EXPECT_EQ(forwarding->stats().refcount_peak_bytes, 2 * 256);
  EXPECT_EQ(forwarding->stats().forwarded_buffers, 1);
  EXPECT_EQ(theano->stats().refcount_peak_bytes, 2 * 256);
  EXPECT_EQ(theano->stats().forwarded_buffers, 0);
  EXPECT_EQ(refcount->stats().planned_bytes, 0);
  EXPECT_EQ(refcount->stats().placement, "refcount");
  // Between runs a refcount session holds no transient tensor; the session mode holds all three.
  EXPECT_EQ(session->stats().held_bytes - refcount->stats().held_bytes, 3 * 256);
  EXPECT_TRUE(refcount->tensor(a).empty());
}

// An allocator that remembers each live block, for the node-by-node checks below.
class RecordingAllocator final : public kernels::Allocator {
 public:
  void* allocate(std::size_t bytes) override {
    void* p = std::aligned_alloc(64, (bytes + 63) / 64 * 64);
    live_[p] = bytes;
    bytes_ += static_cast<std::int64_t>(bytes);
    peak_ = std::max(peak_, bytes_);
    return p;
  }
  void deallocate(void* p, std::size_t bytes) override {
    EXPECT_EQ(live_.at(p), bytes);
    live_.erase(p);
    bytes_ -= static_cast<std::int64_t>(bytes);
    std::free(p);
  }
  kernels::AllocatorStats stats() const override { return {bytes_, peak_, 0, 0}; }
  void reset_peak() override { peak_ = bytes_; }
  kernels::Device device() const override { return kernels::Device::cpu; }
  std::size_t blocks() const { return live_.size(); }

 private:
  std::map<void*, std::size_t> live_;
  std::int64_t bytes_ = 0, peak_ = 0;
};

bool overlap(const kernels::Tensor& a, const kernels::Tensor& b) {
  const char* pa = static_cast<const char*>(a.raw_data());
  const char* pb = static_cast<const char*>(b.raw_data());
  return pa < pb + b.bytes() && pb < pa + a.bytes();
}

// Drives the refcount memory of a training graph (after `disabled`'s passes) node by node in
// the sequential order, without computing: before each node runs, every transient value it
// reads still has its buffer, and its new outputs share no byte with a value some later node
// still reads. After the run every buffer is back and the peak is the allocator's.
void expect_safe_node_by_node(const std::vector<std::string>& disabled, int expect_forwarded_at_least) {
  using namespace static_graph;
  auto backend = kernels::make_backend("reference");
  const auto spec = testing::parse(testing::replaced(testing::tiny_lenet_text(), "layer ip2",
                                                     "layer drop dropout keep=0.5\nlayer ip2"));
  Graph g = build_training_graph(models::CheckedModel(spec), 4, testing::caffe_sgd_options(4, kernels::DType::f32)).graph;
  run_passes(g, disabled, *backend);
  const std::vector<int> order = g.execution_order();
  const MemoryPlan plan = group_buffers(g, order, true);
  std::vector<int> position(static_cast<std::size_t>(g.size()), -1), last_reader(static_cast<std::size_t>(g.size()), -1);
  for (std::size_t i = 0; i < order.size(); ++i) position[static_cast<std::size_t>(order[i])] = static_cast<int>(i);
  const auto uses = g.uses();
  auto read_after = [&](Value v, int at) {
    for (const Use& u : uses[static_cast<std::size_t>(v.node)][static_cast<std::size_t>(v.output)])
      if (position[static_cast<std::size_t>(u.node)] > at) return true;
    return false;
  };

  RecordingAllocator recorder;
  RefcountMemory memory(g, plan, memory_settings(disabled).forwarding, recorder);
  NodeTensors tensors(static_cast<std::size_t>(g.size()));
  std::vector<NodeIO> io(static_cast<std::size_t>(g.size()));
  std::vector<Value> transient;
  for (int id : order) {
    const Node& n = g.node(id);
    tensors[static_cast<std::size_t>(id)].resize(n.outputs.size());
    for (std::size_t k = 0; k < n.outputs.size(); ++k) {
      if (plan.group[static_cast<std::size_t>(id)][k] >= 0) {
        transient.push_back({id, static_cast<int>(k)});
      } else if (!n.outputs[k].opaque) {
        tensors[static_cast<std::size_t>(id)][k] = kernels::Tensor(n.outputs[k].shape, n.outputs[k].dtype);
      }
    }
  }
  for (int id : order) {
    for (const Value& v : g.node(id).inputs)
      io[static_cast<std::size_t>(id)].in.push_back(&tensors[static_cast<std::size_t>(v.node)][static_cast<std::size_t>(v.output)]);
  }
  memory.begin_run(tensors);
  for (int id : order) {
    const Node& n = g.node(id);
    const int at = position[static_cast<std::size_t>(id)];
    memory.acquire(id, tensors, io[static_cast<std::size_t>(id)]);
    for (const Value& v : n.inputs) {
      if (plan.group[static_cast<std::size_t>(v.node)][static_cast<std::size_t>(v.output)] < 0) continue;
      ASSERT_FALSE(tensors[static_cast<std::size_t>(v.node)][static_cast<std::size_t>(v.output)].empty())
          << n.name << " reads " << g.describe(v) << " after its buffer was freed";
    }
    for (std::size_t k = 0; k < n.outputs.size(); ++k) {
      if (plan.group[static_cast<std::size_t>(id)][k] < 0) continue;
      const kernels::Tensor& out = tensors[static_cast<std::size_t>(id)][k];
      ASSERT_FALSE(out.empty()) << n.name;
      for (const Value& w : transient) {
        const kernels::Tensor& other = tensors[static_cast<std::size_t>(w.node)][static_cast<std::size_t>(w.output)];
        if (w.node == id || other.empty() || !read_after(w, at)) continue;
        EXPECT_FALSE(overlap(out, other)) << n.name << " writes over " << g.describe(w) << ", which a later node reads";
      }
    }
    memory.release(id, tensors);
  }
  EXPECT_EQ(recorder.blocks(), 0u) << "buffers left after the run";
  EXPECT_EQ(recorder.stats().live_bytes, 0);
  EXPECT_EQ(recorder.stats().peak_bytes, memory.peak_bytes());
  EXPECT_GE(memory.forwarded(), expect_forwarded_at_least);
  for (const Value& v : transient)
    EXPECT_TRUE(tensors[static_cast<std::size_t>(v.node)][static_cast<std::size_t>(v.output)].empty()) << g.describe(v);
}

TEST(StaticRefcountMemory, NoBufferIsFreedOrOverwrittenWhileALaterNodeReadsIt) {
  {
    SCOPED_TRACE("TensorFlow 1.3: refcount allocation and buffer forwarding");
    expect_safe_node_by_node(kTensorflow, 3);
  }
  {
    SCOPED_TRACE("Theano 0.9: fusion, static in-place, allow_gc");
    expect_safe_node_by_node(kTheano, 0);
  }
  {
    SCOPED_TRACE("refcount allocation alone, no DCE (the input images' gradient has no reader)");
    expect_safe_node_by_node({"dce", "buffer_forwarding", "memory_planning", "session_buffers"}, 0);
  }
}

std::vector<double> train(const models::ModelSpec& spec, kernels::Backend& backend, std::vector<std::string> disabled,
                          ExecutorKind executor, EngineReport* report = nullptr) {
  EngineOptions options = testing::caffe_sgd_options(8, kernels::DType::f32);
  options.disabled_passes = std::move(disabled);
  options.executor = executor;
  options.inter_op_threads = 2;
  auto engine = make_engine("static", spec, backend, options);
  std::vector<double> losses;
  for (int t = 0; t < 4; ++t) {
    const auto b = testing::random_batch(spec, 8, kernels::DType::f32, 60 + static_cast<std::uint64_t>(t));
    losses.push_back(engine->train_step(b.x, b.labels, t));
  }
  if (report) *report = engine->report();
  return losses;
}

std::string setting(const EngineReport& r, const std::string& key) {
  for (const auto& [k, v] : r.settings)
    if (k == key) return v;
  return "<missing>";
}
double counter(const EngineReport& r, const std::string& key) {
  for (const auto& [k, v] : r.counters)
    if (k == key) return v;
  return -1.0;
}

TEST(StaticRefcountMemory, TrainingGivesTheArenasLossesAndTheReportNamesThePassesInEffect) {
  auto backend = kernels::make_backend("reference");
  const auto spec = testing::parse(testing::replaced(testing::tiny_lenet_text(), "layer ip2",
                                                     "layer drop dropout keep=0.5\nlayer ip2"));
  EngineReport arena_report, tf_report, theano_report, session_report, unfused_report;
  train(spec, *backend, {}, ExecutorKind::sequential, &arena_report);
  // The arena with the rewrites of Theano's set (update_fusion off: the classifier's gradients
  // whole; conv_activation_fusion off: a convolution's bias added after its sum, as the
  // frameworks' sets run it, not as the accumulator's start).
  const auto arena = train(spec, *backend, {"conv_activation_fusion"}, ExecutorKind::sequential);
  EXPECT_EQ(train(spec, *backend, {"conv_activation_fusion", "update_fusion"}, ExecutorKind::sequential, &unfused_report),
            arena);
  EXPECT_EQ(train(spec, *backend, kTensorflow, ExecutorKind::sequential, &tf_report), arena);
  EXPECT_EQ(train(spec, *backend, kTheano, ExecutorKind::sequential, &theano_report), arena);
  // Under the inter-op pool forwarding depends on which readers finished first: same values.
  EXPECT_EQ(train(spec, *backend, kTensorflow, ExecutorKind::parallel), arena);
  EXPECT_EQ(train(spec, *backend, kTheano, ExecutorKind::parallel), arena);
  train(spec, *backend, {"memory_planning"}, ExecutorKind::sequential, &session_report);

  EXPECT_EQ(setting(arena_report, "passes_on"),
            "constant_folding,cse,dce,attention_fusion,conv_activation_fusion,conv_pool_fusion,elementwise_fusion,update_fusion,"
            "blocked_layout,inplace,"
            "memory_planning");
  EXPECT_EQ(setting(tf_report, "passes_on"), "constant_folding,cse,dce,buffer_forwarding,refcount_allocation");
  EXPECT_EQ(setting(tf_report, "passes_off"),
            "attention_fusion,conv_activation_fusion,conv_pool_fusion,elementwise_fusion,update_fusion,blocked_layout,inplace,"
            "memory_planning,"
            "session_buffers");
  EXPECT_EQ(setting(theano_report, "passes_on"), "constant_folding,cse,dce,elementwise_fusion,inplace,refcount_allocation");
  EXPECT_EQ(setting(session_report, "passes_on"),
            "constant_folding,cse,dce,attention_fusion,conv_activation_fusion,conv_pool_fusion,elementwise_fusion,update_fusion,"
            "blocked_layout,inplace,"
            "session_buffers");
  EXPECT_EQ(setting(session_report, "memory_placement"), "none");
  EXPECT_EQ(setting(tf_report, "memory_placement"), "refcount");
  EXPECT_GT(counter(tf_report, "forwarded_buffers"), 0);
  EXPECT_EQ(counter(theano_report, "forwarded_buffers"), 0);
  // The refcount peak is the most transient bytes live at once, never more than the arena
  // that holds the same values (with the same in-place marks) by liveness.
  EXPECT_GT(counter(theano_report, "refcount_peak_bytes"), 0);
  EXPECT_LE(counter(theano_report, "refcount_peak_bytes"), counter(unfused_report, "planned_bytes"));
  EXPECT_LE(counter(theano_report, "peak_tensor_bytes"), counter(unfused_report, "peak_tensor_bytes"));
  EXPECT_EQ(counter(tf_report, "planned_bytes"), 0);
}

}  // namespace
}  // namespace ablate::graph
