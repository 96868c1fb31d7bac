#!/usr/bin/python3
"""vit-tiny written as a PyTorch user writes it (nn.Module, a pre-norm Block, an Attention module
with separate query, key and value projections), the network of models/zoo/vit-tiny.model, for the
ONNX curve check: PyTorch exports it, ablate imports the .onnx file and both train it from the
same initial weights on the same batches.

    pytorch_vit_tiny.py export --out net.onnx [--seed S] [--opset 17|13]
        torch.manual_seed(S), PyTorch's default initialisation (the position embedding a
        truncated normal of std 0.02, ViT's), then torch.onnx.export in eval mode, opset 17 (so
        nn.LayerNorm is one LayerNormalization node; at 13 it is ReduceMean, Sub, Pow,
        ReduceMean, Add, Sqrt, Div, Mul, Add), without constant folding. The node list is
        checked: Conv, Constant (the shapes and scalars), Reshape, Transpose, Add, LayerNormalization, MatMul, Div, Softmax, Erf, Mul,
        ReduceMean, Gemm (GELU in its erf form: Div by sqrt 2, Erf, Add 1, Mul, Mul 0.5; each
        Linear on tokens a Transpose of its weight, MatMul and Add).
    pytorch_vit_tiny.py train --onnx net.onnx --images I --labels L [--steps 100] [--batch B]
            [--precision f32|f64] [--lr X] [--momentum M] [--weight-decay W] [--transform RULE]
        the same nn.Module, its parameters loaded from the ONNX initializers and its layer norms'
        epsilon from the file (float32), trained with torch.optim.SGD at a constant rate,
        batches in file order; prints `peer_loss STEP VALUE` for every step (onnx_peer.py).

Every reshape names its sizes with the batch as -1, so the exported Reshape shapes are
constants and the batch stays symbolic. No dropout: nothing random after the initialisation.
Debian's python3-torch (1.13) and python3-onnx; run with /usr/bin/python3.
"""
import math

import torch
import torch.nn as nn

import onnx_peer

EXPECTED_OPS = {"Conv", "Constant", "Reshape", "Transpose", "Add", "LayerNormalization", "MatMul", "Div", "Softmax", "Erf",
                "Mul", "ReduceMean", "Gemm"}
DECOMPOSED_LAYER_NORM = {"ReduceMean", "Sub", "Pow", "Sqrt", "Div", "Mul", "Add"}  # below opset 17
PATCH, WIDTH, HEADS, BLOCKS, MLP, CLASSES = 7, 64, 4, 4, 128, 10
TOKENS = (28 // PATCH) ** 2


class Attention(nn.Module):
    """Multi-head self-attention: q, k, v = x W^T + b, split into heads [N, h, T, dh];
    softmax(q k^T / sqrt(dh)) v; heads joined back to [N, T, D]; the output projection."""

    def __init__(self, dim, heads, tokens):
        super().__init__()
        self.dim, self.heads, self.dh, self.tokens = dim, heads, dim // heads, tokens
        self.query = nn.Linear(dim, dim)
        self.key = nn.Linear(dim, dim)
        self.value = nn.Linear(dim, dim)
        self.out = nn.Linear(dim, dim)

    def split(self, x):  # [N, T, D] -> [N, h, T, dh]
        return x.reshape(-1, self.tokens, self.heads, self.dh).transpose(1, 2)

    def forward(self, x):
        q, k, v = self.split(self.query(x)), self.split(self.key(x)), self.split(self.value(x))
        p = torch.softmax(q @ k.transpose(-2, -1) / math.sqrt(self.dh), dim=-1)
        o = (p @ v).transpose(1, 2).reshape(-1, self.tokens, self.dim)
        return self.out(o)


class Block(nn.Module):
    """x + attention(layer_norm(x)), then + mlp(layer_norm(.)) (pre-norm, as ViT)."""

    def __init__(self, dim, heads, mlp, tokens):
        super().__init__()
        self.norm1 = nn.LayerNorm(dim)
        self.attn = Attention(dim, heads, tokens)
        self.norm2 = nn.LayerNorm(dim)
        self.fc1 = nn.Linear(dim, mlp)
        self.gelu = nn.GELU()
        self.fc2 = nn.Linear(mlp, dim)

    def forward(self, x):
        x = x + self.attn(self.norm1(x))
        return x + self.fc2(self.gelu(self.fc1(self.norm2(x))))


class VitTiny(nn.Module):
    """Patches of 7x7 by a convolution of kernel = stride = 7 ([N, 64, 4, 4]), its 16 positions
    as tokens [N, 16, 64], a learned position embedding, 4 blocks, a final layer norm, the mean
    of the tokens, Linear(64, 10)."""

    def __init__(self):
        super().__init__()
        self.patch = nn.Conv2d(1, WIDTH, PATCH, PATCH)
        self.pos = nn.Parameter(torch.zeros(1, TOKENS, WIDTH))
        nn.init.trunc_normal_(self.pos, std=0.02)
        self.blocks = nn.Sequential(*[Block(WIDTH, HEADS, MLP, TOKENS) for _ in range(BLOCKS)])
        self.norm = nn.LayerNorm(WIDTH)
        self.fc = nn.Linear(WIDTH, CLASSES)

    def forward(self, x):
        x = self.patch(x).reshape(-1, WIDTH, TOKENS).transpose(1, 2) + self.pos  # tokens t = h * 4 + w
        x = self.norm(self.blocks(x))
        return self.fc(x.mean(dim=1))


def export(args):
    torch.manual_seed(args.seed)
    expected = EXPECTED_OPS if args.opset >= 17 else EXPECTED_OPS - {"LayerNormalization"} | DECOMPOSED_LAYER_NORM
    onnx_peer.export(VitTiny(), torch.zeros(1, 1, 28, 28), args.out, args.opset, expected)


def main(argv=None):
    args = onnx_peer.parse_arguments(__doc__, (13, 17), "[N, 1, 28, 28]", argv)
    export(args) if args.command == "export" else onnx_peer.train(VitTiny(), args, (1, 28, 28))


if __name__ == "__main__":
    main()
