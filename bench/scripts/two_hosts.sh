# Two "hosts" on one machine for distributed runs over TCP, sourced by
# tests/distributed/two_hosts_test.sh and bench/scripts/distributed_scaling.sh: two network
# namespaces joined by a veth pair (iproute2's `ip netns`, `ip link`), 10.231.0.1 and
# 10.231.0.2, and Open MPI launched across them with its remote-shell agent pointed at
# `ip netns exec` instead of ssh (netns_rsh_agent.sh), one rank per host, TCP only (btl
# tcp,self, pml ob1; no shared memory between the ranks), over the veth alone. Waiting ranks
# yield the processor (mpi_yield_when_idle, as mpirun --oversubscribe does on one host): two
# ranks polling on a shared 2-core machine otherwise starve each other (the test took 35 s
# instead of 6). No binding (--bind-to none): each "host" would bind its rank to core 0, the
# same core of this one machine.
#   two_hosts_up             create them. Returns 1 with the reason in $two_hosts_why when it
#                            cannot (not root, no iproute2, no network namespaces).
#   two_hosts_limit RATE     a slow network: both ends of the veth limited to RATE (tc's token
#                            bucket filter; tc's syntax, e.g. 100mbit); two_hosts_unlimit: lifted
#   two_hosts_mpirun ARGS... mpirun -np 2 across them, started on host A (ARGS: program, args)
#   two_hosts_down           remove them (the caller's trap should call it)
#   two_hosts_sent_bytes     bytes host A has sent over the veth so far
two_hosts_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
two_hosts_a=ablh$$a
two_hosts_b=ablh$$b
two_hosts_link_a=ablv$$a  # host A's end of the veth pair
two_hosts_link_b=ablv$$b
two_hosts_why=

two_hosts_up() {
  if [ "$(id -u)" != 0 ]; then two_hosts_why="not root: creating network namespaces needs CAP_NET_ADMIN"; return 1; fi
  if ! command -v ip >/dev/null; then two_hosts_why="no ip command (apt-get install iproute2)"; return 1; fi
  if ! ip netns add "$two_hosts_a" 2>/dev/null; then
    two_hosts_why="ip netns add failed: network namespaces are not available here"
    return 1
  fi
  local va=$two_hosts_link_a vb=$two_hosts_link_b
  if ! { ip netns add "$two_hosts_b" && ip link add "$va" type veth peer name "$vb" &&
         ip link set "$va" netns "$two_hosts_a" && ip link set "$vb" netns "$two_hosts_b" &&
         ip -n "$two_hosts_a" addr add 10.231.0.1/24 dev "$va" && ip -n "$two_hosts_b" addr add 10.231.0.2/24 dev "$vb" &&
         ip -n "$two_hosts_a" link set "$va" up && ip -n "$two_hosts_b" link set "$vb" up &&
         ip -n "$two_hosts_a" link set lo up && ip -n "$two_hosts_b" link set lo up; } 2>/dev/null; then
    two_hosts_why="a veth pair between two namespaces could not be made"
    two_hosts_down
    return 1
  fi
}

two_hosts_mpirun() {
  local root=()
  [ "$(id -u)" = 0 ] && root=(--allow-run-as-root)
  ip netns exec "$two_hosts_a" mpirun -np 2 --host "$two_hosts_a:1,$two_hosts_b:1" --map-by node --bind-to none "${root[@]}" \
    --mca plm_rsh_agent "$two_hosts_dir/netns_rsh_agent.sh" --mca btl tcp,self --mca pml ob1 \
    --mca btl_tcp_if_include 10.231.0.0/24 --mca oob_tcp_if_include 10.231.0.0/24 --mca mpi_yield_when_idle 1 "$@"
}

two_hosts_limit() {
  local rate=$1
  ip netns exec "$two_hosts_a" tc qdisc replace dev "$two_hosts_link_a" root tbf rate "$rate" burst 64kb latency 50ms &&
    ip netns exec "$two_hosts_b" tc qdisc replace dev "$two_hosts_link_b" root tbf rate "$rate" burst 64kb latency 50ms
}

two_hosts_unlimit() {
  ip netns exec "$two_hosts_a" tc qdisc del dev "$two_hosts_link_a" root 2>/dev/null || true
  ip netns exec "$two_hosts_b" tc qdisc del dev "$two_hosts_link_b" root 2>/dev/null || true
}

two_hosts_sent_bytes() {
  ip netns exec "$two_hosts_a" cat "/sys/class/net/$two_hosts_link_a/statistics/tx_bytes"
}

two_hosts_down() {
  ip netns del "$two_hosts_a" 2>/dev/null || true
  ip netns del "$two_hosts_b" 2>/dev/null || true
  rm -rf "${TMPDIR:-/tmp}/ablate-netns-$two_hosts_a" "${TMPDIR:-/tmp}/ablate-netns-$two_hosts_b"  # netns_rsh_agent.sh's
}
