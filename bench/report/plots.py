#!/usr/bin/python3
"""PNG plots of an ablate results file (JSON lines), for `ablate report`.

usage: /usr/bin/python3 plots.py RESULTS.jsonl DIR
       /usr/bin/python3 plots.py --compare COMPARE.json DIR    (`ablate compare --report DIR`)

Writes into DIR: accuracy_vs_time.png (test accuracy against training time, per run, from the
records' curves), framework_bars.png (mean training time and accuracy per framework),
resources_over_time.png (CPU utilisation and RSS from the resource samples), one
sweep_<label>_<hash of the base>.png per sweep base (each metric against each varied factor, mean with the spread of
repeats as error bars), and resources_vs_batch.png (peak RSS and mean CPU against batch size,
with Pearson's r). Damaged lines are skipped, as the C++ reader does.

With --compare (compare_plots.py draws them from the compare.json `ablate compare` writes):
compare_accuracy_vs_time.png, compare_bars.png, compare_loss_curves.png (with --with-real) and
attribution_<framework>.png (with --attribute).
"""
import hashlib
import json
import math
import os
import re
import textwrap
import sys
from collections import OrderedDict, defaultdict

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def read(path):
    records = []
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            if not line.strip():
                continue
            try:
                r = json.loads(line)
            except ValueError:
                continue
            if isinstance(r, dict):
                records.append(r)
    return records


def name(r, i):
    c = r.get("config", {})
    point = " ".join(f"{k}={v}" for k, v in sorted(r.get("sweep", {}).get("point", {}).items()))
    return f"#{i + 1} {c.get('framework')} {c.get('strategy')}" + (f" {point}" if point else "")


def save(fig, out, fname):
    fig.tight_layout()
    fig.savefig(os.path.join(out, fname), dpi=100)
    plt.close(fig)


def accuracy_vs_time(runs, out):
    fig, ax = plt.subplots(figsize=(8, 5))
    many = len(runs) > 12  # then one colour and one legend entry per framework
    colours, labelled = {}, set()
    for i, r in runs:
        pts = [(p["elapsed_s"], p["test_accuracy"]) for p in r.get("curve", []) if p.get("test_accuracy") is not None]
        m = r.get("metrics", {})
        if not pts or pts[-1][0] < m.get("train_time_s", 0) - 1e-9:
            pts.append((m.get("train_time_s", 0), m.get("accuracy", 0)))  # the final test
        fw = r["config"].get("framework", "?")
        if many:
            colour = colours.setdefault(fw, f"C{len(colours)}")
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", color=colour,
                    label=None if fw in labelled else fw, alpha=0.7)
            labelled.add(fw)
        else:
            ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", label=name(r, i))
    ax.set_xlabel("training time (s)")
    ax.set_ylabel("test accuracy")
    ax.set_title("Test accuracy against training time, per run")
    ax.legend(fontsize=7)
    ax.grid(alpha=0.3)
    save(fig, out, "accuracy_vs_time.png")


def framework_bars(runs, out):
    by = OrderedDict()
    for _, r in runs:
        fw = r["config"].get("framework", "?")
        by.setdefault(fw, []).append(r["metrics"])
    names = list(by)
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(9, 4))
    for ax, key, label in ((a1, "train_time_s", "training time (s)"), (a2, "accuracy", "test accuracy")):
        means = [sum(m.get(key, 0) for m in by[n]) / len(by[n]) for n in names]
        ax.bar(names, means, color="tab:blue" if key == "train_time_s" else "tab:green")
        ax.set_ylabel(label)
        ax.set_title(f"Mean {label} per framework")
    save(fig, out, "framework_bars.png")


def resources_over_time(runs, out):
    fig, (a1, a2) = plt.subplots(2, 1, figsize=(8, 6), sharex=True)
    for i, r in runs:
        s = r.get("resources", [])
        if not s:
            continue
        t = [x["elapsed_s"] for x in s]
        a1.plot(t, [x["cpu_util"] for x in s], label=name(r, i))
        a2.plot(t, [x["rss_bytes"] / 2**20 for x in s], label=name(r, i))
    a1.set_ylabel("CPU utilisation (cores)")
    a1.set_title("Resource use over time, per run")
    a2.set_ylabel("resident memory (MiB)")
    a2.set_xlabel("time since the run started (s)")
    if len(runs) <= 12:
        a1.legend(fontsize=7)
    save(fig, out, "resources_over_time.png")


def mean_spread(values):
    m = sum(values) / len(values)
    if len(values) < 2:
        return m, 0.0
    return m, math.sqrt(sum((v - m) ** 2 for v in values) / (len(values) - 1))


def as_number(v):
    try:
        return float(v)
    except ValueError:
        return None


