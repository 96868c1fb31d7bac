"""PNG plots of `ablate compare --report DIR`, from the compare.json it writes
(bench/experiments/compare_plots.h), drawn by `plots.py --compare COMPARE.json DIR`:

  compare_accuracy_vs_time.png  test accuracy against training time: each framework's tests as a
                                line (compare's evenly spaced tests, --curve-points, and the
                                recipe's own), each real framework's final test as a marker
  compare_loss_vs_time.png      training loss against training time, one line per framework
  compare_bars.png              training time and test accuracy per framework, ablate beside real
  compare_loss_curves.png       (--with-real) each curve check: both losses per step, and their
                                relative difference |real - ablate| / |ablate| on a log axis
  attribution_<framework>.png   (--attribute) the waterfall: real time, ablate with the framework's
                                own factors, each switch's change, what is left
"""
import json
import math
import os

import matplotlib.pyplot as plt


def against_time(fig, ax, data, quantity, out, save, name):
    """Labels, title, grid and legend of a plot of QUANTITY against training time; saves it as NAME."""
    ax.set_xlabel("training time (s)")
    ax.set_ylabel(quantity)
    ax.set_title(f"{quantity[0].upper()}{quantity[1:].split(' (')[0]} against training time, "
                 f"{data['dataset']} ({data['budget']})")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    save(fig, out, name)


def accuracy_vs_time(data, out, save):
    fig, ax = plt.subplots(figsize=(8, 5))
    colours = {}
    for r in data["rows"]:
        if r["state"] not in ("completed", "diverged"):
            continue
        pts = [tuple(p) for p in r["test_points"]] or [(r["train_s"], r["accuracy"])]
        colour = colours.setdefault(r["framework"], f"C{len(colours)}")
        ax.plot([p[0] for p in pts], [p[1] for p in pts], marker="o", color=colour, label=f"ablate {r['framework']}")
    seen = {}  # a framework's real paths (TensorFlow's eigen and onednn): one marker shape each
    for m in data["real"]:
        colour = colours.setdefault(m["framework"], f"C{len(colours)}")
        shape = "*PXD"[seen.setdefault(m["framework"], 0) % 4]
        seen[m["framework"]] += 1
        ax.plot([m["train_s"]], [m["accuracy"]], marker=shape, markersize=12, linestyle="none", color=colour,
                label=m["title"])
    against_time(fig, ax, data, "test accuracy", out, save, "compare_accuracy_vs_time.png")


def loss_vs_time(data, out, save):
    fig, ax = plt.subplots(figsize=(8, 5))
    drawn = 0
    colours = {}  # as accuracy_vs_time: one colour per framework, in the rows' order
    for r in data["rows"]:
        if r["state"] not in ("completed", "diverged"):
            continue
        colour = colours.setdefault(r["framework"], f"C{len(colours)}")
        pts = [(t, v) for t, v in r.get("loss_points", []) if v is not None and math.isfinite(v)]  # NaN: null
        if not pts:
            continue
        ax.plot([p[0] for p in pts], [p[1] for p in pts], color=colour, label=f"ablate {r['framework']}")
        drawn += 1
    if not drawn:
        plt.close(fig)
        return
    against_time(fig, ax, data, "training loss (the step's batch)", out, save, "compare_loss_vs_time.png")


def bars(data, out, save):
    names, times, accs, colours = [], [], [], []
    for r in data["rows"]:
        if r["state"] not in ("completed", "diverged"):
            continue
        names.append(f"ablate\n{r['framework']}")
        times.append(r["train_s"])
        accs.append(r["accuracy"])
        colours.append("tab:blue")
        for m in data["real"]:
            if m["framework"] == r["framework"]:
                names.append(m["title"].replace(" (", "\n(").replace(" ", "\n", 1))
                times.append(m["train_s"])
                accs.append(m["accuracy"])
                colours.append("tab:orange")
    if not names:
        return
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(max(9, 1.3 * len(names) * 2), 4.5))
    for ax, values, label in ((a1, times, "training time (s)"), (a2, accs, "test accuracy")):
        ax.bar(range(len(names)), values, color=colours)
        ax.set_xticks(range(len(names)))
        ax.set_xticklabels(names, fontsize=7)
        ax.set_ylabel(label)
        ax.set_title(label + " (blue: ablate, orange: real)")
    save(fig, out, "compare_bars.png")


