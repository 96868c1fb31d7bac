#!/usr/bin/env python3
"""Real TensorFlow beside ablate's tensorflow preset: the study's TF 1.x script, run as a graph
through tf.compat.v1 with eager execution disabled (placeholders, Session.run with feeds), on
the data and recipe ablate used. Run it with the TensorFlow environment's interpreter:

    ${ABLATE_PEERS_DIR:-.peers}/tensorflow/bin/python bench/peers/tensorflow_train.py \
        --model tf-mnist.model|tf-cifar10.model [the arguments of pytorch_train.py's recipe mode] \
        [--onednn on|off] [--inter-op-threads N] [--init-checkpoint FILE] [--no-random]

--onednn off sets TF_ENABLE_ONEDNN_OPTS=0 before TensorFlow loads: its Eigen kernels, the path
TF 1.x had; on (the default of tensorflow-cpu 2.x) is its oneDNN path. --threads is the
intra-op pool, --inter-op-threads the inter-op pool (0: as --threads). The step is the
script's: sess.run([train_op, cross_entropy], feed_dict={images, labels, keep_prob}), the
cross-entropy of the logits and one-hot labels averaged over the batch.
peer_loss lines print the cross-entropy alone (the scripts' L2 terms are trained on but not
printed, as ablate's curve holds the data loss). Graphs: tensorflow_graphs.py.
--weight-average D: the CIFAR-10 tutorial's moving averages of every variable, tested on.
Protocol and result line: peer_common.py; the line adds onednn=on|off inter_op_threads=N cpu_util=C
dropout_keep=K weight_average=D init=ablate|tensorflow.

Without --train-images (speed mode, `ablate bench`): random data, and the last line is
    tensorflow=2.21.0 threads=1 batch=50 images_per_s=1234.5 onednn=on
"""
import os
import sys

import numpy as np

import peer_common as pc
import peer_training


def optimizer_for(tf1, args, rate, dtype):
    """The TF optimizer of ablate's update rule. TF's MomentumOptimizer (a = m a + g;
    w -= lr a) is torch_sgd without dampening exactly, and caffe_sgd (h = m h + lr g; w -= h,
    h = lr a) while the rate is constant. The hyper-parameters are given as tensors of the
    run's dtype: TF turns a Python number into a float32 tensor and casts that to the
    variable's dtype, so an f64 graph would otherwise train with 1e-4, 0.9, 0.999 and 1e-8
    rounded to float32 (the rate 2.5e-8 off, and Adam's beta powers kept in float32); in f32
    this is what the script's numbers give."""
    const = lambda v: tf1.constant(v, dtype=dtype)  # noqa: E731
    rate = const(rate) if isinstance(rate, float) else rate
    o = args.optimizer
    if o == "adam":  # TF's defaults: beta1 0.9, beta2 0.999, epsilon 1e-8 (ablate's adam is TF's formula)
        return tf1.train.AdamOptimizer(rate, beta1=const(0.9), beta2=const(0.999), epsilon=const(1e-8))
    if o == "gd" or (o in ("torch_sgd", "caffe_sgd") and args.momentum == 0):
        return tf1.train.GradientDescentOptimizer(rate)
    if o == "caffe_sgd" and args.lr_policy != "fixed":
        raise pc.NotComparable(f"caffe_sgd with lr policy {args.lr_policy} (TF's momentum applies the rate outside the history)")
    return tf1.train.MomentumOptimizer(rate, const(args.momentum))


def build(tf1, args, layers, dtype):
    from tensorflow_graphs import GRAPHS, parameter_layers
    name = pc.model_header(args.model)[0]
    if name not in GRAPHS:
        raise pc.NotComparable(f"model '{name}' (the TensorFlow runner has the study's graphs {', '.join(GRAPHS)})")
    graph = GRAPHS[name](tf1, dtype, args.no_random)
    if parameter_layers(layers) != graph.layers:
        raise pc.NotComparable(f"model file {args.model}: its layers {parameter_layers(layers)} are not "
                               f"the script's {graph.layers}")
    for _, t, p in layers:
        if float(p.get("weight_lr_mult", 1)) != 1 or float(p.get("bias_lr_mult", 1)) != 1:
            raise pc.NotComparable("per-layer learning-rate multipliers (the TF scripts have none)")
    if graph.transforms and args.train_images:
        check_transforms(args, graph.transforms, name)
    return graph


def check_transforms(args, script, name):
    """A graph that preprocesses itself takes the script's (training, test) rules only; with
    --no-random the test rules for both (step_check.py gives ablate the same)."""
    accepted = {script, (script[1], script[1])} if args.no_random else {script}
    if (args.transform, args.test_transform or args.transform) not in accepted:
        raise pc.NotComparable(f"preprocessing '{args.transform}' / '{args.test_transform}' (the {name} graph does "
                               f"the script's own: '{script[0]}' / '{script[1]}')")


def weight_decay_term(tf1, graph, layers, args):
    """The scripts' L2 terms: wd * tf.nn.l2_loss(w) = wd/2 * sum(w^2) per decayed parameter,
    whose gradient is wd * w, ablate's decay."""
    mults = {}
    for n, _, p in layers:
        mults[n + ".weight"] = float(p.get("weight_decay_mult", 1))
        mults[n + ".bias"] = float(p.get("bias_decay_mult", 1))
    terms = [args.weight_decay * mults[n] * tf1.nn.l2_loss(v)
             for n, (v, _, _) in graph.params.items() if args.weight_decay * mults[n] != 0]
    return tf1.add_n(terms) if terms else None


