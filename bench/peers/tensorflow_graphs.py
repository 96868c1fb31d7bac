"""The study's TensorFlow 1.x graphs, written as the scripts wrote them, through tf.compat.v1:
  tf-mnist    tensorflow/examples/tutorials/mnist/mnist_deep.py, deepnn(x)
  tf-cifar10  tensorflow/models tutorials/image/cifar10: cifar10.py inference(images) on
              cifar10_input.py's per-image preprocessing

GRAPHS[name](tf1, dtype, no_random) returns a Graph (below): the logits and, for every
parameter, its variable with ablate's name (`<layer>.weight` / `<layer>.bias`), so ablate's
initial weights can be loaded into it (to_tf converts ablate's layout to TF's).

Layouts. ablate keeps activations in NCHW and a convolution weight as [K, C, KH, KW]; TF
keeps NHWC activations and HWIO filters [KH, KW, C, K]: a transpose (2, 3, 1, 0). An inner
product weight is [O, I] in ablate and [I, O] in TF (x @ W): a transpose. The first inner
product after a convolution reads a flattened activation, which ablate flattens in NCHW order
(i = c*H*W + h*W + w) and TF in NHWC order (j = h*W*C + w*C + c); its rows are permuted so
that TF's row j holds ablate's column i of the same (c, h, w): reshape [O, C, H, W],
transpose to [H, W, C, O], reshape [H*W*C, O].
"""
import numpy as np

from peer_common import NotComparable


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
    """x, keep_prob: the training placeholders (keep_prob None without dropout); logits: the
    training logits; inference(images, V): the network on `images` with the variables V
    ({ablate name: tensor}, e.g. moving averages); test_x and test_images: the test input and
    its preprocessing; params: {ablate name: (variable, ablate shape, to_tf)}; layers: (name,
    type, outputs) of the parameter layers; feed_layout: [N, C, H, W] data -> the placeholder's
    array; transforms: the (training, test) preprocessing the graph does itself, None if the
    data come preprocessed by the recipe's rules."""

    def __init__(self):
        self.params, self.layers, self.transforms, self.keep_prob = {}, [], None, None

    def add(self, name, variable, ablate_shape, to_tf):
        self.params[name] = (variable, tuple(ablate_shape), to_tf)

    def variables(self):
        return {n: v for n, (v, _, _) in self.params.items()}


def mnist_deep(tf1, dtype, no_random):
    """deepnn(x) of mnist_deep.py: x [N, 784] -> logits [N, 10]."""
    tf = tf1
    g = Graph()

    def weight_variable(name, shape, ablate_shape, to_tf):
        g.add(name, tf.Variable(tf.truncated_normal(shape, stddev=0.1, dtype=dtype)), ablate_shape, to_tf)

    def bias_variable(name, shape):
        g.add(name, tf.Variable(tf.constant(0.1, shape=shape, dtype=dtype)), shape, same)

    def conv2d(x, W):
        return tf.nn.conv2d(x, W, strides=[1, 1, 1, 1], padding="SAME")

    def max_pool_2x2(x):
        return tf.nn.max_pool(x, ksize=[1, 2, 2, 1], strides=[1, 2, 2, 1], padding="SAME")

    weight_variable("conv1.weight", [5, 5, 1, 32], [32, 1, 5, 5], conv_to_hwio)
    bias_variable("conv1.bias", [32])
    weight_variable("conv2.weight", [5, 5, 32, 64], [64, 32, 5, 5], conv_to_hwio)
    bias_variable("conv2.bias", [64])
    weight_variable("fc1.weight", [7 * 7 * 64, 1024], [1024, 64 * 7 * 7], dense_from_nchw(64, 7, 7))
    bias_variable("fc1.bias", [1024])
    weight_variable("fc2.weight", [1024, 10], [10, 1024], dense_to_io)
    bias_variable("fc2.bias", [10])
    g.layers = [("conv1", "convolution", 32), ("conv2", "convolution", 64),
                ("fc1", "inner_product", 1024), ("fc2", "inner_product", 10)]

    def deepnn(x, V, keep_prob):
        x_image = tf.reshape(x, [-1, 28, 28, 1])
        h_conv1 = tf.nn.relu(conv2d(x_image, V["conv1.weight"]) + V["conv1.bias"])
        h_pool1 = max_pool_2x2(h_conv1)
        h_conv2 = tf.nn.relu(conv2d(h_pool1, V["conv2.weight"]) + V["conv2.bias"])
        h_pool2 = max_pool_2x2(h_conv2)
        h_pool2_flat = tf.reshape(h_pool2, [-1, 7 * 7 * 64])
        h_fc1 = tf.nn.relu(tf.matmul(h_pool2_flat, V["fc1.weight"]) + V["fc1.bias"])
        if keep_prob is not None:
            h_fc1 = tf.nn.dropout(h_fc1, keep_prob=keep_prob)
        return tf.matmul(h_fc1, V["fc2.weight"]) + V["fc2.bias"]

    g.x = tf.placeholder(dtype, [None, 784], name="x")
    g.keep_prob = tf.placeholder(dtype, name="keep_prob")
    g.logits = deepnn(g.x, g.variables(), g.keep_prob)
    g.test_x = g.test_images = tf.placeholder(dtype, [None, 784], name="x_test")
    g.inference = lambda images, V: deepnn(images, V, None)
    g.feed_layout = lambda nchw: nchw.reshape(nchw.shape[0], 784)  # C = 1: NCHW and NHWC agree
    return g


