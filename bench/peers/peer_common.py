"""What every peer runner shares, with numpy only (each real framework's virtual environment has
numpy, none has another framework): the model file's header and layers, IDX data, the
preprocessing rules, learning-rate policies, the batch order, the arguments ablate passes and
the result lines a runner prints.

The protocol (bench/peer_runner.cpp): ablate writes the data it trained and tested on as IDX
files and passes its resolved recipe as arguments (`recipe_arguments` below); the runner trains
`--iterations` steps, tests, and prints as its last line
    peer_result <framework>=<version> threads=T batch=B iterations=N warmup=W images_per_s=X
                accuracy=A peak_rss_bytes=R precision=P [more key=value]     (one line)
or exits with status 3 after `peer_not_comparable: <the feature>`. With --print-loss (implied
by --no-random) it prints `peer_loss STEP VALUE` for every step, STEP counted from 1 and VALUE
the loss of that step's batch before its update, as ablate's curve records it.
"""
import argparse
import gzip
import resource
import struct
import time

import numpy as np

NOT_COMPARABLE_EXIT = 3


class NotComparable(Exception):
    """A recipe feature this script cannot reproduce; the message names it."""


def model_header(path):
    """(name, [C, H, W], classes, [(layer name, type, {key: value})]) of an ablate model file."""
    name, shape, classes, layers = None, None, None, []
    with open(path) as f:
        for line in f:
            line = line.split("#", 1)[0].split()
            if not line:
                continue
            if line[0] == "model":
                name = line[1]
            elif line[0] == "input":
                shape = [int(v) for v in line[1:4]]
            elif line[0] == "classes":
                classes = int(line[1])
            elif line[0] == "layer":
                layers.append((line[1], line[2], dict(kv.split("=", 1) for kv in line[3:])))
    return name, shape, classes, layers


def layer_inputs(layers):
    """Each layer's inputs as names, in order: its `input=a,b` or the layer before it ("data",
    the model input, for the first), as models/README.md reads them."""
    return [p["input"].split(",") if "input" in p else [layers[i - 1][0] if i else "data"]
            for i, (_, _, p) in enumerate(layers)]


def require_chain(layers):
    """Raises NotComparable unless every layer reads the one before it (a runner that builds
    only sequential networks)."""
    for i, (inputs, (name, _, _)) in enumerate(zip(layer_inputs(layers), layers)):
        expected = layers[i - 1][0] if i else "data"
        if inputs != [expected]:
            raise NotComparable(f"layer {name} reads {','.join(inputs)}, not the layer before it "
                                "(only sequential models)")


def parse_model(path):
    """Returns (input C,H,W, classes, [(name, type, params)]) from an ablate model file."""
    return model_header(path)[1:]


def read_idx(path):
    """An IDX file (u8 data, any number of dimensions) as a numpy array, read once (no copy,
    so the data's bytes count once in the peak RSS, as in ablate's ImageSet)."""
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rb") as f:
        head = f.read(4)
        magic = struct.unpack(">I", head)[0] if len(head) == 4 else 0
        if magic >> 8 != 0x08:
            raise SystemExit(f"{path}: magic 0x{magic:08X} is not an IDX file of unsigned bytes")
        ndims = magic & 0xFF
        dims = struct.unpack(">" + "I" * ndims, f.read(4 * ndims))
        data = np.empty(int(np.prod(dims)), dtype=np.uint8)
        view, got = memoryview(data), 0
        while got < data.size:
            n = f.readinto(view[got:])
            if not n:
                raise SystemExit(f"{path}: {got} bytes of data, the header says {dims}")
            got += n
    return data.reshape(dims)


def read_images(path):
    """[N, H, W] (one channel) or [N, C, H, W] as a uint8 array [N, C, H, W]."""
    a = read_idx(path)
    return a.reshape(a.shape[0], 1, a.shape[1], a.shape[2]) if a.ndim == 3 else a


