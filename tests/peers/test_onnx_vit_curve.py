"""ONNX curve check of the Vision Transformer: vit-tiny written in PyTorch
(bench/peers/onnx/pytorch_vit_tiny.py: Conv patches, Reshape and Transpose to tokens, an Add of
the position embedding, LayerNormalization at opset 17, multi-head attention as MatMul, Reshape,
Transpose, Div, Softmax, GELU in its erf form, ReduceMean over the tokens) is exported to ONNX;
ablate imports the file (the attention and GELU subgraphs recognised as its `attention` and
`gelu` layers) and trains it, PyTorch trains its own module from the same file's initializers
(and its layer norms' float32 epsilon); both on the same batches in file order, without random
parts (no dropout), batch 8, SGD with momentum 0.9 and weight decay 1e-4 at a constant rate 0.01.

- f64, 100 steps: every step's loss agrees within 1e-6 relative, under the dynamic (the preset's)
  and the static strategy (the layer-wise strategy runs attention as one layer: its f64 agreement
  with the others is strategy_equivalence_test.cpp's); and exported at opset 13, where each
  nn.LayerNorm is ReduceMean, Sub, Pow, ReduceMean, Add, Sqrt, Div, Mul, Add (PyTorch keeps its
  own eps 1e-5 there, ablate reads the file's float32 constant: 2.5e-13 apart).

The data: 800 random MNIST-shaped uint8 images and labels, written as MNIST IDX files for ablate
(`--dataset mnist --data DIR`) and for PyTorch, scaled by 1/255 on both sides.
Skipped with the reason when Debian's torch or onnx is missing or ABLATE_BINARY names no binary.
"""
import os
import unittest

from onnx_curve_case import REPO, OnnxCurveCase, write_idx



class OnnxVitCurveTest(OnnxCurveCase, unittest.TestCase):
    SCRIPT = os.path.join(REPO, "bench", "peers", "onnx", "pytorch_vit_tiny.py")
    NAME, DATASET, IMAGE_SHAPE = "vit-tiny", "mnist", (28, 28)
    FAMILY, STRATEGY = "mnist", "dynamic"

    @classmethod
    def write_ablate_data(cls, folder, images, labels):
        mnist = os.path.join(folder, "mnist")
        os.makedirs(mnist)
        write_idx(os.path.join(mnist, "train-images-idx3-ubyte"), images)
        write_idx(os.path.join(mnist, "train-labels-idx1-ubyte"), labels)
        write_idx(os.path.join(mnist, "t10k-images-idx3-ubyte"), images[:100])
        write_idx(os.path.join(mnist, "t10k-labels-idx1-ubyte"), labels[:100])
        return mnist

    def test_f64_losses_agree_within_1e_6_for_100_steps(self):
        self.check_f64_curve()

    def test_f64_losses_agree_under_the_static_strategy(self):
        self.check_f64_curve("static")

    def test_f64_losses_agree_at_opset_13_with_layer_norm_decomposed(self):
        self.check_f64_curve(onnx=self.export("vit-tiny-opset13.onnx", "--opset", "13"), what=" (opset 13)")


if __name__ == "__main__":
    unittest.main()
