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
import argparse
import os
import sys

import numpy as np
import torch
import torch.nn as nn
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import peer_common as pc  # noqa: E402

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


def undo_shared_initializers(graph):
    """torch.onnx (1.13, eval mode) keeps one initializer of each set of equal values (every
    batch norm's ones, zeros) and gives the others as Identity nodes of it; each becomes its own
    initializer again, under the name the Identity gave it (its state_dict name), so that the
    file holds every parameter and running statistic by name and only the network's ops."""
    from onnx import numpy_helper

    inits = {t.name: t for t in graph.initializer}
    keep = []
    for node in graph.node:
        if node.op_type == "Identity" and node.input[0] in inits:
            copy = numpy_helper.from_array(numpy_helper.to_array(inits[node.input[0]]), node.output[0])
            inits[node.output[0]] = copy
            graph.initializer.append(copy)
        else:
            keep.append(node)
    del graph.node[:]
    graph.node.extend(keep)


def export(args):
    import onnx

    torch.manual_seed(args.seed)
    model = ResNet20().eval()
    dummy = torch.zeros(1, 3, 32, 32)
    torch.onnx.export(model, dummy, args.out, opset_version=13, do_constant_folding=False,
                      training=torch.onnx.TrainingMode.PRESERVE, input_names=["input"], output_names=["logits"],
                      dynamic_axes={"input": {0: "N"}, "logits": {0: "N"}})
    model_proto = onnx.load(args.out)
    undo_shared_initializers(model_proto.graph)
    onnx.checker.check_model(model_proto)
    onnx.save(model_proto, args.out)
    ops = [n.op_type for n in model_proto.graph.node]
    if set(ops) != EXPECTED_OPS:
        sys.exit(f"export: {args.out} holds the ops {sorted(set(ops))}, expected {sorted(EXPECTED_OPS)}")
    counts = {op: ops.count(op) for op in sorted(EXPECTED_OPS)}
    print("exported", args.out, " ".join(f"{op}={n}" for op, n in counts.items()))


def load_initializers(model, path):
    """Copies the ONNX file's initializers into the model's parameters and buffers by name (the
    state_dict's names, as torch.onnx.export writes them); every one must be there with its shape.
    num_batches_tracked is not in ONNX and stays 0 (momentum is set, so it is not read). Each
    BatchNormalization's epsilon attribute becomes its module's eps."""
    import onnx
    from onnx import numpy_helper

    graph = onnx.load(path).graph
    inits = {t.name: numpy_helper.to_array(t) for t in graph.initializer}
    state = model.state_dict()
    missing, wrong = [], []
    for name, tensor in state.items():
        if name.endswith("num_batches_tracked"):
            continue
        if name not in inits:
            missing.append(name)
        elif tuple(inits[name].shape) != tuple(tensor.shape):
            wrong.append(f"{name} {inits[name].shape} vs {tuple(tensor.shape)}")
    if missing or wrong:
        sys.exit(f"train: {path}: initializers missing {missing}, shapes differ {wrong}")
    with torch.no_grad():
        for name, tensor in state.items():
            if name in inits:
                tensor.copy_(torch.from_numpy(np.array(inits[name], dtype=np.float64)))
    # Each batch norm's epsilon as the file holds it: a float attribute, 1e-5 rounded to float32
    # (9.99999974737875e-06), which ablate's import reads. With PyTorch's own 1e-5 the f64 curves
    # part by 4.5e-2 within 100 steps on these data (a channel of tiny variance is all epsilon).
    modules = dict(model.named_modules())
    for node in graph.node:
        if node.op_type == "BatchNormalization":
            bn = modules[node.input[1].rsplit(".", 1)[0]]  # its scale is "<module>.weight"
            for a in node.attribute:
                if a.name == "epsilon":
                    bn.eps = float(a.f)


def train(args):
    torch.set_num_threads(args.threads)
    dtype = {"f32": torch.float32, "f64": torch.float64}[args.precision]
    model = ResNet20()
    load_initializers(model, args.onnx)  # while float32, the ONNX initializers' type: then widened exactly
    model = model.to(dtype).train()
    images, labels = pc.read_images(args.images), pc.read_idx(args.labels).astype(np.int64)
    if images.shape[1:] != (3, 32, 32) or labels.shape[0] != images.shape[0]:
        sys.exit(f"train: images {images.shape} and labels {labels.shape}: expected [N, 3, 32, 32] and [N]")
    transform = pc.Transform(args.transform, images, {"f32": np.float32, "f64": np.float64}[args.precision])
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=args.momentum, dampening=0,
                                weight_decay=args.weight_decay, nesterov=False)
    loss_fn = nn.CrossEntropyLoss()
    batches = pc.batch_indices(images.shape[0], args.batch, False, None)
    for step in range(1, args.steps + 1):
        idx = next(batches)
        x = torch.from_numpy(np.ascontiguousarray(transform(images[idx])))
        y = torch.from_numpy(labels[idx])
        optimizer.zero_grad()
        loss = loss_fn(model(x), y)
        loss.backward()
        optimizer.step()
        print(f"peer_loss {step} {loss.item()!r}", flush=True)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    e = sub.add_parser("export", help="write the initial network as ONNX (opset 13)")
    e.add_argument("--out", required=True)
    e.add_argument("--seed", type=int, default=1)
    t = sub.add_parser("train", help="train from the ONNX file's weights, printing every step's loss")
    t.add_argument("--onnx", required=True)
    t.add_argument("--images", required=True, help="IDX file of uint8 images [N, 3, 32, 32]")
    t.add_argument("--labels", required=True, help="IDX file of uint8 labels [N]")
    t.add_argument("--steps", type=int, default=100)
    t.add_argument("--batch", type=int, default=8)
    t.add_argument("--precision", choices=("f32", "f64"), default="f64")
    t.add_argument("--lr", type=float, default=0.01)
    t.add_argument("--momentum", type=float, default=0.9)
    t.add_argument("--weight-decay", type=float, default=1e-4)
    t.add_argument("--transform", default="scale:1/255", help="datasets/transforms.h rules (peer_common.Transform)")
    t.add_argument("--threads", type=int, default=1)
    args = ap.parse_args(argv)
    export(args) if args.command == "export" else train(args)


if __name__ == "__main__":
    main()
