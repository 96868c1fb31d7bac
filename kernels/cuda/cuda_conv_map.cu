// Launchers of the connection-table convolution's kernels (cuda_conv_map_bodies.h).
#include "kernels/cuda/cuda_conv_map_bodies.h"
#include "kernels/cuda/cuda_launch.h"

namespace ablate::kernels::cuda {

template <class T>
void launch_conv_map_forward(const MapGeometry& g, const T* x, const T* w, const T* bias, const std::int32_t* table,
                             MapGroups by_output, T* y) {
  launch_grid(ConvMapForwardKernel<T>{g, x, w, bias, table, by_output, y});
}

template <class T>
void launch_conv_map_backward_data(const MapGeometry& g, const T* dy, const T* w, const std::int32_t* table,
                                   MapGroups by_input, T* dx) {
  launch_grid(ConvMapBackwardDataKernel<T>{g, dy, w, table, by_input, dx});
}

template <class T>
void launch_conv_map_backward_weights(const MapGeometry& g, const T* x, const T* dy, const std::int32_t* table, T* dw) {
  launch_block_sums(ConvMapBackwardWeightsKernel<T>{g, x, dy, table, dw});
}

#define ABLATE_INSTANTIATE_CONV_MAP(T)                                                                              \
  template void launch_conv_map_forward<T>(const MapGeometry&, const T*, const T*, const T*, const std::int32_t*, \
                                           MapGroups, T*);                                                        \
  template void launch_conv_map_backward_data<T>(const MapGeometry&, const T*, const T*, const std::int32_t*,     \
                                                 MapGroups, T*);                                                  \
  template void launch_conv_map_backward_weights<T>(const MapGeometry&, const T*, const T*, const std::int32_t*, T*);

ABLATE_INSTANTIATE_CONV_MAP(float)
ABLATE_INSTANTIATE_CONV_MAP(double)

}  // namespace ablate::kernels::cuda
