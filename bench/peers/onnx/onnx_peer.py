"""What the PyTorch-through-ONNX curve scripts share (pytorch_resnet20.py, pytorch_vit_tiny.py):
writing the initial module with torch.onnx.export and checking its node list, loading the
module's parameters back from the file's initializers (and each normalisation's epsilon as the
file holds it), and the training loop that prints `peer_loss STEP VALUE` for every step.
Debian's python3-torch (1.13) and python3-onnx; run with /usr/bin/python3.
"""
import os
import sys

import numpy as np
import torch
import torch.nn as nn

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
import peer_common as pc  # noqa: E402


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


def export(model, dummy, out, opset, expected_ops, **options):
    """torch.onnx.export of `model` (eval mode) without constant folding, so the initializers keep
    their state_dict names; the batch dimension symbolic; checked by onnx.checker; the op types
    must be `expected_ops`. Prints the op counts."""
    import onnx

    torch.onnx.export(model.eval(), dummy, out, opset_version=opset, do_constant_folding=False,
                      input_names=["input"], output_names=["logits"],
                      dynamic_axes={"input": {0: "N"}, "logits": {0: "N"}}, **options)
    model_proto = onnx.load(out)
    undo_shared_initializers(model_proto.graph)
    onnx.checker.check_model(model_proto)
    onnx.save(model_proto, out)
    ops = [n.op_type for n in model_proto.graph.node]
    if set(ops) != set(expected_ops):
        sys.exit(f"export: {out} holds the ops {sorted(set(ops))}, expected {sorted(expected_ops)}")
    counts = {op: ops.count(op) for op in sorted(expected_ops)}
    print("exported", out, " ".join(f"{op}={n}" for op, n in counts.items()))


def load_initializers(model, path):
    """Copies the ONNX file's initializers into the model's parameters and buffers by name (the
    state_dict's names, as torch.onnx.export writes them); every one must be there with its shape.
    num_batches_tracked is not in ONNX and stays 0 (momentum is set, so it is not read). Each
    BatchNormalization's and LayerNormalization's epsilon attribute becomes its module's eps.

    The epsilon is a float attribute: PyTorch's 1e-5 arrives rounded to float32
    (9.99999974737875e-06), which ablate's import reads. With PyTorch's own 1e-5 the f64 curves of
    ResNet-20 part by 4.5e-2 within 100 steps (a channel of tiny batch variance is all epsilon)."""
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
    modules = dict(model.named_modules())
    for node in graph.node:
        if node.op_type in ("BatchNormalization", "LayerNormalization"):
            norm = modules[node.input[1].rsplit(".", 1)[0]]  # its scale is "<module>.weight"
            for a in node.attribute:
                if a.name == "epsilon":
                    norm.eps = float(a.f)


def train(model, args, image_shape):
    """Trains `model` from the file's initializers with torch.optim.SGD (dampening 0, no
    Nesterov) at a constant rate, in training mode, batches in file order (wrapping into the next
    epoch), no augmentation; prints `peer_loss STEP VALUE` (STEP from 1, the loss of that step's
    batch before its update), as bench/peers/peer_common.py documents."""
    torch.set_num_threads(args.threads)
    dtype = {"f32": torch.float32, "f64": torch.float64}[args.precision]
    load_initializers(model, args.onnx)  # while float32, the ONNX initializers' type: then widened exactly
    model = model.to(dtype).train()
    images, labels = pc.read_images(args.images), pc.read_idx(args.labels).astype(np.int64)
    if images.shape[1:] != tuple(image_shape) or labels.shape[0] != images.shape[0]:
        sys.exit(f"train: images {images.shape} and labels {labels.shape}: expected [N, "
                 f"{', '.join(map(str, image_shape))}] and [N]")
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


def parse_arguments(doc, opsets, image_description, argv=None):
    """The two commands: export --out F [--seed S] [--opset one of `opsets`, default the last];
    train --onnx F --images I --labels L ..."""
    import argparse

    ap = argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="command", required=True)
    e = sub.add_parser("export", help=f"write the initial network as ONNX (opset {opsets[-1]})")
    e.add_argument("--out", required=True)
    e.add_argument("--seed", type=int, default=1)
    e.add_argument("--opset", type=int, choices=opsets, default=opsets[-1])
    t = sub.add_parser("train", help="train from the ONNX file's weights, printing every step's loss")
    t.add_argument("--onnx", required=True)
    t.add_argument("--images", required=True, help=f"IDX file of uint8 images {image_description}")
    t.add_argument("--labels", required=True, help="IDX file of uint8 labels [N]")
    t.add_argument("--steps", type=int, default=100)
    t.add_argument("--batch", type=int, default=8)
    t.add_argument("--precision", choices=("f32", "f64"), default="f64")
    t.add_argument("--lr", type=float, default=0.01)
    t.add_argument("--momentum", type=float, default=0.9)
    t.add_argument("--weight-decay", type=float, default=1e-4)
    t.add_argument("--transform", default="scale:1/255", help="datasets/transforms.h rules (peer_common.Transform)")
    t.add_argument("--threads", type=int, default=1)
    return ap.parse_args(argv)