def sweeps(runs, out):
    by_label = defaultdict(list)  # one figure per sweep base (its label and fixed flags)
    for _, r in runs:
        if "sweep" in r:
            by_label[r["sweep"].get("base", r["sweep"].get("label", "sweep"))].append(r)
    for label, rs in by_label.items():
        keys = sorted({k for r in rs for k in r["sweep"].get("point", {})})
        varied = [k for k in keys if len({str(r["sweep"]["point"].get(k)) for r in rs}) > 1]
        keys = varied or keys  # a factor of one value is no axis
        if not keys:
            continue
        metrics = (("train_time_s", "training time (s)"), ("accuracy", "test accuracy"))
        fig, axes = plt.subplots(len(keys), 2, figsize=(9, 3.5 * len(keys)), squeeze=False)
        for row, key in enumerate(keys):
            others = [k for k in keys if k != key]
            series = defaultdict(lambda: defaultdict(list))  # other factors -> value of key -> repeats
            for r in rs:
                p = r["sweep"]["point"]
                if key not in p:
                    continue
                series[" ".join(f"{k}={p.get(k)}" for k in others)][str(p[key])].append(r["metrics"])
            for col, (mk, mlabel) in enumerate(metrics):
                ax = axes[row][col]
                for sname, points in series.items():
                    xs = list(points)
                    nums = [as_number(x) for x in xs]
                    numeric = all(n is not None for n in nums)
                    order = sorted(range(len(xs)), key=lambda j: nums[j] if numeric else j)
                    ys = [mean_spread([m.get(mk, 0) for m in points[xs[j]]]) for j in order]
                    xv = [nums[j] for j in order] if numeric else [xs[j] for j in order]
                    ax.errorbar(xv, [y[0] for y in ys], yerr=[y[1] for y in ys], marker="o", capsize=4,
                                label=sname or None)
                if numeric and key in ("batch", "lr"):
                    ax.set_xscale("log")
                if numeric:
                    ticks = sorted({as_number(v) for pts in series.values() for v in pts})
                    ax.set_xticks(ticks)
                    ax.set_xticklabels([f"{t:g}" for t in ticks])
                    ax.minorticks_off()
                ax.set_xlabel(key)
                ax.set_ylabel(mlabel)
                ax.set_title(f"{mlabel} against {key}")
                if any(series) and len(series) <= 8 and others:
                    ax.legend(fontsize=7)
        fig.suptitle(textwrap.fill(f"{label} (mean ± s.d. of repeats)", 90), fontsize=10)
        short = re.sub(r"[^A-Za-z0-9_]+", "_", rs[0]["sweep"].get("label", "sweep")).strip("_")
        save(fig, out, f"sweep_{short}_{hashlib.sha1(label.encode()).hexdigest()[:8]}.png")


def pearson(x, y):
    n = len(x)
    if n < 3:
        return None
    mx, my = sum(x) / n, sum(y) / n
    sxx = sum((a - mx) ** 2 for a in x)
    syy = sum((b - my) ** 2 for b in y)
    if sxx <= 0 or syy <= 0:
        return None
    return sum((a - mx) * (b - my) for a, b in zip(x, y)) / math.sqrt(sxx * syy)


def resources_vs_batch(runs, out):
    b = [r["config"].get("batch", 0) for _, r in runs]
    rss = [r["metrics"].get("peak_rss_bytes", 0) / 2**20 for _, r in runs]
    cpu = [r["metrics"].get("cpu_util", 0) for _, r in runs]
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(9, 4))
    for ax, y, label in ((a1, rss, "peak RSS (MiB)"), (a2, cpu, "mean CPU utilisation (cores)")):
        ax.scatter(b, y)
        r = pearson(b, y)
        ax.set_xlabel("batch size")
        ax.set_ylabel(label)
        ax.set_title(f"{label.split(' (')[0]} vs batch size\nPearson r = " + ("n/a" if r is None else f"{r:+.3f}"))
        if b and min(b) > 0:
            ax.set_xscale("log")
            ticks = sorted(set(b))
            ax.set_xticks(ticks)
            ax.set_xticklabels([f"{t:g}" for t in ticks])
            ax.minorticks_off()
    save(fig, out, "resources_vs_batch.png")


def main():
    if len(sys.argv) == 4 and sys.argv[1] == "--compare":
        import compare_plots
        compare_plots.draw(sys.argv[2], sys.argv[3], save)
        return
    if len(sys.argv) != 3:
        sys.exit("usage: plots.py RESULTS.jsonl DIR, or plots.py --compare COMPARE.json DIR")
    records = read(sys.argv[1])
    runs = [(i, r) for i, r in enumerate(records) if r.get("status") == "completed"]
    os.makedirs(sys.argv[2], exist_ok=True)
    if not runs:
        print("no completed runs: no plots")
        return
    for draw in (accuracy_vs_time, framework_bars, resources_over_time, sweeps, resources_vs_batch):
        draw(runs, sys.argv[2])


if __name__ == "__main__":
    main()
