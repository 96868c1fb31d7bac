"""An ablate model file (models/README.md) as a torch.nn model, with ablate's initializer
rules and per-parameter lr/decay multipliers, so PyTorch starts from the same kind of weights.

Layers map to torch.nn as PyTorch users would write them: Caffe's ceil-rounded pooling is
ceil_mode=True, TF's SAME pooling pads with -inf, Theano's bias after pooling is ChannelBias,
softmax_loss is CrossEntropyLoss, log_softmax + nll_loss is LogSoftmax + NLLLoss, gelu is
nn.GELU(approximate=...), batch_norm (momentum_style=torch) is BatchNorm2d / BatchNorm1d with
the model's eps and momentum (Caffe's convention is not comparable).
Initializers (models/initializers.cpp): fan_in = numel / shape[0], fan_out = numel / shape[1];
a bias draws with its layer's weight fans; a convolution read by a pooling layer has
fan_out = K*KH*KW / pool^2 (Theano's LeNetConvPoolLayer, only glorot uses it).
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from peer_common import NotComparable, parse_model  # noqa: F401 (parse_model: used by the scripts)


class TfSamePool(nn.Module):
    """TensorFlow's SAME max pooling: out = ceil(in / s), the padding split top/left =
    total // 2 and the rest bottom/right, padded cells never chosen (-inf)."""

    def __init__(self, k, s, in_h, in_w):
        super().__init__()
        self.k, self.s = k, s
        pad_h = max((-(-in_h // s) - 1) * s + k - in_h, 0)
        pad_w = max((-(-in_w // s) - 1) * s + k - in_w, 0)
        self.pads = (pad_w // 2, pad_w - pad_w // 2, pad_h // 2, pad_h - pad_h // 2)

    def forward(self, x):
        if any(self.pads):
            x = F.pad(x, self.pads, value=float("-inf"))
        return F.max_pool2d(x, self.k, self.s)


class ChannelBias(nn.Module):
    """Theano's separate bias after pooling: y[n, c, ...] += b[c]."""

    def __init__(self, channels):
        super().__init__()
        self.bias = nn.Parameter(torch.zeros(channels))

    def forward(self, x):
        return x + self.bias.view(1, -1, *([1] * (x.dim() - 2)))


def pooling_output(size, k, s, p, padding):
    if padding == "caffe_ceil":
        out = int(math.ceil((size + 2 * p - k) / s)) + 1
        if p > 0 and (out - 1) * s >= size + p:
            out -= 1
        return out
    return (size + 2 * p - k) // s + 1


def init_tensor(t, rule, fan_in, fan_out, gen):
    """Fills t (in place, no grad) by one of ablate's initializer rules, drawn from gen."""
    name, _, arg = rule.partition(":")
    with torch.no_grad():
        if name == "constant":
            t.fill_(float(arg))
        elif name == "gaussian":
            t.normal_(0.0, float(arg), generator=gen)
        elif name == "truncated_normal":
            z = torch.randn(t.shape, generator=gen, dtype=torch.float64)
            bad = z.abs() > 2.0
            while bad.any():  # values beyond 2 std redrawn, as tf.truncated_normal
                z[bad] = torch.randn(int(bad.sum()), generator=gen, dtype=torch.float64)
                bad = z.abs() > 2.0
            t.copy_(z * float(arg))
        elif name in ("xavier", "uniform_fan_in", "glorot"):
            a = {"xavier": math.sqrt(3.0 / fan_in), "uniform_fan_in": 1.0 / math.sqrt(fan_in),
                 "glorot": math.sqrt(6.0 / (fan_in + fan_out))}[name]
            t.uniform_(-a, a, generator=gen)
        else:
            raise NotComparable(f"initializer rule '{rule}' is not known to the PyTorch script")


class Built:
    """The torch model, its loss, [(parameter, lr_mult, decay_mult)] in file order, and each
    parameter's name in ablate (`<layer>.weight`, `<layer>.bias`): the same layouts, [K, C, KH, KW]
    and [O, I], so ablate's tensors load as they are."""

    def __init__(self, net, loss, params, names):
        self.net, self.loss, self.params, self.names = net, loss, params, names


def build(shape, classes, layers, seed=1):
    gen = torch.Generator().manual_seed(seed)
    c, h, w = shape
    modules, params, names = [], [], []
    flat = None

    def add_params(name, layer, p, weight_fans=None, weight_init="xavier"):
        if getattr(layer, "weight", None) is not None and weight_fans is not None:
            fan_in, fan_out = weight_fans
            init_tensor(layer.weight, p.get("weight_init", weight_init), fan_in, fan_out, gen)
            params.append((layer.weight, float(p.get("weight_lr_mult", 1)), float(p.get("weight_decay_mult", 1))))
            names.append(name + ".weight")
        if getattr(layer, "bias", None) is not None:
            b = layer.bias
            fans = weight_fans or (1, b.numel())  # a [C] tensor: fan_in numel/C, fan_out numel
            init_tensor(b, p.get("bias_init", "constant:0"), fans[0], fans[1], gen)
            params.append((b, float(p.get("bias_lr_mult", 1)), float(p.get("bias_decay_mult", 1))))
            names.append(name + ".bias")

    for i, (name, kind, p) in enumerate(layers):
        if kind == "convolution":
            k, s, pad = int(p.get("kernel", 1)), int(p.get("stride", 1)), int(p.get("pad", 0))
            out, bias = int(p["outputs"]), p.get("bias", "true") == "true"
            padding = p.get("padding", "explicit")
            if padding == "same":
                if s != 1:
                    raise NotComparable("SAME convolution with stride > 1")
                conv = nn.Conv2d(c, out, k, 1, padding="same", bias=bias)
            else:
                pad = 0 if padding == "valid" else pad
                conv = nn.Conv2d(c, out, k, s, pad, bias=bias)
                h, w = (h + 2 * pad - k) // s + 1, (w + 2 * pad - k) // s + 1
            fan_in, fan_out = c * k * k, out * k * k
            nxt = layers[i + 1] if i + 1 < len(layers) else None
            if nxt is not None and nxt[1] == "pooling":
                pk = int(nxt[2].get("kernel", 2))
                fan_out = out * k * k / (pk * pk)
            add_params(name, conv, p, (fan_in, fan_out))
            modules.append(conv)
            c = out
        elif kind == "pooling":
            k, s, pad = int(p.get("kernel", 2)), int(p.get("stride", p.get("kernel", 2))), int(p.get("pad", 0))
            padding = p.get("padding", "valid")
            if padding == "tf_same":
                if p.get("mode", "max") != "max":
                    raise NotComparable("tf_same average pooling")
                modules.append(TfSamePool(k, s, h, w))
                h, w = -(-h // s), -(-w // s)
                continue
            ceil = padding == "caffe_ceil"
            if p.get("mode", "max") == "max":
                modules.append(nn.MaxPool2d(k, s, pad, ceil_mode=ceil))
            else:
                modules.append(nn.AvgPool2d(k, s, pad, ceil_mode=ceil, count_include_pad=True))
            h, w = pooling_output(h, k, s, pad, padding), pooling_output(w, k, s, pad, padding)
        elif kind == "inner_product":
            if flat is None:
                modules.append(nn.Flatten())
                flat = c * h * w
            out = int(p["outputs"])
            fc = nn.Linear(flat, out, bias=p.get("bias", "true") == "true")
            add_params(name, fc, p, (flat, out))
            modules.append(fc)
            flat = out
        elif kind == "bias":
            cb = ChannelBias(c if flat is None else flat)
            add_params(name, cb, p)
            modules.append(cb)
        elif kind == "relu":
            modules.append(nn.ReLU(inplace=True))
        elif kind == "tanh":
            modules.append(nn.Tanh())
        elif kind == "sigmoid":
            modules.append(nn.Sigmoid())
        elif kind == "gelu":
            modules.append(nn.GELU(approximate=p.get("approximate", "none")))
        elif kind == "batch_norm":
            if p.get("momentum_style", "torch") != "torch":
                raise NotComparable("batch_norm momentum_style=caffe (Caffe's scale-factor averaging has no torch.nn form)")
            features = c if flat is None else flat
            norm = nn.BatchNorm2d if flat is None else nn.BatchNorm1d
            bn = norm(features, eps=float(p.get("eps", 1e-5)), momentum=float(p.get("momentum", 0.1)),
                      affine=p.get("affine", "true") == "true")
            add_params(name, bn, p, (1, features), weight_init="constant:1")  # a [C] tensor's own fans
            modules.append(bn)
        elif kind == "lrn":
            modules.append(nn.LocalResponseNorm(int(p.get("size", 5)), float(p.get("alpha", 1e-4)),
                                                float(p.get("beta", 0.75)), float(p.get("k", 1.0))))
        elif kind == "dropout":
            modules.append(nn.Dropout(1.0 - float(p.get("keep", 0.5))))
        elif kind in ("softmax_loss", "nll_loss"):
            pass
        elif kind == "log_softmax":
            modules.append(nn.LogSoftmax(dim=1))
        else:
            raise NotComparable(f"layer type {kind}")
    loss = nn.NLLLoss() if layers[-1][1] == "nll_loss" else nn.CrossEntropyLoss()
    return Built(nn.Sequential(*modules), loss, params, names)