class Transform:
    """datasets/transforms.h rules joined by '+', in order, on a uint8 batch [n, C, H, W], in
    numpy: scale:F (x*F in the run's dtype), pad:P (zeros around), mean:image (minus the
    training mean image), standardize:global (minus the mean, over the sample std of every
    training value after the rules before it: Torch's normalizeGlobal)."""

    SUPPORTED = ("scale", "pad", "mean", "standardize")

    def __init__(self, spec, train, dtype):
        self.stages, self.dtype = [], np.dtype(dtype)
        for part in [p for p in spec.split("+") if p]:
            rule, _, arg = part.partition(":")
            if rule not in self.SUPPORTED or (rule == "mean" and arg != "image") or \
                    (rule == "standardize" and arg != "global"):
                raise NotComparable(f"preprocessing rule '{part}'")
            if rule == "scale":
                num, _, den = arg.partition("/")
                self.stages.append(("scale", float(num) / (float(den) if den else 1.0)))
            elif rule == "pad":
                self.stages.append(("pad", int(arg)))
            else:  # fitted on the training set through the stages before it
                self.stages.append((rule, self._fit(rule, train)))

    def _fit(self, rule, train):
        total, total_sq, count, image_sum = 0.0, 0.0, 0, None
        for start in range(0, train.shape[0], 4096):
            x = self.apply(train[start:start + 4096]).astype(np.float64)
            if rule == "mean":
                s = x.sum(0)
                image_sum = s if image_sum is None else image_sum + s
            else:
                total += float(x.sum())
                total_sq += float((x * x).sum())
                count += x.size
        if rule == "mean":
            return (image_sum / train.shape[0]).astype(self.dtype)
        mean = total / count
        std = ((total_sq - count * mean * mean) / (count - 1)) ** 0.5
        return (mean, std)

    def __call__(self, u8):
        return self.apply(u8)

    def apply(self, u8):
        """The rules on a uint8 numpy batch (the fitting uses this, whatever __call__ is)."""
        x = u8.astype(self.dtype)
        for rule, arg in self.stages:
            if rule == "scale":
                x = x * self.dtype.type(arg)
            elif rule == "pad":
                x = np.pad(x, ((0, 0), (0, 0), (arg, arg), (arg, arg)))
            elif rule == "mean":
                x = x - arg
            else:
                x = (x - self.dtype.type(arg[0])) * self.dtype.type(1.0 / arg[1])
        return x


