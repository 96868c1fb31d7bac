// Concatenation along axis 1 on the CUDA backend (Caffe's ConcatLayer::Forward_gpu and
// Backward_gpu copy the same blocks with a kernel). Viewed as [N, C, inner], part k is, in the
// whole, N rows of C_k * inner contiguous elements spaced one sample of the whole apart: one
// strided device-to-device copy (cudaMemcpy2DAsync; the geometry in cuda_concat_copies.h) per
// part, on the default stream that the backend's kernels, cuBLAS and cuDNN run on. Host
// tensors are staged (DeviceArg).
#include <vector>

#include "kernels/cuda/cuda_backend_impl.h"
#include "kernels/cuda/cuda_concat_copies.h"

namespace ablate::kernels::cuda {
namespace {

// The bytes of one sample of a [N, C, ...] tensor.
std::size_t sample_bytes(const Tensor& t) { return t.dim(0) == 0 ? 0 : t.bytes() / static_cast<std::size_t>(t.dim(0)); }

// Copies each part's N blocks into the whole (join) or out of it (split), as concat_copies
// says. The part tensors `parts` are staged in `args`, the whole in `whole`.
template <class Part>
void copy_parts(DeviceArg& whole, const Tensor& whole_tensor, const std::vector<Part*>& parts,
                std::vector<DeviceArg>& args, bool split) {
  std::vector<std::size_t> widths;
  for (const Part* part : parts) widths.push_back(sample_bytes(*part));
  const std::vector<ConcatCopy> copies =
      concat_copies(widths, sample_bytes(whole_tensor), static_cast<std::size_t>(whole_tensor.dim(0)));
  for (std::size_t k = 0; k < parts.size(); ++k) {
    const ConcatCopy& c = copies[k];
    if (c.rows == 0) continue;
    char* w = whole.as<char>() + c.offset;
    char* p = args[k].as<char>();
    if (split) ABLATE_CUDA_CHECK(cudaMemcpy2DAsync(p, c.width, w, c.pitch, c.width, c.rows, cudaMemcpyDeviceToDevice, 0));
    else ABLATE_CUDA_CHECK(cudaMemcpy2DAsync(w, c.pitch, p, c.width, c.width, c.rows, cudaMemcpyDeviceToDevice, 0));
  }
}

}  // namespace

void CudaBackend::concat_forward_impl(const std::vector<const Tensor*>& xs, Tensor& y) {
  if (y.numel() == 0) return;
  DeviceArg dy(y, true);
  std::vector<DeviceArg> dxs;
  dxs.reserve(xs.size());
  for (const Tensor* x : xs) dxs.emplace_back(*x, false);
  copy_parts(dy, y, xs, dxs, false);
  dy.finish();
}

void CudaBackend::concat_backward_impl(const Tensor& dy, const std::vector<Tensor*>& dxs) {
  if (dy.numel() == 0) return;
  DeviceArg ddy(dy, false);
  std::vector<DeviceArg> ddxs;
  ddxs.reserve(dxs.size());
  for (Tensor* dx : dxs) ddxs.emplace_back(*dx, true);
  copy_parts(ddy, dy, dxs, ddxs, true);
  for (DeviceArg& d : ddxs) d.finish();
}

}  // namespace ablate::kernels::cuda