def cifar10(tf1, dtype, no_random):
    """inference(images) of the CIFAR-10 tutorial (cifar10.py) on cifar10_input.py's
    preprocessing, done in the graph per image as the tutorial's input threads did:
    training: tf.random_crop to 24x24x3, random_flip_left_right, random_brightness(63),
    random_contrast(0.2, 1.8), per_image_standardization (with no_random: the test's);
    test: resize_image_with_crop_or_pad to 24x24 (the central crop), per_image_standardization.
    The tutorial's shuffle_batch queue (16 threads, min_after_dequeue 20,000) is not kept:
    the batches are the recipe's (shuffled per epoch, as ablate's loader)."""
    tf = tf1
    if dtype != tf.float32:
        raise NotComparable("precision f64 with tf-cifar10: TF's lrn has float16, bfloat16 and float32 kernels only")
    g = Graph()
    g.transforms = ("random_crop:24x24+random_flip+random_brightness:63+random_contrast:0.2,1.8+standardize:image",
                    "central_crop:24x24+standardize:image")

    def variable(name, shape, ablate_shape, to_tf, stddev=None, constant=None):
        init = tf.truncated_normal_initializer(stddev=stddev, dtype=dtype) if stddev is not None \
            else tf.constant_initializer(constant, dtype=dtype)
        g.add(name, tf.get_variable(name.replace(".", "/"), shape, initializer=init, dtype=dtype), ablate_shape, to_tf)

    variable("conv1.weight", [5, 5, 3, 64], [64, 3, 5, 5], conv_to_hwio, stddev=5e-2)
    variable("conv1.bias", [64], [64], same, constant=0.0)
    variable("conv2.weight", [5, 5, 64, 64], [64, 64, 5, 5], conv_to_hwio, stddev=5e-2)
    variable("conv2.bias", [64], [64], same, constant=0.1)
    variable("local3.weight", [6 * 6 * 64, 384], [384, 64 * 6 * 6], dense_from_nchw(64, 6, 6), stddev=0.04)
    variable("local3.bias", [384], [384], same, constant=0.1)
    variable("local4.weight", [384, 192], [192, 384], dense_to_io, stddev=0.04)
    variable("local4.bias", [192], [192], same, constant=0.1)
    variable("softmax_linear.weight", [192, 10], [10, 192], dense_to_io, stddev=1 / 192.0)
    variable("softmax_linear.bias", [10], [10], same, constant=0.0)
    g.layers = [("conv1", "convolution", 64), ("conv2", "convolution", 64), ("local3", "inner_product", 384),
                ("local4", "inner_product", 192), ("softmax_linear", "inner_product", 10)]

    def inference(images, V):
        conv1 = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(images, V["conv1.weight"], [1, 1, 1, 1], padding="SAME"),
                                          V["conv1.bias"]))
        pool1 = tf.nn.max_pool(conv1, ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1], padding="SAME")
        norm1 = tf.nn.lrn(pool1, 4, bias=1.0, alpha=0.001 / 9.0, beta=0.75)
        conv2 = tf.nn.relu(tf.nn.bias_add(tf.nn.conv2d(norm1, V["conv2.weight"], [1, 1, 1, 1], padding="SAME"),
                                          V["conv2.bias"]))
        norm2 = tf.nn.lrn(conv2, 4, bias=1.0, alpha=0.001 / 9.0, beta=0.75)
        pool2 = tf.nn.max_pool(norm2, ksize=[1, 3, 3, 1], strides=[1, 2, 2, 1], padding="SAME")
        reshape = tf.reshape(pool2, [-1, 6 * 6 * 64])
        local3 = tf.nn.relu(tf.matmul(reshape, V["local3.weight"]) + V["local3.bias"])
        local4 = tf.nn.relu(tf.matmul(local3, V["local4.weight"]) + V["local4.bias"])
        return tf.add(tf.matmul(local4, V["softmax_linear.weight"]), V["softmax_linear.bias"])

    def distorted(image):
        image = tf.random_crop(image, [24, 24, 3])
        image = tf.image.random_flip_left_right(image)
        image = tf.image.random_brightness(image, max_delta=63)
        image = tf.image.random_contrast(image, lower=0.2, upper=1.8)
        return tf.image.per_image_standardization(image)

    def central(image):
        return tf.image.per_image_standardization(tf.image.resize_image_with_crop_or_pad(image, 24, 24))

    g.x = tf.placeholder(dtype, [None, 32, 32, 3], name="images")
    g.logits = inference(tf.map_fn(central if no_random else distorted, g.x), g.variables())
    g.test_x = tf.placeholder(dtype, [None, 32, 32, 3], name="test_images")
    g.test_images = tf.map_fn(central, g.test_x)
    g.inference = inference
    g.feed_layout = lambda nchw: np.ascontiguousarray(nchw.transpose(0, 2, 3, 1))  # cifar10_input: [H, W, C]
    return g


GRAPHS = {"tf-mnist": mnist_deep, "tf-cifar10": cifar10}


def parameter_layers(layers):
    """(name, type, outputs) of the model file's layers that hold parameters."""
    return [(n, t, int(p["outputs"])) for n, t, p in layers if t in ("convolution", "inner_product")]


def dropout_keep(layers):
    keeps = [float(p.get("keep", 0.5)) for _, t, p in layers if t == "dropout"]
    return keeps[0] if keeps else 1.0


def load_into(sess, graph, params, averages):
    """Assigns ablate's parameters ({name: array in ablate's layout}) to the graph's variables
    and to their moving averages ({name: variable}, maybe empty)."""
    for name, (variable, _, to_tf) in graph.params.items():
        value = np.ascontiguousarray(to_tf(params[name]))
        variable.load(value, sess)
        if name in averages:
            averages[name].load(value, sess)
