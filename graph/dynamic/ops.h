// The eager ops of the tape, as torch.nn.functional: each runs its forward through the
// Backend at once and, when gradients are on and an input requires one, records a node with
// its backward (node.h). Tensors are NCHW or [N, F] (or channel-blocked under the blocked
// layout, context.h); every input shares one Context and dtype.
// Scalars (losses, sums) are f64 [1] host tensors, as the Backend returns them.
#pragma once

#include <cstdint>
#include <vector>

#include "graph/dynamic/variable.h"
#include "kernels/op_params.h"

namespace ablate::graph::dynamic {

// --- convolution and fully connected (bias may be an undefined Variable) --------------------
// x [N,C,H,W], w [K,C,KH,KW], b [K] -> [N,K,OH,OW]          (SpatialConvolutionMM, Caffe's)
Variable conv2d(const Variable& x, const Variable& w, const Variable& b, const kernels::Conv2dParams& p);
// Torch's SpatialConvolutionMap: table i32 [T,2] of (input plane, output plane) pairs on the
// backend's device, w [T,KH,KW], b [outputs] -> [N,outputs,OH,OW]
Variable conv2d_map(const Variable& x, const Variable& w, const Variable& b, const kernels::Tensor& table,
                    int outputs, const kernels::Conv2dParams& p);
// x [N,I], w [O,I], b [O] -> [N,O]                            (nn.Linear)
Variable linear(const Variable& x, const Variable& w, const Variable& b);
// y[n,c,...] = x[n,c,...] + b[c]                               (Theano's bias after pooling)
Variable bias_add(const Variable& x, const Variable& b);

// --- pooling, normalisation, activations, dropout ---------------------------------------------
// max or average (p.kind) with the padding convention resolved into p (models::pool_params)
Variable pool2d(const Variable& x, const kernels::Pool2dParams& p);
Variable lrn(const Variable& x, const kernels::LrnParams& p);
// Batch normalisation per channel of x [N, C] or [N, C, H, W] (F.batch_norm in training) with
// an optional weight and bias [C] (both or neither): y from the batch's mean and biased
// variance, which are written to `mean` and `var` (new tensors [C]) for the running statistics
Variable batch_norm(const Variable& x, const Variable& weight, const Variable& bias, double epsilon,
                    kernels::Tensor& mean, kernels::Tensor& var);
// The same from given statistics mean, var [C] (evaluation); no gradient: throws when
// recording would be needed
Variable batch_norm_inference(const Variable& x, const Variable& weight, const Variable& bias,
                              const kernels::Tensor& mean, const kernels::Tensor& var, double epsilon);
// backward from y (relu, tanh, sigmoid), or from x when `backward_from_input` (GELU)
Variable activation(const Variable& x, kernels::Activation a, bool backward_from_input = false);
Variable relu(const Variable& x);
Variable tanh(const Variable& x);
Variable sigmoid(const Variable& x);
// y = x * mask with a fixed mask (mask[i] = kept / keep, same shape as x; no gradient)
Variable dropout(const Variable& x, const kernels::Tensor& mask);
// y = x * mask, mask = Backend::dropout_mask(keep, seed) of x's shape (graph::dropout_seed
// gives the seed every strategy uses); x's sample 0 is sample `first_sample` of the global
// batch (graph::dropout_first_index)
Variable dropout(const Variable& x, double keep, std::uint64_t seed, std::int64_t first_sample = 0);

// --- losses over scores [N,K] and labels i32 [N] on the backend's device: batch means -------------
Variable log_softmax(const Variable& x);  // rows of [N,K]
Variable nll_loss(const Variable& logp, const kernels::Tensor& labels);
Variable softmax_cross_entropy(const Variable& logits, const kernels::Tensor& labels);

// --- attention (the Vision Transformer's; tokens [N, T, D]) ------------------------------------
// c [B, M, N] = alpha op(a) op(b) per batch index (torch.bmm): a [B, M, K] or [B, K, M]
// (trans_a), b [B, K, N] or [B, N, K] (trans_b)
Variable batched_matmul(const Variable& a, const Variable& b, bool trans_a, bool trans_b, double alpha = 1.0);
// softmax(scale x) along the last axis, max-subtracted (F.softmax(x * scale, -1))
Variable softmax_last(const Variable& x, double scale);
// F.layer_norm over the last axis with weight and bias [D] (both, or both undefined)
Variable layer_norm(const Variable& x, const Variable& weight, const Variable& bias, double epsilon);
// x.permute(perm).contiguous(): y.shape[i] = x.shape[perm[i]]
Variable permute(const Variable& x, const std::vector<int>& perm);

// --- elementwise, reductions and views -------------------------------------------------------
Variable add(const Variable& a, const Variable& b);  // same shape
Variable add(const std::vector<Variable>& xs);       // x0 + x1 + ..., two or more of one shape
// xs [N, Ck, ...] side by side along axis 1 -> [N, C0 + C1 + ..., ...] (JoinTable(2), Caffe's
// Concat); dxs[k] = dy's channel slice of input k
Variable concat(const std::vector<Variable>& xs);
Variable mul(const Variable& a, const Variable& b);  // same shape
Variable sum(const Variable& x);                     // host scalar
Variable reshape(const Variable& x, const kernels::Shape& shape);  // a view, same numel
// The same values in channel layout `block` (kernels/tensor.h; 0: NCHW), the blocked layout's
// conversion (context.h); x itself when already in it
Variable to_channel_block(const Variable& x, int block);
Variable flatten(const Variable& x);                 // [N, ...] -> [N, numel / N]

}  // namespace ablate::graph::dynamic
