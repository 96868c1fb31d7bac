#!/usr/bin/python3
"""PyTorch yardstick: trains an ablate model file (models/zoo/*.model) with PyTorch on random
data at a given batch and thread count, and prints its training images/s.

Run with Debian's interpreter, /usr/bin/python3, which has python3-torch. Output, last line:
    torch=1.13.1 threads=1 batch=64 images_per_s=3412.5
The model format is ablate's (models/README.md); layers map to torch.nn as PyTorch users would
write them: Caffe's ceil-rounded pooling is ceil_mode=True, softmax_loss is CrossEntropyLoss.
"""
import argparse
import math
import sys
import time

import torch
import torch.nn as nn
import torch.nn.functional as F


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


def parse_model(path):
    """Returns (input C,H,W, classes, [(name, type, params)]) from an ablate model file."""
    shape, classes, layers = None, None, []
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].split()
            if not line:
                continue
            if line[0] == "input":
                shape = [int(v) for v in line[1:4]]
            elif line[0] == "classes":
                classes = int(line[1])
            elif line[0] == "layer":
                params = dict(kv.split("=", 1) for kv in line[3:])
                layers.append((line[1], line[2], params))
    return shape, classes, layers


def pooling_output(size, k, s, p, padding):
    if padding == "caffe_ceil":
        out = int(math.ceil((size + 2 * p - k) / s)) + 1
        if p > 0 and (out - 1) * s >= size + p:
            out -= 1
        return out
    return (size + 2 * p - k) // s + 1


def build(shape, classes, layers):
    c, h, w = shape
    modules = []
    flat = None
    for name, kind, p in layers:
        if kind == "convolution":
            k, s, pad = int(p.get("kernel", 1)), int(p.get("stride", 1)), int(p.get("pad", 0))
            out, bias = int(p["outputs"]), p.get("bias", "true") == "true"
            padding = p.get("padding", "explicit")
            if padding == "same":
                if s != 1:
                    raise SystemExit("peer: SAME convolution with stride > 1 not supported by this script")
                modules.append(nn.Conv2d(c, out, k, 1, padding="same", bias=bias))
                c = out
            else:
                pad = 0 if padding == "valid" else pad
                modules.append(nn.Conv2d(c, out, k, s, pad, bias=bias))
                c, h, w = out, (h + 2 * pad - k) // s + 1, (w + 2 * pad - k) // s + 1
        elif kind == "pooling":
            k, s, pad = int(p.get("kernel", 2)), int(p.get("stride", p.get("kernel", 2))), int(p.get("pad", 0))
            padding = p.get("padding", "valid")
            if padding == "tf_same":
                if p.get("mode", "max") != "max":
                    raise SystemExit("peer: tf_same average pooling not supported by this script")
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
            modules.append(nn.Linear(flat, out, bias=p.get("bias", "true") == "true"))
            flat = out
        elif kind == "bias":
            modules.append(ChannelBias(c if flat is None else flat))
        elif kind == "relu":
            modules.append(nn.ReLU(inplace=True))
        elif kind == "tanh":
            modules.append(nn.Tanh())
        elif kind == "sigmoid":
            modules.append(nn.Sigmoid())
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
            raise SystemExit(f"peer: layer type {kind} not supported by this script")
    loss = nn.NLLLoss() if layers[-1][1] == "nll_loss" else nn.CrossEntropyLoss()
    return nn.Sequential(*modules), loss


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--model", required=True)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--iterations", type=int, default=30)
    ap.add_argument("--lr", type=float, default=0.01)
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(1)
    shape, classes, layers = parse_model(args.model)
    net, loss_fn = build(shape, classes, layers)
    opt = torch.optim.SGD(net.parameters(), lr=args.lr, momentum=0.9, weight_decay=5e-4)
    batches = [(torch.rand(args.batch, *shape), torch.randint(0, classes, (args.batch,))) for _ in range(4)]

    def step(i):
        x, y = batches[i % len(batches)]
        opt.zero_grad()
        loss = loss_fn(net(x), y)
        loss.backward()
        opt.step()

    for i in range(args.warmup):
        step(i)
    t0 = time.perf_counter()
    for i in range(args.iterations):
        step(i)
    seconds = time.perf_counter() - t0
    print(f"torch={torch.__version__} threads={args.threads} batch={args.batch} "
          f"images_per_s={args.iterations * args.batch / seconds:.1f}")


if __name__ == "__main__":
    sys.exit(main())
