#!/usr/bin/python3
"""PyTorch yardstick: trains an ablate model file (models/zoo/*.model) with PyTorch.

Run with Debian's interpreter, /usr/bin/python3, which has python3-torch.

Speed mode (`ablate bench --with-pytorch`): random data, fixed caffe_sgd; last line
    torch=1.13.1 threads=1 batch=64 images_per_s=3412.5
With --device cuda (`ablate bench --peer-device cuda`) the model, the batches and the steps are on
the GPU (torch.cuda.synchronize() closes the warm-up and the timed steps); the line adds
device=cuda gpu=<the device's name>.
Recipe mode (`ablate compare --with-peers`, given --train-images): the IDX files ablate wrote
of the data it trained and tested on, its resolved recipe (optimizer, lr policy, transform,
length, precision, seed); trains `--iterations` steps, then tests; last line
    peer_result torch=1.13.1 threads=1 batch=64 iterations=500 warmup=3 images_per_s=3412.5
    accuracy=0.8812 peak_rss_bytes=312344576 precision=f32          (one line)
images_per_s counts the training steps after the warm-up ones (data indexing and the
per-batch transform included, as ablate's loader time is in its training time); peak RSS
is getrusage's ru_maxrss of this process. A recipe feature this script cannot reproduce
ends it with exit status 3 and the last line `peer_not_comparable: <the feature>`.
With --init-checkpoint FILE --no-random (`ablate compare --with-real`'s curve check) it starts
from ablate's weights (the same layouts as torch.nn), switches dropout and shuffling off and
prints `peer_loss STEP LOSS` for every step (bench/peers/README.md). The result line adds
cpu_util= (process CPU seconds over wall seconds of the timed steps), window_images_per_s= (the
images/s of --windows equal runs of the timed steps) and init=ablate|pytorch.
Run it with Debian's interpreter (torch 1.13) or the PyTorch environment's (torch 2.x); ablate
chooses with --peer-python. Both lines end with the libraries this torch computes with:
blas=<BLAS_INFO of torch.__config__.show(): mkl, open, ...> onednn=<its version, or off>.
"""
import argparse
import re
import sys
import time

import numpy as np
import torch

from ablate_model import NotComparable, build, parse_model
from peer_common import StepClock, comparison_arguments, exit_status, recipe_arguments, result_line
from recipe import Transform, Updater, read_images, read_idx


def libraries():
    """{blas: mkl, onednn: 3.13.3}: the BLAS torch was built with and its oneDNN (MKL-DNN)
    version, `off` when torch cannot use it here (torch.__config__.show())."""
    config = torch.__config__.show()
    blas = re.search(r"BLAS_INFO=([^,\s]+)", config)
    onednn = re.search(r"(?:MKL-DNN|oneDNN)[^\n]*? v([0-9][0-9.]*)", config)
    available = torch.backends.mkldnn.is_available()
    return {"blas": blas.group(1) if blas else "unknown",
            "onednn": (onednn.group(1) if onednn else "unknown") if available else "off"}


def speed_mode(args, shape, classes, layers):
    device = torch.device(args.device)
    if device.type == "cuda" and not torch.cuda.is_available():
        raise NotComparable("--device cuda: this torch sees no CUDA device")
    built = build(shape, classes, layers, args.seed)
    net, loss_fn = built.net.to(device), built.loss
    opt = torch.optim.SGD(net.parameters(), lr=args.base_lr, momentum=0.9, weight_decay=5e-4)
    batches = [(torch.rand(args.batch, *shape, device=device), torch.randint(0, classes, (args.batch,), device=device))
               for _ in range(4)]

    def synchronize():  # CUDA runs asynchronously: the clock reads after the queued steps end
        if device.type == "cuda":
            torch.cuda.synchronize(device)

    def step(i):
        x, y = batches[i % len(batches)]
        opt.zero_grad()
        loss = loss_fn(net(x), y)
        loss.backward()
        opt.step()

    for i in range(args.warmup):
        step(i)
    synchronize()
    t0 = time.perf_counter()
    for i in range(args.iterations):
        step(i)
    synchronize()
    seconds = time.perf_counter() - t0
    on = f" device=cuda gpu={torch.cuda.get_device_name(device).replace(' ', '_')}" if device.type == "cuda" else ""
    print(f"torch={torch.__version__} threads={args.threads} batch={args.batch} "
          f"images_per_s={args.iterations * args.batch / seconds:.1f} {' '.join(f'{k}={v}' for k, v in libraries().items())}{on}")


