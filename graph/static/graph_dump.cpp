// Dot text of a training graph before and after compilation (see graph_dump.h).
#include "graph/static/graph_dump.h"

#include "graph/static/dot_writer.h"
#include "graph/static/memory_plan_svg.h"
#include "graph/static/training_graph.h"
#include "models/parameters.h"

namespace ablate::graph::static_graph {

GraphDump dump_training_graph(const models::ModelSpec& spec, const EngineOptions& options, kernels::Backend& backend) {
  check_engine_options("static", options);
  const models::CheckedModel model(spec);
  TrainingGraph tg = build_training_graph(model, options.batch, options);
  VariableStore store;
  for (const auto& p : models::make_initial_parameters(spec, options.dtype, options.seed)) store.assign(p.name, p.value, backend);
  for (int id = 0; id < tg.graph.size(); ++id) {
    const Node& n = tg.graph.node(id);
    if (n.op == OpKind::variable) store.create(n.attrs.key, n.outputs[0].shape, n.outputs[0].dtype, backend);
  }
  const std::string title = spec.name + ", batch " + std::to_string(options.batch) + ", " + options.optimizer.type;
  GraphDump dump;
  dump.before_dot = to_dot(tg.graph, title + ": as built (" + std::to_string(tg.graph.live_count()) + " nodes)");
  const SessionOptions session_options{options.disabled_passes, options.executor, options.inter_op_threads};
  const AfterPass after_pass = [&](const std::string& pass, const Graph& graph) {
    dump.pass_dots.emplace_back(pass, to_dot(graph, title + ": after " + pass + " (" +
                                                        std::to_string(graph.live_count()) + " nodes)"));
  };
  Session session(std::move(tg.graph), backend, store, session_options, after_pass);
  dump.stats = session.stats();
  dump.after_dot = to_dot(session.graph(), title + ": compiled (" + std::to_string(session.graph().live_count()) + " nodes)");
  const MemoryMode mode = memory_settings(options.disabled_passes).mode;
  const char* memory_pass = mode == MemoryMode::arena ? "memory_planning"
                            : mode == MemoryMode::session ? "session_buffers"
                                                          : "refcount_allocation";
  dump.pass_dots.emplace_back(memory_pass, dump.after_dot);
  dump.memory_svg = memory_plan_svg(session.graph(), session.order(), session.memory_plan(),
                                    title + ": memory plan (" + session.memory_plan().placement + ", " +
                                        std::to_string(session.memory_plan().arena_bytes) + " bytes)");
  return dump;
}

}  // namespace ablate::graph::static_graph
