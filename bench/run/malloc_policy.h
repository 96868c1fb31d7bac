// What glibc's malloc does with large freed blocks, chosen per process (a speed goal: "no page faults
// inside a training step"). A run whose tensors are allocated and freed every step (the static
// strategy's refcount memory, TensorFlow 1.x's executor dropping a tensor's last reference; the
// dynamic strategy without its caching allocator) and the Eigen thread pool's contraction
// buffers go to malloc every step. With glibc's defaults a block above the mmap threshold
// (128 KiB at start, raised up to 32 MiB as mmapped blocks are freed) comes from mmap and goes
// back with munmap, and a heap's free top beyond the trim threshold is returned: the next step
// touches fresh pages, a minor page fault each (about 12 µs per 4 KiB here, shared/reference/
// machine.md). TensorFlow 1.x's CPU allocator was port::AlignedMalloc over that same malloc, as
// PyTorch's CPU allocator is, so the presets keep it.
//   system  glibc's own defaults, untouched (every preset; the frameworks ran so)
//   keep    mallopt: M_MMAP_THRESHOLD 32 MiB (glibc's largest) and M_TRIM_THRESHOLD 2 GiB, so
//           freed blocks stay in the process and a step reuses pages already mapped (the
//           GLIBC_TUNABLES setting that makes PyTorch's TF MNIST CNN 2x faster, set from inside)
// The choice is process-wide and cannot be undone inside a process: a second run in the same
// process asking the other policy is refused (compare and sweep run each configuration in a
// process of its own).
#pragma once

#include <string>

namespace ablate::bench::run {

enum class MallocPolicy { system, keep };

// "system" or "keep"; anything else throws naming `what` and the known names.
MallocPolicy parse_malloc_policy(const std::string& text, const std::string& what);
const char* malloc_policy_name(MallocPolicy policy);

// Applies `policy` to this process (once; the same policy again is a no-op). Throws if another
// policy was applied before in this process, naming both.
void apply_malloc_policy(MallocPolicy policy);

}  // namespace ablate::bench::run
