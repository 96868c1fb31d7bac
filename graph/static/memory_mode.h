// How a session's transient tensors (op outputs that are not fetched, host scalars or
// backend workspaces) get their memory, chosen by the memory passes' switches, the first one
// on in this order deciding:
//   memory_planning      arena: one arena planned by liveness before the first run (ggml's
//                        graph allocator; neither TensorFlow 1.x nor Theano planned memory)
//   session_buffers      session: every tensor keeps a buffer of its own for the session's
//                        life (Theano with allow_gc=False, Caffe's blobs, ggml without
//                        ggml-alloc); also what runs when none of the three is on
//   refcount_allocation  refcount: each tensor is allocated from the backend's allocator
//                        when its producer runs and freed when its last reader has run, every
//                        run (TensorFlow 1.x's executor dropping a Tensor's last reference;
//                        Theano's VM with allow_gc=True). buffer_forwarding then lets an
//                        elementwise op write over an input no other reader still needs,
//                        decided at run time (TensorFlow's forward_input_or_allocate_output)
// So `--passes all` keeps the planned arena and `all,-memory_planning` session buffers, as
// before these modes existed; TensorFlow's set is a keep-list naming refcount_allocation
// (models/presets). buffer_forwarding has no effect outside the refcount mode.
#pragma once

#include <string>
#include <vector>

namespace ablate::graph::static_graph {

enum class MemoryMode { arena, refcount, session };

struct MemorySettings {
  MemoryMode mode = MemoryMode::arena;
  bool forwarding = false;  // buffer_forwarding in effect (refcount mode only)
};

// From the disabled pass names (validated, passes.h).
MemorySettings memory_settings(const std::vector<std::string>& disabled);
const char* memory_mode_name(MemoryMode mode);  // "arena", "refcount", "session"

}  // namespace ablate::graph::static_graph
