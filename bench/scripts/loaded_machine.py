#!/usr/bin/python3
"""Loaded-machine benchmark: the same training on a quiet machine and with a
competing process that busy-loops on one core, at 1 and 2 threads, for ablate under each
waiting policy of its OpenMP threads (--wait-policy) and for PyTorch as installed.

A shared server is the normal case for deep learning as a service: when a neighbour holds one
core of two, a 2-thread run can at best keep half its speed (the ideal); libgomp's default
spinning at every barrier instead spins away the time slices its partner thread needs. This
script measures how each policy degrades and what it costs on a quiet machine.

    bench/scripts/loaded_machine.py [--rounds 5] [--policies spin,passive,bounded:3000,...]
        [--pytorch PYTHON|none] [--ablate BIN] [--model lenet] [--batch 64] [--backend openblas]

Each round runs a quiet phase (after waiting up to --wait-quiet seconds for one second in which
other processes use less than --disturbed-above cores) and a loaded phase (this script starts
one busy-looping process and stops it afterwards), every configuration once per phase in a
rotated order; each figure is the median over rounds of `ablate bench --repeats 1` (or of
bench/peers/pytorch_train.py's speed mode). Every measurement also records what other processes
took meanwhile: a quiet measurement above the threshold is flagged and left out of the quiet
median when undisturbed ones exist (the table says how many). ABLATE_BIN or --ablate picks the
binary (default build/ablate). PyTorch: --pytorch, else Debian's /usr/bin/python3 if it has
torch, else <repo>/.peers/pytorch/bin/python (scripts/setup-peers.sh); skipped with the reason
otherwise. Prints a Markdown table (for docs/benchmarks.md) with the CPU model and the commands.
"""
import argparse
import json
import os
import re
import resource
import statistics
import subprocess
import sys
import time

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PEER_ENV = {"OPENBLAS_NUM_THREADS": "1",  # as ablate bench --with-pytorch runs it (peer_process.h)
            "GLIBC_TUNABLES": "glibc.malloc.mmap_threshold=33554432:glibc.malloc.trim_threshold=4294967296"}


def cpu_counters():
    """(wall s, busy CPU s of every CPU without steal, steal s, this script's children's CPU s)."""
    with open("/proc/stat") as f:
        v = [int(x) for x in f.readline().split()[1:9]]
    tick = os.sysconf("SC_CLK_TCK")
    children = resource.getrusage(resource.RUSAGE_CHILDREN)
    return time.monotonic(), (v[0] + v[1] + v[2] + v[5] + v[6]) / tick, v[7] / tick, \
        children.ru_utime + children.ru_stime


def others_between(before, after, exclude_children=True):
    """Cores that other processes used between two readings (the measured child excluded)."""
    wall = after[0] - before[0]
    own = after[3] - before[3] if exclude_children else 0.0
    return max(0.0, (after[1] - before[1] - own) / wall), max(0.0, (after[2] - before[2]) / wall)


def wait_quiet(max_s, threshold):
    start = time.monotonic()
    while True:
        before = cpu_counters()
        time.sleep(1)
        others, _ = others_between(before, cpu_counters(), exclude_children=False)
        waited = time.monotonic() - start
        if others < threshold:
            return f"quiet after {waited:.0f} s (others {others:.2f} cores)"
        if waited + 1 > max_s:
            return f"not quiet within {max_s:g} s (others {others:.2f} cores): measuring anyway"


def find_pytorch(choice):
    if choice == "none":
        return None, "--pytorch none"
    candidates = [choice] if choice else ["/usr/bin/python3", os.path.join(REPO, ".peers", "pytorch", "bin", "python")]
    for python in candidates:
        if os.access(python, os.X_OK) and subprocess.run([python, "-c", "import torch"], capture_output=True).returncode == 0:
            return python, ""
    return None, "no PyTorch: neither " + " nor ".join(candidates) + " imports torch (scripts/setup-peers.sh makes one)"


class Config:
    def __init__(self, name, threads, command, env, parse):
        self.name, self.threads, self.command, self.env, self.parse = name, threads, command, env, parse
        self.quiet, self.loaded = [], []  # (images/s, others' cores, steal cores)


def ablate_config(args, policy, threads):
    command = [args.ablate, "bench", "--model", args.model, "--batch", str(args.batch), "--backends", args.backend,
               "--threads", str(threads), "--repeats", "1", "--warmup", str(args.warmup),
               "--iterations", str(args.iterations), "--disturbed-above", str(args.disturbed_above)]
    if policy != "default":
        command += ["--wait-policy", policy]

    def parse(out):
        ips = re.search(r"^" + re.escape(args.backend) + r"\s+(\d+)", out, re.M)
        others = re.search(r"others (?:used at most )?([0-9.]+) cores[^,]*, steal (?:at most )?([0-9.]+)", out)
        wait = re.search(r"^threads wait: (\S+)", out, re.M)
        return float(ips.group(1)), float(others.group(1)), float(others.group(2)), wait.group(1)
    return Config(f"ablate {policy}", threads, command, {}, parse)


