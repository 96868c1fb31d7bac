#!/usr/bin/python3
"""Compares two Google Benchmark JSON outputs of ablate_micro.

Usage: compare_micro.py BASE.json NEW.json [--cpu] [--filter REGEX]

Each file comes from `ablate_micro --benchmark_format=json > F` or `--benchmark_out=F`.
Per benchmark present in either file it prints the two times (real time unless --cpu; with
repetitions, the median) and the ratio NEW/BASE (< 1: NEW is faster), then the geometric mean
of the ratios over the benchmarks in both files. Standard library only.
"""

import argparse
import json
import math
import re
import statistics
import sys

UNIT_NS = {"ns": 1.0, "us": 1e3, "ms": 1e6, "s": 1e9}


def load(path, field):
    """Returns (context, {benchmark name: time in ns}) from one JSON file."""
    try:
        with open(path, encoding="utf-8") as f:
            doc = json.load(f)
    except (OSError, json.JSONDecodeError) as e:
        sys.exit(f"compare_micro: {path}: cannot read Google Benchmark JSON: {e}")
    if "benchmarks" not in doc:
        sys.exit(f"compare_micro: {path}: no 'benchmarks' list; expected --benchmark_format=json output")
    samples, medians = {}, {}
    for entry in doc["benchmarks"]:
        if entry.get("error_occurred"):
            continue
        unit = entry.get("time_unit", "ns")
        if unit not in UNIT_NS:
            sys.exit(f"compare_micro: {path}: benchmark {entry.get('name')}: unknown time_unit '{unit}'")
        value = float(entry[field]) * UNIT_NS[unit]
        name = entry.get("run_name", entry["name"])
        if entry.get("run_type") == "aggregate":
            if entry.get("aggregate_name") == "median":
                medians[name] = value
        else:
            samples.setdefault(name, []).append(value)
    times = {name: statistics.median(values) for name, values in samples.items()}
    times.update(medians)
    return doc.get("context", {}), times


def format_ns(ns):
    for unit, scale in (("s", 1e9), ("ms", 1e6), ("us", 1e3)):
        if ns >= scale:
            return f"{ns / scale:.3f} {unit}"
    return f"{ns:.1f} ns"


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("base")
    parser.add_argument("new")
    parser.add_argument("--cpu", action="store_true", help="compare cpu_time instead of real_time")
    parser.add_argument("--filter", default="", help="only benchmarks whose name matches this regex")
    args = parser.parse_args()
    field = "cpu_time" if args.cpu else "real_time"
    base_ctx, base = load(args.base, field)
    new_ctx, new = load(args.new, field)
    try:
        pattern = re.compile(args.filter)
    except re.error as e:
        sys.exit(f"compare_micro: --filter '{args.filter}': not a regular expression: {e}")

    for label, ctx in (("base", base_ctx), ("new", new_ctx)):
        peak = [ctx.get(k) for k in ("fma_peak_gflops_1t", "fma_peak_gflops_2t")]
        if all(peak):
            print(f"{label}: FMA peak {peak[0]} GFLOP/s (1 thread), {peak[1]} GFLOP/s (2 threads)")

    names = [n for n in base if pattern.search(n)] + [n for n in new if n not in base and pattern.search(n)]
    width = max([len(n) for n in names] + [9])
    print(f"{'benchmark':<{width}}  {'base':>12}  {'new':>12}  {'new/base':>8}")
    logs = []
    for name in names:
        a, b = base.get(name), new.get(name)
        ratio = f"{b / a:8.3f}" if a and b else f"{'-':>8}"
        if a and b:
            logs.append(math.log(b / a))
        print(f"{name:<{width}}  {format_ns(a) if a else '-':>12}  {format_ns(b) if b else '-':>12}  {ratio}")
    if logs:
        print(f"geometric mean new/base over {len(logs)} benchmarks: {math.exp(sum(logs) / len(logs)):.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
