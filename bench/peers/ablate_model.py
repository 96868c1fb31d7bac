"""An ablate model file (models/README.md) as a torch.nn model, with ablate's initializer
rules and per-parameter lr/decay multipliers, so PyTorch starts from the same kind of weights.

The model may branch (`input=a,b`): Graph runs each layer's module on the outputs it names;
add is a sum of its inputs, concat torch.cat on the channel axis, global_avg_pool
nn.AdaptiveAvgPool2d(1). Layers map to torch.nn as PyTorch users would write them: Caffe's ceil-rounded pooling is
ceil_mode=True, TF's SAME pooling pads with -inf, Theano's bias after pooling is ChannelBias,
softmax_loss is CrossEntropyLoss, log_softmax + nll_loss is LogSoftmax + NLLLoss, gelu is
nn.GELU(approximate=...), batch_norm (momentum_style=torch) is BatchNorm2d / BatchNorm1d with
the model's eps and momentum (Caffe's convention is not comparable).
Token layers (docs/attention.md) act on [N, T, D]: tokens is x.flatten(2).transpose(1, 2),
pos_embed adds a [T, D] parameter, layer_norm is nn.LayerNorm(D), linear nn.Linear on the last
axis, attention the separate-projection multi-head self-attention of
bench/peers/onnx/pytorch_vit_tiny.py (parameters `<layer>.query_weight`, ..., `<layer>.out_bias`),
token_mean x.mean(dim=1).
Initializers (models/initializers.cpp): fan_in = numel / shape[0], fan_out = numel / shape[1];
a bias draws with its layer's weight fans; a convolution read by a pooling layer has
fan_out = K*KH*KW / pool^2 (Theano's LeNetConvPoolLayer, only glorot uses it).
"""
import math

import torch
import torch.nn as nn
import torch.nn.functional as F

from peer_common import NotComparable, layer_inputs, parse_model  # noqa: F401 (parse_model: used by the scripts)


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
        elif name == "msra":  # Caffe's MSRAFiller: N(0, 2 / fan_in)
            t.normal_(0.0, math.sqrt(2.0 / fan_in), generator=gen)
        elif name in ("xavier", "uniform_fan_in", "glorot"):
            a = {"xavier": math.sqrt(3.0 / fan_in), "uniform_fan_in": 1.0 / math.sqrt(fan_in),
                 "glorot": math.sqrt(6.0 / (fan_in + fan_out))}[name]
            t.uniform_(-a, a, generator=gen)
        else:
            raise NotComparable(f"initializer rule '{rule}' is not known to the PyTorch script")


class Graph(nn.Module):
    """The model file's layers as one module: each layer's module reads the outputs its inputs
    name (`input=a,b`; the layer before by default, the model input `data` for the first), in
    file order, as ablate's strategies walk it; the output is the loss layer's input (the
    scores). A chain is the nn.Sequential it replaces: the same modules in the same order."""

    def __init__(self, modules, inputs, output):
        super().__init__()
        self.layers = nn.ModuleList(modules)
        self.inputs, self.output = inputs, output  # indices into the outputs; -1: the model input

    def forward(self, x):
        outputs = []
        for module, inputs in zip(self.layers, self.inputs):
            outputs.append(module(*[x if i < 0 else outputs[i] for i in inputs]))
        return x if self.output < 0 else outputs[self.output]


class Add(nn.Module):
    """ablate's add (Caffe's Eltwise SUM, nn.CAddTable): the sum of every input."""

    def forward(self, *xs):
        out = xs[0]
        for x in xs[1:]:
            out = out + x
        return out


class Concat(nn.Module):
    """ablate's concat: the inputs side by side along the channel axis (torch.cat(dim=1))."""

    def forward(self, *xs):
        return torch.cat(xs, dim=1)


class Tokens(nn.Module):
    """ablate's tokens: [N, C, H, W] -> [N, H*W, C], token t = h*W + w."""

    def forward(self, x):
        return x.flatten(2).transpose(1, 2)


class PosEmbed(nn.Module):
    """ablate's pos_embed: y = x + weight, weight [T, D] shared by every sample."""

    def __init__(self, tokens, width):
        super().__init__()
        self.weight = nn.Parameter(torch.zeros(tokens, width))

    def forward(self, x):
        return x + self.weight


class TokenMean(nn.Module):
    """ablate's token_mean: [N, T, D] -> [N, D], the mean over the tokens."""

    def forward(self, x):
        return x.mean(dim=1)


