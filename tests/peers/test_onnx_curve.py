"""ONNX curve check (issue item 5b): ResNet-20 written in PyTorch (bench/peers/onnx/pytorch_resnet20.py)
is exported to ONNX; ablate imports the file and trains it, PyTorch trains its own module from the
same file's initializers (and its batch norms' float32 epsilon); both on the same batches in file
order, without random parts, batch 8 (rather than 128, so that both runs fit a test on 2 cores),
SGD with momentum 0.9 and weight decay 1e-4 at a constant rate 0.01 (ablate's torch_sgd and
lr_policy fixed: torch.optim.SGD with dampening 0), batch normalisation in training mode.

- f64, 100 steps: every step's loss agrees within 1e-6 relative (measured: 3.9e-10 at worst).
  This seed's run has a ReLU input at step 78 that rounding can put on either side of zero: any
  change of ablate's f64 rounding in a layer (batch norm's sums in vector lanes, say) can part the
  curves there (4.5e-3 by step 100), and ablate's own eigen and openblas backends straddle it;
  seeds 2-5 show no such step. Read a failure here with that in mind (kernels/cpu/batch_norm.cpp).
- f32: 1e-3 relative for as long as f32 rounding lets any two implementations agree. It does not
  for 100 steps: ablate's own openblas and eigen backends part by 9e-4 at step 6 and 2e-2 by
  step 16 on this run (a rounding difference of 1e-8 grows about 1e6-fold in 100 steps of this
  network, f64's 1e-16 to 4e-10 alike), so the check runs 20 steps, also with the eigen backend,
  and asserts 1e-3 over the leading steps where ablate's two backends agree within 1e-4 (at least 3).

The data: 800 random CIFAR-shaped uint8 images and labels, written as CIFAR-10 binary files for
ablate (`--dataset cifar10 --data DIR`) and as IDX files for PyTorch, the same images in the
same order, scaled by 1/255 on both sides (the transform scale:1/255).

Skipped with the reason when Debian's torch or onnx is missing, ABLATE_BINARY names no ablate
binary, or that binary cannot import ONNX files.
"""
import json
import os
import re
import struct
import subprocess
import sys
import tempfile
import unittest

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
SCRIPT = os.path.join(REPO, "bench", "peers", "onnx", "pytorch_resnet20.py")
ABLATE = os.environ.get("ABLATE_BINARY", "")
STEPS, STEPS_F32, BATCH, IMAGES_PER_FILE = 100, 20, 8, 160  # 5 files of 160: 800 images, one epoch of 100 batches of 8
LR, MOMENTUM, WEIGHT_DECAY = 0.01, 0.9, 1e-4

PRESET = f"""# The ONNX curve check's recipe (tests/peers/test_onnx_curve.py): PyTorch's SGD on ablate
# (the strategy does not change the numbers beyond rounding; static runs every branching layer)
framework torch
dataset_family cifar10
strategy static
backend openblas
threads 2
optimizer torch_sgd
base_lr {LR}
lr_policy fixed
momentum {MOMENTUM}
dampening 0
weight_decay {WEIGHT_DECAY}
batch {BATCH}
iterations {STEPS}
test_interval 0
test_batch 100
test_iterations 1
transform scale:1/255
shuffle false
seed 1
"""


def missing_reason():
    try:
        import onnx  # noqa: F401
        import torch  # noqa: F401
    except ImportError as e:
        return f"Debian's python3-torch and python3-onnx are needed ({e})"
    if not os.access(ABLATE, os.X_OK):
        return "ABLATE_BINARY names no ablate binary"
    return None


def write_idx(path, array):
    with open(path, "wb") as f:
        f.write(struct.pack(">I", 0x0800 | array.ndim) + struct.pack(">" + "I" * array.ndim, *array.shape))
        f.write(array.tobytes())


def write_data(folder):
    """The same images as CIFAR-10 binary files (cifar/) and IDX files; returns the IDX paths."""
    rng = np.random.RandomState(7)
    images = rng.randint(0, 256, size=(5 * IMAGES_PER_FILE, 3, 32, 32)).astype(np.uint8)
    labels = rng.randint(0, 10, size=5 * IMAGES_PER_FILE).astype(np.uint8)
    cifar = os.path.join(folder, "cifar")
    os.makedirs(cifar)
    for k in range(5):
        part = slice(k * IMAGES_PER_FILE, (k + 1) * IMAGES_PER_FILE)
        records = np.concatenate([labels[part, None], images[part].reshape(IMAGES_PER_FILE, -1)], axis=1)
        records.tofile(os.path.join(cifar, f"data_batch_{k + 1}.bin"))
    records = np.concatenate([labels[:100, None], images[:100].reshape(100, -1)], axis=1)
    records.tofile(os.path.join(cifar, "test_batch.bin"))
    write_idx(os.path.join(folder, "images.idx"), images)
    write_idx(os.path.join(folder, "labels.idx"), labels)
    return cifar, os.path.join(folder, "images.idx"), os.path.join(folder, "labels.idx")


class OnnxCurveTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.reason = missing_reason()
        if cls.reason:
            return
        cls.work = tempfile.TemporaryDirectory()
        w = cls.work.name
        cls.onnx = os.path.join(w, "resnet20.onnx")
        done = subprocess.run([sys.executable, SCRIPT, "export", "--out", cls.onnx, "--seed", "1"],
                              capture_output=True, text=True)
        if done.returncode != 0:
            raise AssertionError(f"pytorch_resnet20.py export failed:\n{done.stdout}{done.stderr}")
        cls.cifar, cls.images, cls.labels = write_data(w)
        cls.preset = os.path.join(w, "onnx-curve.preset")
        with open(cls.preset, "w") as f:
            f.write(PRESET)

    @classmethod
    def tearDownClass(cls):
        if not cls.reason:
            cls.work.cleanup()

    def setUp(self):
        if self.reason:
            self.skipTest(self.reason)

    def ablate_losses(self, precision, steps, backend="openblas"):
        record = os.path.join(self.work.name, f"ablate-{precision}-{backend}.json")
        cmd = [ABLATE, "run", "--preset", self.preset, "--dataset", "cifar10", "--data", self.cifar,
               "--model", self.onnx, "--precision", precision, "--backend", backend, "--no-random",
               "--iterations", str(steps), "--curve-every", "1", "--quiet", "--out", record]
        done = subprocess.run(cmd, capture_output=True, text=True)
        said = done.stdout + done.stderr
        if done.returncode != 0 and "has no builder for layer types" in said:  # a build without every branch's layers
            self.skipTest(f"this ablate binary cannot train ResNet-20: {said.strip()[-200:]}")
        if done.returncode != 0 and re.search(r"onnx", said, re.I) and not os.path.exists(record):
            self.skipTest(f"this ablate binary does not train ONNX files: {said.strip()[-300:]}")
        self.assertEqual(done.returncode, 0, f"{' '.join(cmd)}:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
        with open(record) as f:
            rec = json.loads(f.readline())
        losses = {p["iteration"]: p["loss"] for p in rec["curve"]}
        self.assertEqual(sorted(losses), list(range(1, steps + 1)))
        return losses

    def pytorch_losses(self, precision, steps):
        cmd = [sys.executable, SCRIPT, "train", "--onnx", self.onnx, "--images", self.images, "--labels", self.labels,
               "--steps", str(steps), "--batch", str(BATCH), "--precision", precision, "--lr", str(LR),
               "--momentum", str(MOMENTUM), "--weight-decay", str(WEIGHT_DECAY), "--transform", "scale:1/255",
               "--threads", "1"]  # torch 1.13 with 2 threads took 6x as long on 2 shared cores
        done = subprocess.run(cmd, capture_output=True, text=True)
        self.assertEqual(done.returncode, 0, f"{' '.join(cmd)}:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
        losses = {int(s): float(v) for s, v in re.findall(r"^peer_loss (\d+) (\S+)$", done.stdout, re.M)}
        self.assertEqual(sorted(losses), list(range(1, steps + 1)))
        return losses

    @staticmethod
    def relative(a, b):
        return {s: abs(a[s] - b[s]) / abs(b[s]) for s in b}

    def test_f64_losses_agree_within_1e_6_for_100_steps(self):
        mine, theirs = self.ablate_losses("f64", STEPS), self.pytorch_losses("f64", STEPS)
        rel = self.relative(mine, theirs)
        worst = max(rel, key=rel.get)
        print(f"\nONNX ResNet-20 f64, {STEPS} steps: largest relative loss difference {rel[worst]:.2e} at step {worst} "
              f"(ablate {mine[worst]!r}, PyTorch {theirs[worst]!r})", file=sys.stderr)
        self.assertLess(rel[worst], 1e-6, f"step {worst}: ablate {mine[worst]!r}, PyTorch {theirs[worst]!r}")
        self.assertGreater(abs(mine[STEPS] - mine[1]), 1e-3)  # the curve moves: training, not 100 copies of a loss

    def test_f32_losses_agree_within_1e_3_while_f32_rounding_allows(self):
        mine, theirs = self.ablate_losses("f32", STEPS_F32), self.pytorch_losses("f32", STEPS_F32)
        own = self.relative(self.ablate_losses("f32", STEPS_F32, backend="eigen"), mine)  # ablate against itself
        rel = self.relative(mine, theirs)
        agree = 0
        while agree < STEPS_F32 and own[agree + 1] < 1e-4:
            agree += 1
        within = max(rel[s] for s in range(1, agree + 1)) if agree else float("nan")
        print(f"\nONNX ResNet-20 f32: ablate's openblas and eigen agree within 1e-4 for {agree} steps, PyTorch within "
              f"{within:.2e} there; over {STEPS_F32} steps PyTorch {max(rel.values()):.2e}, ablate's two backends "
              f"{max(own.values()):.2e} (step 1: {rel[1]:.2e})", file=sys.stderr)
        self.assertGreaterEqual(agree, 3, f"ablate's own backends part at once: {own}")
        for s in range(1, agree + 1):
            self.assertLess(rel[s], 1e-3, f"step {s}: ablate {mine[s]!r}, PyTorch {theirs[s]!r}")


if __name__ == "__main__":
    unittest.main()
