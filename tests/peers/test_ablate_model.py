"""bench/peers/ablate_model.py builds ablate's model files as torch.nn models; here its token
layers (tokens, pos_embed, layer_norm, linear, attention, token_mean, gelu) on the ViTs.

- vit-tiny's parameters, built from models/zoo/vit-tiny.model, are those of the hand-written
  PyTorch ViT (bench/peers/onnx/pytorch_vit_tiny.py) one for one: the same count and shapes,
  and from the same weights both compute the same scores (f64, 1e-12 relative).
- Where ABLATE_BINARY names an ablate binary: ablate's initial weights of vit-tiny load into
  the built model name by name and shape by shape (the same parameter count as ablate's), and
  their values follow ablate's initializer rules (the position embedding within 2 std of 0.02,
  layer norms 1 and 0, attention weights within xavier's bound).
- Where the PyTorch 2.x environment is installed too (ABLATE_PEERS_DIR, scripts/setup-peers.sh):
  from ablate's initial weights, PyTorch's first three losses training vit-block on
  Fashion-MNIST equal ablate's within 1e-5 relative (bench/peers/step_check.py).
Run with Debian's /usr/bin/python3 (python3-torch).
"""
import os
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(REPO, "bench", "peers"))
sys.path.insert(0, os.path.join(REPO, "bench", "peers", "onnx"))
try:  # torch is optional (scripts/setup.sh installs it with ABLATE_WITH_PEERS=1): skipped without it
    import torch
    import ablate_checkpoint
    import ablate_model
    import pytorch_vit_tiny
    import step_check
    NO_TORCH = ""
except ImportError as e:
    NO_TORCH = f"Debian's python3-torch is needed ({e})"

ABLATE = os.environ.get("ABLATE_BINARY", "")
PEERS = os.environ.get("ABLATE_PEERS_DIR", os.path.join(REPO, ".peers"))
DATA = "/usr/share/datasets/fashion-mnist"
VIT_TINY = os.path.join(REPO, "models", "zoo", "vit-tiny.model")
VIT_BLOCK = os.path.join(REPO, "docs", "models", "vit-block.model")


def built(path, seed=1):
    shape, classes, layers = ablate_model.parse_model(path)
    return ablate_model.build(shape, classes, layers, seed)


def mirror_name(name):
    """The hand-written ViT's parameter for ablate's `<layer>.<suffix>`: b3_attn.key_weight is
    blocks.2.attn.key.weight, b1_fc1.bias blocks.0.fc1.bias, pos.weight pos."""
    layer, _, suffix = name.partition(".")
    if layer == "pos":
        return "pos"
    if layer.startswith("b") and "_" in layer:
        block, _, part = layer.partition("_")
        layer = f"blocks.{int(block[1:]) - 1}.{part}"
        if part == "attn":
            role, _, suffix = suffix.partition("_")
            layer += "." + role
    return f"{layer}.{suffix}"


@unittest.skipIf(NO_TORCH, NO_TORCH)
class VitTinyMirrorTest(unittest.TestCase):
    def setUp(self):
        self.b = built(VIT_TINY)
        torch.manual_seed(3)
        self.mirror = pytorch_vit_tiny.VitTiny()

    def test_parameters_are_the_hand_written_vits_one_for_one(self):
        theirs = dict(self.mirror.named_parameters())
        self.assertEqual(len(self.b.names), len(theirs))
        self.assertEqual(sum(p.numel() for p, _, _ in self.b.params), sum(p.numel() for p in theirs.values()))
        for n, (p, _, _) in zip(self.b.names, self.b.params):
            self.assertEqual(p.numel(), theirs[mirror_name(n)].numel(), n)

    def test_same_weights_give_the_same_scores(self):
        net, mirror = self.b.net.double().eval(), self.mirror.double().eval()
        theirs = dict(mirror.named_parameters())
        with torch.no_grad():
            for n, (p, _, _) in zip(self.b.names, self.b.params):
                p.copy_(theirs[mirror_name(n)].reshape(p.shape))
            x = torch.rand(5, 1, 28, 28, generator=torch.Generator().manual_seed(4), dtype=torch.float64)
            mine, want = net(x), mirror(x)
        self.assertEqual(tuple(mine.shape), (5, 10))
        self.assertLess(float((mine - want).abs().max() / want.abs().max()), 1e-12)

    def test_a_token_layer_on_images_is_not_comparable(self):
        shape, classes, layers = ablate_model.parse_model(VIT_TINY)
        del layers[1]  # tokens: the position embedding would read [64, 4, 4] images
        with self.assertRaisesRegex(ablate_model.NotComparable, r"pos \(pos_embed\) on a tensor of shape \[64, 4, 4\]"):
            ablate_model.build(shape, classes, layers)


@unittest.skipIf(NO_TORCH, NO_TORCH)
@unittest.skipUnless(os.access(ABLATE, os.X_OK), "ABLATE_BINARY names no ablate binary")
class AgainstAblateTest(unittest.TestCase):
    def test_ablates_initial_weights_load_by_name_and_shape(self):
        b = built(VIT_TINY)
        expected = {n: tuple(p.shape) for n, (p, _, _) in zip(b.names, b.params)}
        with tempfile.TemporaryDirectory() as work:
            w0 = os.path.join(work, "w0.ckpt")
            subprocess.run([ABLATE, "run", "--framework", "tensorflow", "--model", VIT_TINY, "--dataset", "synthetic",
                            "--iterations", "1", "--batch", "2", "--test-iterations", "1", "--quiet",
                            "--snapshot-initial", w0], check=True, stdout=subprocess.DEVNULL)
            everything = ablate_checkpoint.read(w0).parameters()
            loaded = ablate_checkpoint.load_parameters(w0, expected, everything["fc.weight"].dtype)
        self.assertEqual(sum(t.size for t in everything.values()), sum(p.numel() for p, _, _ in b.params))
        self.assertLess(abs(loaded["pos.weight"]).max(), 2 * 0.02 + 1e-7)
        self.assertTrue((loaded["b2_norm1.weight"] == 1).all() and (loaded["b2_norm1.bias"] == 0).all())
        bound = (3.0 / 64) ** 0.5  # xavier: sqrt(3 / fan_in), fan_in = D
        self.assertLessEqual(abs(loaded["b4_attn.value_weight"]).max(), bound)
        self.assertGreater(abs(loaded["b4_attn.value_weight"]).max(), bound / 2)

    def test_first_steps_from_ablates_weights_equal_ablates(self):
        python = os.path.join(PEERS, "pytorch", "bin", "python")
        if not os.access(python, os.X_OK) or not os.path.isdir(DATA):
            self.skipTest(f"no PyTorch environment in {PEERS} (scripts/setup-peers.sh pytorch) or no {DATA}")
        with tempfile.TemporaryDirectory() as work:
            c = step_check.check(step_check.parse(["caffe", "--steps", "3", "--model", VIT_BLOCK, "--ablate", ABLATE,
                                                   "--peers-dir", PEERS, "--data", DATA, "--work", work]))
        self.assertEqual([r[0] for r in c.rows], [1, 2, 3])
        self.assertLess(c.worst, 1e-5, f"ablate and PyTorch losses: {c.rows}")


if __name__ == "__main__":
    unittest.main()
