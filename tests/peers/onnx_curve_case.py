"""What the PyTorch-through-ONNX curve tests share (test_onnx_curve.py: ResNet-20,
test_onnx_vit_curve.py: vit-tiny): a network written in PyTorch (bench/peers/onnx/) is exported to
ONNX; ablate imports the file and trains it, PyTorch trains its own module from the same file's
initializers; both on the same batches in file order, without random parts, SGD with momentum at
a constant rate (ablate's torch_sgd and lr_policy fixed: torch.optim.SGD with dampening 0).

A test class mixes OnnxCurveCase into unittest.TestCase and sets SCRIPT, NAME, DATASET (ablate's
--dataset), FAMILY (the preset's dataset_family), STRATEGY, IMAGE_SHAPE and
write_ablate_data(folder, images, labels) -> the --data folder; the recipe is curve_preset's.

Skipped with the reason when Debian's torch or onnx is missing, ABLATE_BINARY names no ablate
binary, or that binary cannot import ONNX files or train the model.
"""
import json
import os
import re
import struct
import subprocess
import sys
import tempfile

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
ABLATE = os.environ.get("ABLATE_BINARY", "")
LR, MOMENTUM, WEIGHT_DECAY = 0.01, 0.9, 1e-4


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


def curve_preset(test_file, family, strategy, batch, steps):
    """The curve checks' recipe for ablate: PyTorch's SGD, no random parts, the data in file order."""
    return f"""# The ONNX curve check's recipe ({test_file}): PyTorch's SGD on ablate
framework torch
dataset_family {family}
strategy {strategy}
backend openblas
threads 2
optimizer torch_sgd
base_lr {LR}
lr_policy fixed
momentum {MOMENTUM}
dampening 0
weight_decay {WEIGHT_DECAY}
batch {batch}
iterations {steps}
test_interval 0
test_batch 100
test_iterations 1
transform scale:1/255
shuffle false
seed 1
"""


def relative(a, b):
    return {s: abs(a[s] - b[s]) / abs(b[s]) for s in b}


