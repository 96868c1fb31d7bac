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
import numpy as np
import torch
import torch.nn.functional as F

import peer_common
from peer_common import NotComparable, learning_rate, read_idx  # noqa: F401 (read_idx: used by the scripts)


def read_images(path):
    """[N, H, W] (one channel) or [N, C, H, W] as a uint8 tensor [N, C, H, W]."""
    return torch.from_numpy(peer_common.read_images(path))


class Transform(peer_common.Transform):
    """peer_common.Transform's rules (datasets/transforms.h), parsed and fitted on the training
    set there in numpy, applied here to a uint8 torch batch [n, C, H, W]."""

    def __init__(self, spec, train, dtype):
        super().__init__(spec, train.numpy(), np.float64 if dtype == torch.float64 else np.float32)
        self.torch_dtype = dtype
        self.torch_stages = [(rule, torch.from_numpy(arg) if rule == "mean" else arg) for rule, arg in self.stages]

    def __call__(self, u8):
        x = u8.to(self.torch_dtype)
        for rule, arg in self.torch_stages:
            if rule == "scale":
                x = x * arg
            elif rule == "pad":
                x = F.pad(x, (arg, arg, arg, arg))
            elif rule == "mean":
                x = x - arg
            else:
                x = (x - arg[0]) * (1.0 / arg[1])
        return x


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