class Attention(nn.Module):
    """ablate's attention: q, k, v = x W^T + b, each split into heads [N, h, T, dh];
    softmax(q k^T / sqrt(dh)) v per head (keep < 1: the weights dropped out first, as
    nn.MultiheadAttention's dropout=1 - keep); the heads joined to [N, T, D]; the output projection."""

    ROLES = ("query", "key", "value", "out")

    def __init__(self, width, heads, keep=1.0):
        super().__init__()
        self.weights_dropout = nn.Dropout(1.0 - keep)
        if heads < 1 or width % heads:
            raise ValueError(f"attention heads={heads} must divide the width {width}")
        self.heads, self.dh = heads, width // heads
        self.query, self.key, self.value, self.out = (nn.Linear(width, width) for _ in self.ROLES)

    def forward(self, x):
        n, t, d = x.shape

        def split(y):  # [N, T, D] -> [N, h, T, dh]
            return y.reshape(n, t, self.heads, self.dh).transpose(1, 2)

        q, k, v = split(self.query(x)), split(self.key(x)), split(self.value(x))
        p = self.weights_dropout(torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(self.dh), dim=-1))
        return self.out((p @ v).transpose(1, 2).reshape(n, t, d))


class Built:
    """The torch model, its loss, [(parameter, lr_mult, decay_mult)] in file order, and each
    parameter's name in ablate (`<layer>.weight`, `<layer>.bias`): the same layouts, [K, C, KH, KW]
    and [O, I], so ablate's tensors load as they are."""

    def __init__(self, net, loss, params, names):
        self.net, self.loss, self.params, self.names = net, loss, params, names


