// Parameters of the Backend's ops, and the geometry rules of the frameworks that the ops
// reproduce: Caffe's ceil-rounded pooling, TensorFlow's SAME and VALID padding.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <variant>

namespace ablate::kernels {

// GELU (Hendrycks & Gimpel), in PyTorch's two forms (nn.GELU's approximate='none' | 'tanh'):
//   exact: y = 0.5 x (1 + erf(x / sqrt 2))
//   tanh:  y = 0.5 x (1 + tanh(sqrt(2 / pi) (x + 0.044715 x^3)))
// The formulas and their derivatives, for every backend: kernels/gelu_math.h.
enum class GeluApprox { exact, tanh };
const char* gelu_approx_name(GeluApprox a);               // "exact", "tanh"
GeluApprox parse_gelu_approx(const std::string& name);  // throws listing the known names

// The element-wise activations of Backend::activation_forward/backward. relu, tanh and
// sigmoid: the backward reads y. gelu (the exact erf form) and gelu_tanh: GELU, whose
// backward reads x; the Backend's public activation ops run them as gelu_forward/backward
// (kernels/contract/activation_ops.cpp), so a backend's activation_*_impl sees only relu,
// tanh and sigmoid, and the strategies run GELU as any other activation (its layer type says
// that the backward reads the input: models::LayerType::backward_reads_input).
enum class Activation { relu, tanh, sigmoid, gelu, gelu_tanh };
const char* activation_name(Activation a);  // "relu", "tanh", "sigmoid", "gelu", "gelu_tanh"
bool is_gelu(Activation a);
GeluApprox gelu_approx_of(Activation a);  // gelu: exact, gelu_tanh: tanh; throws for the others

// Convolution geometry. Padding may be asymmetric (TF SAME puts the odd pixel at the
// bottom/right). Output: OH = (H + pad_top + pad_bottom - KH) / stride_h + 1, same for W.
// activation: the convolution's epilogue (as TF's grappler remapper makes
// _FusedConv2D(BiasAdd, Relu) and oneDNN an eltwise post-op): y = f(conv(x, w) + bias),
// applied inside the convolution while the output is in cache; none by default. Only
// conv2d_forward takes one, and only relu, tanh or sigmoid, whose gradient reads y (the fused
// output): the caller runs activation_backward on y, then the backward ops without it. GELU,
// whose gradient reads the pre-activation x, is refused (kernels/contract/conv_ops.cpp).
struct Conv2dParams {
  int stride_h = 1, stride_w = 1;
  int pad_top = 0, pad_left = 0, pad_bottom = 0, pad_right = 0;
  std::optional<Activation> activation = std::nullopt;
};

enum class PoolKind { max, avg };
// How a framework turns (input, kernel, stride, pad) into an output size:
//  caffe_ceil: OH = ceil((H + 2p - K) / S) + 1, dropping a last window that starts in the
//              bottom padding (Caffe's PoolingLayer); average counts padded cells inside H + p.
//  tf_same:    OH = ceil(H / S), padding split top = total / 2, the rest at the bottom;
//              average divides by the number of real (unpadded) cells.
//  valid:      OH = floor((H + 2p - K) / S) + 1 (Torch, Theano); average counts padded cells.
enum class PoolPadding { caffe_ceil, tf_same, valid };
const char* pool_padding_name(PoolPadding p);
PoolPadding parse_pool_padding(const std::string& name);  // throws listing the known names

struct Pool2dParams {
  PoolKind kind = PoolKind::max;
  int kernel_h = 2, kernel_w = 2, stride_h = 2, stride_w = 2;
  int pad_top = 0, pad_left = 0;
  int out_h = 0, out_w = 0;
  // Average pooling divisor: the window clipped to [-pad_top, in_h + pad_bottom_limit) when
  // true (Caffe, Torch), or clipped to the real image [0, in_h) when false (TF SAME).
  bool avg_count_padding = true;
  int pad_bottom_limit = 0, pad_right_limit = 0;
};

// Where the gradient of a max-pooling window goes (a backend option, BackendOptions::pool_gradient):
//  first  to the first cell in row-major order that holds the window's maximum (Caffe's
//         MaxPoolBackward through its mask, Torch's indices, cuDNN, oneDNN);
//  all    to every cell of the window equal to its maximum, each getting the whole dy
//         (Theano's MaxPoolGrad in pool.py: gx[i] += gz where x[i] == z). Ties are common
//         where inputs saturate (Fashion-MNIST's zero backgrounds), so `all` gives a larger
//         gradient there. Backward then reads x and y instead of the argmax workspace.
enum class PoolGradient { first, all };
const char* pool_gradient_name(PoolGradient g);                  // "first", "all"
PoolGradient parse_pool_gradient(const std::string& name);  // throws listing the known names

// Resolves a framework's pooling convention for an input of in_h x in_w.
Pool2dParams make_pool2d_params(PoolKind kind, int kernel, int stride, int pad, PoolPadding padding,
                                int in_h, int in_w);
// TF SAME padding for a convolution: out = ceil(in / stride), total pad split top/bottom.
Conv2dParams make_same_conv2d_params(int kernel_h, int kernel_w, int stride, int in_h, int in_w);
int conv2d_out_size(int in, int kernel, int stride, int pad_before, int pad_after);

// Local response normalisation across channels (Caffe ACROSS_CHANNELS, oneDNN
// lrn_across_channels): y = x / (k + alpha / size * sum_{c' in window(c)} x_{c'}^2)^beta,
// window = size channels centred on c. TF's depth_radius r is size = 2r + 1 and its alpha
// is alpha_tf = alpha / size.
struct LrnParams {
  int size = 5;
  double alpha = 1e-4, beta = 0.75, k = 1.0;
};



// One step of a fused elementwise chain (Backend::fused_elementwise): the running value r
// starts as input 0, each step replaces it, and the last r is the output:
//  bias_add         r = r + e[c]   (e [C], c the channel of r's element in [N, C, ...])
//  activation       r = f(r)       (relu, tanh, sigmoid; GELU is not chained: its gradient reads x)
//  activation_grad  r = f'(y) r    with y = e, the activation's output (as activation_backward)
//  mul              r = r * e      add  r = r + e      scale  r = alpha r
// `operand` is e's index among the op's inputs (-1 for activation and scale).
enum class ChainOp { bias_add, activation, activation_grad, mul, add, scale };
const char* chain_op_name(ChainOp op);
struct ChainStep {
  ChainOp op = ChainOp::activation;
  Activation activation = Activation::relu;
  double alpha = 1.0;
  int operand = -1;
};

// Caffe's SGD (sgd_solver.cpp): g += weight_decay * w; h = momentum * h + lr * g; w -= h.
struct CaffeSgdParams {
  double lr = 0.01, momentum = 0.0, weight_decay = 0.0;
};
// Torch's optim.sgd: g += wd * w; with momentum != 0: v = first ? g : momentum * v + (1 - dampening) * g,
// step = nesterov ? g + momentum * v : v; with momentum 0 (plain gradient descent) step = g and v is
// left alone, as Torch7 skips its buffer then; w -= lr * step.
struct TorchSgdParams {
  double lr = 0.01, momentum = 0.0, dampening = 0.0, weight_decay = 0.0;
  bool nesterov = false;
  bool first_step = false;  // true on the first update: v starts as g
};
// TensorFlow's AdamOptimizer: lr_t = lr * sqrt(1 - beta2^t) / (1 - beta1^t);
// m = b1 m + (1 - b1) g; v = b2 v + (1 - b2) g^2; w -= lr_t * m / (sqrt(v) + eps). t >= 1.
struct AdamParams {
  double lr = 1e-3, beta1 = 0.9, beta2 = 0.999, epsilon = 1e-8;
  std::int64_t t = 1;
};
// One optimizer step, for an op that applies the update itself
// (Backend::linear_backward_weights_update): its state tensors are Caffe's history, Torch's
// velocity, or Adam's m and v, in that order.
using UpdateParams = std::variant<CaffeSgdParams, TorchSgdParams, AdamParams>;
// How many state tensors the update of p keeps per parameter: 1, 1 or 2.
std::size_t update_state_count(const UpdateParams& p);

}  // namespace ablate::kernels
