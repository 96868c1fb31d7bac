// Concatenation along axis 1 for the CPU backends (Caffe's ConcatLayer::Forward_cpu and
// Backward_cpu, which copy one block per sample and input with caffe_copy). Viewed as
// [N, C, inner], part k of sample n is C_k * inner contiguous elements in the part and in the
// whole (at channel offset_k): one memcpy. The N * K blocks are split over the threads.
#include <algorithm>
#include <cstring>
#include <vector>

#include "kernels/cpu/cpu_backend.h"
#include "kernels/cpu/parallel_for.h"

namespace ablate::kernels::cpu {
namespace {

// The bytes of one sample of a [N, C, ...] tensor.
std::size_t sample_bytes(const Tensor& t) { return t.dim(0) == 0 ? 0 : t.bytes() / static_cast<std::size_t>(t.dim(0)); }

// Copies every (sample, part) block between the whole and the parts: into the whole (join) or
// out of it (split). parts[k] is part k's data, part_bytes[k] its bytes per sample.
void copy_blocks(int threads, char* whole, std::size_t whole_bytes, const std::vector<char*>& parts,
                 const std::vector<std::size_t>& part_bytes, std::int64_t samples, bool split) {
  const auto count = static_cast<std::int64_t>(parts.size());
  std::vector<std::size_t> offset(parts.size(), 0);  // part k's byte offset within a sample of the whole
  for (std::size_t k = 1; k < parts.size(); ++k) offset[k] = offset[k - 1] + part_bytes[k - 1];
  // As copy_impl: a thread is worth kElementwiseGrain * 8 bytes; blocks average whole_bytes / count.
  const auto block_bytes = std::max<std::int64_t>(1, static_cast<std::int64_t>(whole_bytes) / count);
  const std::int64_t grain = std::max<std::int64_t>(1, kElementwiseGrain * 8 / block_bytes);
  parallel_for(threads, samples * count, grain, [&](std::int64_t begin, std::int64_t end) {
    for (std::int64_t b = begin; b < end; ++b) {
      const auto n = static_cast<std::size_t>(b / count), k = static_cast<std::size_t>(b % count);
      char* w = whole + n * whole_bytes + offset[k];
      char* p = parts[k] + n * part_bytes[k];
      if (split) std::memcpy(p, w, part_bytes[k]);
      else std::memcpy(w, p, part_bytes[k]);
    }
  });
}

}  // namespace

void CpuBackend::concat_forward_impl(const std::vector<const Tensor*>& xs, Tensor& y) {
  std::vector<char*> parts;
  std::vector<std::size_t> part_bytes;
  for (const Tensor* x : xs) {
    parts.push_back(const_cast<char*>(static_cast<const char*>(x->raw_data())));  // only read: a join
    part_bytes.push_back(sample_bytes(*x));
  }
  copy_blocks(loop_threads_, static_cast<char*>(y.raw_data()), sample_bytes(y), parts, part_bytes, y.dim(0), false);
}

void CpuBackend::concat_backward_impl(const Tensor& dy, const std::vector<Tensor*>& dxs) {
  std::vector<char*> parts;
  std::vector<std::size_t> part_bytes;
  for (Tensor* dx : dxs) {
    parts.push_back(static_cast<char*>(dx->raw_data()));
    part_bytes.push_back(sample_bytes(*dx));
  }
  // only read: a split
  copy_blocks(loop_threads_, const_cast<char*>(static_cast<const char*>(dy.raw_data())), sample_bytes(dy), parts,
              part_bytes, dy.dim(0), true);
}

}  // namespace ablate::kernels::cpu
