// Per-thread, grow-only scratch buffers (see scratch.h).
#include "kernels/cpu/scratch.h"

#include <array>

#include "kernels/tensor.h"

namespace ablate::kernels::cpu {
namespace {

struct Buffer {
  void* ptr = nullptr;
  std::size_t bytes = 0;
  Buffer() = default;
  Buffer(const Buffer&) = delete;
  Buffer& operator=(const Buffer&) = delete;
  ~Buffer() {
    if (ptr) cpu_allocator().deallocate(ptr, bytes);
  }
  void* reserve(std::size_t wanted) {
    if (wanted <= bytes) return ptr;
    // Grow by a quarter more than asked, so that slowly growing requests settle quickly.
    std::size_t grown = wanted + wanted / 4;
    if (ptr) cpu_allocator().deallocate(ptr, bytes);
    ptr = nullptr;
    bytes = 0;
    ptr = cpu_allocator().allocate(grown);
    bytes = grown;
    return ptr;
  }
};

thread_local std::array<Buffer, static_cast<std::size_t>(ScratchSlot::count)> buffers;

}  // namespace

void* scratch(ScratchSlot slot, std::size_t bytes) {
  return buffers[static_cast<std::size_t>(slot)].reserve(bytes);
}

}  // namespace ablate::kernels::cpu
