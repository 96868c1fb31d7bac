// The one list of the Backend's ops (kernels/backend.h), each named once. It drives the Op
// enum that observers receive (the profiler's span names) and the test that every op has a
// conformance case (tests/kernels/op_coverage_test.cpp). Adding an op to Backend means adding
// its name here, in the order of backend.h.
#pragma once

#include <array>
#include <optional>
#include <string_view>

#define ABLATE_BACKEND_OPS(X)                                                                           \
  X(gemm)                                                                                               \
  X(conv2d_forward) X(conv2d_backward_data) X(conv2d_backward_weights)                                  \
  X(conv2d_map_forward) X(conv2d_map_backward_data) X(conv2d_map_backward_weights)                      \
  X(bias_add) X(bias_backward)                                                                          \
  X(linear_forward) X(linear_backward_data) X(linear_backward_weights)                                  \
  X(pool2d_forward) X(pool2d_backward)                                                                  \
  X(conv2d_max_pool_forward) X(conv2d_max_pool_backward_weights)                                        \
  X(activation_forward) X(activation_backward)                                                          \
  X(gelu_forward) X(gelu_backward)                                                                      \
  X(lrn_forward) X(lrn_backward)                                                                        \
  X(batch_norm_forward_training) X(batch_norm_forward_inference) X(batch_norm_backward)                 \
  X(dropout_mask)                                                                                       \
  X(softmax_xent_forward) X(softmax_xent_backward) X(softmax_forward)                                   \
  X(log_softmax_forward) X(log_softmax_backward) X(nll_forward) X(nll_backward)                         \
  X(fill) X(copy) X(scale) X(axpy) X(axpby) X(add) X(mul) X(fused_elementwise)                         \
  X(sum) X(sum_squares) X(argmax_rows)                                                                  \
  X(concat_forward) X(concat_backward)                                                                  \
  X(batched_gemm) X(softmax_last_forward) X(softmax_last_backward)                                      \
  X(layer_norm_forward) X(layer_norm_backward) X(permute)                                               \
  X(fused_attention_forward) X(fused_attention_backward)                                                \
  X(caffe_sgd_update) X(torch_sgd_update) X(adam_update)                                               \
  X(linear_backward_weights_update)

namespace ablate::kernels {

enum class Op {
#define ABLATE_OP_ENUM(name) name,
  ABLATE_BACKEND_OPS(ABLATE_OP_ENUM)
#undef ABLATE_OP_ENUM
};

#define ABLATE_OP_NAME(name) #name,
inline constexpr std::array kOpNames{ABLATE_BACKEND_OPS(ABLATE_OP_NAME)};
#undef ABLATE_OP_NAME
inline constexpr int kOpCount = static_cast<int>(kOpNames.size());

// "conv2d_forward": the Backend method's name.
constexpr const char* op_name(Op op) { return kOpNames[static_cast<std::size_t>(op)]; }
// The op of that name, if Backend has one.
constexpr std::optional<Op> find_op(std::string_view name) {
  for (int i = 0; i < kOpCount; ++i)
    if (name == kOpNames[static_cast<std::size_t>(i)]) return static_cast<Op>(i);
  return std::nullopt;
}

}  // namespace ablate::kernels