def pytorch_config(args, python, threads, label, extra_env):
    command = [python, os.path.join(REPO, "bench", "peers", "pytorch_train.py"), "--model",
               os.path.join(REPO, "models", "zoo", args.model + ".model"), "--threads", str(threads),
               "--batch", str(args.batch), "--warmup", str(args.warmup), "--iterations", str(args.iterations)]

    def parse(out):
        m = re.search(r"torch=(\S+) .*images_per_s=([0-9.]+)", out)
        return float(m.group(2)), None, None, "torch " + m.group(1)
    return Config(label, threads, command, {**PEER_ENV, **extra_env}, parse)


def measure(config):
    env = {k: v for k, v in os.environ.items() if k not in ("OMP_WAIT_POLICY", "GOMP_SPINCOUNT")}
    env.update(config.env)
    before = cpu_counters()
    run = subprocess.run(config.command, env=env, capture_output=True, text=True)
    others, steal = others_between(before, cpu_counters())
    if run.returncode != 0:
        sys.exit(f"loaded_machine: {' '.join(config.command)} failed:\n{run.stdout}{run.stderr}")
    ips, ablate_others, ablate_steal, note = config.parse(run.stdout)
    if ablate_others is not None:  # ablate's own window: the timed steps, not its start-up
        others, steal = ablate_others, ablate_steal
    config.note = note
    return ips, others, steal


def quiet_median(samples, threshold):
    calm = [s for s in samples if s[1] <= threshold]
    use = calm or samples
    return statistics.median(s[0] for s in use), len(samples) - len(calm)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ablate", default=os.environ.get("ABLATE_BIN", os.path.join(REPO, "build", "ablate")))
    ap.add_argument("--model", default="lenet")
    ap.add_argument("--batch", type=int, default=64)
    ap.add_argument("--backend", default="openblas")
    ap.add_argument("--warmup", type=int, default=3)
    ap.add_argument("--iterations", type=int, default=40)
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--threads", default="1,2")
    ap.add_argument("--policies", default="default,spin,passive,bounded:300,bounded:1000,bounded:10000,bounded:30000")
    ap.add_argument("--pytorch", default="", help="python with torch, or none (default: found as described above)")
    ap.add_argument("--wait-quiet", type=float, default=30)
    ap.add_argument("--disturbed-above", type=float, default=0.25)
    ap.add_argument("--raw", help="also write every measurement (images/s, others' and steal cores) as JSON to this file")
    args = ap.parse_args()
    threads = [int(t) for t in args.threads.split(",")]
    configs = [ablate_config(args, p, t) for t in threads for p in args.policies.split(",")]
    python, skipped = find_pytorch(args.pytorch)
    if python:
        configs += [pytorch_config(args, python, t, "pytorch as installed", {}) for t in threads]

    for r in range(args.rounds):
        order = configs[r % len(configs):] + configs[:r % len(configs)]
        for phase in ("quiet", "loaded"):
            busy = None
            if phase == "quiet":
                print(f"round {r + 1}/{args.rounds}: {wait_quiet(args.wait_quiet, args.disturbed_above)}", file=sys.stderr)
            else:
                busy = subprocess.Popen([sys.executable, "-c", "while True: pass"])
                time.sleep(0.5)
            try:
                for c in order:
                    getattr(c, phase).append(measure(c))
            finally:
                if busy:
                    busy.kill()
                    busy.wait()
        print(f"round {r + 1}/{args.rounds} done", file=sys.stderr)
        if args.raw:
            with open(args.raw, "w") as f:
                json.dump([{"name": c.name, "threads": c.threads, "quiet": c.quiet, "loaded": c.loaded} for c in configs], f)

    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    print(f"CPU: {cpu}, {os.cpu_count()} logical cores; {args.model}, batch {args.batch}, {args.backend} backend; "
          f"medians of {args.rounds} rounds of {args.iterations} iterations")
    print(f"command: bench/scripts/loaded_machine.py {' '.join(sys.argv[1:])}")
    if skipped:
        print(f"PyTorch skipped: {skipped}")
    print("\n| configuration | threads | quiet img/s | loaded img/s | loaded / quiet | quiet vs spin | others' cores quiet / loaded |")
    print("|---|---|---|---|---|---|---|")
    spin_quiet = {c.threads: quiet_median(c.quiet, args.disturbed_above)[0] for c in configs if c.name == "ablate spin"}
    for c in configs:
        q, disturbed = quiet_median(c.quiet, args.disturbed_above)
        l = statistics.median(s[0] for s in c.loaded)
        vs_spin = f"{q / spin_quiet[c.threads]:.2f}" if c.name.startswith("ablate") and c.threads in spin_quiet else ""
        oq = statistics.median(s[1] for s in c.quiet)
        ol = statistics.median(s[1] for s in c.loaded)
        name = c.name + (f" ({c.note})" if c.name in ("ablate default",) or c.name.startswith("pytorch") else "")
        flag = ""
        if disturbed:
            flag = f" ({disturbed} of {len(c.quiet)} quiet rounds disturbed, " + \
                ("left out)" if disturbed < len(c.quiet) else "none undisturbed)")
        print(f"| {name} | {c.threads} | {q:.0f}{flag} | {l:.0f} | {l / q:.2f} | {vs_spin} | {oq:.2f} / {ol:.2f} |")


if __name__ == "__main__":
    main()
