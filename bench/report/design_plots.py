#!/usr/bin/python3
"""PNG plots of a designed experiment (`ablate ablate --report DIR`, `ablate compare --attribute`).

usage: /usr/bin/python3 design_plots.py ABLATE.json [PREFIX] DIR

(DIR last: the C++ side's draw_plots appends the folder it draws into.)

Reads the ablate.json the C++ side writes (design_table.h: factors; per metric its main effects,
interactions and Shapley values, each with a 95% interval or null, and within_noise) and writes,
per metric, into DIR:
  PREFIX_<metric>_shapley.png       the waterfall from every first level to every second: one bar
                                    per factor's Shapley value, with its interval as an error bar
                                    (with --shapley);
  PREFIX_<metric>_effects.png       main effects and interactions with their intervals; hatched:
                                    within noise;
  PREFIX_<metric>_interactions.png  the factor-by-factor matrix: main effects on the diagonal,
                                    each pair's interaction off it (ANOVA's share of the
                                    variation when a factor has more than two levels).
PREFIX defaults to "ablate". Nothing is run through a shell; arguments arrive as an argv.
"""
import json
import os
import sys
import textwrap

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def save(fig, out, fname):
    fig.tight_layout()
    fig.savefig(os.path.join(out, fname), dpi=100)
    plt.close(fig)


def error_bar(value, interval):
    if not interval:
        return [[0], [0]]
    return [[max(0.0, value - interval[0])], [max(0.0, interval[1] - value)]]


def unit_of(metric):
    return f" ({metric['unit']})" if metric.get("unit") else ""


def shapley_waterfall(metric, out, prefix):
    s = metric.get("shapley")
    if not s:
        return
    values = s["values"]
    fig, ax = plt.subplots(figsize=(max(6, 1.5 * (len(values) + 3)), 5))
    first, last = "first levels", "second levels"
    lead = []  # compare --attribute: the real framework, then what ablate does not model
    if "real" in s:
        first, last = "ablate, own factors", "ablate's fastest"
        lead = [s.get("real_title", "real")]
    labels = [textwrap.fill(t, 14) for t in lead + [first]]
    labels += [textwrap.fill(v["factor"], 14) + "\n" + textwrap.fill(f"{v['from']} -> {v['to']}", 14) for v in values]
    labels += [textwrap.fill(last, 14)]
    offset = len(lead)
    if lead:
        ax.bar(0, s["real"], color="#9467bd")
    ax.bar(offset, s["from"], color="#777777")
    level = s["from"]
    for i, v in enumerate(values, start=1 + offset):
        colour = "#cccccc" if v["within_noise"] else ("#d62728" if v["value"] > 0 else "#2ca02c")
        ax.bar(i, v["value"], bottom=level, color=colour, edgecolor="black", hatch="//" if v["within_noise"] else None)
        ax.errorbar(i, level + v["value"], yerr=error_bar(v["value"], v["interval"]), color="black", capsize=4)
        level += v["value"]
    ax.bar(len(values) + 1 + offset, s["to"], color="#777777")
    # Zoom onto the steps: the axis starts near the lowest level, not at 0 (said in the label).
    ends, level = [s["from"], s["to"]] + ([s["real"]] if lead else []), s["from"]
    for v in values:
        ends += [level, level + v["value"]] + ([level + v["interval"][0], level + v["interval"][1]] if v["interval"] else [])
        level += v["value"]
    low, high = min(ends), max(ends)
    margin = 0.15 * (high - low) or 0.05 * abs(high) or 1
    ax.set_ylim(low - margin, high + margin)
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(labels, fontsize=7)
    ax.set_ylabel(metric["title"] + unit_of(metric) + " (axis not from 0)")
    how = f"{s['orders']} sampled orders" if s.get("orders") else "exact"
    if lead:
        how += f"; gap {s['gap']:+.3g}, left unexplained {s['left']:+.3g}"
    ax.set_title(f"Shapley values ({how})\n95% intervals; hatched: within noise (run-to-run spread {metric['spread']:.3g})",
                 fontsize=9)
    save(fig, out, f"{prefix}_{metric['metric']}_shapley.png")


