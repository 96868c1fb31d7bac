"""The study's TensorFlow 1.x graphs, written as the scripts wrote them, through tf.compat.v1:
  tf-mnist   tensorflow/examples/tutorials/mnist/mnist_deep.py, deepnn(x)

A graph is built by build(tf1, x, keep_prob, dtype) and returns a Graph: the logits and, for
every parameter, its variable with ablate's name (`<layer>.weight` / `<layer>.bias`), so
ablate's initial weights can be loaded into it (to_tf converts ablate's layout to TF's).

Layouts. ablate keeps activations in NCHW and a convolution weight as [K, C, KH, KW]; TF
keeps NHWC activations and HWIO filters [KH, KW, C, K]: a transpose (2, 3, 1, 0). An inner
product weight is [O, I] in ablate and [I, O] in TF (x @ W): a transpose. The first inner
product after a convolution reads a flattened activation, which ablate flattens in NCHW order
(i = c*H*W + h*W + w) and TF in NHWC order (j = h*W*C + w*C + c); its rows are permuted so
that TF's row j holds ablate's column i of the same (c, h, w): reshape [O, C, H, W],
transpose to [H, W, C, O], reshape [H*W*C, O].
"""
import numpy as np


def conv_to_hwio(w):
    return w.transpose(2, 3, 1, 0)


def dense_to_io(w):
    return w.T


def dense_from_nchw(c, h, w):
    """ablate's [O, C*H*W] (NCHW flattening) as TF's [H*W*C, O] (NHWC flattening)."""
    return lambda a: a.reshape(a.shape[0], c, h, w).transpose(2, 3, 1, 0).reshape(h * w * c, a.shape[0])


def same(a):
    return a


class Graph:
    def __init__(self, logits, feed_layout):
        self.logits = logits
        self.feed_layout = feed_layout  # [N, C, H, W] data -> the array the placeholder takes
        self.params = {}  # ablate name -> (tf variable, ablate shape, to_tf)
        self.layers = []  # (ablate layer name, type, outputs) of the layers with parameters

    def add(self, name, variable, ablate_shape, to_tf):
        self.params[name] = (variable, tuple(ablate_shape), to_tf)


def mnist_deep(tf1, dtype):
    """deepnn(x) of mnist_deep.py: x [N, 784] -> logits [N, 10]; returns (Graph, x, keep_prob)."""
    tf = tf1
    x = tf.placeholder(dtype, [None, 784], name="x")
    keep_prob = tf.placeholder(dtype, name="keep_prob")

    def weight_variable(shape):
        return tf.Variable(tf.truncated_normal(shape, stddev=0.1, dtype=dtype))

    def bias_variable(shape):
        return tf.Variable(tf.constant(0.1, shape=shape, dtype=dtype))

    def conv2d(x, W):
        return tf.nn.conv2d(x, W, strides=[1, 1, 1, 1], padding="SAME")

    def max_pool_2x2(x):
        return tf.nn.max_pool(x, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="SAME")

    x_image = tf.reshape(x, [-1, 28, 28, 1])
    W_conv1, b_conv1 = weight_variable([5, 5, 1, 32]), bias_variable([32])
    h_conv1 = tf.nn.relu(conv2d(x_image, W_conv1) + b_conv1)
    h_pool1 = max_pool_2x2(h_conv1)
    W_conv2, b_conv2 = weight_variable([5, 5, 32, 64]), bias_variable([64])
    h_conv2 = tf.nn.relu(conv2d(h_pool1, W_conv2) + b_conv2)
    h_pool2 = max_pool_2x2(h_conv2)
    W_fc1, b_fc1 = weight_variable([7 * 7 * 64, 1024]), bias_variable([1024])
    h_pool2_flat = tf.reshape(h_pool2, [-1, 7 * 7 * 64])
    h_fc1 = tf.nn.relu(tf.matmul(h_pool2_flat, W_fc1) + b_fc1)
    h_fc1_drop = tf.nn.dropout(h_fc1, keep_prob=keep_prob)
    W_fc2, b_fc2 = weight_variable([1024, 10]), bias_variable([10])
    y_conv = tf.matmul(h_fc1_drop, W_fc2) + b_fc2

    g = Graph(y_conv, lambda nchw: nchw.reshape(nchw.shape[0], 784))  # C = 1: NCHW and NHWC agree
    g.add("conv1.weight", W_conv1, [32, 1, 5, 5], conv_to_hwio)
    g.add("conv1.bias", b_conv1, [32], same)
    g.add("conv2.weight", W_conv2, [64, 32, 5, 5], conv_to_hwio)
    g.add("conv2.bias", b_conv2, [64], same)
    g.add("fc1.weight", W_fc1, [1024, 64 * 7 * 7], dense_from_nchw(64, 7, 7))
    g.add("fc1.bias", b_fc1, [1024], same)
    g.add("fc2.weight", W_fc2, [10, 1024], dense_to_io)
    g.add("fc2.bias", b_fc2, [10], same)
    g.layers = [("conv1", "convolution", 32), ("conv2", "convolution", 64),
                ("fc1", "inner_product", 1024), ("fc2", "inner_product", 10)]
    return g, x, keep_prob


GRAPHS = {"tf-mnist": mnist_deep}


def parameter_layers(layers):
    """(name, type, outputs) of the model file's layers that hold parameters."""
    return [(n, t, int(p["outputs"])) for n, t, p in layers if t in ("convolution", "inner_product")]


def dropout_keep(layers):
    keeps = [float(p.get("keep", 0.5)) for _, t, p in layers if t == "dropout"]
    return keeps[0] if keeps else 1.0


def load_into(sess, graph, params):
    """Assigns ablate's parameters ({name: array in ablate's layout}) to the graph's variables."""
    for name, (variable, _, to_tf) in graph.params.items():
        variable.load(np.ascontiguousarray(to_tf(params[name])), sess)
