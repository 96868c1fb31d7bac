// A convolution and the max pooling after it as one op (Backend::conv2d_max_pool_forward, made by
// the static graph's conv_pool_fusion pass). Each OpenMP worker takes a contiguous share of the
// images and runs the pair over a few of them at a time, on its own: their convolution output
// c, a few hundred KiB in the worker's scratch, is pooled at once while in the core's L2, and c
// never exists for the whole batch. The backward routes the pooled gradient to dc through the
// argmax workspace for the same few images and adds their weight gradient to the worker's sum.
// Apart, LeNet's conv1 writes 2.9 MiB of c per step at batch 64 and its pool1 backward as much
// of dc, and the two ops hand their chunks out separately, so a core reads much of what the
// other wrote. LeNet, static, 2 threads, Emerald Rapids Xeon, op medians of 300 steps in
// alternating runs: conv1 + pool1 forward 260-300 -> 210-230 us, their backward 296-334 ->
// 296-315 us; the size of the slices mattered little (1 image: +10%; a worker's whole share:
// the same), the worker owning its images end to end did.
// Each step is this backend's own op over the images' slice (conv2d_forward_impl and
// conv2d_backward_weights_impl of this backend, run single-threaded inside the worker; the
// pooling is CpuBackend's, whose i32 argmax workspace every CPU backend then shares), so the
// pair computes what the two ops compute apart: y and the workspace bit for bit, dw and dbias
// summed over the slices and then the workers, in order (deterministic for a thread count;
// rounding apart from the unfused sums in f32). Where the library owns the threads (the
// `library` threading) or runs the convolution itself (oneDNN's direct primitives, whose cache
// and thread pool are not for calls from inside OpenMP workers; Eigen's spatial contraction),
// the pair runs as the two ops over the whole batch, with c in the calling thread's scratch.
#include <algorithm>

#include <omp.h>

#include "kernels/cpu/cpu_backend.h"
#include "kernels/cpu/scratch.h"

