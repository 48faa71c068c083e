#!/usr/bin/env bash
# Two "machines" on this one, for tests and benchmarks over a real network stack: two network
# namespaces (node-a, node-b), each with its own hostname (unshare --uts), its own /dev/shm (a
# tmpfs bound in a mount namespace) and its own /etc/hosts, joined by veth pairs to a bridge
# that has no address in the root namespace. Addresses are link-local (169.254.77.1 and .2/24),
# so nothing can collide with a real network, and nothing leaves the namespaces made here.
#
#   two-machines.sh up                 set up (first removes leftovers of crashed earlier runs);
#                                      with MGPU_NET_LOSS=0.05, node-b's cable loses 5% of the
#                                      packets each way (scripts/lossy-wire.py: no netem here)
#   two-machines.sh down               tear down: kill every process on both machines, remove all
#   two-machines.sh run HOST CMD...    run CMD on HOST (node-a or node-b), exec'd: same pid
#   two-machines.sh link HOST up|down  plug / cut HOST's cable
#   two-machines.sh shape HOST TC...   `tc qdisc replace dev eth0 root TC...` on HOST (none: remove)
#   two-machines.sh stats HOST         HOST's qdisc with its counters (sent, dropped), and the lossy cable's
#   two-machines.sh pids HOST          the processes running on HOST
#   two-machines.sh shm HOST           the path of HOST's /dev/shm as seen from here
#   two-machines.sh check              why it cannot run here (exit 1), or nothing (exit 0)
#
# The rsh agent for mpirun (what ssh would be) is scripts/two-machines-rsh.sh:
#   two-machines.sh run node-a mpirun -H node-a,node-b --mca plm_rsh_agent scripts/two-machines-rsh.sh \
#     --mca btl tcp,self --mca btl_tcp_if_include 169.254.77.0/24 --mca oob_tcp_if_include 169.254.77.0/24 ...
#
# MGPU_NET_ID (default 0) names one set-up, so several can exist at once;
# every object made is named mgn<ID>-... and /run/mgpu-net/<ID> records MGPU_NET_OWNER, the pid
# of the process that owns it (the test helper sets it): `up` removes the set-ups whose owner is
# gone, and namespaces named mgn*-a/-b that have no state left. Needs root, `ip`, `tc`, `unshare` and `mount`.
set -euo pipefail

ID=${MGPU_NET_ID:-0}
STATE_ROOT=/run/mgpu-net
SUBNET=169.254.77
HOSTS=(node-a node-b)

ns_of() { echo "mgn${1}-${2#node-}"; } # ns_of ID HOST
state_of() { echo "$STATE_ROOT/$1"; }
die() {
  echo "two-machines: $*" >&2
  exit 2
}
host_ok() { [[ $1 == node-a || $1 == node-b ]] || die "no machine '$1' (node-a or node-b)"; }

check() {
  [[ $(id -u) == 0 ]] || {
    echo "needs root (network namespaces, veth, bridge, mounts)"
    return 1
  }
  local c
  for c in ip tc unshare mount mountpoint; do
    command -v "$c" >/dev/null || {
      echo "needs '$c' on PATH (iproute2, util-linux)"
      return 1
    }
  done
  ip netns add "mgn-probe-$$" 2>/dev/null || {
    echo "cannot create a network namespace here (ip netns add failed)"
    return 1
  }
  ip netns del "mgn-probe-$$"
}

teardown() { # teardown ID
  local id=$1 st h ns pid
  st=$(state_of "$id")
  for h in "${HOSTS[@]}"; do
    ns=$(ns_of "$id" "$h")
    if ip netns list | grep -qw "$ns"; then
      for pid in $(ip netns pids "$ns" 2>/dev/null); do kill -9 "$pid" 2>/dev/null || true; done
      ip netns del "$ns" 2>/dev/null || true
    fi
    ip link del "mgn${id}-${h#node-}" 2>/dev/null || true
    if mountpoint -q "$st/shm-${h#node-}" 2>/dev/null; then umount -l "$st/shm-${h#node-}" || true; fi
  done
  ip link del "mgn${id}-br" 2>/dev/null || true
  if [[ -f $st/wire.pid ]]; then kill -9 "$(cat "$st/wire.pid")" 2>/dev/null || true; fi
  rm -rf "$st"
}

