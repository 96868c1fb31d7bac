// Which ops take channel-blocked tensors (kernels/tensor.h, nChw{B}c), checked for every op
// call before its implementation runs (observed_call.h), so that a blocked tensor reaching an
// op that would read it as NCHW is an error naming the op and the tensor, never wrong numbers:
//   elementwise ops (fill, scale, axpy, axpby, add, mul, activation forward and backward, a
//   fused chain without a bias step, sum, sum_squares): the order of the elements does not
//   matter as long as every 4-D tensor of the call has the same layout;
//   copy: converts between layouts (channel_blocks.h);
//   convolution, batch normalisation, pooling, LRN and a channel bias (and its gradient):
//   where the backend says it runs them blocked (Backend::channel_block: oneDNN in f32), in
//   its block or channels-last (one block of all the channels, NHWC); a
//   convolution's activations each in its own layout, the others' 4-D tensors all in one;
//   every other op: plain tensors only.
#pragma once

#include "kernels/op_list.h"
#include "kernels/op_observer.h"

namespace ablate::kernels {

class Backend;

void check_channel_layouts(const Backend& backend, Op op, const OpWrites& writes);

}  // namespace ablate::kernels
