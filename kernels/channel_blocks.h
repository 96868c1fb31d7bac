// Conversion between the plain NCHW layout and a channel-blocked one (nChw{B}c, tensor.h), in
// either direction or between two block sizes: what Backend::copy does when its source and
// destination differ in channel_block() (TensorFlow 1.x MKL builds' _MklToTf / _TfToMkl nodes,
// Intel Caffe's prv/cpu conversions). Host tensors, f32 or f64, one shape.
#pragma once

#include "kernels/tensor.h"

namespace ablate::kernels {

// dst = src, element (n, c, h, w) for element (n, c, h, w), each in its own layout.
// threads: OpenMP threads over the images.
void convert_channel_layout(const Tensor& src, Tensor& dst, int threads);

}  // namespace ablate::kernels
