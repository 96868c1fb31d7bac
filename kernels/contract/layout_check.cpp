// The layout rule of every op call (layout_check.h).
#include "kernels/contract/layout_check.h"

#include "kernels/backend.h"
#include "kernels/contract/op_check.h"
#include "kernels/op_label.h"

namespace ablate::kernels {
namespace {

bool layout_free(Op op) {
  switch (op) {
    case Op::fill: case Op::scale: case Op::axpy: case Op::axpby: case Op::add: case Op::mul:
    case Op::activation_forward: case Op::activation_backward: case Op::fused_elementwise:
    case Op::sum: case Op::sum_squares: return true;
    default: return false;
  }
}

bool convolution(Op op) {
  return op == Op::conv2d_forward || op == Op::conv2d_backward_data || op == Op::conv2d_backward_weights;
}

bool layout_aware(Op op) {
  switch (op) {
    case Op::conv2d_forward: case Op::conv2d_backward_data: case Op::conv2d_backward_weights:
    case Op::batch_norm_forward_training: case Op::batch_norm_forward_inference: case Op::batch_norm_backward:
    case Op::pool2d_forward: case Op::pool2d_backward: case Op::lrn_forward: case Op::lrn_backward:
    case Op::bias_add: case Op::bias_backward: return true;
    default: return false;
  }
}

}  // namespace

void check_channel_layouts(const Backend& backend, Op op, const OpWrites& writes) {
  const Tensor* blocked = nullptr;
  auto each = [&](auto&& f) {
    for (const Tensor* t : writes.outputs)
      if (t && !t->empty()) f(*t);
    for (const Tensor* t : writes.inputs)
      if (t && !t->empty()) f(*t);
  };
  each([&](const Tensor& t) {
    if (!blocked && t.channel_block() != 0) blocked = &t;
  });
  if (!blocked || op == Op::copy) return;
  const OpCheck check(backend, op);
  if (layout_free(op)) {
    each([&](const Tensor& t) {
      if (t.ndim() == 4 && t.channel_block() != blocked->channel_block())
        check.fail("the layouts of " + blocked->describe() + " and " + t.describe() +
                   " differ: an elementwise op needs one layout (copy converts)");
    });
    return;
  }
  if (!layout_aware(op))
    check.fail("takes plain NCHW tensors, not the channel-blocked " + blocked->describe());
  // The block of the backend that runs this op's layer (a plan keeps some layers blocked only).
  const int block = backend.channel_block_for(blocked->dtype(), current_op_label().layer);
  each([&](const Tensor& t) {
    // a backend with a block runs channels-last too (one block of all channels: NHWC)
    if (t.channel_block() != 0 && t.channel_block() != block && !(block > 0 && t.channels_last()))
      check.fail("the channel-blocked " + t.describe() + " is not a layout this backend runs (" +
                 (block ? "nChw" + std::to_string(block) + "c or NHWC" : std::string("plain only")) + ")");
    // A convolution converts each activation on its own (the stem reads NCHW images, writes
    // blocked); batch norm, pooling, LRN and the bias run one layout for all their tensors.
    if (!convolution(op) && t.ndim() == 4 && t.channel_block() != blocked->channel_block())
      check.fail("the layouts of " + blocked->describe() + " and " + t.describe() + " differ: this op runs one layout");
  });
}

}  // namespace ablate::kernels
