#!/bin/sh
# Open MPI's remote-shell agent for the two "hosts" of two_hosts.sh (plm_rsh_agent): where ssh
# would log in to HOST and run the command line in a shell, this runs it in network namespace
# HOST (`ip netns exec`), on the same machine. Each host gets a /tmp of its own (TMPDIR), as
# real hosts have: Open MPI's daemons would otherwise race for the same session directory.
#   netns_rsh_agent.sh HOST COMMAND...
ns=$1
shift
TMPDIR=${TMPDIR:-/tmp}/ablate-netns-$ns
export TMPDIR
mkdir -p "$TMPDIR"
exec ip netns exec "$ns" sh -c "$*"
