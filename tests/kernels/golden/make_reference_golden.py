#!/usr/bin/python3
"""Writes reference_golden.txt: inputs, outputs and gradients computed in f64 by PyTorch
(Debian's python3-torch, run once; the file is committed) for reference_golden_test.cpp.

Each line is one tensor: `name ndim d0 d1 ... v0 v1 ...` (values as %.17g, row-major).
Covered: conv2d with asymmetric padding and strides, Caffe's ceil pooling (PyTorch's
ceil_mode follows the same rule and average divisor), valid pooling with padding, TF SAME
pooling (built from zero/-inf padding and a real-cell count), LRN, log-softmax + NLL and
softmax cross-entropy, each with the gradient of <output, dy>.

Run: /usr/bin/python3 tests/kernels/golden/make_reference_golden.py
"""
import os

import torch
import torch.nn.functional as F

torch.manual_seed(20240611)
torch.set_default_dtype(torch.float64)
lines = []


def put(name, t):
    t = t.detach().contiguous()
    dims = " ".join(str(d) for d in t.shape)
    values = " ".join("%.17g" % v for v in t.reshape(-1).tolist())
    lines.append(f"{name} {t.dim()} {dims} {values}")


def leaf(*shape, lo=-1.0, hi=1.0):
    return (torch.rand(*shape) * (hi - lo) + lo).requires_grad_()


def backward(name, y, *inputs):
    """Stores y, a random dy and the gradients of <y, dy> with respect to inputs."""
    dy = torch.rand_like(y) * 2 - 1
    put(name + ".y", y)
    put(name + ".dy", dy)
    grads = torch.autograd.grad((y * dy).sum(), [t for _, t in inputs])
    for (input_name, _), g in zip(inputs, grads):
        put(f"{name}.d{input_name}", g)


# conv2d: x [2,3,7,6], w [4,3,3,2], stride 2x1, pad top 1, left 0, bottom 2, right 1.
x, w, b = leaf(2, 3, 7, 6), leaf(4, 3, 3, 2), leaf(4)
put("conv.x", x), put("conv.w", w), put("conv.b", b)
y = F.conv2d(F.pad(x, (0, 1, 1, 2)), w, b, stride=(2, 1))
backward("conv", y, ("x", x), ("w", w), ("b", b))

# Pooling on x [2,2,6,7] (odd width), kernel 3, stride 2.
x = leaf(2, 2, 6, 7)
put("pool.x", x)
backward("pool_max_caffe", F.max_pool2d(x, 3, 2, padding=1, ceil_mode=True), ("x", x))
backward("pool_avg_caffe", F.avg_pool2d(x, 3, 2, padding=1, ceil_mode=True, count_include_pad=True), ("x", x))
backward("pool_max_valid", F.max_pool2d(x, 3, 2, padding=1), ("x", x))
backward("pool_avg_valid", F.avg_pool2d(x, 3, 2, padding=1, count_include_pad=True), ("x", x))
# TF SAME, kernel 3 stride 2: out = ceil(6/2) = 3 (pad 0 top, 1 bottom), ceil(7/2) = 4 (pad 1 and 1).
same = (1, 1, 0, 1)  # left, right, top, bottom
backward("pool_max_same", F.max_pool2d(F.pad(x, same, value=float("-inf")), 3, 2), ("x", x))
real = F.avg_pool2d(F.pad(torch.ones_like(x), same), 3, 2, divisor_override=1)
backward("pool_avg_same", F.avg_pool2d(F.pad(x, same), 3, 2, divisor_override=1) / real, ("x", x))

# LRN across 7 channels, size 5, alpha 0.9, beta 0.75, k 1.5.
x = leaf(2, 7, 3, 2, lo=-2.0, hi=2.0)
put("lrn.x", x)
backward("lrn", F.local_response_norm(x, 5, alpha=0.9, beta=0.75, k=1.5), ("x", x))

# Losses over logits [5, 4] with labels.
x = leaf(5, 4, lo=-3.0, hi=3.0)
labels = torch.randint(0, 4, (5,))
put("loss.x", x)
put("loss.labels", labels.double())
logp = F.log_softmax(x, dim=1)
backward("log_softmax", logp, ("x", x))
loss = F.cross_entropy(x, labels)
put("xent.loss", loss.reshape(1))
put("xent.dx", torch.autograd.grad(loss, x)[0])
logp = logp.detach().requires_grad_()
loss = F.nll_loss(logp, labels)
put("nll.logp", logp)
put("nll.loss", loss.reshape(1))
put("nll.dlogp", torch.autograd.grad(loss, logp)[0])

path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "reference_golden.txt")
with open(path, "w") as f:
    f.write("\n".join(lines) + "\n")
print(f"wrote {len(lines)} tensors to {path}")
