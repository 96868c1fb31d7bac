// Torch's connection-table convolution (nn.SpatialConvolutionMap) on the CUDA backend. cuDNN
// has no such op (its grouped convolution needs equal, disjoint groups; a random table is
// neither), so it runs on our own kernels (cuda_conv_map.cu), as cunn's did. Math and shapes:
// kernels/backend.h and kernels/reference/reference_conv_map.cpp.
// The table i32 [T, 2] lives on the device like every tensor; each call downloads it (T*8
// bytes) to check every plane index, as check_labels does for labels, and uploads the
// connections grouped by plane (CSR) that the forward and data kernels walk in table order.
#include <string>
#include <vector>

#include "kernels/cuda/cuda_conv_map_kernels.h"
#include "kernels/cuda/cuda_dnn_util.h"

namespace ablate::kernels::cuda {
namespace {

// A checked call: its geometry and the table on the host.
struct MapCall {
  MapGeometry g{};
  std::vector<std::int32_t> table;  // [T, 2]
};

// Checks image [N,C,H,W], kernels [T,KH,KW], out [N,K,OH,OW] (one float dtype) and the table
// i32 [T, 2] with every input plane in [0, C) and output plane in [0, K).
MapCall map_call(const char* op, const Tensor& image, const Tensor& kernels, const Tensor& out, const Tensor& table,
                 const Conv2dParams& p, const char* image_arg, const char* kernels_arg, const char* out_arg) {
  require_4d(op, image_arg, image);
  require_float(op, kernels_arg, kernels);
  if (kernels.ndim() != 3) fail(op, std::string(kernels_arg) + " is " + kernels.describe() + ", expected [T, KH, KW]");
  require_4d(op, out_arg, out);
  const Shape& x = image.shape();
  const std::int64_t T = kernels.dim(0), K = out.dim(1);
  const Shape ys = conv_out(op, x, {K, x[1], kernels.dim(1), kernels.dim(2)}, p);
  require_dtype_shape(op, kernels_arg, kernels, image.dtype(), kernels.shape());
  require_dtype_shape(op, out_arg, out, image.dtype(), ys);
  if (table.empty() || table.dtype() != DType::i32 || table.shape() != Shape{T, 2})
    fail(op, "table is " + (table.empty() ? std::string("empty") : table.describe()) + ", expected i32[" +
                 std::to_string(T) + ", 2] (one row per kernel of " + kernels_arg + ")");
  MapCall c;
  c.g = {x[0], x[1], x[2], x[3], K, kernels.dim(1), kernels.dim(2), ys[2], ys[3], T,
         p.stride_h, p.stride_w, p.pad_top, p.pad_left};
  c.table.resize(static_cast<std::size_t>(2 * T));
  if (T > 0)
    ABLATE_CUDA_CHECK(cudaMemcpy(c.table.data(), table.raw_data(), table.bytes(),
                                 table.device() == Device::cuda ? cudaMemcpyDeviceToHost : cudaMemcpyHostToHost));
  for (std::int64_t t = 0; t < T; ++t) {
    const std::int32_t in = c.table[2 * t], o = c.table[2 * t + 1];
    if (in < 0 || in >= c.g.C)
      fail(op, "table row " + std::to_string(t) + " has input plane " + std::to_string(in) + ", expected one in [0, " +
                   std::to_string(c.g.C) + ")");
    if (o < 0 || o >= K)
      fail(op, "table row " + std::to_string(t) + " has output plane " + std::to_string(o) + ", expected one in [0, " +
                   std::to_string(K) + ")");
  }
  return c;
}

// The connections grouped by the plane in `column` (0: input, 1: output) as MapGroups' one
// i32 array, offsets [planes + 1] then order [T], uploaded into `storage`.
MapGroups upload_groups(CudaBackend& backend, const MapCall& c, int column, std::int64_t planes, Tensor& storage) {
  const std::int64_t T = c.g.T;
  std::vector<std::int32_t> host(static_cast<std::size_t>(planes + 1 + T), 0);
  std::int32_t* offsets = host.data();
  std::int32_t* order = host.data() + planes + 1;
  for (std::int64_t t = 0; t < T; ++t) ++offsets[c.table[2 * t + column] + 1];
  for (std::int64_t q = 0; q < planes; ++q) offsets[q + 1] += offsets[q];
  std::vector<std::int32_t> next(offsets, offsets + planes);
  for (std::int64_t t = 0; t < T; ++t) order[next[c.table[2 * t + column]]++] = static_cast<std::int32_t>(t);
  storage = backend.device_tensor({static_cast<std::int64_t>(host.size())}, DType::i32);
  ABLATE_CUDA_CHECK(cudaMemcpy(storage.raw_data(), host.data(), storage.bytes(), cudaMemcpyHostToDevice));
  const std::int32_t* base = static_cast<const std::int32_t*>(storage.raw_data());
  return {base, base + planes + 1};
}

}  // namespace

void CudaBackend::conv2d_map_forward(const Tensor& x, const Tensor& w, const Tensor& bias, const Tensor& table, Tensor& y,
                                     const Conv2dParams& p) {
  const char* op = "conv2d_map_forward";
  const MapCall c = map_call(op, x, w, y, table, p, "x", "w", "y");
  if (!bias.empty()) require_dtype_shape(op, "bias", bias, x.dtype(), {c.g.K});
  if (y.numel() == 0) return;
  Tensor groups;
  const MapGroups by_output = upload_groups(*this, c, 1, c.g.K, groups);
  DeviceArg dx(x, false), dw(w, false), db(bias, false), dt(table, false), dy(y, true);
  with_float(x.dtype(), [&](auto tag) {
    using T = decltype(tag);
    launch_conv_map_forward<T>(c.g, dx.as<T>(), dw.as<T>(), bias.empty() ? nullptr : db.as<T>(),
                               dt.as<const std::int32_t>(), by_output, dy.as<T>());
  });
  dy.finish();
}

void CudaBackend::conv2d_map_backward_data(const Tensor& dy, const Tensor& w, const Tensor& table, Tensor& dx,
                                           const Conv2dParams& p) {
  const char* op = "conv2d_map_backward_data";
  const MapCall c = map_call(op, dx, w, dy, table, p, "dx", "w", "dy");
  if (dx.numel() == 0) return;
  Tensor groups;
  const MapGroups by_input = upload_groups(*this, c, 0, c.g.C, groups);
  DeviceArg ddy(dy, false), dw(w, false), dt(table, false), ddx(dx, true);
  with_float(dx.dtype(), [&](auto tag) {
    using T = decltype(tag);
    launch_conv_map_backward_data<T>(c.g, ddy.as<T>(), dw.as<T>(), dt.as<const std::int32_t>(), by_input, ddx.as<T>());
  });
  ddx.finish();
}

void CudaBackend::conv2d_map_backward_weights(const Tensor& x, const Tensor& dy, const Tensor& table, Tensor& dw,
                                              Tensor& dbias, const Conv2dParams& p) {
  const char* op = "conv2d_map_backward_weights";
  const MapCall c = map_call(op, x, dw, dy, table, p, "x", "dw", "dy");
  if (!dbias.empty()) require_dtype_shape(op, "dbias", dbias, x.dtype(), {c.g.K});
  if (dw.numel() != 0) {
    DeviceArg dxa(x, false), ddy(dy, false), dt(table, false), ddw(dw, true);
    with_float(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      launch_conv_map_backward_weights<T>(c.g, dxa.as<T>(), ddy.as<T>(), dt.as<const std::int32_t>(), ddw.as<T>());
    });
    ddw.finish();
  }
  if (!dbias.empty()) bias_backward(dy, dbias);
}

}  // namespace ablate::kernels::cuda
