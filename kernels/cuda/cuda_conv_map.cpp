// Torch's connection-table convolution (nn.SpatialConvolutionMap) on the CUDA backend. cuDNN
// has no such op (its grouped convolution needs equal, disjoint groups; a random table is
// neither), so it runs on our own kernels (cuda_conv_map.cu), as cunn's did. Math and shapes:
// kernels/backend.h and kernels/reference/reference_conv_map.cpp.
// The table i32 [T, 2] lives on the device like every tensor; each call downloads it (T*8
// bytes) to check every plane index (a host table the contract has checked), and uploads the
// connections grouped by plane (CSR) that the forward and data kernels walk in table order.
#include <string>
#include <vector>

#include "kernels/cuda/cuda_conv_map_kernels.h"
#include "kernels/cuda/cuda_dnn_util.h"

namespace ablate::kernels::cuda {
namespace {

// A call: its geometry and the table on the host.
struct MapCall {
  MapGeometry g{};
  std::vector<std::int32_t> table;  // [T, 2]
};

// image [N,C,H,W], kernels [T,KH,KW], out [N,K,OH,OW] and the table i32 [T, 2], checked by the
// contract; a table on the device is downloaded here and its rows checked (the contract
// checks host tables only).
MapCall map_call(const OpCheck& check, const Tensor& image, const Tensor& kernels, const Tensor& out,
                 const Tensor& table, const Conv2dParams& p) {
  const std::int64_t T = kernels.dim(0), K = out.dim(1);
  MapCall c;
  c.g = map_geometry(image.shape(), kernels.shape(), out.shape(), p);
  c.table.resize(static_cast<std::size_t>(2 * T));
  if (T > 0)
    ABLATE_CUDA_CHECK(cudaMemcpy(c.table.data(), table.raw_data(), table.bytes(),
                                 table.device() == Device::cuda ? cudaMemcpyDeviceToHost : cudaMemcpyHostToHost));
  if (table.device() == Device::cuda) check.table_rows(c.table.data(), T, c.g.C, K);
  return c;
}

// The connections grouped by the plane in `column` (0: input, 1: output) as MapGroups' one
// i32 array, offsets [planes + 1] then order [T], uploaded into `storage`.
MapGroups upload_groups(CudaBackend& backend, const MapCall& c, int column, std::int64_t planes, Tensor& storage) {
  const std::vector<std::int32_t> host = map_groups_array(c.table, c.g.T, column, planes);
  storage = backend.device_tensor({static_cast<std::int64_t>(host.size())}, DType::i32);
  ABLATE_CUDA_CHECK(cudaMemcpy(storage.raw_data(), host.data(), storage.bytes(), cudaMemcpyHostToDevice));
  return map_groups_of(static_cast<const std::int32_t*>(storage.raw_data()), planes);
}

}  // namespace

void CudaBackend::conv2d_map_forward_impl(const Tensor& x, const Tensor& w, const Tensor& bias, const Tensor& table,
                                          Tensor& y, const Conv2dParams& p) {
  const MapCall c = map_call(OpCheck(*this, Op::conv2d_map_forward), x, w, y, table, p);
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

void CudaBackend::conv2d_map_backward_data_impl(const Tensor& dy, const Tensor& w, const Tensor& table, Tensor& dx,
                                                const Conv2dParams& p) {
  const MapCall c = map_call(OpCheck(*this, Op::conv2d_map_backward_data), dx, w, dy, table, p);
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

void CudaBackend::conv2d_map_backward_weights_impl(const Tensor& x, const Tensor& dy, const Tensor& table, Tensor& dw,
                                                   Tensor& dbias, const Conv2dParams& p) {
  const MapCall c = map_call(OpCheck(*this, Op::conv2d_map_backward_weights), x, dw, dy, table, p);
  if (dw.numel() != 0) {
    DeviceArg dxa(x, false), ddy(dy, false), dt(table, false), ddw(dw, true);
    with_float(x.dtype(), [&](auto tag) {
      using T = decltype(tag);
      launch_conv_map_backward_weights<T>(c.g, dxa.as<T>(), ddy.as<T>(), dt.as<const std::int32_t>(), ddw.as<T>());
    });
    ddw.finish();
  }
  if (!dbias.empty()) bias_backward_impl(dy, dbias);
}

}  // namespace ablate::kernels::cuda
