"""The parts of an ablate recipe (models/presets/*.preset, as resolved by `ablate run`) that
the PyTorch yardstick reproduces: IDX data files, the preprocessing rules, the learning-rate
policies and the update rules. A rule it cannot reproduce raises NotComparable naming it.

Update rules, per parameter with its lr_mult and decay_mult (graph/optim/optimizer.cpp):
  caffe_sgd  d = g + wd*w; h = m*h + lr*d; w -= h                  (Caffe SGDSolver)
  torch_sgd  d = g + wd*w; v = d on the first step, else m*v + (1-damp)*d; w -= lr*v
  gd         w -= lr*(g + wd*w)
  adam       torch.optim.Adam (eps added to sqrt(v_hat), TF adds it to sqrt(v): same at 1e-8)
Policies, iteration t from 0 (graph/optim/optimizer_config.h): fixed, inv, step, multistep,
exp_staircase, torch_decay.
"""
import gzip
import struct

import numpy as np
import torch
import torch.nn.functional as F

from ablate_model import NotComparable


def read_idx(path):
    """An IDX file (u8 data, any number of dimensions) as a numpy array, read once (no copy,
    so the data's bytes count once in the peak RSS, as in ablate's ImageSet)."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        head = f.read(4)
        magic = struct.unpack(">I", head)[0] if len(head) == 4 else 0
        if magic >> 8 != 0x08:
            raise SystemExit(f"{path}: magic 0x{magic:08X} is not an IDX file of unsigned bytes")
        ndims = magic & 0xFF
        dims = struct.unpack(">" + "I" * ndims, f.read(4 * ndims))
        data = np.empty(int(np.prod(dims)), dtype=np.uint8)
        view, got = memoryview(data), 0
        while got < data.size:
            n = f.readinto(view[got:])
            if not n:
                raise SystemExit(f"{path}: {got} bytes of data, the header says {dims}")
            got += n
    return data.reshape(dims)


def read_images(path):
    """[N, H, W] (one channel) or [N, C, H, W] as a uint8 tensor [N, C, H, W]."""
    a = read_idx(path)
    if a.ndim == 3:
        a = a.reshape(a.shape[0], 1, a.shape[1], a.shape[2])
    return torch.from_numpy(a)


class Transform:
    """datasets/transforms.h rules joined by '+', in order, on a uint8 batch [n, C, H, W]:
    scale:F (x*F), pad:P (zeros around), mean:image (minus the training mean image),
    standardize:global (minus the mean, over the sample std of every training value after
    the rules before it: Torch's normalizeGlobal)."""

    SUPPORTED = ("scale", "pad", "mean", "standardize")

    def __init__(self, spec, train, dtype):
        self.stages, self.dtype = [], dtype
        for part in [p for p in spec.split("+") if p]:
            rule, _, arg = part.partition(":")
            if rule not in self.SUPPORTED or (rule == "mean" and arg != "image") or \
                    (rule == "standardize" and arg != "global"):
                raise NotComparable(f"preprocessing rule '{part}'")
            if rule == "scale":
                num, _, den = arg.partition("/")
                self.stages.append(("scale", float(num) / (float(den) if den else 1.0)))
            elif rule == "pad":
                self.stages.append(("pad", int(arg)))
            else:  # fitted on the training set through the stages before it
                self.stages.append((rule, self._fit(rule, train)))

    def _fit(self, rule, train):
        total, total_sq, count, image_sum = 0.0, 0.0, 0, None
        for start in range(0, train.shape[0], 4096):
            x = self(train[start:start + 4096]).double()
            if rule == "mean":
                s = x.sum(0)
                image_sum = s if image_sum is None else image_sum + s
            else:
                total += float(x.sum())
                total_sq += float((x * x).sum())
                count += x.numel()
        if rule == "mean":
            return (image_sum / train.shape[0]).to(self.dtype)
        mean = total / count
        std = ((total_sq - count * mean * mean) / (count - 1)) ** 0.5
        return (mean, std)

    def __call__(self, u8):
        x = u8.to(self.dtype)
        for rule, arg in self.stages:
            if rule == "scale":
                x = x * arg
            elif rule == "pad":
                x = F.pad(x, (arg, arg, arg, arg))
            elif rule == "mean":
                x = x - arg
            else:
                x = (x - arg[0]) * (1.0 / arg[1])
        return x


def learning_rate(a, t):
    """The policy's rate at iteration t (0-based)."""
    p = a.lr_policy
    if p == "fixed":
        return a.base_lr
    if p == "inv":
        return a.base_lr * (1 + a.gamma * t) ** (-a.power)
    if p in ("step", "exp_staircase"):
        return a.base_lr * a.gamma ** (t // a.stepsize)
    if p == "multistep":
        steps = [int(v) for v in a.stepvalues.split(",") if v]
        return a.base_lr * a.gamma ** sum(1 for v in steps if v <= t)
    if p == "torch_decay":
        return a.base_lr / (1 + t * a.gamma)
    raise NotComparable(f"lr policy '{p}'")


class Updater:
    """One optimizer step over [(param, lr_mult, decay_mult)] at the policy's rate."""

    def __init__(self, a, params):
        self.a, self.params, self.t = a, params, 0
        if a.optimizer not in ("caffe_sgd", "torch_sgd", "gd", "adam"):
            raise NotComparable(f"optimizer '{a.optimizer}'")
        if a.optimizer == "adam":
            groups = [{"params": [p], "lr": a.base_lr * lm, "weight_decay": a.weight_decay * dm}
                      for p, lm, dm in params]
            self.adam = torch.optim.Adam(groups, lr=a.base_lr, betas=(0.9, 0.999), eps=1e-8)
        self.state = [None] * len(params)

    def zero_grad(self):
        for p, _, _ in self.params:
            p.grad = None

    @torch.no_grad()
    def step(self):
        a, rate = self.a, learning_rate(self.a, self.t)
        if a.optimizer == "adam":
            for g, (_, lm, _) in zip(self.adam.param_groups, self.params):
                g["lr"] = rate * lm
            self.adam.step()
        else:
            for i, (p, lm, dm) in enumerate(self.params):
                lr, wd = rate * lm, a.weight_decay * dm
                d = p.grad if wd == 0 else p.grad.add(p, alpha=wd)
                if a.optimizer == "gd" or (a.optimizer == "torch_sgd" and a.momentum == 0):
                    p.add_(d, alpha=-lr)
                elif a.optimizer == "caffe_sgd":
                    if self.state[i] is None:
                        self.state[i] = torch.zeros_like(p)
                    h = self.state[i]
                    h.mul_(a.momentum).add_(d, alpha=lr)
                    p.sub_(h)
                else:  # torch_sgd with momentum
                    if self.state[i] is None:
                        self.state[i] = d.clone()
                    else:
                        self.state[i].mul_(a.momentum).add_(d, alpha=1 - a.dampening)
                    p.add_(self.state[i], alpha=-lr)
        self.t += 1
