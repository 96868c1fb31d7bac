// OpCheck: the argument checks of one Backend op call, written once for every backend
// (kernels/backend.h runs them before any implementation). A failure throws
// std::invalid_argument in one format, naming the backend, the op, the argument, what came
// and what was expected:
//   "eigen conv2d_forward: y is f32[2, 4, 5, 5], expected shape [2, 4, 3, 3]"
//   "reference nll_forward: labels: label 7 of row 3, expected a class in [0, 5)"
// A backend that computes on the host takes host tensors only; a device backend (cuda) also
// takes host tensors (it stages them), so the placement rule follows Backend::device().
#pragma once

#include <cstdint>
#include <string>

#include "kernels/op_list.h"
#include "kernels/op_params.h"
#include "kernels/tensor.h"

namespace ablate::kernels {

class Backend;

// Whether the storage of a and b overlaps (outputs that must not alias an input).
bool shares_memory(const Tensor& a, const Tensor& b);

class OpCheck {
 public:
  OpCheck(const Backend& backend, Op op) : backend_(backend), op_(op) {}

  // Throws "<backend> <op>: <message>".
  [[noreturn]] void fail(const std::string& message) const;

  // An allocated tensor of any dtype (fill, copy), in host memory on a host backend.
  void allocated(const char* arg, const Tensor& t) const;
  // An allocated f32 or f64 tensor: the op's first input, which fixes its dtype.
  void floating(const char* arg, const Tensor& t) const;
  // An allocated tensor of exactly this dtype (labels, argmax indices, tables are i32).
  void dtype(const char* arg, const Tensor& t, DType dtype) const;
  // An allocated tensor of lead's dtype (lead passed floating before).
  void like(const char* arg, const Tensor& t, const Tensor& lead) const;
  void ndim(const char* arg, const Tensor& t, int ndim) const;
  void shape(const char* arg, const Tensor& t, const Shape& expected) const;
  void numel(const char* arg, const Tensor& t, std::int64_t numel) const;
  // like, then shape: an output, a bias, a saved statistic.
  void like_shape(const char* arg, const Tensor& t, const Tensor& lead, const Shape& expected) const;
  // A fully connected layer's weight gradient operands: x [N,I] float, dy [N,O] and `w` (the
  // gradient dw, or the weight an update folds it into) [O,I] of x's dtype, dbias [O] or
  // empty. Returns N.
  std::int64_t weight_gradient(const Tensor& x, const Tensor& dy, const char* w_name, const Tensor& w,
                               const Tensor& dbias) const;
  // A float matrix [N, K] with K >= 1 (logits, probabilities, the rows of a softmax).
  void rows(const char* arg, const Tensor& t) const;
  // i32 labels [n]; when they are in host memory, every value in [0, classes).
  void labels(const Tensor& labels, std::int64_t n, std::int64_t classes) const;
  // Every value of n labels in host memory in [0, classes) (a device backend that downloaded
  // its labels calls this itself).
  void label_values(const std::int32_t* labels, std::int64_t n, std::int64_t classes) const;
  // A connection table i32 [t, 2] (Torch's SpatialConvolutionMap); in host memory, every row's
  // input plane in [0, inputs) and output plane in [0, outputs).
  void table(const Tensor& table, std::int64_t t, std::int64_t inputs, std::int64_t outputs) const;
  void table_rows(const std::int32_t* rows, std::int64_t t, std::int64_t inputs, std::int64_t outputs) const;

  // The output shape [N, K, OH, OW] of image x [N,C,H,W] convolved into k planes with kh x kw
  // kernels: checks strides >= 1, paddings >= 0 and a kernel inside the padded input.
  Shape conv_output(const Shape& x, std::int64_t k, std::int64_t kh, std::int64_t kw, const Conv2dParams& p) const;
  // Pooling parameters that give every window of x's H x W planes a real cell.
  void pool_params(const Pool2dParams& p, std::int64_t h, std::int64_t w) const;
  // An odd window (Caffe's local_size), k > 0 and alpha >= 0.
  void lrn_params(const LrnParams& p) const;
  // The workspace of max pooling on the backends that keep argmax indices there (reference,
  // the CPU loops, cuda): i32 of the output's shape, as pool2d_forward filled it.
  void argmax_workspace(const Tensor& workspace, const Shape& out) const;

 private:
  const Backend& backend_;
  Op op_;
};

}  // namespace ablate::kernels
