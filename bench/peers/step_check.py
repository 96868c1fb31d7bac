#!/usr/bin/python3
"""Step-by-step check of a preset against its real framework, by hand; `ablate
compare --with-real` makes it for every framework of a comparison: same data, recipe, initial
weights and steps, random parts off.

    /usr/bin/python3 bench/peers/step_check.py tensorflow|theano|caffe|torch [--steps 100] [--threads 2]
        [--precision f32|f64] [--ablate build/ablate] [-- RUNNER OPTIONS: --onednn off, --pool-gradient first]

1. ablate, from the preset as it is, with the random parts switched off by `--no-random` (no
   shuffling, every dropout keeps everything, a training transform with random crops, flips or
   colour changes replaced by the test transform), `--snapshot-initial W0` (the weights before
   step 1) and `--curve-every 1` (the loss of every step, with every digit), N steps.
2. The data ablate trained on (the training set less its validation tail, the test set) as IDX
   files, and the real framework's runner with the record's recipe (peer_arguments below, as
   bench/experiments/peer_runner.cpp builds them) plus --init-checkpoint W0 --no-random.
3. The relative difference of the two losses at every step, and the largest.
`ablate compare --with-real` does the same for every framework of a comparison.
"""
import argparse
import json
import os
import re
import struct
import subprocess
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import numpy as np  # noqa: E402

import peer_common as pc  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
RUNNERS = {"tensorflow": "tensorflow_train.py", "theano": "theano_train.py",
           "caffe": "pytorch_train.py", "torch": "pytorch_train.py"}  # Caffe and Torch7: PyTorch 2.x stands in
ENVIRONMENTS = {"caffe": "pytorch", "torch": "pytorch"}  # the peer's environment, when not the framework's name


def number(x):
    return repr(float(x)) if float(x) != int(x) else str(int(x))


def peer_arguments(c, model_file, data_dir, iterations, threads):
    """The runner's arguments from a record's `config` (bench/peer_runner.cpp peer_arguments)."""
    o = c["optimizer"]
    d = data_dir + "/"
    a = ["--model", model_file, "--threads", str(threads), "--batch", str(c["batch"]),
         "--iterations", str(iterations), "--warmup", "0", "--seed", str(c["seed"]),
         "--train-images", d + "train-images.idx", "--train-labels", d + "train-labels.idx",
         "--test-images", d + "test-images.idx", "--test-labels", d + "test-labels.idx",
         "--optimizer", o["type"], "--lr-policy", o["lr_policy"], "--base-lr", number(o["base_lr"]),
         "--gamma", number(o["gamma"]), "--power", number(o["power"]), "--stepsize", str(o["stepsize"]),
         "--stepvalues", o["stepvalues"], "--momentum", number(o["momentum"]), "--dampening", number(o["dampening"]),
         "--weight-decay", number(o["weight_decay"]), "--transform", c["transform"],
         "--test-batch", str(c["test_batch"]), "--test-iterations", str(c["test_iterations"]),
         "--precision", c["precision"]]
    if c["test_transform"]:
        a += ["--test-transform", c["test_transform"]]
    if c["shuffle"]:
        a.append("--shuffle")
    if c["per_sample"]:
        a.append("--per-sample")
    if c["weight_average_decay"] > 0:
        a += ["--weight-average", number(c["weight_average_decay"])]
    return a


def write_idx(path, array):
    with open(path, "wb") as f:
        f.write(struct.pack(">I", 0x0800 | array.ndim) + struct.pack(">" + "I" * array.ndim, *array.shape))
        f.write(array.tobytes())


def read_cifar10(source, files):
    """CIFAR-10 binary records (1 label byte, 3072 pixel bytes) as ([N, 3, 32, 32], [N]) uint8."""
    raw = np.concatenate([np.fromfile(os.path.join(source, f), dtype=np.uint8) for f in files]).reshape(-1, 3073)
    return raw[:, 1:].reshape(-1, 3, 32, 32), raw[:, 0].copy()


def write_data(source, validation_count, out, family="mnist"):
    """The data as ablate trains on it, as IDX files: the training set less its last
    validation_count images, and the whole test set. family mnist: IDX .gz files; cifar10: the
    CIFAR-10 binary files."""
    if family == "cifar10":
        parts = {"train": read_cifar10(source, [f"data_batch_{i}.bin" for i in range(1, 6)]),
                 "test": read_cifar10(source, ["test_batch.bin"])}
    else:
        parts = {part: (pc.read_idx(os.path.join(source, images)), pc.read_idx(os.path.join(source, labels)))
                 for part, (images, labels) in {"train": ("train-images-idx3-ubyte.gz", "train-labels-idx1-ubyte.gz"),
                                                "test": ("t10k-images-idx3-ubyte.gz", "t10k-labels-idx1-ubyte.gz")}.items()}
    for part, (x, y) in parts.items():
        keep = x.shape[0] - validation_count if part == "train" and 0 < validation_count < x.shape[0] else x.shape[0]
        write_idx(os.path.join(out, f"{part}-images.idx"), x[:keep])
        write_idx(os.path.join(out, f"{part}-labels.idx"), y[:keep])


