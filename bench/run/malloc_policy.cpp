// glibc malloc's handling of large freed blocks, per process (malloc_policy.h).
#include "bench/run/malloc_policy.h"

#include <malloc.h>

#include <limits>
#include <mutex>
#include <optional>
#include <stdexcept>

namespace ablate::bench::run {
namespace {

// glibc's largest mmap threshold (HEAP_MAX_SIZE / 2 on 64-bit): blocks up to 32 MiB come from
// the heap; larger ones (beyond every zoo model's tensors at the presets' batches) are still mmapped.
constexpr int kKeepMmapThreshold = 32 << 20;
constexpr int kKeepTrimThreshold = std::numeric_limits<int>::max();  // never give a heap's free top back

std::mutex applied_mutex;
std::optional<MallocPolicy> applied;

}  // namespace

MallocPolicy parse_malloc_policy(const std::string& text, const std::string& what) {
  if (text == "system") return MallocPolicy::system;
  if (text == "keep") return MallocPolicy::keep;
  throw std::invalid_argument(what + " '" + text + "': expected system (glibc's defaults) or keep (freed blocks stay mapped)");
}

const char* malloc_policy_name(MallocPolicy policy) { return policy == MallocPolicy::keep ? "keep" : "system"; }

void apply_malloc_policy(MallocPolicy policy) {
  std::lock_guard<std::mutex> lock(applied_mutex);
  if (applied) {
    if (*applied != policy)
      throw std::invalid_argument(std::string("malloc policy ") + malloc_policy_name(policy) + ": this process already runs with " +
                                  malloc_policy_name(*applied) + ", which cannot be undone inside it; run the other policy in a process of its own");
    return;
  }
  if (policy == MallocPolicy::keep) {
    // Setting either threshold also turns off glibc's dynamic adjustment of both.
    if (mallopt(M_MMAP_THRESHOLD, kKeepMmapThreshold) != 1 || mallopt(M_TRIM_THRESHOLD, kKeepTrimThreshold) != 1)
      throw std::runtime_error("malloc policy keep: mallopt refused the thresholds");
  }
  applied = policy;
}

}  // namespace ablate::bench::run
