// Transparent huge pages for the host tensors: a speed factor of the allocator, not of any
// framework's math. The host allocator hands out 64-byte aligned blocks from malloc (as
// TensorFlow 1.x's, Caffe's, Torch7's and PyTorch's CPU allocators did); a tensor of several MiB
// then lies on 4 KiB pages, and a GEMM that walks a 12.8 MiB weight (the TF MNIST CNN's fc1,
// 3136 x 1024, one 4 KiB row per page) or an optimizer that streams a weight and its slots
// takes a TLB miss every few cache lines. Linux backs a region with 2 MiB pages where its
// transparent huge page setting allows: "always" (any aligned 2 MiB of anonymous memory),
// "madvise" (only regions marked MADV_HUGEPAGE: Debian's default) or "never".
//   system   the block as malloc gives it; huge pages only where the kernel's "always" finds an
//            aligned 2 MiB inside it (every preset: the frameworks ran so)
//   madvise  a block of 2 MiB or more is aligned to 2 MiB, rounded up to whole 2 MiB pages and
//            marked MADV_HUGEPAGE (what PyTorch 2.x does with THP_MEM_ALLOC_ENABLE=1), so it is
//            backed by huge pages under "always" and "madvise"; under "never" nothing changes
// The setting is read at each allocation: blocks allocated before a change keep their pages, and
// a marked block freed into malloc's heap leaves its mark on that memory for whatever malloc
// hands out there next. So two policies are compared each in a process of its own (compare,
// sweep and `ablate ablate` run every configuration so; `ablate bench` takes one policy).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace ablate::kernels {

enum class HugePages { system, madvise };

// "system" or "madvise"; anything else throws naming `what` and the known names.
HugePages parse_huge_pages(const std::string& text, const std::string& what);
const char* huge_pages_name(HugePages policy);

// The host allocator's policy for the blocks it allocates from now on (process-wide).
void set_host_huge_pages(HugePages policy);
HugePages host_huge_pages();

// The smallest block that the madvise policy aligns and marks: one huge page.
constexpr std::size_t kHugePageBytes = std::size_t(2) << 20;

// Allocates a host block of at least `bytes` under the current policy (64-byte aligned; under
// madvise a block of kHugePageBytes or more is kHugePageBytes-aligned, rounded up and marked).
// Returns nullptr when out of memory. Free it with std::free.
void* allocate_host_block(std::size_t bytes);

// Blocks marked MADV_HUGEPAGE so far in this process, and how many of the marks the kernel
// refused (a kernel built without transparent huge pages answers EINVAL).
struct HugePageHints {
  std::int64_t marked = 0;
  std::int64_t refused = 0;
};
HugePageHints host_huge_page_hints();

// The kernel's transparent huge page setting, the bracketed word of
// /sys/kernel/mm/transparent_hugepage/enabled ("always", "madvise", "never"), or "unavailable".
std::string transparent_huge_pages_mode();

// This process's anonymous memory backed by huge pages now (AnonHugePages of
// /proc/self/smaps_rollup, in bytes), or -1 where the file cannot be read.
std::int64_t process_huge_page_bytes();

}  // namespace ablate::kernels