def build(shape, classes, layers, seed=1):
    gen = torch.Generator().manual_seed(seed)
    inputs = layer_inputs(layers)
    index = {"data": -1}
    readers = {}  # layer name -> how many layers read its output
    for names_in in inputs:
        for n in names_in:
            readers[n] = readers.get(n, 0) + 1
    shapes = {"data": tuple(shape)}  # (C, H, W), or (F,) once flattened
    modules, wiring, params, names = [], [], [], []
    output = -1

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

    def first_reader(name):
        for (_, kind, p), names_in in zip(layers, inputs):
            if name in names_in:
                return kind, p
        return None, {}

    token_kinds = ("pos_embed", "layer_norm", "attention", "token_mean")
    for i, (name, kind, p) in enumerate(layers):
        ins = inputs[i]
        src = shapes[ins[0]]
        flat = len(src) == 1
        if len(src) == 2 and kind not in token_kinds + ("linear", "add", "gelu", "relu", "tanh", "sigmoid", "dropout"):
            raise NotComparable(f"layer {name} ({kind}) on tokens")
        if len(src) != 2 and kind in token_kinds:
            raise NotComparable(f"layer {name} ({kind}) on a tensor of shape {list(src)}, not tokens")
        c, h, w = (src[0], 1, 1) if flat else src if len(src) == 3 else (0, 0, 0)
        out_shape = src
        module = None
        if kind == "tokens":
            module = Tokens()
            out_shape = (h * w, c)
        elif kind == "pos_embed":
            module = PosEmbed(*src)
            add_params(name, module, p, (src[1], src[0]), weight_init="truncated_normal:0.02")
        elif kind == "layer_norm":
            module = nn.LayerNorm(src[-1], eps=float(p.get("eps", 1e-5)))
            add_params(name, module, p, (1, src[-1]), weight_init="constant:1")  # a [D] tensor's own fans
        elif kind == "linear":
            out = int(p["outputs"])
            module = nn.Linear(src[-1], out, bias=p.get("bias", "true") == "true")
            add_params(name, module, p, (src[-1], out))
            out_shape = tuple(src[:-1]) + (out,)
        elif kind == "attention":
            module = Attention(src[1], int(p.get("heads", 1)), float(p.get("keep", 1.0)))
            for role in Attention.ROLES:  # ablate's order: query, key, value, out; weight then bias
                lin = getattr(module, role)
                for part, t, rule in (("weight", lin.weight, "xavier"), ("bias", lin.bias, "constant:0")):
                    key = f"{role}_{part}"
                    init_tensor(t, p.get(key + "_init", rule), src[1], src[1], gen)
                    params.append((t, float(p.get(key + "_lr_mult", 1)), float(p.get(key + "_decay_mult", 1))))
                    names.append(f"{name}.{key}")
        elif kind == "token_mean":
            module = TokenMean()
            out_shape = (src[1],)
        elif kind == "convolution":
            k, s, pad = int(p.get("kernel", 1)), int(p.get("stride", 1)), int(p.get("pad", 0))
            out, bias = int(p["outputs"]), p.get("bias", "true") == "true"
            padding = p.get("padding", "explicit")
            if padding == "same":
                if s != 1:
                    raise NotComparable("SAME convolution with stride > 1")
                module = nn.Conv2d(c, out, k, 1, padding="same", bias=bias)
            else:
                pad = 0 if padding == "valid" else pad
                module = nn.Conv2d(c, out, k, s, pad, bias=bias)
                h, w = (h + 2 * pad - k) // s + 1, (w + 2 * pad - k) // s + 1
            fan_in, fan_out = c * k * k, out * k * k
            reader, rp = first_reader(name)
            if reader == "pooling":
                pk = int(rp.get("kernel", 2))
                fan_out = out * k * k / (pk * pk)
            add_params(name, module, p, (fan_in, fan_out))
            out_shape = (out, h, w)
        elif kind == "pooling":
            k, s, pad = int(p.get("kernel", 2)), int(p.get("stride", p.get("kernel", 2))), int(p.get("pad", 0))
            padding = p.get("padding", "valid")
            if padding == "tf_same":
                if p.get("mode", "max") != "max":
                    raise NotComparable("tf_same average pooling")
                module = TfSamePool(k, s, h, w)
                out_shape = (c, -(-h // s), -(-w // s))
            else:
                ceil = padding == "caffe_ceil"
                if p.get("mode", "max") == "max":
                    module = nn.MaxPool2d(k, s, pad, ceil_mode=ceil)
                else:
                    module = nn.AvgPool2d(k, s, pad, ceil_mode=ceil, count_include_pad=True)
                out_shape = (c, pooling_output(h, k, s, pad, padding), pooling_output(w, k, s, pad, padding))
        elif kind == "global_avg_pool":
            module = nn.AdaptiveAvgPool2d(1)
            out_shape = (c, 1, 1)
        elif kind == "inner_product":
            features = c * h * w
            out = int(p["outputs"])
            fc = nn.Linear(features, out, bias=p.get("bias", "true") == "true")
            add_params(name, fc, p, (features, out))
            module = fc if flat else nn.Sequential(nn.Flatten(), fc)
            out_shape = (out,)
        elif kind == "bias":
            module = ChannelBias(c)
            add_params(name, module, p)
        elif kind == "add":
            module = Add()
        elif kind == "concat":
            module = Concat()
            out_shape = (sum(shapes[n][0] for n in ins),) + tuple(src[1:])
        elif kind == "relu":
            # in place only where nothing else reads the input (a fan-out's other readers need it)
            module = nn.ReLU(inplace=ins[0] != "data" and readers.get(ins[0], 0) == 1)
        elif kind == "tanh":
            module = nn.Tanh()
        elif kind == "sigmoid":
            module = nn.Sigmoid()
        elif kind == "gelu":
            module = nn.GELU(approximate=p.get("approximate", "none"))
        elif kind == "batch_norm":
            if p.get("momentum_style", "torch") != "torch":
                raise NotComparable("batch_norm momentum_style=caffe (Caffe's scale-factor averaging has no torch.nn form)")
            norm = nn.BatchNorm1d if flat else nn.BatchNorm2d
            module = norm(c, eps=float(p.get("eps", 1e-5)), momentum=float(p.get("momentum", 0.1)),
                          affine=p.get("affine", "true") == "true")
            add_params(name, module, p, (1, c), weight_init="constant:1")  # a [C] tensor's own fans
        elif kind == "lrn":
            module = nn.LocalResponseNorm(int(p.get("size", 5)), float(p.get("alpha", 1e-4)),
                                          float(p.get("beta", 0.75)), float(p.get("k", 1.0)))
        elif kind == "dropout":
            module = nn.Dropout(1.0 - float(p.get("keep", 0.5)))
        elif kind in ("softmax_loss", "nll_loss"):
            output = index[ins[0]]
            continue
        elif kind == "log_softmax":
            module = nn.LogSoftmax(dim=1)
        else:
            raise NotComparable(f"layer type {kind}")
        index[name] = len(modules)
        shapes[name] = out_shape
        modules.append(module)
        wiring.append([index[n] for n in ins])
    loss = nn.NLLLoss() if layers[-1][1] == "nll_loss" else nn.CrossEntropyLoss()
    return Built(Graph(modules, wiring, output), loss, params, names)
