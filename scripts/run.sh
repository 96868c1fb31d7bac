#!/usr/bin/env bash
# Quick start (a): set-up, build, then the main job: the comparison of the four frameworks'
# defaults on Fashion-MNIST (Debian's dataset-fashion-mnist), every length shortened by one
# common factor so that the whole comparison takes about 8 minutes on 2 cores
# (`--budget full` runs the defaults as they are). Records go to results/compare.jsonl, the
# table to results/compare/report.md, its PNG plots beside it (results/compare/*.png: test
# accuracy and training loss against training time, 8 evenly spaced tests per framework at
# least; training time and accuracy bars), and the whole report as one self-contained page,
# results/compare/index.html. Any arguments replace the main job's:
#   scripts/run.sh run --framework caffe --dataset fashion-mnist
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
bash "$root/scripts/build.sh"
mkdir -p "$root/results"
if [ $# -eq 0 ]; then
  set -- compare --dataset fashion-mnist --out "$root/results/compare.jsonl" --report "$root/results/compare"
fi
exec "${ABLATE_BUILD_DIR:-$root/build}/ablate" "$@"