def loss_curves(data, out, save):
    curves = data["curves"]
    if not curves:
        return
    fig, axes = plt.subplots(len(curves), 2, figsize=(10, 3.2 * len(curves)), squeeze=False)
    for (a1, a2), c in zip(axes, curves):
        mine, theirs = dict((int(s), v) for s, v in c["ablate"]), dict((int(s), v) for s, v in c["peer"])
        steps = sorted(set(mine) & set(theirs))
        a1.plot(steps, [mine[s] for s in steps], label=f"ablate {c['framework']}")
        a1.plot(steps, [theirs[s] for s in steps], linestyle="--", label=c["title"])
        a1.set_xlabel("step")
        a1.set_ylabel("training loss")
        a1.legend(fontsize=7)
        rel = [abs(theirs[s] - mine[s]) / abs(mine[s]) if mine[s] else 0.0 for s in steps]
        a2.semilogy(steps, [max(r, 1e-17) for r in rel])
        a2.set_xlabel("step")
        a2.set_ylabel("relative difference")
        a2.set_title(f"{c['framework']} vs {c['title']}: largest {max(rel) if rel else 0:.1e}", fontsize=9)
    fig.suptitle("Loss curves from ablate's initial weights, random parts off", fontsize=10)
    save(fig, out, "compare_loss_curves.png")


def waterfall(w, out, save):
    if w["problem"]:
        return
    labels = [f"real\n{w['real_title']}", f"ablate\n{w['framework']}'s own"]
    bottoms, heights, colours = [0.0, 0.0], [w["real_s"], w["ablate_s"]], ["tab:orange", "tab:blue"]
    previous = w["ablate_s"]
    for s in w["steps"]:
        labels.append(s["label"].replace(": ", "\n"))
        bottoms.append(min(previous, s["seconds"]))
        heights.append(abs(previous - s["seconds"]))
        colours.append("tab:green" if s["seconds"] <= previous else "tab:red")
        previous = s["seconds"]
    labels.append("gap: fastest\n- real")
    bottoms.append(min(previous, w["real_s"]))
    heights.append(abs(previous - w["real_s"]))
    colours.append("tab:gray")
    fig, ax = plt.subplots(figsize=(max(7, 1.4 * len(labels)), 4.8))
    ax.bar(range(len(labels)), heights, bottom=bottoms, color=colours)
    values = [w["real_s"], w["ablate_s"]] + [s["seconds"] - p for s, p in
                                             zip(w["steps"], [w["ablate_s"]] + [s["seconds"] for s in w["steps"]])]
    values.append(w["gap_s"])
    for i, v in enumerate(values):
        ax.text(i, bottoms[i] + heights[i], f"{v:+.2f} s" if i >= 2 else f"{v:.2f} s", ha="center", va="bottom",
                fontsize=7)
    ax.axhline(w["real_s"], color="tab:orange", linewidth=0.8, linestyle=":")
    ax.set_xticks(range(len(labels)))
    ax.set_xticklabels(labels, fontsize=7)
    ax.set_ylabel("training time (s)")
    ax.set_title(f"{w['framework']}: the account of the difference (green: a switch saves, red: it costs; "
                 f"ablate's own minus real, {w['left_s']:+.2f} s, is what no factor explains)", fontsize=9)
    save(fig, out, f"attribution_{w['framework']}.png")


def draw(path, out, save):
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    os.makedirs(out, exist_ok=True)
    accuracy_vs_time(data, out, save)
    loss_vs_time(data, out, save)
    bars(data, out, save)
    loss_curves(data, out, save)
    for w in data["waterfalls"]:
        waterfall(w, out, save)