namespace ablate::kernels::cpu {
namespace {

// Images per slice: a worker's c within kSliceBytes (an eighth of a 2 MiB L2, room for the
// images, dy and the loops' own scratch beside it), at least one.
constexpr std::int64_t kSliceBytes = 256 * 1024;

// f(begin, end, slice) for slices of images [begin, end) of [first, last), slice a tensor of c's
// image shape over [0, end - begin) images in the calling thread's fused_images scratch.
template <class F> void each_slice(const Shape& c, DType dtype, std::int64_t first, std::int64_t last, F&& f) {
  const std::int64_t image = shape_numel(c) / c[0] * static_cast<std::int64_t>(dtype_size(dtype));
  const std::int64_t step = std::min(last - first, std::max<std::int64_t>(1, kSliceBytes / image));
  if (step <= 0) return;
  Shape shape = c;
  shape[0] = step;
  ScratchAllocator allocator(ScratchSlot::fused_images);
  const Tensor images = Tensor::uninitialized(shape, dtype, &allocator);
  for (std::int64_t begin = first; begin < last; begin += step) {
    const std::int64_t end = std::min(last, begin + step);
    f(begin, end, images.slice0(0, end - begin));
  }
}

// f(worker, first, last) on `workers` OpenMP threads, each a contiguous share of n images.
template <class F> void each_worker(int workers, std::int64_t n, F&& f) {
  if (workers <= 1) return f(0, std::int64_t{0}, n);
#pragma omp parallel num_threads(workers)
  {
    const int t = omp_get_thread_num(), count = omp_get_num_threads();
    f(t, n * t / count, n * (t + 1) / count);
  }
}

}  // namespace

bool CpuBackend::fuses_conv_max_pool(const Pool2dParams& pp) const { return max_pool_to_first(pp); }

int CpuBackend::conv_max_pool_workers(std::int64_t n, DType dtype) const {
  if (conv_in_library(dtype) || (threads_ > 1 && !openmp_owns_threads())) return 0;
  return static_cast<int>(std::min<std::int64_t>(threads_, n));
}

void CpuBackend::conv2d_max_pool_forward_impl(const Tensor& x, const Tensor& w, const Tensor& bias, Tensor& y,
                                              Tensor& workspace, const Conv2dParams& cp, const Pool2dParams& pp) {
  if (workspace.empty() || workspace.dtype() != DType::i32 || workspace.shape() != y.shape())
    workspace = Tensor(y.shape(), DType::i32);
  const Shape c = conv2d_output_shape(x, w, cp);
  auto pair = [&](std::int64_t begin, std::int64_t end, Tensor images) {
    conv2d_forward_impl(x.slice0(begin, end), w, bias, images, cp);
    Tensor y_slice = y.slice0(begin, end), arg = workspace.slice0(begin, end);  // arg has y's shape: kept
    CpuBackend::pool2d_forward_impl(images, y_slice, arg, pp);
  };
  const int workers = conv_max_pool_workers(x.dim(0), x.dtype());
  if (workers == 0) {
    ScratchAllocator allocator(ScratchSlot::fused_images);
    return pair(0, x.dim(0), Tensor::uninitialized(c, x.dtype(), &allocator));
  }
  each_worker(workers, x.dim(0), [&](int, std::int64_t first, std::int64_t last) {
    each_slice(c, x.dtype(), first, last, pair);
  });
}

void CpuBackend::conv2d_max_pool_backward_weights_impl(const Tensor& x, const Tensor& dy, const Tensor& workspace,
                                                       Tensor& dw, Tensor& dbias, const Conv2dParams& cp,
                                                       const Pool2dParams& pp) {
  const Shape c = conv2d_output_shape(x, dw, cp);
  const std::int64_t sums = dw.numel() + dbias.numel();  // dw then dbias, end to end
  // The weight gradient of images [begin, end) into sum [sums] (added when `add`).
  auto slice = [&](std::int64_t begin, std::int64_t end, Tensor dc, Tensor sum, bool add) {  // sum: a view
    CpuBackend::pool2d_backward_impl(dc, Tensor(), dy.slice0(begin, end), workspace.slice0(begin, end), dc, pp);
    ScratchAllocator allocator(ScratchSlot::fused_partial);
    const Tensor part = add ? Tensor::uninitialized({sums}, dw.dtype(), &allocator) : sum;
    Tensor part_w = part.slice0(0, dw.numel()).reshaped(dw.shape());
    Tensor part_b = dbias.empty() ? Tensor() : part.slice0(dw.numel(), sums);
    conv2d_backward_weights_impl(x.slice0(begin, end), dc, part_w, part_b, cp);
    if (add) axpy_impl(1.0, part, sum);
  };
  const int workers = conv_max_pool_workers(x.dim(0), x.dtype());
  if (workers == 0) {
    ScratchAllocator allocator(ScratchSlot::fused_images);
    Tensor whole = Tensor::uninitialized(c, x.dtype(), &allocator);
    CpuBackend::pool2d_backward_impl(whole, Tensor(), dy, workspace, whole, pp);
    return conv2d_backward_weights_impl(x, whole, dw, dbias, cp);
  }
  // One sum per worker, added in worker order at the end.
  ScratchAllocator allocator(ScratchSlot::worker_sums);
  const Tensor per_worker = Tensor::uninitialized({workers, sums}, dw.dtype(), &allocator);
  each_worker(workers, x.dim(0), [&](int t, std::int64_t first, std::int64_t last) {
    Tensor sum = per_worker.slice0(t, t + 1).reshaped({sums});
    each_slice(c, x.dtype(), first, last,
               [&](std::int64_t begin, std::int64_t end, Tensor dc) { slice(begin, end, dc, sum, begin != first); });
  });
  Tensor total = per_worker.slice0(0, 1).reshaped({sums});
  for (int t = 1; t < workers; ++t) axpy_impl(1.0, per_worker.slice0(t, t + 1).reshaped({sums}), total);
  dw.copy_from(total.slice0(0, dw.numel()).reshaped(dw.shape()));
  if (!dbias.empty()) dbias.copy_from(total.slice0(dw.numel(), sums));
}

}  // namespace ablate::kernels::cpu
