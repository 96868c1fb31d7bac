#!/usr/bin/env bash
# Quick start (a): set-up, build, then the main job. For now: Caffe's LeNet with Caffe's
# defaults on Fashion-MNIST for 2,000 iterations (the full default is 10,000; drop
# --iterations for it). Any arguments replace the main job's: scripts/run.sh run --help
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/build.sh"
mkdir -p "$root/results"
if [ $# -eq 0 ]; then
  set -- run --framework caffe --dataset fashion-mnist --iterations 2000 --out "$root/results/runs.jsonl"
fi
exec "${ABLATE_BUILD_DIR:-$root/build}/ablate" "$@"
