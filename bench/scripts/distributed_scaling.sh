#!/usr/bin/env bash
# Issue 8's scaling figure: training images/s of one configuration as 1 process and as N MPI
# ranks of data-parallel training with the same global batch, measured in alternating rounds
# (so a change in the shared machine's load hits both), medians printed with their ratio.
#   bench/scripts/distributed_scaling.sh [RANKS] [ROUNDS] [-- EXTRA ablate run FLAGS]
#   bench/scripts/distributed_scaling.sh 2 3 -- --framework caffe --batch 128 --iterations 150 --threads 1
# Defaults: 2 ranks, 3 rounds, LeNet (caffe preset) on synthetic data, batch 128, 150 iterations,
# 1 thread per process. Extra flags go to both sides (`--allreduce ring`, `--bucket-mb 4`).
# Needs Open MPI's mpirun (Debian's openmpi-bin) and an ablate built with MPI.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
ablate=${ABLATE_BIN:-$root/build/ablate}
ranks=${1:-2}
rounds=${2:-3}
shift $(($# >= 2 ? 2 : $#)) || true
[ "${1:-}" = "--" ] && shift
flags=("$@")
[ ${#flags[@]} -eq 0 ] && flags=(--framework caffe --dataset synthetic --batch 128 --iterations 150 --threads 1)
command -v mpirun >/dev/null || { echo "distributed_scaling: mpirun not found (install openmpi-bin)" >&2; exit 2; }
[ -x "$ablate" ] || { echo "distributed_scaling: $ablate is not built (scripts/build.sh)" >&2; exit 2; }
mpi=(mpirun -np "$ranks" --oversubscribe)
[ "$(id -u)" = 0 ] && mpi+=(--allow-run-as-root)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT

for ((r = 1; r <= rounds; ++r)); do
  "$ablate" run "${flags[@]}" --quiet --out "$out/single.jsonl" >/dev/null
  "${mpi[@]}" "$ablate" run "${flags[@]}" --distributed --quiet --out "$out/ranks.jsonl" >/dev/null
  echo "round $r/$rounds done" >&2
done

/usr/bin/python3 - "$out/single.jsonl" "$out/ranks.jsonl" "$ranks" "${OPENBLAS_CORETYPE:-unset}" <<'EOF'
import json, statistics, sys
def rates(path):
    with open(path) as f:
        return [json.loads(line)["metrics"]["images_per_s"] for line in f if line.strip()]
single, ranks = rates(sys.argv[1]), rates(sys.argv[2])
s, m = statistics.median(single), statistics.median(ranks)
print(f"training images/s, medians of {len(single)} rounds (OPENBLAS_CORETYPE={sys.argv[4]}):")
print(f"  1 process      {s:9.0f}")
print(f"  {sys.argv[3]} ranks        {m:9.0f}")
print(f"scaling ratio {sys.argv[3]} ranks / 1 process: {m / s:.2f}")
EOF
