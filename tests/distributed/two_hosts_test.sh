#!/usr/bin/env bash
# Two hosts (bench/scripts/two_hosts.sh): the MPI tests of every strategy (2 ranks follow one process for 100
# steps, the running statistics' averaging, sharded evaluation, the whole `ablate run` path;
# not the random-draw variants, which add time over TCP and nothing the network changes)
# with each rank on a "host" of its own, two network namespaces joined by a veth pair, Open
# MPI over TCP launched through `ip netns exec` (bench/scripts/two_hosts.sh). Checks that the
# ranks' traffic crossed the veth. Exit 77 (skipped, with the reason) where namespaces cannot
# be made: not root, no iproute2.   two_hosts_test.sh TEST_DISTRIBUTED_BINARY
set -uo pipefail
binary=$1
source "$(dirname "$0")/../../bench/scripts/two_hosts.sh"
command -v mpirun >/dev/null || { echo "skipped: no mpirun (apt-get install openmpi-bin)"; exit 77; }
two_hosts_up || { echo "skipped: $two_hosts_why"; exit 77; }
trap two_hosts_down EXIT
before=$(two_hosts_sent_bytes)
two_hosts_mpirun -x OMP_NUM_THREADS=1 "$binary" \
  --gtest_filter='*DataParallelEquivalence*:*StateAveraging*:*ShardedEvaluation*:DistributedRun.*'
status=$?
sent=$(($(two_hosts_sent_bytes) - before))
echo "host A sent $sent bytes over the veth"
[ "$status" = 0 ] || { echo "FAILED: the tests across two hosts (status $status)"; exit 1; }
# Six runs of 100 steps and three of 30, each all-reducing its gradients every step: hundreds
# of KB; Open MPI's start-up exchange alone is a few KB.
[ "$sent" -gt 200000 ] || { echo "FAILED: only $sent bytes crossed the veth; the ranks did not talk over TCP"; exit 1; }
echo "OK: 2 ranks on 2 hosts over TCP"
