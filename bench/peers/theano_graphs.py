"""The study's Theano networks, built from an ablate model file with the Theano tutorials'
own building blocks (deeplearning.net tutorial code, convolutional_mlp.py, mlp.py,
logistic_sgd.py):
  LeNetConvPoolLayer  conv2d (theano.tensor.nnet, lowered to CorrMM, a per-image GEMM over
                      OpenBLAS) -> pool_2d(ignore_border=True) -> + b.dimshuffle('x', 0, 'x', 'x')
                      -> tanh: the model file's convolution, pooling, bias, tanh layers in a row
  HiddenLayer         T.dot(input, W) + b, W [n_in, n_out], then the activation
  LogisticRegression  p_y_given_x = softmax(T.dot(input, W) + b);
                      NLL = -T.mean(T.log(p_y_given_x)[T.arange(y.shape[0]), y])
The model files theano-lenet5 (convolutional_mlp.py's evaluate_lenet5) and theano-cifar10 (the
tutorial convnet the study names) list those blocks layer by layer, so the network is built by
walking the file. Its own initial weights are drawn as the tutorials draw them: one
numpy.random.RandomState(seed), weights in Theano's layout in layer order (uniform +-bound for
glorot: sqrt(6 / (fan_in + fan_out)), fan_out = filters*k*k / pool^2 before pooling), zero
biases drawing nothing.

Layouts. Theano's conv2d is a true convolution (filter_flip=True: the kernel is flipped before
the correlation), ablate's a correlation (Caffe's): ablate's [K, C, KH, KW] weight is loaded
flipped in both spatial axes. A dense weight is [n_in, n_out] (ablate's [O, I] transposed);
flatten(2) of NCHW is ablate's order, so no permutation.
"""
import math

import numpy as np

from peer_common import NotComparable


def flipped(w):
    return np.ascontiguousarray(w[:, :, ::-1, ::-1])


def transposed(w):
    return np.ascontiguousarray(w.T)


def same(a):
    return a


class Param:
    def __init__(self, shared, ablate_shape, to_theano):
        self.shared, self.ablate_shape, self.to_theano = shared, tuple(ablate_shape), to_theano


def draw(rng, rule, shape, fan_in, fan_out, dtype):
    """One initializer rule (models/initializers.cpp's names) drawn as the tutorials draw."""
    name, _, arg = rule.partition(":")
    if name == "constant":
        return np.full(shape, float(arg), dtype=dtype)
    if name == "gaussian":
        return np.asarray(rng.normal(0.0, float(arg), size=shape), dtype=dtype)
    bound = {"glorot": lambda: math.sqrt(6.0 / (fan_in + fan_out)), "xavier": lambda: math.sqrt(3.0 / fan_in),
             "uniform_fan_in": lambda: 1.0 / math.sqrt(fan_in)}.get(name)
    if bound is None:
        raise NotComparable(f"initializer rule '{rule}' in the Theano runner")
    b = bound()
    return np.asarray(rng.uniform(low=-b, high=b, size=shape), dtype=dtype)


