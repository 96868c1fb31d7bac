"""The real-framework runners against ablate, where the peer is installed (scripts/setup-peers.sh)
and ABLATE_BINARY names an ablate binary; skipped with the reason otherwise.

- From ablate's initial weights, the first step's loss (one forward pass on the same weights
  and the same batch) equals ablate's within 1e-5 relative, for the MNIST network on
  Fashion-MNIST and the CIFAR-10 network on random CIFAR-10 files; loading those weights checks
  every parameter's name and shape against the runner's model.
- A model the runner lacks ends it with exit status 3 and `peer_not_comparable: ...`.
- A checkpoint of another model is refused naming the differences.
"""
import os
import subprocess
import sys
import tempfile
import unittest

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(REPO, "bench", "peers"))
import step_check  # noqa: E402

ABLATE = os.environ.get("ABLATE_BINARY", "")
PEERS = os.environ.get("ABLATE_PEERS_DIR", os.path.join(REPO, ".peers"))
DATA = "/usr/share/datasets/fashion-mnist"


def python_of(framework):
    return os.path.join(PEERS, framework, "bin", "python")


def missing(framework):
    if not os.access(python_of(framework), os.X_OK):
        return f"{framework} is not installed in {PEERS} (scripts/setup-peers.sh {framework})"
    if not os.access(ABLATE, os.X_OK):
        return "ABLATE_BINARY names no ablate binary"
    if not os.path.isdir(DATA):
        return f"no Fashion-MNIST in {DATA}"
    return None


def write_random_cifar10(folder, per_file):
    """CIFAR-10 binary files (data_batch_1..5.bin, test_batch.bin) of random 3073-byte records."""
    os.makedirs(folder)
    rng = np.random.RandomState(5)
    for name in [f"data_batch_{i}.bin" for i in range(1, 6)] + ["test_batch.bin"]:
        records = rng.randint(0, 256, size=(per_file, 3073)).astype(np.uint8)
        records[:, 0] %= 10
        records.tofile(os.path.join(folder, name))


class RunnerCase:
    framework = None

    def setUp(self):
        reason = missing(self.framework)
        if reason:
            self.skipTest(reason)

    def runner(self, *args):
        script = os.path.join(REPO, "bench", "peers", step_check.RUNNERS[self.framework])
        return subprocess.run([python_of(self.framework), script, *args], capture_output=True, text=True)

    def test_first_step_loss_from_ablates_weights_equals_ablates(self):
        with tempfile.TemporaryDirectory() as work:
            c = step_check.check(step_check.parse([self.framework, "--steps", "1", "--ablate", ABLATE,
                                                   "--peers-dir", PEERS, "--data", DATA, "--work", work]))
        self.assertEqual([r[0] for r in c.rows], [1])
        self.assertLess(c.worst, 1e-5, f"ablate {c.rows[0][1]!r}, {self.framework} {c.rows[0][2]!r}")
        self.assertIn("init=ablate", c.result)

    def test_first_step_loss_of_its_cifar10_network_equals_ablates(self):
        with tempfile.TemporaryDirectory() as work:
            data = os.path.join(work, "cifar")
            write_random_cifar10(data, per_file=256)
            c = step_check.check(step_check.parse([self.framework, "--steps", "1", "--ablate", ABLATE, "--dataset", "cifar10",
                                                   "--peers-dir", PEERS, "--data", data, "--work", work]))
        self.assertLess(c.worst, 1e-5, f"ablate {c.rows[0][1]!r}, {self.framework} {c.rows[0][2]!r}")

    def test_a_model_it_lacks_is_not_comparable(self):
        done = self.runner("--model", os.path.join(REPO, "models", "zoo", "cifar10_quick.model"),
                           "--train-images", "x", "--train-labels", "x", "--test-images", "x", "--test-labels", "x")
        self.assertEqual(done.returncode, 3, done.stdout + done.stderr)
        self.assertRegex(done.stdout.splitlines()[-1], r"^peer_not_comparable: .+")

    def test_a_checkpoint_of_another_model_is_refused_naming_it(self):
        with tempfile.TemporaryDirectory() as work:
            ckpt = os.path.join(work, "lenet.ckpt")
            subprocess.run([ABLATE, "run", "--framework", "caffe", "--iterations", "1", "--test-iterations", "1",
                            "--snapshot-every", "1", "--snapshot", ckpt, "--quiet"], check=True, stdout=subprocess.DEVNULL)
            step_check.write_data(DATA, 59000, work)  # 1,000 training images are enough
            model = self.model_file
            d = work + "/"
            done = self.runner("--model", model, "--iterations", "1", "--batch", "10", "--transform", "scale:1/255",
                               "--precision", self.precision, "--optimizer", "gd", "--test-iterations", "1",
                               "--train-images", d + "train-images.idx", "--train-labels", d + "train-labels.idx",
                               "--test-images", d + "test-images.idx", "--test-labels", d + "test-labels.idx",
                               "--init-checkpoint", ckpt)
        self.assertNotEqual(done.returncode, 0)
        self.assertIn("does not fit the model", done.stdout + done.stderr)
        self.assertIn("'ip1.weight' is not a parameter of the model", done.stdout + done.stderr)


class TensorFlowTest(RunnerCase, unittest.TestCase):
    framework, precision = "tensorflow", "f32"
    model_file = os.path.join(REPO, "models", "zoo", "tf-mnist.model")


class TheanoTest(RunnerCase, unittest.TestCase):
    framework, precision = "theano", "f32"
    model_file = os.path.join(REPO, "models", "zoo", "theano-lenet5.model")


if __name__ == "__main__":
    unittest.main()
