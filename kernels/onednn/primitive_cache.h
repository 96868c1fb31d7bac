// PrimitiveCache: the onednn backend's store of built primitives, keyed by a string that
// names the op kind and everything its primitive descriptor depends on (dims, strides,
// paddings, algorithm, layout switch, thread count). Building a oneDNN primitive costs far
// more than running a small one, so a training step after the first builds nothing (as
// MKL-DNN integrations in TensorFlow and PyTorch cache per shape). Counts builds and hits.
#pragma once

#include <cstdint>
#include <functional>
#include <initializer_list>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>

namespace ablate::kernels::onednn {

// One argument of a cached primitive. `user` wraps the caller's plain (NCHW / OIHW / NC)
// tensor, its data handle set on every call. When the primitive chose another layout
// (format_tag::any), `inner` is a cached buffer in that layout and `reorder` copies between
// the two (user -> inner before an input is read, inner -> user after an output is written);
// otherwise `inner` is `user` itself.
struct ArgSlot {
  bool output = false;
  dnnl::memory user, inner;
  dnnl::reorder reorder;
  bool reordered() const { return static_cast<bool>(reorder); }
};

// A built primitive with its argument slots, argument map and scratchpad. Not copyable;
// `mutex` serialises concurrent calls of one entry (its buffers and handles are shared),
// as the static strategy's inter-op pool may run two ops of the same shape at once.
struct CachedPrimitive {
  std::mutex mutex;
  dnnl::primitive primitive;
  std::map<int, ArgSlot> slots;                   // by DNNL_ARG_*
  std::unordered_map<int, dnnl::memory> args;     // what primitive.execute receives
  std::size_t workspace_bytes = 0;                // pooling / LRN workspace, 0 when none
  std::string label;                              // what was chosen, e.g. a convolution's layout

  // Adds argument `arg` whose caller-side layout is `user_md` and whose primitive-side
  // layout is `prim_md`; a reorder and a buffer are built only when they differ.
  void add_input(const dnnl::engine& engine, int arg, const dnnl::memory::desc& user_md,
                 const dnnl::memory::desc& prim_md);
  void add_output(const dnnl::engine& engine, int arg, const dnnl::memory::desc& user_md,
                  const dnnl::memory::desc& prim_md);
  // Allocates the scratchpad once (primitives are built with scratchpad_mode::user).
  void add_scratchpad(const dnnl::engine& engine, const dnnl::memory::desc& scratchpad_md);
};

// Points argument `arg` at caller memory `data` for one execution.
struct Binding {
  int arg;
  const void* data;
};

// Runs `p` on `stream` with the caller's buffers: reorders inputs in, executes, reorders
// outputs out. Every argument slot of `p` must be bound. Locks p.mutex.
void execute(CachedPrimitive& p, dnnl::stream& stream, std::initializer_list<Binding> bindings);

// Key of a cache entry: the op kind followed by integer fields, "conv_fwd:64,1,28,28,...".
class CacheKey {
 public:
  explicit CacheKey(const char* kind) : text_(kind) { text_ += ':'; }
  CacheKey& add(std::int64_t v) {
    text_ += std::to_string(v);
    text_ += ',';
    return *this;
  }
  CacheKey& add(const std::vector<std::int64_t>& dims) {
    for (auto d : dims) add(d);
    text_ += '|';
    return *this;
  }
  CacheKey& add_real(double v);  // exact (17 significant digits): LRN's alpha, beta, k
  const std::string& str() const { return text_; }

 private:
  std::string text_;
};

struct CacheCounters {
  std::int64_t builds = 0;  // entries built (each one or more primitive descriptors + primitive)
  std::int64_t hits = 0;    // calls served by an existing entry
  double build_seconds = 0; // wall time of the builds (descriptors, primitives, layout timing)
};

class PrimitiveCache {
 public:
  using Factory = std::function<std::unique_ptr<CachedPrimitive>()>;
  // The entry of `key`, made by `make` on the first request. Entries are never evicted, so
  // the reference stays valid for the cache's life. Thread-safe.
  CachedPrimitive& get(const CacheKey& key, const Factory& make);
  CacheCounters counters() const;
  std::size_t size() const;
  // (key, label) of every entry with a label, sorted by key.
  std::vector<std::pair<std::string, std::string>> labels() const;

 private:
  mutable std::mutex mutex_;
  std::unordered_map<std::string, std::unique_ptr<CachedPrimitive>> entries_;
  CacheCounters counters_;
};

}  // namespace ablate::kernels::onednn
