"""ONNX Runtime on what `ablate export` writes (issue item 5c): the exported file passes
onnx.checker, ONNX Runtime runs it on a fixed input, and its output equals ablate's own output for
the same input (`ablate export --logits-input FILE --logits-out FILE`: the forward runner on the
exported float32 weights) within 1e-5 of the largest output magnitude.

Models: lenet and resnet20 (the issue's two), and one zoo model per other export mapping:
cifar10_quick (Caffe's ceil-rounded average pooling: ceil_mode 1, count_include_pad 0),
tf-cifar10 (TF SAME max pooling and convolution, LRN), theano-lenet5 (a bias layer after pooling,
tanh, LogSoftmax as the output), torch-cifar10 (conv_map as a dense Conv), lenet-bn-gelu (BatchNormalization, GELU's erf and
tanh forms), vit-tiny and docs/models/vit-block.model (opset 17: tokens as Reshape + Transpose, the position embedding's
Add, LayerNormalization, MatMul + Add linears, multi-head self-attention as its MatMul/Reshape/Transpose/Mul/Softmax
subgraph, GELU's erf form, ReduceMean over the tokens), vit-tiny also from a checkpoint. resnet20, lenet-bn-gelu and theano-lenet5 (whose classifier starts at 0) are exported from a checkpoint written after two
training steps (`ablate run --snapshot-every`), so the running statistics are not the initial 0 and 1.

Skipped with the reason without the onnxruntime environment (scripts/setup-peers.sh onnxruntime),
Debian's python3-onnx, or ABLATE_BINARY.
"""
import os
import subprocess
import tempfile
import unittest

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.abspath(os.path.join(HERE, "..", ".."))
ABLATE = os.environ.get("ABLATE_BINARY", "")
PEERS = os.environ.get("ABLATE_PEERS_DIR", os.path.join(REPO, ".peers"))
ORT_PYTHON = os.path.join(PEERS, "onnxruntime", "bin", "python")
TOLERANCE = 1e-5

# Run in the onnxruntime environment (numpy and onnxruntime only): net.onnx, in.npy -> out.npy.
ORT_RUN = """
import sys
import numpy as np
import onnxruntime as ort
options = ort.SessionOptions()
options.intra_op_num_threads = 1
session = ort.InferenceSession(sys.argv[1], options, providers=["CPUExecutionProvider"])
x = np.load(sys.argv[2])
(y,) = session.run(None, {session.get_inputs()[0].name: x})
np.save(sys.argv[3], y)
print("onnxruntime", ort.__version__, session.get_outputs()[0].name, y.shape)
"""


def missing_reason():
    if not os.access(ORT_PYTHON, os.X_OK):
        return f"onnxruntime is not installed in {PEERS} (scripts/setup-peers.sh onnxruntime)"
    try:
        import onnx  # noqa: F401
    except ImportError:
        return "Debian's python3-onnx is needed to write and read the tensor files"
    if not os.access(ABLATE, os.X_OK):
        return "ABLATE_BINARY names no ablate binary"
    return None