def max_pool_first(theano, T, x, k, h, w):
    """Max pooling (k x k, stride k) whose gradient goes to the first maximum of each window
    only (row-major order), as ablate's and Caffe's; Theano's own pool_2d gives it to every
    element equal to the maximum. For the account of a difference, not the tutorial."""
    if h % k or w % k:
        raise NotComparable(f"--pool-gradient first on {h}x{w} with pooling {k} (needs whole windows)")
    n, c = x.shape[0], x.shape[1]
    win = x.reshape((n, c, h // k, k, w // k, k)).dimshuffle(0, 1, 2, 4, 3, 5).reshape((n, c, h // k, w // k, k * k))
    first = theano.gradient.disconnected_grad(T.eq(T.arange(k * k), T.argmax(win, axis=-1).dimshuffle(0, 1, 2, 3, "x")))
    return (win * first).sum(axis=-1)


def build(theano, T, layers, shape, x, seed, dtype, pool_gradient="all"):
    """Walks the model's layers over the symbolic input x [N, C, H, W]; returns (log p(y|x)
    [N, classes], {ablate name: Param}) in layer order. pool_gradient "first": max pooling
    by max_pool_first."""
    from theano.tensor.nnet import conv2d
    from theano.tensor.signal.pool import pool_2d

    rng = np.random.RandomState(seed)
    params = {}
    c, h, w = shape
    flat = None
    out = x

    def shared(name, value, ablate_shape, to_theano):
        s = theano.shared(value, name=name, borrow=True)
        params[name] = Param(s, ablate_shape, to_theano)
        return s

    for i, (name, kind, p) in enumerate(layers):
        nxt = layers[i + 1] if i + 1 < len(layers) else None
        if kind == "convolution":
            k, s, k_out = int(p.get("kernel", 1)), int(p.get("stride", 1)), int(p["outputs"])
            padding = p.get("padding", "explicit")
            pad = 0 if padding == "valid" else (k // 2 if padding == "same" else int(p.get("pad", 0)))
            if padding == "same" and (k % 2 == 0 or s != 1):
                raise NotComparable("SAME convolution with an even kernel or a stride in the Theano runner")
            fan_in, fan_out = c * k * k, k_out * k * k
            if nxt is not None and nxt[1] == "pooling":
                fan_out = k_out * k * k / int(nxt[2].get("kernel", 2)) ** 2
            W = shared(name + ".weight", draw(rng, p.get("weight_init", "xavier"), (k_out, c, k, k), fan_in, fan_out, dtype),
                       (k_out, c, k, k), flipped)
            out = conv2d(out, W, input_shape=(None, c, h, w), filter_shape=(k_out, c, k, k),
                         border_mode=(pad, pad), subsample=(s, s))
            if p.get("bias", "true") == "true":
                b = shared(name + ".bias", draw(rng, p.get("bias_init", "constant:0"), (k_out,), fan_in, fan_out, dtype),
                           (k_out,), same)
                out = out + b.dimshuffle("x", 0, "x", "x")
            c, h, w = k_out, (h + 2 * pad - k) // s + 1, (w + 2 * pad - k) // s + 1
        elif kind == "pooling":
            k = int(p.get("kernel", 2))
            s, pad = int(p.get("stride", k)), int(p.get("pad", 0))
            if p.get("padding", "valid") not in ("valid", "explicit"):
                raise NotComparable(f"pooling padding '{p.get('padding')}' in the Theano runner (ignore_border=True only)")
            mode = "max" if p.get("mode", "max") == "max" else "average_inc_pad"
            if mode == "max" and pool_gradient == "first" and s == k and pad == 0:
                out = max_pool_first(theano, T, out, k, h, w)
            elif pool_gradient == "first" and mode == "max":
                raise NotComparable("--pool-gradient first with overlapping or padded pooling")
            else:
                out = pool_2d(out, ws=(k, k), ignore_border=True, stride=(s, s), pad=(pad, pad), mode=mode)
            h, w = (h + 2 * pad - k) // s + 1, (w + 2 * pad - k) // s + 1
        elif kind == "bias":
            n = c if flat is None else flat
            b = shared(name + ".bias", draw(rng, p.get("bias_init", "constant:0"), (n,), 1, n, dtype), (n,), same)
            out = out + (b.dimshuffle("x", 0, "x", "x") if flat is None else b)
        elif kind == "inner_product":
            if flat is None:
                out, flat = out.flatten(2), c * h * w
            n_out = int(p["outputs"])
            W = shared(name + ".weight", draw(rng, p.get("weight_init", "xavier"), (flat, n_out), flat, n_out, dtype),
                       (n_out, flat), transposed)
            out = T.dot(out, W)
            if p.get("bias", "true") == "true":
                b = shared(name + ".bias", draw(rng, p.get("bias_init", "constant:0"), (n_out,), flat, n_out, dtype),
                           (n_out,), same)
                out = out + b
            flat = n_out
        elif kind == "tanh":
            out = T.tanh(out)
        elif kind == "relu":
            out = T.nnet.relu(out)
        elif kind == "sigmoid":
            out = T.nnet.sigmoid(out)
        elif kind in ("log_softmax", "softmax_loss"):
            out = T.log(T.nnet.softmax(out))  # LogisticRegression's log(p_y_given_x)
        elif kind == "nll_loss":
            pass
        else:
            raise NotComparable(f"layer type {kind} in the Theano runner (not in the tutorials)")
    if layers[-1][1] not in ("nll_loss", "softmax_loss"):
        raise NotComparable("a model that does not end in a softmax loss")
    return out, params