def model_file(model, work):
    """The model as a file the runner can read: a file as it is, a zoo name from models/zoo."""
    if os.path.isfile(model):
        return model
    path = os.path.join(work, model + ".model")
    Path(path).write_text(Path(REPO, "models", "zoo", model + ".model").read_text())
    return path


def run(cmd, log):
    with open(log, "w") as f:
        done = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT)
    if done.returncode != 0:
        sys.exit(f"step_check: {' '.join(cmd)} exited with {done.returncode}; see {log}:\n" + Path(log).read_text()[-2000:])
    return Path(log).read_text()


def parse(argv):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("framework", choices=sorted(RUNNERS))
    ap.add_argument("--steps", type=int, default=100)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--precision", choices=("f32", "f64"), help="default: the preset's")
    ap.add_argument("--preset", help="preset name or file (default: the framework's for the data set)")
    ap.add_argument("--model", help="model name or file (default: the preset's)")
    ap.add_argument("--dataset", choices=("fashion-mnist", "mnist", "cifar10"), default="fashion-mnist")
    ap.add_argument("--data", default="/usr/share/datasets/fashion-mnist",
                    help="MNIST-format IDX .gz files, or CIFAR-10 binary files with --dataset cifar10")
    ap.add_argument("--ablate", default=os.environ.get("ABLATE_BINARY", os.path.join(REPO, "build", "ablate")))
    ap.add_argument("--peers-dir", default=os.environ.get("ABLATE_PEERS_DIR", os.path.join(REPO, ".peers")))
    ap.add_argument("--work", help="keep the files here (default: a temporary directory)")
    cut = argv.index("--") if "--" in argv else len(argv)
    args = ap.parse_args(argv[:cut])
    args.runner_options = argv[cut + 1:]  # after --: more runner options (--onednn off, --pool-gradient first)
    return args


class Check:
    """rows: (step, ablate's loss, the peer's, relative difference); worst; the peer_result line."""

    def __init__(self, rows, result, ablate_images_per_s, work):
        self.rows, self.result, self.ablate_images_per_s, self.work = rows, result, ablate_images_per_s, work
        self.worst = max(r[3] for r in rows)


def check(args):
    env = ENVIRONMENTS.get(args.framework, args.framework)
    python = os.path.join(args.peers_dir, env, "bin", "python")
    if not os.access(python, os.X_OK):
        sys.exit(f"step_check: {python} not found: install the peer with scripts/setup-peers.sh {env}")
    work = args.work or tempfile.mkdtemp(prefix="ablate-step-check-")
    os.makedirs(work, exist_ok=True)
    family = "cifar10" if args.dataset == "cifar10" else "mnist"
    record, w0 = os.path.join(work, "ablate.jsonl"), os.path.join(work, "w0.ckpt")
    cmd = [args.ablate, "run", "--framework", args.framework, "--dataset", args.dataset, "--data", args.data,
           "--threads", str(args.threads), "--test-iterations", "1", "--quiet", "--iterations", str(args.steps),
           "--no-random", "--snapshot-initial", w0, "--curve-every", "1", "--out", record]
    for flag, value in (("--preset", args.preset), ("--model", args.model), ("--precision", args.precision)):
        if value:
            cmd += [flag, value]
    if os.path.exists(record):
        os.remove(record)
    run(cmd, os.path.join(work, "ablate.log"))
    rec = json.loads(Path(record).read_text().splitlines()[0])
    mine = {p["iteration"]: p["loss"] for p in rec["curve"]}
    model = model_file(rec["config"]["model"], work)
    write_data(args.data, rec["config"]["validation_count"], work, family)
    peer = [python, os.path.join(REPO, "bench", "peers", RUNNERS[args.framework])]
    peer += peer_arguments(rec["config"], model, work, args.steps, args.threads)
    peer += ["--init-checkpoint", w0, "--no-random"] + args.runner_options
    out = run(peer, os.path.join(work, "peer.log"))
    losses = {int(s): float(v) for s, v in re.findall(r"^peer_loss (\d+) (\S+)$", out, re.M)}
    rows = [(step, loss, losses[step], abs(losses[step] - loss) / abs(loss)) for step, loss in sorted(mine.items())]
    result = [line for line in out.splitlines() if line.startswith("peer_result ")][-1]
    return Check(rows, result, rec["metrics"]["images_per_s"], work)


def main():
    args = parse(sys.argv[1:])
    c = check(args)
    for step, mine, theirs, rel in c.rows:
        print(f"step {step:5d}  ablate {mine:.12g}  {args.framework} {theirs:.12g}  relative {rel:.2e}")
    print(c.result)
    print(f"ablate: {c.ablate_images_per_s:.1f} images/s; files in {c.work}")
    print(f"largest relative difference over {args.steps} steps: {c.worst:.2e}")


if __name__ == "__main__":
    main()