class OnnxRuntimeTest(unittest.TestCase):
    def setUp(self):
        reason = missing_reason()
        if reason:
            self.skipTest(reason)
        self.work = tempfile.TemporaryDirectory()
        self.addCleanup(self.work.cleanup)

    def path(self, name):
        return os.path.join(self.work.name, name)

    def run_ok(self, cmd):
        done = subprocess.run(cmd, capture_output=True, text=True)
        self.assertEqual(done.returncode, 0, f"{' '.join(cmd)}:\n{done.stdout[-3000:]}{done.stderr[-3000:]}")
        return done.stdout

    def checkpoint(self, model, dataset):
        """A snapshot after two training steps of batch 4 on synthetic data."""
        snapshot = self.path(os.path.basename(model) + ".ckpt")
        cmd = [ABLATE, "run", "--model", model, "--dataset", dataset, "--iterations", "2", "--batch", "4",
               "--test-iterations", "1", "--test-batch", "4", "--threads", "1", "--quiet",
               "--snapshot-every", "2", "--snapshot", snapshot]
        done = subprocess.run(cmd, capture_output=True, text=True)
        if done.returncode != 0 and "has no builder for layer types" in done.stderr:  # a build without every branch's layers
            self.skipTest(f"this ablate binary cannot train {model}: {done.stderr.strip()[-200:]}")
        self.assertEqual(done.returncode, 0, f"{' '.join(cmd)}:\n{done.stdout[-3000:]}{done.stderr[-3000:]}")
        return snapshot

    def check(self, model, checkpoint=None, opset=13):
        import onnx
        from onnx import numpy_helper

        net, x_pb, ablate_pb = self.path(os.path.basename(model) + ".onnx"), self.path("x.pb"), self.path("ablate.pb")
        x_npy, ort_npy = self.path("x.npy"), self.path("ort.npy")
        # The input's shape from the exported graph: [N, C, H, W] with N symbolic; a batch of 3.
        first = [ABLATE, "export", "--model", model, "--onnx", net, "--seed", "3"]
        first += ["--checkpoint", checkpoint] if checkpoint else []
        self.run_ok(first)
        proto = onnx.load(net)
        onnx.checker.check_model(proto)
        self.assertEqual([o.domain for o in proto.opset_import], [""])
        self.assertEqual(proto.opset_import[0].version, opset)
        ops = {n.op_type for n in proto.graph.node}
        self.assertFalse(ops & {"SoftmaxCrossEntropyLoss", "NegativeLogLikelihoodLoss", "Dropout"}, ops)
        dims = [d.dim_value for d in proto.graph.input[0].type.tensor_type.shape.dim[1:]]
        x = np.random.RandomState(11).uniform(-1, 1, size=[3] + dims).astype(np.float32)
        with open(x_pb, "wb") as f:
            f.write(numpy_helper.from_array(x, "data").SerializeToString())
        np.save(x_npy, x)

        self.run_ok(first + ["--logits-input", x_pb, "--logits-out", ablate_pb])
        ablate = onnx.TensorProto()
        with open(ablate_pb, "rb") as f:
            ablate.ParseFromString(f.read())
        mine = numpy_helper.to_array(ablate)
        self.run_ok([ORT_PYTHON, "-c", ORT_RUN, net, x_npy, ort_npy])
        theirs = np.load(ort_npy)

        self.assertEqual(mine.shape, theirs.shape)
        self.assertEqual(ablate.name, proto.graph.output[0].name)
        scale = float(np.abs(theirs).max())
        self.assertGreater(scale, 0.0)
        worst = float(np.abs(mine - theirs).max()) / scale
        print(f"\n{model}{' (checkpoint)' if checkpoint else ''}: ablate vs ONNX Runtime, largest difference "
              f"{worst:.2e} of the largest output {scale:.3g}, outputs {mine.shape}", flush=True)
        self.assertLess(worst, TOLERANCE, f"ablate {mine.ravel()[:6]}, onnxruntime {theirs.ravel()[:6]}")
        # The images give different outputs (the check is not on a constant).
        self.assertGreater(float(np.abs(theirs[0] - theirs[1]).max()), 1e-3 * scale)
        return proto

    def test_lenet(self):
        self.check("lenet")

    def test_resnet20(self):
        ops = {n.op_type for n in self.check("resnet20").graph.node}
        self.assertEqual(ops, {"Conv", "BatchNormalization", "Relu", "Add", "GlobalAveragePool", "Flatten", "Gemm"})

    def test_resnet20_from_a_checkpoint(self):
        self.check("resnet20", self.checkpoint("resnet20", "synthetic-cifar10"))

    def test_caffe_ceil_average_pooling(self):
        self.check("cifar10_quick")

    def test_tf_same_padding_and_lrn(self):
        self.check("tf-cifar10")

    def test_bias_layer_after_pooling_and_log_softmax(self):  # its classifier starts at 0: trained first
        self.check("theano-lenet5", self.checkpoint("theano-lenet5", "synthetic"))

    def test_conv_map(self):
        self.check("torch-cifar10")

    def test_batch_norm_and_gelu_from_a_checkpoint(self):
        self.check("lenet-bn-gelu", self.checkpoint("lenet-bn-gelu", "synthetic"))

    VIT_OPS = {"Conv", "Reshape", "Transpose", "Add", "LayerNormalization", "MatMul", "Mul", "Softmax", "Div", "Erf",
               "ReduceMean"}

    def test_vit_tiny(self):  # opset 17: LayerNormalization; attention as its MatMul/Softmax subgraph
        ops = {n.op_type for n in self.check("vit-tiny", opset=17).graph.node}
        self.assertEqual(ops, self.VIT_OPS)

    def test_vit_tiny_from_a_checkpoint(self):  # trained two steps: biases, norms and positions away from their start
        self.check("vit-tiny", self.checkpoint("vit-tiny", "synthetic"), opset=17)

    def test_vit_block(self):
        self.check(os.path.join(REPO, "docs", "models", "vit-block.model"), opset=17)


if __name__ == "__main__":
    unittest.main()
