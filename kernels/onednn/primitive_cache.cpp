// PrimitiveCache and the execution of a cached primitive (see primitive_cache.h).
#include "kernels/onednn/primitive_cache.h"

#include <chrono>

#include <algorithm>
#include <cstdio>
#include <stdexcept>

namespace ablate::kernels::onednn {

namespace {

ArgSlot make_slot(const dnnl::engine& engine, const dnnl::memory::desc& user_md,
                  const dnnl::memory::desc& prim_md, bool output) {
  ArgSlot slot;
  slot.output = output;
  slot.user = dnnl::memory(user_md, engine, DNNL_MEMORY_NONE);
  if (user_md == prim_md) {
    slot.inner = slot.user;
  } else {
    slot.inner = dnnl::memory(prim_md, engine);  // the cached copy in the primitive's layout
    slot.reorder = output ? dnnl::reorder(slot.inner, slot.user) : dnnl::reorder(slot.user, slot.inner);
  }
  return slot;
}

}  // namespace

void CachedPrimitive::add_input(const dnnl::engine& engine, int arg, const dnnl::memory::desc& user_md,
                                const dnnl::memory::desc& prim_md) {
  slots[arg] = make_slot(engine, user_md, prim_md, false);
  args[arg] = slots[arg].inner;
}

void CachedPrimitive::add_output(const dnnl::engine& engine, int arg, const dnnl::memory::desc& user_md,
                                 const dnnl::memory::desc& prim_md) {
  slots[arg] = make_slot(engine, user_md, prim_md, true);
  args[arg] = slots[arg].inner;
}

void CachedPrimitive::add_scratchpad(const dnnl::engine& engine, const dnnl::memory::desc& scratchpad_md) {
  if (scratchpad_md.get_size() > 0) args[DNNL_ARG_SCRATCHPAD] = dnnl::memory(scratchpad_md, engine);
}

void execute(CachedPrimitive& p, dnnl::stream& stream, std::initializer_list<Binding> bindings) {
  std::lock_guard<std::mutex> lock(p.mutex);
  if (bindings.size() != p.slots.size())
    throw std::logic_error("onednn execute: " + std::to_string(bindings.size()) + " buffers bound, the primitive has " +
                           std::to_string(p.slots.size()) + " arguments");
  for (const auto& b : bindings) {
    auto it = p.slots.find(b.arg);
    if (it == p.slots.end())
      throw std::logic_error("onednn execute: argument " + std::to_string(b.arg) + " is not one of the primitive's");
    // oneDNN takes non-const handles; inputs are only read.
    it->second.user.set_data_handle(const_cast<void*>(b.data));
  }
  for (auto& [arg, slot] : p.slots)
    if (!slot.output && slot.reordered()) slot.reorder.execute(stream, slot.user, slot.inner);
  p.primitive.execute(stream, p.args);
  for (auto& [arg, slot] : p.slots)
    if (slot.output && slot.reordered()) slot.reorder.execute(stream, slot.inner, slot.user);
  stream.wait();
}

CacheKey& CacheKey::add_real(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.17g,", v);
  text_ += buf;
  return *this;
}

CachedPrimitive& PrimitiveCache::get(const CacheKey& key, const Factory& make) {
  std::lock_guard<std::mutex> lock(mutex_);
  auto it = entries_.find(key.str());
  if (it != entries_.end()) {
    ++counters_.hits;
    return *it->second;
  }
  const auto start = std::chrono::steady_clock::now();
  auto entry = make();  // may throw (unsupported shape): nothing is stored then
  ++counters_.builds;
  counters_.build_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return *entries_.emplace(key.str(), std::move(entry)).first->second;
}

CacheCounters PrimitiveCache::counters() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return counters_;
}

std::vector<std::pair<std::string, std::string>> PrimitiveCache::labels() const {
  std::lock_guard<std::mutex> lock(mutex_);
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [key, entry] : entries_)
    if (!entry->label.empty()) out.emplace_back(key, entry->label);
  std::sort(out.begin(), out.end());
  return out;
}

std::size_t PrimitiveCache::size() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return entries_.size();
}

}  // namespace ablate::kernels::onednn