def learning_rate(a, t):
    """The policy's rate at iteration t (0-based)."""
    p = a.lr_policy
    if p == "fixed":
        return a.base_lr
    if p == "inv":
        return a.base_lr * (1 + a.gamma * t) ** (-a.power)
    if p in ("step", "exp_staircase"):
        return a.base_lr * a.gamma ** (t // a.stepsize)
    if p == "multistep":
        steps = [int(v) for v in a.stepvalues.split(",") if v]
        return a.base_lr * a.gamma ** sum(1 for v in steps if v <= t)
    if p == "torch_decay":
        return a.base_lr / (1 + t * a.gamma)
    raise NotComparable(f"lr policy '{p}'")


def batch_indices(n, batch, shuffle, rng):
    """Batches of sample indices that run on across epochs (a batch past the end wraps into
    the next epoch, as ablate's loader and TF's DataSet.next_batch do); each epoch shuffled
    by rng (a numpy RandomState) or in file order."""
    order, pos = np.empty(0, dtype=np.int64), 0
    while True:
        parts, have = [], 0
        while have < batch:
            if pos == len(order):
                order, pos = (rng.permutation(n) if shuffle else np.arange(n)), 0
            take = min(batch - have, len(order) - pos)
            parts.append(order[pos:pos + take])
            pos, have = pos + take, have + take
        yield np.concatenate(parts)


def test_batches(args, test_count):
    """Index arrays of the test pass: --test-iterations batches of --test-batch (wrapping, as
    ablate's), or the whole test set."""
    total = args.test_iterations * args.test_batch if args.test_iterations > 0 else test_count
    for start in range(0, total, args.test_batch):
        yield np.arange(start, min(start + args.test_batch, total)) % test_count


def peak_rss_bytes():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def recipe_arguments(ap):
    """The arguments ablate passes to every runner (bench/peer_runner.cpp peer_arguments)."""
    ap.add_argument("--model", required=True)
    ap.add_argument("--threads", type=int, default=1)
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--warmup", type=int, default=3, help="untimed steps first (recipe mode: part of --iterations)")
    ap.add_argument("--iterations", type=int, default=30)
    ap.add_argument("--windows", type=int, default=8,
                    help="report the images/s of this many equal runs of the timed steps (window_images_per_s=)")
    ap.add_argument("--lr", "--base-lr", dest="base_lr", type=float, default=0.01)
    ap.add_argument("--seed", type=int, default=1)
    g = ap.add_argument_group("recipe mode")
    g.add_argument("--train-images")
    g.add_argument("--train-labels")
    g.add_argument("--test-images")
    g.add_argument("--test-labels")
    g.add_argument("--optimizer", default="caffe_sgd", help="caffe_sgd, torch_sgd, gd, adam")
    g.add_argument("--lr-policy", default="fixed", help="fixed, inv, step, multistep, exp_staircase, torch_decay")
    g.add_argument("--gamma", type=float, default=0.0)
    g.add_argument("--power", type=float, default=0.0)
    g.add_argument("--stepsize", type=int, default=0)
    g.add_argument("--stepvalues", default="")
    g.add_argument("--momentum", type=float, default=0.0)
    g.add_argument("--dampening", type=float, default=0.0)
    g.add_argument("--weight-decay", type=float, default=0.0)
    g.add_argument("--transform", default="")
    g.add_argument("--test-transform", default="")
    g.add_argument("--test-batch", type=int, default=100)
    g.add_argument("--test-iterations", type=int, default=0, help="0: the whole test set")
    g.add_argument("--shuffle", action="store_true")
    g.add_argument("--precision", default="f32")
    g.add_argument("--per-sample", action="store_true")
    g.add_argument("--weight-average", type=float, default=0.0)
    return g


def comparison_arguments(ap):
    """The arguments of the real-framework runners for a step-by-step comparison."""
    g = ap.add_argument_group("comparison with ablate")
    g.add_argument("--init-checkpoint", metavar="FILE",
                   help="start from the parameters of this ablate checkpoint (`<layer>.weight`, `<layer>.bias`)")
    g.add_argument("--no-random", action="store_true",
                   help="switch the random parts off (dropout keeps everything, batches in file order); "
                        "implies --print-loss")
    g.add_argument("--print-loss", action="store_true", help="print `peer_loss STEP VALUE` for every step")
    return g


def exit_status(run):
    """Runs run(); a recipe feature it cannot reproduce ends it with `peer_not_comparable: ...`
    and status 3, which ablate reads as a 'not comparable' row."""
    try:
        run()
    except NotComparable as e:
        print(f"peer_not_comparable: {e}", flush=True)
        return NOT_COMPARABLE_EXIT
    return 0


def new_parser(doc):
    return argparse.ArgumentParser(description=doc, formatter_class=argparse.RawDescriptionHelpFormatter)


class StepClock:
    """The clock of the timed training steps, those after the warm-up ones: wall and process CPU
    seconds, and the images/s of each of --windows equal runs of them (the last run takes the
    remainder), so that ablate can state how the speed moved within the run beside its ratio.
    Call step_started(i) before step i and step_done(i) after it (i from 0)."""

    def __init__(self, args):
        self.batch = args.batch
        self.warmup = min(args.warmup, args.iterations // 2)
        self.steps = args.iterations - self.warmup
        if args.windows < 1:
            raise SystemExit(f"peer: --windows {args.windows}: expected a positive number of windows")
        windows = min(args.windows, max(1, self.steps))
        self.ends = [self.warmup + (w + 1) * self.steps // windows for w in range(windows)]
        self.marks = []  # (steps done, wall seconds) at each window's end
        self.t0, self.cpu0 = time.perf_counter(), time.process_time()

    def step_started(self, i):
        if i == self.warmup:
            self.t0, self.cpu0 = time.perf_counter(), time.process_time()

    def step_done(self, i):
        if i + 1 in self.ends:
            self.marks.append((i + 1, time.perf_counter()))

    def stop(self):
        """Ends the timed steps: sets seconds, images_per_s, cpu_util (cores busy) and
        window_images_per_s (a comma-separated list for the result line)."""
        self.seconds = time.perf_counter() - self.t0
        self.images_per_s = self.steps * self.batch / self.seconds if self.seconds > 0 else 0.0
        self.cpu_util = (time.process_time() - self.cpu0) / self.seconds if self.seconds > 0 else 0.0
        rates, (done, t) = [], (self.warmup, self.t0)
        for end, at in self.marks:
            if at > t:
                rates.append((end - done) * self.batch / (at - t))
            done, t = end, at
        self.window_images_per_s = ",".join(f"{r:.1f}" for r in rates)
        return self


def result_line(framework, version, args, clock, accuracy, **more):
    """The `peer_result` line ablate parses (bench/peer_runner.cpp parse_peer_output), with the
    timed steps' figures from the stopped StepClock."""
    fields = [f"{framework}={version}", f"threads={args.threads}", f"batch={args.batch}",
              f"iterations={args.iterations}", f"warmup={clock.warmup}", f"images_per_s={clock.images_per_s:.1f}",
              f"accuracy={accuracy:.6f}", f"peak_rss_bytes={peak_rss_bytes()}", f"precision={args.precision}",
              f"cpu_util={clock.cpu_util:.2f}", f"window_images_per_s={clock.window_images_per_s}"]
    fields += [f"{k}={v}" for k, v in more.items()]
    return "peer_result " + " ".join(fields)