class OnnxCurveCase:
    SCRIPT = NAME = DATASET = FAMILY = STRATEGY = None
    IMAGE_SHAPE = ()
    IMAGES, BATCH, STEPS = 800, 8, 100  # one epoch of 100 batches of 8
    WEIGHT_SEED = 1  # the export's initial weights (the script's --seed)

    @classmethod
    def setUpClass(cls):
        cls.reason = missing_reason()
        if cls.reason:
            return
        cls.work = tempfile.TemporaryDirectory()
        w = cls.work.name
        cls.onnx = os.path.join(w, cls.NAME + ".onnx")
        done = subprocess.run([sys.executable, cls.SCRIPT, "export", "--out", cls.onnx, "--seed", str(cls.WEIGHT_SEED)],
                              capture_output=True, text=True)
        if done.returncode != 0:
            raise AssertionError(f"{os.path.basename(cls.SCRIPT)} export failed:\n{done.stdout}{done.stderr}")
        rng = np.random.RandomState(7)
        images = rng.randint(0, 256, size=(cls.IMAGES,) + tuple(cls.IMAGE_SHAPE)).astype(np.uint8)
        labels = rng.randint(0, 10, size=cls.IMAGES).astype(np.uint8)
        cls.data = cls.write_ablate_data(w, images, labels)
        cls.images, cls.labels = os.path.join(w, "images.idx"), os.path.join(w, "labels.idx")
        write_idx(cls.images, images)
        write_idx(cls.labels, labels)
        cls.preset = os.path.join(w, "onnx-curve.preset")
        with open(cls.preset, "w") as f:
            f.write(curve_preset(os.path.basename(sys.modules[cls.__module__].__file__), cls.FAMILY, cls.STRATEGY,
                                 cls.BATCH, cls.STEPS))

    @classmethod
    def tearDownClass(cls):
        if not cls.reason:
            cls.work.cleanup()

    def setUp(self):
        if self.reason:
            self.skipTest(self.reason)

    def export(self, name, *options):
        """Another export of the same network (the same seed) by the script, e.g. at another opset."""
        path = os.path.join(self.work.name, name)
        done = subprocess.run([sys.executable, self.SCRIPT, "export", "--out", path, "--seed", str(self.WEIGHT_SEED), *options],
                              capture_output=True, text=True)
        self.assertEqual(done.returncode, 0, f"{os.path.basename(self.SCRIPT)} export {options}:\n{done.stdout}{done.stderr}")
        return path

    def ablate_losses(self, precision, steps, backend="openblas", strategy=None, onnx=None):
        record = os.path.join(self.work.name, f"ablate-{precision}-{backend}-{strategy}.json")
        cmd = [ABLATE, "run", "--preset", self.preset, "--dataset", self.DATASET, "--data", self.data,
               "--model", onnx or self.onnx, "--precision", precision, "--backend", backend, "--no-random",
               "--iterations", str(steps), "--curve-every", "1", "--quiet", "--out", record]
        cmd += ["--strategy", strategy] if strategy else []
        done = subprocess.run(cmd, capture_output=True, text=True)
        said = done.stdout + done.stderr
        if done.returncode != 0 and "has no builder for layer types" in said:  # a build without every layer
            self.skipTest(f"this ablate binary cannot train {self.NAME}: {said.strip()[-200:]}")
        if done.returncode != 0 and re.search(r"onnx", said, re.I) and not os.path.exists(record):
            self.skipTest(f"this ablate binary does not train ONNX files: {said.strip()[-300:]}")
        self.assertEqual(done.returncode, 0, f"{' '.join(cmd)}:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
        with open(record) as f:
            rec = json.loads(f.readline())
        losses = {p["iteration"]: p["loss"] for p in rec["curve"]}
        self.assertEqual(sorted(losses), list(range(1, steps + 1)))
        return losses

    def pytorch_losses(self, precision, steps, onnx=None):
        cmd = [sys.executable, self.SCRIPT, "train", "--onnx", onnx or self.onnx, "--images", self.images, "--labels",
               self.labels, "--steps", str(steps), "--batch", str(self.BATCH), "--precision", precision, "--lr", str(LR),
               "--momentum", str(MOMENTUM), "--weight-decay", str(WEIGHT_DECAY), "--transform", "scale:1/255",
               "--threads", "1"]  # torch 1.13 with 2 threads took 6x as long on 2 shared cores
        done = subprocess.run(cmd, capture_output=True, text=True)
        self.assertEqual(done.returncode, 0, f"{' '.join(cmd)}:\n{done.stdout[-2000:]}{done.stderr[-2000:]}")
        losses = {int(s): float(v) for s, v in re.findall(r"^peer_loss (\d+) (\S+)$", done.stdout, re.M)}
        self.assertEqual(sorted(losses), list(range(1, steps + 1)))
        return losses

    def check_f64_curve(self, strategy=None, onnx=None, what=""):
        """Every step's loss within 1e-6 relative of PyTorch's over STEPS f64 steps; the curve moves."""
        mine = self.ablate_losses("f64", self.STEPS, strategy=strategy, onnx=onnx)
        theirs = self.pytorch_losses("f64", self.STEPS, onnx=onnx)
        rel = relative(mine, theirs)
        worst = max(rel, key=rel.get)
        print(f"\nONNX {self.NAME}{what} f64{' ' + strategy if strategy else ''}, {self.STEPS} steps: largest relative loss "
              f"difference {rel[worst]:.2e} at step {worst} (ablate {mine[worst]!r}, PyTorch {theirs[worst]!r})",
              file=sys.stderr)
        self.assertLess(rel[worst], 1e-6, f"step {worst}: ablate {mine[worst]!r}, PyTorch {theirs[worst]!r}")
        self.assertGreater(abs(mine[self.STEPS] - mine[1]), 1e-3)  # training, not 100 copies of a loss
        return rel
