// Plain <-> channel-blocked copies (channel_blocks.h). The offset of (n, c, s), s = h * W + w,
// in a layout of block B (0: plain): plain (n * C + c) * S + s; blocked
// ((n * C/B + c/B) * S + s) * B + c % B.
#include "kernels/channel_blocks.h"

#include <stdexcept>

#include "kernels/backend.h"

namespace ablate::kernels {
namespace {

struct Layout {
  std::int64_t c, s;
  int block;
  std::int64_t offset(std::int64_t n, std::int64_t ch, std::int64_t i) const {
    if (block == 0) return (n * c + ch) * s + i;
    return ((n * (c / block) + ch / block) * s + i) * block + ch % block;
  }
};

template <class T> void convert(const T* src, T* dst, std::int64_t n, const Layout& from, const Layout& to, int threads) {
#pragma omp parallel for num_threads(threads) schedule(static)
  for (std::int64_t image = 0; image < n; ++image)
    for (std::int64_t ch = 0; ch < from.c; ++ch)
      for (std::int64_t i = 0; i < from.s; ++i) dst[to.offset(image, ch, i)] = src[from.offset(image, ch, i)];
}

}  // namespace

void convert_channel_layout(const Tensor& src, Tensor& dst, int threads) {
  if (src.shape() != dst.shape() || src.dtype() != dst.dtype() || src.ndim() != 4 ||
      (src.dtype() != DType::f32 && src.dtype() != DType::f64))
    throw std::invalid_argument("channel layout conversion of " + src.describe() + " into " + dst.describe() +
                                ": expected one f32 or f64 [N, C, H, W] shape on both sides");
  const std::int64_t c = src.dim(1), s = src.dim(2) * src.dim(3);
  const Layout from{c, s, src.channel_block()}, to{c, s, dst.channel_block()};
  if (src.dtype() == DType::f32)
    convert(src.data<float>(), dst.data<float>(), src.dim(0), from, to, threads);
  else
    convert(src.data<double>(), dst.data<double>(), src.dim(0), from, to, threads);
}

// The default conversion of Backend::copy between layouts: the host loops above.
void Backend::convert_channel_layout_impl(const Tensor& src, Tensor& dst) {
  if (device() != Device::cpu)
    throw std::logic_error(name() + " copy: channel layout conversion of " + src.describe() + " needs host tensors");
  convert_channel_layout(src, dst, threads());
}

}  // namespace ablate::kernels