reap_leftovers() { # set-ups whose owning process died (a crashed test): remove them
  local d id owner ns
  for d in "$STATE_ROOT"/*/; do
    [[ -d $d ]] || continue
    id=$(basename "$d")
    owner=$(cat "$d/owner" 2>/dev/null || echo 0)
    # owner 0: set up from a shell (no MGPU_NET_OWNER); only its own `down` removes it.
    if [[ $id != "$ID" && $owner != 0 ]] && ! kill -0 "$owner" 2>/dev/null; then teardown "$id"; fi
  done
  for ns in $(ip netns list | awk '{print $1}' | grep -E '^mgn[0-9A-Za-z_]+-[ab]$' || true); do
    id=${ns#mgn}
    id=${id%-*}
    [[ -d $(state_of "$id") ]] || teardown "$id"
  done
}

# node-b's cable through scripts/lossy-wire.py, losing MGPU_NET_LOSS of the packets each way.
lossy_cable() { # lossy_cable NS BRIDGE_SIDE
  local st t
  st=$(state_of "$ID")
  command -v python3 >/dev/null || die "MGPU_NET_LOSS needs python3"
  setsid python3 "$(dirname "$0")/lossy-wire.py" "mgn${ID}-lt" "$2" "$MGPU_NET_LOSS" "$st/wire.counts" </dev/null >"$st/wire.log" 2>&1 &
  echo $! >"$st/wire.pid"
  for t in $(seq 50); do grep -q ready "$st/wire.log" && break; sleep 0.1; done
  grep -q ready "$st/wire.log" || die "the lossy cable did not start: $(cat "$st/wire.log")"
  ip link set "mgn${ID}-lt" netns "$1"
  ip -n "$1" link set "mgn${ID}-lt" name eth0
}

# No IPv6 link-local chatter: the bridge and the veths carry only the machines' IPv4.
quiet_ipv6() { echo 1 >"/proc/sys/net/ipv6/conf/$1/disable_ipv6" 2>/dev/null || true; }

up() {
  local why st i h ns side
  why=$(check) || die "$why"
  reap_leftovers
  teardown "$ID"
  st=$(state_of "$ID")
  mkdir -p "$st"
  echo "${MGPU_NET_OWNER:-0}" >"$st/owner"
  printf '127.0.0.1 localhost\n%s.1 node-a\n%s.2 node-b\n' "$SUBNET" "$SUBNET" >"$st/hosts"
  ip link add "mgn${ID}-br" type bridge
  quiet_ipv6 "mgn${ID}-br"
  ip link set "mgn${ID}-br" up
  i=1
  for h in "${HOSTS[@]}"; do
    ns=$(ns_of "$ID" "$h")
    side="mgn${ID}-${h#node-}"
    ip netns add "$ns"
    if [[ $h == node-b && -n ${MGPU_NET_LOSS:-} ]]; then lossy_cable "$ns" "$side"; else
      ip link add "$side" type veth peer name eth0 netns "$ns"
    fi
    quiet_ipv6 "$side"
    ip netns exec "$ns" sh -c 'echo 1 >/proc/sys/net/ipv6/conf/all/disable_ipv6' 2>/dev/null || true
    ip link set "$side" master "mgn${ID}-br" up
    ip -n "$ns" link set lo up
    ip -n "$ns" addr add "$SUBNET.$i/24" dev eth0
    ip -n "$ns" link set eth0 up
    mkdir -p "$st/shm-${h#node-}"
    mount -t tmpfs -o size=1g,mode=1777 "mgn${ID}-shm" "$st/shm-${h#node-}"
    i=$((i + 1))
  done
}

run_on() { # run_on HOST CMD...: exec'd, so the caller's child is CMD itself
  local h=$1 st
  shift
  host_ok "$h"
  st=$(state_of "$ID")
  [[ -d $st ]] || die "not set up (two-machines.sh up, with MGPU_NET_ID=$ID)"
  export MGPU_NET_ID=$ID
  exec ip netns exec "$(ns_of "$ID" "$h")" unshare --uts --mount --propagation private \
    sh -c 'mount --bind "$1" /dev/shm && mount --bind "$2" /etc/hosts && hostname "$3" && shift 3 && exec "$@"' \
    sh "$st/shm-${h#node-}" "$st/hosts" "$h" "$@"
}

cmd=${1:-}
shift || true
case $cmd in
  check) check ;;
  up) up ;;
  down) teardown "$ID" ;;
  run)
    [[ $# -ge 2 ]] || die "usage: two-machines.sh run HOST CMD..."
    run_on "$@"
    ;;
  link)
    host_ok "${1:-}"
    [[ ${2:-} == up || ${2:-} == down ]] || die "usage: two-machines.sh link HOST up|down"
    ip -n "$(ns_of "$ID" "$1")" link set eth0 "$2"
    ;;
  shape)
    host_ok "${1:-}"
    h=$1
    shift
    if [[ ${1:-none} == none ]]; then
      tc -n "$(ns_of "$ID" "$h")" qdisc del dev eth0 root 2>/dev/null || true
    else tc -n "$(ns_of "$ID" "$h")" qdisc replace dev eth0 root "$@"; fi
    ;;
  stats)
    host_ok "${1:-}"
    tc -s -n "$(ns_of "$ID" "$1")" qdisc show dev eth0
    if [[ $1 == node-b && -f $(state_of "$ID")/wire.counts ]]; then echo "lossy cable: $(cat "$(state_of "$ID")/wire.counts")"; fi
    ;;
  pids)
    host_ok "${1:-}"
    ip netns pids "$(ns_of "$ID" "$1")"
    ;;
  shm)
    host_ok "${1:-}"
    echo "$(state_of "$ID")/shm-${1#node-}"
    ;;
  *) die "usage: two-machines.sh up|down|run HOST CMD...|link HOST up|down|shape HOST TC...|stats HOST|pids HOST|shm HOST|check" ;;
esac
