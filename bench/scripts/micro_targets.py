#!/usr/bin/python3
"""The per-layer speed targets from one ablate_micro JSON run: the share of the measured FMA peak
that a model's convolution and fully connected layers reach together.

Usage: micro_targets.py RUN.json [--model lenet=0.35 --model cifar=0.50]

RUN.json comes from
  ablate_micro --benchmark_filter='^(conv|fc)/(lenet|cifar)' --benchmark_repetitions=3 \
               --benchmark_out=RUN.json --benchmark_out_format=json
For each model prefix (lenet_*, cifar_*), backend and thread count it adds the FLOPs of every
conv and fc benchmark of that model, forward, backward data and backward weights (FLOPs =
FLOP/s x time of the median repetition), divides by the summed median times, and prints the
result against the probe's peak at that thread count (fma_peak_gflops_1t / _2t in the run's
context). The target line names the fastest backend at 2 threads and says pass or FAIL.
Standard library only.
"""

import argparse
import json
import re
import statistics
import sys
from collections import defaultdict

UNIT_S = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}
NAME = re.compile(r"^(conv|fc)/([a-z0-9]+)_[a-z0-9]+/(forward|backward_data|backward_weights)/([a-z]+)/threads:(\d+)")


def load(path):
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        sys.exit(f"micro_targets: {path}: cannot read Google Benchmark JSON: {e}")
    context = doc.get("context", {})
    peaks = {}
    for threads, key in ((1, "fma_peak_gflops_1t"), (2, "fma_peak_gflops_2t")):
        if key not in context:
            sys.exit(f"micro_targets: {path}: context has no '{key}' (not an ablate_micro run?)")
        peaks[threads] = float(context[key]) * 1e9
    # (model, backend, threads) -> layer pass -> [(seconds, flops)] over repetitions
    runs = defaultdict(lambda: defaultdict(list))
    for entry in doc.get("benchmarks", []):
        if entry.get("run_type") == "aggregate" or entry.get("error_occurred"):
            continue
        m = NAME.match(entry.get("run_name", entry["name"]))
        if not m:
            continue
        kind, model, pass_name, backend, threads = m.groups()
        seconds = float(entry["real_time"]) * UNIT_S[entry.get("time_unit", "ns")]
        layer = entry["run_name"].split("/")[1] + "/" + pass_name
        runs[(model, backend, int(threads))][layer].append((seconds, float(entry["FLOP/s"]) * seconds))
    return context, peaks, runs


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("run")
    parser.add_argument("--model", action="append", default=None,
                        help="MODEL=FRACTION target at 2 threads (default lenet=0.35, cifar=0.50)")
    args = parser.parse_args()
    targets = {}
    for spec in args.model or ["lenet=0.35", "cifar=0.50"]:
        name, _, value = spec.partition("=")
        try:
            targets[name] = float(value)
        except ValueError:
            sys.exit(f"micro_targets: --model {spec}: expected MODEL=FRACTION, e.g. cifar=0.50")
    context, peaks, runs = load(args.run)
    print(f"FMA probe ({context.get('fma_probe_isa', '?')}): {peaks[1] / 1e9:.1f} GFLOP/s on 1 thread, "
          f"{peaks[2] / 1e9:.1f} on 2; OPENBLAS_CORETYPE={context.get('env.OPENBLAS_CORETYPE', '') or 'unset'}")
    print(f"{'model':<8}{'backend':<10}{'thr':>4}{'layers':>8}{'time ms':>10}{'GFLOP/s':>10}{'of peak':>9}")
    best = {}
    for (model, backend, threads), layers in sorted(runs.items()):
        seconds = flops = 0.0
        for samples in layers.values():
            median_seconds = statistics.median(s for s, _ in samples)
            seconds += median_seconds
            flops += statistics.median(f for _, f in samples)
        rate = flops / seconds
        frac = rate / peaks[threads]
        print(f"{model:<8}{backend:<10}{threads:>4}{len(layers):>8}{seconds * 1e3:>10.3f}{rate / 1e9:>10.1f}{frac:>9.1%}")
        if threads == 2 and frac > best.get(model, ("", 0.0))[1]:
            best[model] = (backend, frac)
    failed = False
    for model, target in targets.items():
        if model not in best:
            print(f"target {model}: no 2-thread runs in {args.run}")
            failed = True
            continue
        backend, frac = best[model]
        ok = frac >= target
        failed |= not ok
        print(f"target {model}: conv+fc at 2 threads on {backend} reach {frac:.1%} of peak "
              f"(target {target:.0%}): {'pass' if ok else 'FAIL'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