def effects(metric, out, prefix):
    rows = [(e["name"], e) for e in metric.get("main", [])] + [(e["name"], e) for e in metric.get("interactions", [])]
    if not rows:
        return
    fig, ax = plt.subplots(figsize=(7, 0.45 * len(rows) + 1.5))
    for i, (name, e) in enumerate(rows):
        ax.barh(i, e["value"], color="#cccccc" if e["within_noise"] else "#1f77b4", edgecolor="black",
                hatch="//" if e["within_noise"] else None)
        if e["interval"]:
            ax.errorbar(e["value"], i, xerr=error_bar(e["value"], e["interval"]), color="black", capsize=3)
    ax.axvline(0, color="black", linewidth=0.8)
    for x in (-metric["spread"], metric["spread"]):
        ax.axvline(x, color="#999999", linestyle="--", linewidth=0.8)
    ax.set_yticks(range(len(rows)))
    ax.set_yticklabels([r[0] for r in rows], fontsize=8)
    ax.invert_yaxis()
    ax.set_xlabel("effect" + unit_of(metric))
    ax.set_title(f"{metric['title']}: {metric['design']}; dashed: run-to-run spread", fontsize=9)
    save(fig, out, f"{prefix}_{metric['metric']}_effects.png")


def interaction_matrix(metric, factors, out, prefix):
    names = [f["key"] for f in factors]
    k = len(names)
    main = {e["name"]: e for e in metric.get("main", [])}
    pairs = {e["name"]: e for e in metric.get("interactions", [])}
    if k < 2 or not pairs:
        return
    two_level = all(len(f["levels"]) == 2 for f in factors)
    matrix = [[0.0] * k for _ in range(k)]
    text = [[""] * k for _ in range(k)]
    for i, a in enumerate(names):
        for j, b in enumerate(names):
            e = main.get(a) if i == j else pairs.get(f"{a} x {b}") or pairs.get(f"{b} x {a}")
            if not e:
                continue
            v = e["value"] if two_level else max(e.get("share", 0), 0)
            matrix[i][j] = v
            text[i][j] = f"{v:+.3g}" if two_level else f"{100 * v:.0f}%"
            if e["within_noise"]:
                text[i][j] += "\n(noise)"
    bound = max(abs(v) for row in matrix for v in row) or 1
    fig, ax = plt.subplots(figsize=(1.2 * k + 2.5, 1.0 * k + 1.8))
    image = ax.imshow(matrix, cmap="RdBu_r" if two_level else "Blues", vmin=-bound if two_level else 0, vmax=bound)
    for i in range(k):
        for j in range(k):
            ax.text(j, i, text[i][j], ha="center", va="center", fontsize=7)
    ax.set_xticks(range(k))
    ax.set_yticks(range(k))
    ax.set_xticklabels(names, rotation=30, ha="right", fontsize=8)
    ax.set_yticklabels(names, fontsize=8)
    fig.colorbar(image, ax=ax, label=("effect" + unit_of(metric)) if two_level else "share of the variation")
    ax.set_title(f"{metric['title']}: main effects (diagonal) and interactions", fontsize=9)
    save(fig, out, f"{prefix}_{metric['metric']}_interactions.png")


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    with open(sys.argv[1], encoding="utf-8") as f:
        data = json.load(f)
    out = sys.argv[-1]
    prefix = sys.argv[2] if len(sys.argv) == 4 else "ablate"
    os.makedirs(out, exist_ok=True)
    for metric in data.get("metrics", []):
        if metric.get("missing"):
            continue
        shapley_waterfall(metric, out, prefix)
        effects(metric, out, prefix)
        interaction_matrix(metric, data.get("factors", []), out, prefix)


if __name__ == "__main__":
    main()
