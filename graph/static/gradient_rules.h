// The gradient rule of each differentiable op: given the gradients at a node's outputs, the
// nodes that compute the gradients at its inputs (TF's @ops.RegisterGradient functions,
// Theano's Op.grad). Conventions (dy: the gradient at output 0):
//   conv2d(x, w[, b])      dx = conv2d_grad_input(dy, w); dw[, db] = conv2d_grad_filter(x, dy)
//   linear(x, w[, b])      dx = linear_grad_input(dy, w); dw[, db] = linear_grad_weight(x, dy)
//   bias_add(x, b)         dx = dy; db = bias_grad(dy)
//   pool2d, lrn            dx = *_grad(x, y, dy, workspace)
//   activation             dx = activation_grad(y, dy)     (reads the output, as Caffe)
//   mul(a, b)              da = dy * b; db = dy * a;  add, add_n: every input dy;  scale: dx = a dy
//   softmax_xent, nll      the loss is a batch mean: g' = g / N (scalar_scale, TF's Mean
//                          gradient), then dlogits = softmax_xent_grad(prob, labels, g'),
//                          nll: dlogp = nll_grad(labels, g')
//   log_softmax            dx = log_softmax_grad(y, dy)
//   batch_norm(x[, w, b])  dx[, dw, db] = batch_norm_grad(x, dy, mean, var[, w]) (the batch
//                          statistics are outputs 1 and 2; their own gradients are not built)
//   gemm                   dA = alpha dC op(B)^T, dB = alpha op(A)^T dC (transposed back as
//                          the flags say), dC0 = beta dC;  axpby: dx = alpha dy, dy = beta dy
//   concat(x0, x1, ...)    dx0, dx1, ... = concat_grad(dy): one node, a channel slice each
//   copy                   dx = dy;  sum: dx = broadcast(g);  sum_squares: dx = x * broadcast(2g)
//   broadcast              dg = sum(dy);  scalar_scale: dg = a g'
//   softmax                none: the Backend has no softmax backward
//   fused_attention        dq, dk, dv = fused_attention_grad(q, k, v, o, lse, dout)
#pragma once

#include <vector>

#include "graph/static/graph_ir.h"

namespace ablate::graph::static_graph {

// `dout[k]` is the gradient at output k (invalid: none); `wanted[k]` whether input k needs a
// gradient. Returns one gradient per input (invalid where none is built).
std::vector<Value> input_gradients(Graph& graph, int node, const std::vector<Value>& dout,
                                   const std::vector<bool>& wanted);

}  // namespace ablate::graph::static_graph
