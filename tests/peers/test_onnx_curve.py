"""ONNX curve check (issue item 5b): ResNet-20 written in PyTorch (bench/peers/onnx/pytorch_resnet20.py)
is exported to ONNX; ablate imports the file and trains it, PyTorch trains its own module from the
same file's initializers (and its batch norms' float32 epsilon); both on the same batches in file
order, without random parts, batch 8 (rather than 128, so that both runs fit a test on 2 cores),
SGD with momentum 0.9 and weight decay 1e-4 at a constant rate 0.01 (ablate's torch_sgd and
lr_policy fixed: torch.optim.SGD with dampening 0), batch normalisation in training mode.

- f64, 100 steps: every step's loss agrees within 1e-6 relative, from the weights of seed 5.
  Seed 1's run has a ReLU input at step 78 that rounding can put on either side of zero: any
  change of ablate's f64 rounding in a layer (batch norm's sums in vector lanes, say), or another
  CPU's BLAS kernels, can part the curves there (4.5e-3 by step 100): on an AMD EPYC host it
  agreed to 3.9e-10, on an Intel Xeon (AVX-512) it parted at step 76; seed 2 parts there by
  4.4e-6. Seeds 3, 4 and 5 on that Xeon: 8.6e-9, 2.5e-9, 8.5e-10 at worst. Read a failure here
  with such a step in mind before suspecting the import.
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
import os
import sys
import unittest

import numpy as np

from onnx_curve_case import REPO, OnnxCurveCase, relative

STEPS_F32 = 20



def write_cifar(folder, images, labels):
    """The images as CIFAR-10 binary files (5 files of 160; the test file the first 100)."""
    cifar = os.path.join(folder, "cifar")
    os.makedirs(cifar)
    per_file = images.shape[0] // 5
    for k in range(5):
        part = slice(k * per_file, (k + 1) * per_file)
        records = np.concatenate([labels[part, None], images[part].reshape(per_file, -1)], axis=1)
        records.tofile(os.path.join(cifar, f"data_batch_{k + 1}.bin"))
    records = np.concatenate([labels[:100, None], images[:100].reshape(100, -1)], axis=1)
    records.tofile(os.path.join(cifar, "test_batch.bin"))
    return cifar


class OnnxCurveTest(OnnxCurveCase, unittest.TestCase):
    SCRIPT = os.path.join(REPO, "bench", "peers", "onnx", "pytorch_resnet20.py")
    NAME, DATASET, IMAGE_SHAPE = "resnet20", "cifar10", (3, 32, 32)
    FAMILY, STRATEGY = "cifar10", "static"
    WEIGHT_SEED = 5  # seed 1 has a rounding knife-edge at step 78 (above)

    @classmethod
    def write_ablate_data(cls, folder, images, labels):
        return write_cifar(folder, images, labels)

    def test_f64_losses_agree_within_1e_6_for_100_steps(self):
        self.check_f64_curve()

    def test_f32_losses_agree_within_1e_3_while_f32_rounding_allows(self):
        mine, theirs = self.ablate_losses("f32", STEPS_F32), self.pytorch_losses("f32", STEPS_F32)
        own = relative(self.ablate_losses("f32", STEPS_F32, backend="eigen"), mine)  # ablate against itself
        rel = relative(mine, theirs)
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
