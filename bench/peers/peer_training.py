"""The recipe-mode loop of the real-framework runners (tensorflow_train.py, theano_train.py):
the data as the real scripts hold it, the timed training steps, the loss lines, the test pass.

The real scripts read their whole data set into memory as floats before training
(TF's input_data.read_data_sets, the Theano tutorials' load_data into shared variables), so
the data are transformed once here, before the clock starts; a step's data time is the
indexing of its batch. images_per_s counts the steps after the warm-up ones.
"""
import math

import numpy as np

from peer_common import NotComparable, StepClock, Transform, batch_indices, read_idx, read_images, test_batches


class Data:
    """Training and test images after the recipe's rules ([N, C, H, W] in the run's dtype) and
    their labels (int64): from ablate's IDX files, or random (speed mode)."""

    def __init__(self, args, transform=True):
        """transform False: the pixel values alone, for a graph that preprocesses them itself."""
        self.dtype = run_dtype(args)
        train_u8, test_u8 = read_images(args.train_images), read_images(args.test_images)
        spec = args.transform if transform else ""
        transform = Transform(spec, train_u8, self.dtype)
        test_transform = Transform(args.test_transform, train_u8, self.dtype) if args.test_transform and spec else transform
        self.train, self.test = transform(train_u8), test_transform(test_u8)
        self.train_labels = read_idx(args.train_labels).astype(np.int64)
        self.test_labels = read_idx(args.test_labels).astype(np.int64)
        for what, x, y in (("training", self.train, self.train_labels), ("test", self.test, self.test_labels)):
            if x.shape[0] != y.shape[0]:
                raise SystemExit(f"peer: {x.shape[0]} {what} images but {y.shape[0]} labels")

    @classmethod
    def synthetic(cls, args, shape, classes):
        """4 batches of uniform [0, 1) images and random labels, for speed alone."""
        d = cls.__new__(cls)
        d.dtype = run_dtype(args)
        rng = np.random.RandomState(args.seed)
        d.train = d.test = rng.rand(4 * args.batch, *shape).astype(d.dtype)
        d.train_labels = d.test_labels = rng.randint(0, classes, 4 * args.batch).astype(np.int64)
        return d

    def check_shape(self, args, shape):
        got = list(self.train.shape[1:])
        if got != list(shape):
            raise SystemExit(f"peer: data after '{args.transform}' is {got}; the model {args.model} expects {shape}")


def run_dtype(args):
    if args.precision not in ("f32", "f64"):
        raise NotComparable(f"precision {args.precision}")
    return np.float64 if args.precision == "f64" else np.float32


def train(args, data, step):
    """Runs step(batch indices, iteration) -> loss over --iterations batches (the step takes
    its batch from data by the indices, as the real script does); prints the loss lines if
    asked; returns the stopped StepClock (peer_common). A non-finite loss ends the run, as
    ablate's 'diverged'."""
    shuffle = args.shuffle and not args.no_random
    batches = batch_indices(data.train.shape[0], args.batch, shuffle, np.random.RandomState(args.seed))
    print_loss = args.print_loss or args.no_random
    clock = StepClock(args)
    for i in range(args.iterations):
        clock.step_started(i)
        idx = next(batches)
        loss = float(step(idx, i))
        clock.step_done(i)
        if print_loss:
            print(f"peer_loss {i + 1} {loss:.17g}", flush=True)
        if not math.isfinite(loss):
            raise SystemExit(f"peer: loss is {loss} at iteration {i}")
    return clock.stop()


def test_accuracy(args, data, predict):
    """The fraction of the test pass that predict(x) -> class ids gets right."""
    correct, total = 0, 0
    for idx in test_batches(args, data.test.shape[0]):
        correct += int((np.asarray(predict(data.test[idx])) == data.test_labels[idx]).sum())
        total += len(idx)
    return correct / total


def check_recipe(args, optimizers):
    """The recipe features every real-framework runner lacks, and the optimizers it has."""
    if args.per_sample:
        raise NotComparable("per-sample training (Torch CIFAR-10's one-sample forward/backward)")
    if args.optimizer not in optimizers:
        raise NotComparable(f"optimizer '{args.optimizer}' (this runner has {', '.join(optimizers)})")
    if args.optimizer == "torch_sgd" and args.dampening != 0:
        raise NotComparable("torch_sgd with dampening")