def training_ops(tf1, args, graph, loss, rate, dtype):
    """The script's train op: the optimizer's update, then (with --weight-average D, the CIFAR-10
    tutorial's MOVING_AVERAGE_DECAY) tf.train.ExponentialMovingAverage(D, global_step).apply to
    every variable under a control dependency on the update; the test logits, on the averages
    then (cifar10_eval.py restores them into the variables); and {name: average variable}."""
    global_step = tf1.train.get_or_create_global_step()
    update = optimizer_for(tf1, args, rate, dtype).minimize(loss, global_step=global_step)
    weights = graph.variables()
    if args.weight_average <= 0:
        return update, graph.inference(graph.test_images, weights), {}
    ema = tf1.train.ExponentialMovingAverage(args.weight_average, global_step)
    with tf1.control_dependencies([update]):
        train_op = ema.apply(list(weights.values()))
    averages = {n: ema.average(v) for n, v in weights.items()}
    return train_op, graph.inference(graph.test_images, averages), averages


def run(args, tf):
    tf1 = tf.compat.v1
    tf1.disable_eager_execution()
    tf1.set_random_seed(args.seed)  # the scripts set none; fixed here to repeat runs
    peer_training.check_recipe(args, ("adam", "gd", "torch_sgd", "caffe_sgd"))
    shape, classes, layers = pc.parse_model(args.model)
    pc.require_chain(layers)  # the tutorials' graphs are sequential
    dtype = tf.float64 if peer_training.run_dtype(args) == np.float64 else tf.float32
    graph = build(tf1, args, layers, dtype)  # a model it lacks: before reading any data
    own = graph.transforms is not None  # the graph preprocesses raw pixels itself
    data = peer_training.Data(args, transform=not own) if args.train_images else \
        peer_training.Data.synthetic(args, [shape[0], 32, 32] if own else shape, classes)
    if not own:
        data.check_shape(args, shape)
    labels = tf1.placeholder(tf.int64, [None], name="labels")
    cross_entropy = tf1.reduce_mean(tf1.nn.softmax_cross_entropy_with_logits_v2(
        labels=tf1.one_hot(labels, classes, dtype=dtype), logits=graph.logits))
    decay = weight_decay_term(tf1, graph, layers, args)
    loss = cross_entropy if decay is None else cross_entropy + decay
    rate = args.base_lr if args.lr_policy == "fixed" else tf1.placeholder(dtype, [], name="learning_rate")
    train_op, test_logits, averages = training_ops(tf1, args, graph, loss, rate, dtype)
    prediction = tf1.argmax(test_logits, 1)

    from tensorflow_graphs import dropout_keep, load_into
    keep = 1.0 if args.no_random else dropout_keep(layers)
    inter = args.inter_op_threads or args.threads
    config = tf1.ConfigProto(intra_op_parallelism_threads=args.threads, inter_op_parallelism_threads=inter)
    sess = tf1.Session(config=config)
    sess.run(tf1.global_variables_initializer())
    if args.init_checkpoint:  # into the variables and their averages, which start from the initial weights
        import ablate_checkpoint
        expected = {n: s for n, (_, s, _) in graph.params.items()}
        load_into(sess, graph, ablate_checkpoint.load_parameters(args.init_checkpoint, expected, data.dtype), averages)
    data.train, data.test = graph.feed_layout(data.train), graph.feed_layout(data.test)  # once, as input_data

    def step(idx, i):
        feed = {graph.x: data.train[idx], labels: data.train_labels[idx]}
        if graph.keep_prob is not None:
            feed[graph.keep_prob] = keep
        if args.lr_policy != "fixed":
            feed[rate] = pc.learning_rate(args, i)
        return sess.run([train_op, cross_entropy], feed_dict=feed)[1]

    timing = peer_training.train(args, data, step)
    extra = {"onednn": args.onednn, "inter_op_threads": inter}
    if not args.train_images:
        print(f"tensorflow={tf.__version__} threads={args.threads} batch={args.batch} "
              f"images_per_s={timing.images_per_s:.1f} onednn={args.onednn}")
        return
    accuracy = peer_training.test_accuracy(args, data, lambda xb: sess.run(prediction, {graph.test_x: xb}))
    print(pc.result_line("tensorflow", tf.__version__, args, timing, accuracy,
                         **extra, dropout_keep=keep,
                         weight_average=args.weight_average, init="ablate" if args.init_checkpoint else "tensorflow"))


def main():
    ap = pc.new_parser(__doc__)
    pc.recipe_arguments(ap)
    pc.comparison_arguments(ap)
    g = ap.add_argument_group("TensorFlow")
    g.add_argument("--onednn", choices=("on", "off"), default="on",
                   help="on: TF's oneDNN path (tensorflow-cpu 2.x's default); off: TF_ENABLE_ONEDNN_OPTS=0, the Eigen path of TF 1.x")
    g.add_argument("--inter-op-threads", type=int, default=0, help="inter_op_parallelism_threads (0: as --threads)")
    args = ap.parse_args()
    os.environ["TF_ENABLE_ONEDNN_OPTS"] = "1" if args.onednn == "on" else "0"  # read when TF loads
    os.environ.setdefault("TF_CPP_MIN_LOG_LEVEL", "2")

    def load_and_run():
        import tensorflow as tf  # after TF_ENABLE_ONEDNN_OPTS is set
        run(args, tf)
    return pc.exit_status(load_and_run)


if __name__ == "__main__":
    sys.exit(main())
