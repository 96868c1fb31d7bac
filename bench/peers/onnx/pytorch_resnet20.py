#!/usr/bin/python3
"""ResNet-20 written as a PyTorch user writes it (nn.Module, BasicBlock), the network of
models/zoo/resnet20.model, for the ONNX curve check (issue item 5b): PyTorch exports it, ablate
imports the .onnx file and both train it from the same initial weights on the same batches.

    pytorch_resnet20.py export --out net.onnx [--seed S]
        torch.manual_seed(S), PyTorch's default initialisation, then torch.onnx.export in eval
        mode, opset 13, without constant folding and with TrainingMode.PRESERVE, so that every
        BatchNormalization stays a node with its running statistics as inputs (TrainingMode.EVAL
        would fold each into the convolution before it: torch.onnx's eval peephole). The node
        list is checked: Conv, BatchNormalization, Relu, Add, GlobalAveragePool, Flatten, Gemm.
    pytorch_resnet20.py train --onnx net.onnx --images I --labels L [--steps 100] [--batch B]
            [--precision f32|f64] [--lr X] [--momentum M] [--weight-decay W] [--transform RULE]
        the same nn.Module, its parameters and running statistics loaded from the ONNX
        initializers (names and shapes checked: both sides start from identical values) and its
        batch norms' epsilon from the file (float32: what ablate's import reads), trained
        with torch.optim.SGD (dampening 0, no Nesterov) at a constant rate, batch norm in
        training mode, batches in file order (wrapping into the next epoch), no augmentation;
        prints `peer_loss STEP VALUE` for every step (STEP from 1, the loss of that step's batch
        before its update), as bench/peers/peer_common.py documents.

The ablate side of the same run: `ablate run --model net.onnx ...` with the optimizer torch_sgd
(Torch7's optim.sgd: with dampening 0 the same update as torch.optim.SGD, the velocity starting
as the first gradient) and lr_policy fixed (tests/peers/test_onnx_curve.py). Debian's python3-torch
(1.13) and python3-onnx; run with /usr/bin/python3.
"""
import torch
import torch.nn as nn
import torch.nn.functional as F

import onnx_peer

EXPECTED_OPS = {"Conv", "BatchNormalization", "Relu", "Add", "GlobalAveragePool", "Flatten", "Gemm"}


class BasicBlock(nn.Module):
    """conv 3x3 -> BN -> ReLU -> conv 3x3 -> BN, plus the shortcut, then ReLU. The shortcut is the
    identity, or where the block changes the shape (stride 2, more channels) a projection:
    1x1 convolution of the block's stride and BN (He et al.'s option B)."""

    def __init__(self, cin, cout, stride):
        super().__init__()
        self.conv1 = nn.Conv2d(cin, cout, 3, stride, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(cout)
        self.conv2 = nn.Conv2d(cout, cout, 3, 1, 1, bias=False)
        self.bn2 = nn.BatchNorm2d(cout)
        self.shortcut = nn.Identity()
        if stride != 1 or cin != cout:
            self.shortcut = nn.Sequential(nn.Conv2d(cin, cout, 1, stride, bias=False), nn.BatchNorm2d(cout))

    def forward(self, x):
        out = F.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return F.relu(out + self.shortcut(x))


class ResNet20(nn.Module):
    """3x3 conv 16 -> BN -> ReLU, 3 stages of 3 BasicBlocks (16, 32, 64 channels; the first
    block of stages 2 and 3 with stride 2), global average pooling, Linear(64, 10)."""

    def __init__(self, classes=10):
        super().__init__()
        self.conv1 = nn.Conv2d(3, 16, 3, 1, 1, bias=False)
        self.bn1 = nn.BatchNorm2d(16)
        self.layer1 = nn.Sequential(*[BasicBlock(16, 16, 1) for _ in range(3)])
        self.layer2 = nn.Sequential(BasicBlock(16, 32, 2), BasicBlock(32, 32, 1), BasicBlock(32, 32, 1))
        self.layer3 = nn.Sequential(BasicBlock(32, 64, 2), BasicBlock(64, 64, 1), BasicBlock(64, 64, 1))
        self.pool = nn.AdaptiveAvgPool2d(1)
        self.fc = nn.Linear(64, classes)

    def forward(self, x):
        x = F.relu(self.bn1(self.conv1(x)))
        x = self.layer3(self.layer2(self.layer1(x)))
        return self.fc(torch.flatten(self.pool(x), 1))


def export(args):
    torch.manual_seed(args.seed)
    onnx_peer.export(ResNet20(), torch.zeros(1, 3, 32, 32), args.out, 13, EXPECTED_OPS,
                     training=torch.onnx.TrainingMode.PRESERVE)


def main(argv=None):
    args = onnx_peer.parse_arguments(__doc__, (13,), "[N, 3, 32, 32]", argv)
    export(args) if args.command == "export" else onnx_peer.train(ResNet20(), args, (3, 32, 32))


if __name__ == "__main__":
    main()
