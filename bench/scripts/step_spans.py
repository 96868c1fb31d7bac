#!/usr/bin/python3
"""Where a training step's time goes, from a trace of `ablate run --profile FILE`.

Usage: step_spans.py TRACE.json [--skip N] [--top K]

The trace (Chrome trace format) holds one span per training step ("step N") and one per
backend op. For the steps after the first N (default 2: the first steps autotune and allocate),
it adds up each op's spans that lie inside a step on the step's thread, and prints the op's
time per step and its share of the steps' time, the ops covering the most first, then how much
of the steps the ops cover (the rest: the engine's own work, waits of the inter-op pool). The
run's summary ("slowest ops") counts the test passes too; this counts training steps only.
Standard library only.
"""

import argparse
import collections
import json
import statistics
import sys

NOT_OPS = ("step ", "test", "next batch", "validation")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("trace")
    ap.add_argument("--skip", type=int, default=2, help="leave out steps 1..N (default 2)")
    ap.add_argument("--top", type=int, default=12, help="ops listed (default 12)")
    a = ap.parse_args()
    with open(a.trace) as f:
        trace = json.load(f)
    events = [e for e in (trace["traceEvents"] if isinstance(trace, dict) else trace) if e.get("ph") == "X"]
    steps = [e for e in events if e["name"].startswith("step ") and int(e["name"].split()[1]) > a.skip]
    if not steps:
        print(f"{a.trace}: no training step after step {a.skip}", file=sys.stderr)
        return 1
    ops = [e for e in events if not e["name"].startswith(NOT_OPS)]
    per_op = collections.Counter()
    for s in steps:
        begin, end = s["ts"], s["ts"] + s["dur"]
        for o in ops:
            if o.get("tid") == s.get("tid") and begin <= o["ts"] and o["ts"] + o["dur"] <= end:
                per_op[o["name"]] += o["dur"]
    total = sum(s["dur"] for s in steps)
    n = len(steps)
    print(f"{a.trace}: {n} steps after step {a.skip}, median step {statistics.median(s['dur'] for s in steps) / 1e3:.2f} ms")
    for name, us in per_op.most_common(a.top):
        print(f"  {name:28s} {us / n / 1e3:8.3f} ms/step {100 * us / total:6.1f}%")
    print(f"  ops cover {100 * sum(per_op.values()) / total:.1f}% of the steps")
    return 0


if __name__ == "__main__":
    sys.exit(main())
