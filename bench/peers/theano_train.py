#!/usr/bin/env python3
"""Real Theano 1.0.5 beside ablate's theano preset: the deeplearning.net tutorials' training,
on the data and recipe ablate used. Run it with the Theano environment's interpreter:

    ${ABLATE_PEERS_DIR:-.peers}/theano/bin/python bench/peers/theano_train.py \
        --model theano-lenet5.model [the arguments of pytorch_train.py's recipe mode] \
        [--init-checkpoint FILE] [--no-random] [--compile-dir DIR]

As the tutorials: the data live in shared variables (floatX), one theano.function per step
takes the minibatch through `givens` (here by an index vector, so that ablate's batches, which
wrap across epochs, are the same ones), cost = the LogisticRegression's NLL, and
updates = [(p, p - learning_rate * grad)] (with momentum: v = m v - lr g; p += v, ablate's
caffe_sgd). The network: theano_graphs.py.

Set before Theano loads: THEANO_FLAGS floatX=float64|float32 (--precision),
blas.ldflags=-lopenblas, base_compiledir=<this environment>/theano-compile (not ~/.theano;
--compile-dir sets another), then the caller's THEANO_FLAGS; OPENBLAS_NUM_THREADS and
OMP_NUM_THREADS = --threads (CorrMM and dot run on OpenBLAS's threads).
Protocol and result line: peer_common.py; the line adds cpu_util=C blas=openblas and compile_dir=DIR.
Without --train-images (speed mode): random data; last line
    theano=1.0.5 threads=1 batch=500 images_per_s=1234.5
"""
import os
import sys

import peer_common as pc
import peer_training


def set_environment(args):
    compile_dir = args.compile_dir or os.path.join(sys.prefix, "theano-compile")
    flags = [f"floatX={'float64' if args.precision == 'f64' else 'float32'}", "blas.ldflags=-lopenblas",
             f"base_compiledir={compile_dir}"]
    if os.environ.get("THEANO_FLAGS"):
        flags.append(os.environ["THEANO_FLAGS"])  # the caller's come last and win
    os.environ["THEANO_FLAGS"] = ",".join(flags)
    os.environ["OPENBLAS_NUM_THREADS"] = os.environ["OMP_NUM_THREADS"] = str(args.threads)
    return compile_dir


def updates_for(T, args, params, cost, layers, rate):
    """[(shared, new value)] of ablate's update rule on every parameter, the tutorial's form."""
    mult = {}
    for n, _, p in layers:
        for part in ("weight", "bias"):
            mult[f"{n}.{part}"] = (float(p.get(f"{part}_lr_mult", 1)), float(p.get(f"{part}_decay_mult", 1)))
    shared = [prm.shared for prm in params.values()]
    grads = T.grad(cost, shared)
    updates = []
    for name, p, g in zip(params, shared, grads):
        lr_mult, decay_mult = mult[name]
        wd = args.weight_decay * decay_mult
        d = g if wd == 0 else g + wd * p
        lr = rate * lr_mult
        if args.optimizer == "gd" or args.momentum == 0:
            updates.append((p, p - lr * d))
            continue
        import theano
        v = theano.shared(p.get_value() * 0, name=name + ".velocity", borrow=True)
        if args.optimizer == "caffe_sgd":  # the tutorial's v = m v - lr g; p += v
            v_new = args.momentum * v - lr * d
            updates += [(v, v_new), (p, p + v_new)]
        else:  # torch_sgd: v = d on the first step, m v + d after; p -= lr v
            first = theano.shared(1, name=name + ".first")
            v_new = T.switch(T.eq(first, 1), d, args.momentum * v + d)
            updates += [(v, v_new), (p, p - lr * v_new), (first, 0)]
    # A Python number (momentum, decay, a rate times its multiplier) is a float64 constant to
    # Theano: in a float32 run each update is cast back to its variable's type (f64: unchanged).
    return [(var, value if var.dtype == value.dtype else T.cast(value, var.dtype))
            if hasattr(value, "dtype") else (var, value) for var, value in updates]


def run(args):
    import numpy as np
    import theano
    import theano.tensor as T

    from theano_graphs import build

    peer_training.check_recipe(args, ("gd", "caffe_sgd", "torch_sgd"))
    if args.weight_average > 0:
        raise pc.NotComparable("evaluation with moving-average weights (no Theano recipe has it)")
    shape, classes, layers = pc.parse_model(args.model)
    pc.require_chain(layers)  # the tutorials' graphs are sequential
    dtype = peer_training.run_dtype(args)
    if np.dtype(theano.config.floatX) != dtype:
        raise SystemExit(f"peer: THEANO_FLAGS sets floatX={theano.config.floatX}; --precision {args.precision} needs "
                         f"{np.dtype(dtype).name}")
    x, y, idx = T.tensor4("x"), T.ivector("y"), T.lvector("index")
    log_p, params = build(theano, T, layers, shape, x, args.seed, dtype, args.pool_gradient)  # before any data
    data = peer_training.Data(args) if args.train_images else peer_training.Data.synthetic(args, shape, classes)
    data.check_shape(args, shape)
    if args.init_checkpoint:
        import ablate_checkpoint
        loaded = ablate_checkpoint.load_parameters(
            args.init_checkpoint, {n: prm.ablate_shape for n, prm in params.items()}, data.dtype)
        for n, prm in params.items():
            prm.shared.set_value(prm.to_theano(loaded[n]), borrow=True)
    cost = -T.mean(log_p[T.arange(y.shape[0]), y])  # LogisticRegression.negative_log_likelihood
    fixed = args.lr_policy == "fixed"
    rate = np.asarray(args.base_lr, dtype=data.dtype) if fixed else T.scalar("learning_rate", dtype=data.dtype)
    train_x = theano.shared(data.train, borrow=True)
    train_y = theano.shared(data.train_labels.astype(np.int32), borrow=True)
    train_model = theano.function([idx] + ([] if fixed else [rate]), cost,
                                  updates=updates_for(T, args, params, cost, layers, rate),
                                  givens={x: train_x[idx], y: train_y[idx]})
    predict = theano.function([x], T.argmax(log_p, axis=1))

    def step(batch, i):
        return train_model(batch) if fixed else train_model(batch, pc.learning_rate(args, i))

    timing = peer_training.train(args, data, step)
    if not args.train_images:
        print(f"theano={theano.__version__} threads={args.threads} batch={args.batch} "
              f"images_per_s={timing.images_per_s:.1f}")
        return
    accuracy = peer_training.test_accuracy(args, data, predict)
    print(pc.result_line("theano", theano.__version__, args, timing, accuracy,
                         blas="openblas",
                         init="ablate" if args.init_checkpoint else "theano", pool_gradient=args.pool_gradient,
                         compile_dir=theano.config.base_compiledir))


def main():
    ap = pc.new_parser(__doc__)
    pc.recipe_arguments(ap)
    pc.comparison_arguments(ap)
    g = ap.add_argument_group("Theano")
    g.add_argument("--compile-dir", help="Theano's base_compiledir (default: theano-compile in this environment)")
    g.add_argument("--pool-gradient", choices=("all", "first"), default="all",
                   help="all: Theano's max-pooling gradient, to every element equal to the maximum; first: to the "
                        "first only, as ablate (a departure from Theano, to measure that one difference)")
    args = ap.parse_args()
    set_environment(args)  # before Theano loads
    return pc.exit_status(lambda: run(args))


if __name__ == "__main__":
    sys.exit(main())
