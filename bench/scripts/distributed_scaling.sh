#!/usr/bin/env bash
# The data-parallel scaling figure, with two_hosts.sh's two hosts: training images/s of one configuration
# as 1 process, as N MPI ranks of data-parallel training on this machine (shared memory), and
# with --two-hosts as 2 ranks on two "hosts" over TCP (two network namespaces joined by a veth
# pair, bench/scripts/two_hosts.sh; root only), and with --rate RATE also over that link
# limited to RATE by tc (a slow network). The same global batch throughout, measured in
# alternating rounds (so a change in the shared machine's load hits every case), medians printed
# with their ratio to 1 process.
#   bench/scripts/distributed_scaling.sh [--two-hosts [--rate RATE]] [RANKS] [ROUNDS] [-- EXTRA ablate run FLAGS]
#   bench/scripts/distributed_scaling.sh 2 3 -- --framework caffe --batch 128 --iterations 150 --threads 1
#   bench/scripts/distributed_scaling.sh --two-hosts --rate 100mbit 2 3 -- --framework tensorflow --strategy static
# Defaults: 2 ranks, 3 rounds, LeNet (caffe preset) on synthetic data, batch 128, 150 iterations,
# 1 thread per process. Extra flags go to every case (`--allreduce ring`, `--bucket-mb 4`).
# Needs Open MPI's mpirun (Debian's openmpi-bin), an ablate built with MPI, and for --two-hosts
# root and iproute2 (ip, tc).
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
ablate=${ABLATE_BIN:-$root/build/ablate}
two_hosts=0
rate=
while [ $# -gt 0 ]; do
  case $1 in
    --two-hosts) two_hosts=1; shift ;;
    --rate) rate=$2; shift 2 ;;
    *) break ;;
  esac
done
[ -n "$rate" ] && [ $two_hosts = 0 ] && { echo "distributed_scaling: --rate needs --two-hosts" >&2; exit 2; }
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
cases=(single ranks)
labels=("1 process" "$ranks ranks, 1 host")
if [ $two_hosts = 1 ]; then
  source "$root/bench/scripts/two_hosts.sh"
  two_hosts_up || { echo "distributed_scaling: --two-hosts: $two_hosts_why" >&2; exit 2; }
  cases+=(hosts)
  labels+=("2 ranks, 2 hosts (TCP)")
  if [ -n "$rate" ]; then
    cases+=(slow)
    labels+=("2 ranks, 2 hosts at $rate")
  fi
fi
trap '[ $two_hosts = 1 ] && two_hosts_down; rm -rf "$out"' EXIT

for ((r = 1; r <= rounds; ++r)); do
  "$ablate" run "${flags[@]}" --quiet --out "$out/single.jsonl" >/dev/null
  "${mpi[@]}" "$ablate" run "${flags[@]}" --distributed --quiet --out "$out/ranks.jsonl" >/dev/null
  if [ $two_hosts = 1 ]; then
    two_hosts_mpirun "$ablate" run "${flags[@]}" --distributed --quiet --out "$out/hosts.jsonl" >/dev/null
    if [ -n "$rate" ]; then
      two_hosts_limit "$rate"
      two_hosts_mpirun "$ablate" run "${flags[@]}" --distributed --quiet --out "$out/slow.jsonl" >/dev/null
      two_hosts_unlimit
    fi
  fi
  echo "round $r/$rounds done" >&2
done

args=()
for i in "${!cases[@]}"; do args+=("$out/${cases[$i]}.jsonl" "${labels[$i]}"); done
/usr/bin/python3 - "${OPENBLAS_CORETYPE:-unset}" "${args[@]}" <<'EOF_PY'
import json, statistics, sys
def records(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]
cases = [(sys.argv[i + 1], records(sys.argv[i])) for i in range(2, len(sys.argv), 2)]
single = statistics.median(r["metrics"]["images_per_s"] for r in cases[0][1])
print(f"training images/s and test pass s, medians of {len(cases[0][1])} rounds (OPENBLAS_CORETYPE={sys.argv[1]}):")
for label, rs in cases:
    ips = statistics.median(r["metrics"]["images_per_s"] for r in rs)
    test = statistics.median(r["metrics"]["test_time_total_s"] / max(1, r["metrics"]["test_passes"]) for r in rs)
    print(f"  {label:28s} {ips:9.0f} img/s  x{ips / single:4.2f}   test pass {test:7.3f} s")
EOF_PY
