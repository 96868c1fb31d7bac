// The memory mode of a session from its pass switches (see memory_mode.h).
#include "graph/static/memory_mode.h"

#include "graph/static/passes.h"

namespace ablate::graph::static_graph {

MemorySettings memory_settings(const std::vector<std::string>& disabled) {
  MemorySettings s;
  if (pass_enabled(disabled, "memory_planning"))
    s.mode = MemoryMode::arena;
  else if (!pass_enabled(disabled, "session_buffers") && pass_enabled(disabled, "refcount_allocation"))
    s.mode = MemoryMode::refcount;
  else
    s.mode = MemoryMode::session;
  s.forwarding = s.mode == MemoryMode::refcount && pass_enabled(disabled, "buffer_forwarding");
  return s;
}

const char* memory_mode_name(MemoryMode mode) {
  switch (mode) {
    case MemoryMode::arena: return "arena";
    case MemoryMode::refcount: return "refcount";
    case MemoryMode::session: return "session";
  }
  return "?";
}

}  // namespace ablate::graph::static_graph
