// Names and properties of the static graph's op kinds (see op_kind.h).
#include "graph/static/op_kind.h"

namespace ablate::graph::static_graph {

const char* op_name(OpKind op) {
  switch (op) {
    case OpKind::placeholder: return "placeholder";
    case OpKind::variable: return "variable";
    case OpKind::constant: return "constant";
    case OpKind::dropout_mask: return "dropout_mask";
    case OpKind::fill: return "fill";
    case OpKind::reshape: return "reshape";
    case OpKind::permute: return "permute";
    case OpKind::batched_matmul: return "batched_matmul";
    case OpKind::softmax_last: return "softmax_last";
    case OpKind::layer_norm: return "layer_norm";
    case OpKind::softmax_last_grad: return "softmax_last_grad";
    case OpKind::layer_norm_grad: return "layer_norm_grad";
    case OpKind::fused_attention: return "fused_attention";
    case OpKind::fused_attention_grad: return "fused_attention_grad";
    case OpKind::gemm: return "gemm";
    case OpKind::axpby: return "axpby";
    case OpKind::copy: return "copy";
    case OpKind::softmax: return "softmax";
    case OpKind::sum: return "sum";
    case OpKind::sum_squares: return "sum_squares";
    case OpKind::broadcast: return "broadcast";
    case OpKind::conv2d: return "conv2d";
    case OpKind::conv2d_map: return "conv2d_map";
    case OpKind::linear: return "linear";
    case OpKind::bias_add: return "bias_add";
    case OpKind::pool2d: return "pool2d";
    case OpKind::activation: return "activation";
    case OpKind::lrn: return "lrn";
    case OpKind::mul: return "mul";
    case OpKind::add: return "add";
    case OpKind::add_n: return "add_n";
    case OpKind::concat: return "concat";
    case OpKind::concat_grad: return "concat_grad";
    case OpKind::scale: return "scale";
    case OpKind::softmax_xent: return "softmax_xent";
    case OpKind::log_softmax: return "log_softmax";
    case OpKind::nll: return "nll";
    case OpKind::argmax: return "argmax";
    case OpKind::conv2d_grad_input: return "conv2d_grad_input";
    case OpKind::conv2d_grad_filter: return "conv2d_grad_filter";
    case OpKind::conv2d_map_grad_input: return "conv2d_map_grad_input";
    case OpKind::conv2d_map_grad_filter: return "conv2d_map_grad_filter";
    case OpKind::linear_grad_input: return "linear_grad_input";
    case OpKind::linear_grad_weight: return "linear_grad_weight";
    case OpKind::bias_grad: return "bias_grad";
    case OpKind::pool2d_grad: return "pool2d_grad";
    case OpKind::activation_grad: return "activation_grad";
    case OpKind::lrn_grad: return "lrn_grad";
    case OpKind::softmax_xent_grad: return "softmax_xent_grad";
    case OpKind::log_softmax_grad: return "log_softmax_grad";
    case OpKind::nll_grad: return "nll_grad";
    case OpKind::scalar_scale: return "scalar_scale";
    case OpKind::check_numerics: return "check_numerics";
    case OpKind::apply_caffe_sgd: return "apply_caffe_sgd";
    case OpKind::apply_torch_sgd: return "apply_torch_sgd";
    case OpKind::apply_adam: return "apply_adam";
    case OpKind::linear_grad_weight_update: return "linear_grad_weight_update";
    case OpKind::fused_elementwise: return "fused_elementwise";
    case OpKind::conv2d_max_pool: return "conv2d_max_pool";
    case OpKind::conv2d_max_pool_grad_filter: return "conv2d_max_pool_grad_filter";
    case OpKind::allreduce_mean: return "allreduce_mean";
    case OpKind::batch_norm: return "batch_norm";
    case OpKind::batch_norm_statistics: return "batch_norm_statistics";
    case OpKind::batch_norm_inference: return "batch_norm_inference";
    case OpKind::batch_norm_grad: return "batch_norm_grad";
    case OpKind::batch_norm_update: return "batch_norm_update";
  }
  return "?";
}

bool is_source(OpKind op) {
  return op == OpKind::placeholder || op == OpKind::variable || op == OpKind::constant || op == OpKind::dropout_mask ||
         op == OpKind::fill;
}

bool is_update(OpKind op) {
  return op == OpKind::apply_caffe_sgd || op == OpKind::apply_torch_sgd || op == OpKind::apply_adam ||
         op == OpKind::batch_norm_update || op == OpKind::linear_grad_weight_update;
}

bool writes_input(OpKind op, std::size_t slot) {
  if (op == OpKind::batch_norm_update) return slot >= 2;
  if (op == OpKind::linear_grad_weight_update) return slot >= 2;  // w and the slots, not x or dy
  return is_update(op);
}

bool is_stateful(OpKind op) {
  return op == OpKind::placeholder || op == OpKind::variable || op == OpKind::dropout_mask || op == OpKind::check_numerics ||
         op == OpKind::allreduce_mean || is_update(op);
}

bool is_fusable_step(OpKind op) {
  return op == OpKind::bias_add || op == OpKind::activation || op == OpKind::activation_grad || op == OpKind::mul ||
         op == OpKind::add || op == OpKind::scale;
}

}  // namespace ablate::graph::static_graph