def batch_indices(n, batch, shuffle, gen):
    """Batches of sample indices that run on across epochs (a batch past the end wraps into
    the next epoch, as ablate's and Caffe's loaders do); shuffled per epoch or in order."""
    order, pos = torch.empty(0, dtype=torch.long), 0
    while True:
        idx, have = [], 0
        while have < batch:
            if pos == len(order):
                order, pos = (torch.randperm(n, generator=gen) if shuffle else torch.arange(n)), 0
            take = min(batch - have, len(order) - pos)
            idx.append(order[pos:pos + take])
            pos, have = pos + take, have + take
        yield torch.cat(idx)


def check_comparable(args):
    if args.per_sample:
        raise NotComparable("per-sample training (Torch CIFAR-10's one-sample forward/backward)")
    if args.weight_average > 0:
        raise NotComparable("evaluation with moving-average weights (TF CIFAR-10)")
    if args.precision not in ("f32", "f64"):
        raise NotComparable(f"precision {args.precision}")


def recipe_mode(args, shape, classes, layers):
    check_comparable(args)
    if args.device != "cpu":
        raise NotComparable(f"--device {args.device} in recipe mode (only speed mode runs on a GPU)")
    dtype = torch.float64 if args.precision == "f64" else torch.float32
    train_x, train_y = read_images(args.train_images), torch.from_numpy(read_idx(args.train_labels).astype("int64"))
    test_x, test_y = read_images(args.test_images), torch.from_numpy(read_idx(args.test_labels).astype("int64"))
    transform = Transform(args.transform, train_x, dtype)
    test_transform = Transform(args.test_transform, train_x, dtype) if args.test_transform else transform
    got = list(transform(train_x[:1]).shape[1:])
    if got != list(shape):
        raise SystemExit(f"peer: data {list(train_x.shape[1:])} after '{args.transform}' is {got}; "
                         f"the model {args.model} expects {shape}")
    torch.manual_seed(args.seed)  # dropout masks
    built = build(shape, classes, layers, args.seed)
    net, loss_fn = built.net.to(dtype), built.loss
    if args.init_checkpoint:
        load_initial_weights(args.init_checkpoint, built, dtype)
    if args.no_random:
        for m in net.modules():
            if isinstance(m, torch.nn.Dropout):
                m.p = 0.0
    print_loss = args.print_loss or args.no_random
    updater = Updater(args, built.params)
    shuffle = args.shuffle and not args.no_random
    batches = batch_indices(train_x.shape[0], args.batch, shuffle, torch.Generator().manual_seed(args.seed))
    clock = StepClock(args)
    net.train()
    for i in range(args.iterations):
        clock.step_started(i)
        idx = next(batches)
        x, y = transform(train_x[idx]), train_y[idx]
        updater.zero_grad()
        loss = loss_fn(net(x), y)
        loss.backward()
        updater.step()
        clock.step_done(i)
        if print_loss:
            print(f"peer_loss {i + 1} {float(loss):.17g}", flush=True)
        if not torch.isfinite(loss):
            raise SystemExit(f"peer: loss is {float(loss)} at iteration {i}")
    clock.stop()

    net.eval()
    total = args.test_iterations * args.test_batch if args.test_iterations > 0 else test_x.shape[0]
    correct = 0
    with torch.no_grad():
        for start in range(0, total, args.test_batch):
            idx = torch.arange(start, min(start + args.test_batch, total)) % test_x.shape[0]
            correct += int((net(test_transform(test_x[idx])).argmax(1) == test_y[idx]).sum())
    print(result_line("torch", torch.__version__, args, clock, correct / total,
                      init="ablate" if args.init_checkpoint else "pytorch", **libraries()))


def load_initial_weights(path, built, dtype):
    """ablate's `<layer>.weight` / `<layer>.bias` tensors into the model's parameters (names,
    shapes and dtype checked by ablate_checkpoint.load_parameters)."""
    import ablate_checkpoint
    expected = {n: tuple(p.shape) for n, (p, _, _) in zip(built.names, built.params)}
    loaded = ablate_checkpoint.load_parameters(path, expected, np.float64 if dtype == torch.float64 else np.float32)
    with torch.no_grad():
        for n, (p, _, _) in zip(built.names, built.params):
            p.copy_(torch.from_numpy(loaded[n]))


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    recipe_arguments(ap)
    comparison_arguments(ap)
    ap.add_argument("--device", default="cpu", choices=("cpu", "cuda"),
                    help="speed mode: where the model trains (cuda: the first GPU)")
    args = ap.parse_args()
    torch.set_num_threads(args.threads)
    torch.manual_seed(1)

    def run():
        shape, classes, layers = parse_model(args.model)
        if args.train_images:
            recipe_mode(args, shape, classes, layers)
        else:
            speed_mode(args, shape, classes, layers)
    return exit_status(run)


if __name__ == "__main__":
    sys.exit(main())
