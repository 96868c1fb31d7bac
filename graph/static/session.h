// Session: a graph compiled once and run many times with different feeds, as a TensorFlow
// 1.x tf.Session runs a GraphDef and a Theano function runs its compiled FunctionGraph.
// Compiling runs the pass pipeline (passes.h), fixes the execution order, adds the orderings
// that writes need (an apply node after every other reader of its variable; the in-place and
// buffer-reuse orderings), gives the transient tensors memory by the memory mode
// (memory_mode.h) and makes the executor. In the arena and session modes every buffer is
// allocated once and a run copies nothing but the feeds (backend workspaces are sized by the
// first run); in the refcount mode each run allocates and frees its transient tensors
// (refcount_memory.h).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "graph/static/executor.h"
#include "graph/static/graph_ir.h"
#include "graph/static/memory_mode.h"
#include "graph/static/memory_plan.h"
#include "graph/static/op_execute.h"
#include "graph/static/passes.h"
#include "graph/static/refcount_memory.h"
#include "graph/static/variable_store.h"
#include "kernels/op_label.h"

namespace ablate::graph::static_graph {

// Checked by the table of strategies (static_engine.h check_static_options) before an
// engine builds a session: pass names are the pipeline's, inter_op_threads >= 1.
struct SessionOptions {
  std::vector<std::string> disabled_passes;  // by name, passes.h
  ExecutorKind executor = ExecutorKind::sequential;
  int inter_op_threads = 1;
};

struct SessionStats {
  PassReport passes;
  bool memory_planning = true;
  std::int64_t planned_bytes = 0;    // the arena the plan needs
  std::int64_t unplanned_bytes = 0;  // every transient tensor in a buffer of its own
  std::string placement;             // the memory plan's placement: in_order, by_size, none,
                                     // or refcount (at run time)
  MemoryMode memory_mode = MemoryMode::arena;
  std::int64_t held_bytes = 0;       // every tensor the session holds between runs (arena, feeds,
                                     // fetches, workspaces once a run has sized them), not the variables
  std::int64_t refcount_peak_bytes = 0;  // refcount mode: most transient bytes live at once in a run
  int forwarded_buffers = 0;             // refcount mode: buffers forwarded in the last run
  int orderings = 0;                 // control edges of the compiled graph
};

class Session {
 public:
  // Variables of the graph are bound to `store`'s tensors of their key (they must exist there).
  // `after_pass`, if set, is told the graph after each rewriting pass that runs (`ablate
  // explain` dumps it, as TVM's pass instruments do).
  Session(Graph graph, kernels::Backend& backend, VariableStore& store, const SessionOptions& options,
          const AfterPass& after_pass = {});
  ~Session();
  Session(const Session&) = delete;
  Session& operator=(const Session&) = delete;

  // Copies a host tensor into placeholder `name` ("x", "labels"), converting f32 <-> f64;
  // throws naming it when the shape differs or no such placeholder exists.
  void feed(const std::string& name, const kernels::Tensor& host);
  void run(const RunContext& run);
  // The tensor of graph().fetches[i] (valid until the next run).
  kernels::Tensor& fetch(std::size_t i);

  const Graph& graph() const { return graph_; }  // after the passes
  const std::vector<int>& order() const { return order_; }
  const MemoryPlan& memory_plan() const { return plan_; }
  const SessionStats& stats() const { return stats_; }
  // The tensor of a value (a view into the arena for planned values); for tests.
  const kernels::Tensor& tensor(Value v) const;
  const Executor& executor() const { return *executor_; }

 private:
  void add_write_orderings();
  void allocate(VariableStore& store);
  void update_held_bytes();

  Graph graph_;
  kernels::Backend& backend_;
  std::vector<int> order_;
  MemoryPlan plan_;
  std::unique_ptr<RefcountMemory> refcount_;  // refcount mode only
  kernels::Tensor arena_;
  kernels::Tensor given_up_;  // what fetch() gives for a fetch a pass gave up (always empty)
  NodeTensors tensors_;                                // per node, per output
  std::vector<NodeIO> io_;                             // per node
  std::vector<kernels::OpLabel> labels_;               // per node: node_label.h, set while it runs
  std::unique_ptr<Executor> executor_;
  SessionStats stats_;
  bool workspaces_sized_ = false;
};

}  // namespace ablate::graph::static_graph
