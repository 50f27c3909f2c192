#!/usr/bin/env bash
# Test "hosts" on one machine: network namespaces on one link, each with its own dbus-daemon and
# avahi-daemon, for multi-host tests and benchmarks of share.
#
#   scripts/netns-hosts.sh up [N]             create N hosts on one link (default 2; up to 26): share-a,
#                                             share-b, ... (idempotent: recreates them; share-lo stays)
#   scripts/netns-hosts.sh up-lo              create share-lo: a host with nothing but lo, Avahi on lo
#   scripts/netns-hosts.sh exec NS CMD...     run CMD inside NS, talking to that namespace's Avahi
#   scripts/netns-hosts.sh addr NS            print NS's IPv4 address
#   scripts/netns-hosts.sh bus NS             print NS's D-Bus address (what exec sets as the system bus)
#   scripts/netns-hosts.sh hosts              list the hosts that exist, one a line
#   scripts/netns-hosts.sh status             say what runs
#   scripts/netns-hosts.sh down               stop everything started here, delete the namespaces (idempotent)
#
# SHARE_NETNS_PREFIX (default "share") names the set: with SHARE_NETNS_PREFIX=share-bench7 the
# hosts are share-bench7-a, share-bench7-b, ..., share-bench7-lo, and up/down touch only them, so
# a benchmark's hosts never collide with the test suite's share-a and share-b.
#
# Layout (needs root):
#   2 hosts (the default): share-a and share-b joined by a veth pair,
#     share-a: lo, veth-a 198.18.0.1/24 (+ IPv6 link-local), avahi host name share-a.local
#     share-b: lo, veth-b 198.18.0.2/24 (+ IPv6 link-local), avahi host name share-b.local
#   N > 2 hosts: each host X has veth-X 198.18.0.<n>/24 (n = 1 for a, 2 for b, ...), whose other
#     end is a port of the bridge "lan" in the namespace share-lan (a switch: no address, no daemon).
#   share-lo: lo only, Avahi on lo with scripts/avahi/loopback.conf (IPv4; what avahi-up.sh runs
#     on the machine's loopback), so programs in it see each other by name and nothing else.
# The namespaces hold no other interface, so nothing in them can reach eth0.
#
# How a client in a namespace finds "its" Avahi: libavahi-client talks to
# avahi-daemon only over the system D-Bus, and libdbus takes the system bus
# address from DBUS_SYSTEM_BUS_ADDRESS. Each namespace has a private
# dbus-daemon listening on /run/share-netns/NS/dbus.sock (a filesystem socket,
# so it is reachable from any network namespace; another set's state folder is
# /run/share-netns-SUFFIX); `exec` sets
# DBUS_SYSTEM_BUS_ADDRESS=unix:path=/run/share-netns/NS/dbus.sock and enters
# only the network namespace (nsenter, no mount namespace), so a program run
# through `exec` can itself run this script. avahi-daemon itself runs in a
# private mount namespace with a tmpfs on /run/avahi-daemon, because it refuses
# to start while another avahi-daemon's pid file (/run/avahi-daemon/pid) is
# live, e.g. the loopback one from scripts/avahi-up.sh.
set -euo pipefail

SHARE_SCRIPT=netns-hosts.sh
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=avahi/common.sh
. "$HERE/avahi/common.sh"
export PATH="$PATH:/usr/sbin:/sbin"

PREFIX=${SHARE_NETNS_PREFIX:-share}
LETTERS=abcdefghijklmnopqrstuvwxyz
case "$PREFIX" in
  *[!a-z0-9-]*) share_die "SHARE_NETNS_PREFIX may hold only a-z, 0-9 and - (got '$PREFIX')" ;;
  share | share-*) ;;
  *) share_die "SHARE_NETNS_PREFIX must be share or start with share- (got '$PREFIX')" ;;
esac
# Each set keeps its state in its own folder: /run/share-netns for the default set,
# /run/share-netns-bench7 for SHARE_NETNS_PREFIX=share-bench7.
STATE=/run/share-netns${PREFIX#share}

# ns_letter NS: the host's letter (a for PREFIX-a), or the whole suffix (lo, lan).
ns_letter() {
  case "$1" in
    "$PREFIX"-?*) echo "${1#"$PREFIX"-}" ;;
    *) share_die "unknown namespace '$1' (this set's hosts are named $PREFIX-a, $PREFIX-b, ..., $PREFIX-lo)" ;;
  esac
}
ns_index() {
  local letter
  letter=$(ns_letter "$1")
  case "$letter" in
    lo) echo 0 ;;
    [a-z]) local head=${LETTERS%%"$letter"*}; echo $((${#head} + 1)) ;;
    *) share_die "unknown namespace '$1' (expected $PREFIX-a ... $PREFIX-z or $PREFIX-lo)" ;;
  esac
}
ns_if() { local letter; letter=$(ns_letter "$1"); if [ "$letter" = lo ]; then echo lo; else echo "veth-$letter"; fi; }
ns_addr() { local i; i=$(ns_index "$1"); if [ "$i" = 0 ]; then echo 127.0.0.1; else echo "198.18.0.$i"; fi; }
ns_bus() { echo "unix:path=$STATE/$1/dbus.sock"; }
switch_ns() { echo "$PREFIX-lan"; }

usage() { sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; }

need_root() { [ "$(id -u)" = 0 ] || share_die "$1 needs root (network namespaces, daemons)"; }

ns_exists() { [ -e "/run/netns/$1" ] && ip netns list 2>/dev/null | awk '{print $1}' | grep >/dev/null -x "$1"; }

# set_members [lan|all]: this set's namespaces and state folders; lan: only the hosts on the link
# and the switch (not PREFIX-lo).
set_members() {
  local pattern="^$PREFIX-([a-z]|lan)\$"
  [ "${1:-all}" = all ] && pattern="^$PREFIX-([a-z]|lan|lo)\$"
  {
    ip netns list 2>/dev/null | awk '{print $1}'
    ls "$STATE" 2>/dev/null || true
  } | grep -E "$pattern" | sort -u || true
}

write_dbus_conf() {
  local ns=$1
  cat > "$STATE/$ns/dbus.conf" <<XML
<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-Bus Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<!-- Private "system" bus of test host $ns (scripts/netns-hosts.sh). -->
<busconfig>
  <type>system</type>
  <listen>unix:path=$STATE/$ns/dbus.sock</listen>
  <pidfile>$STATE/$ns/dbus.pid</pidfile>
  <auth>EXTERNAL</auth>
  <policy context="default">
    <allow user="*"/>
    <deny own="*"/>
    <deny send_type="method_call"/>
    <allow send_type="signal"/>
    <allow send_requested_reply="true" send_type="method_return"/>
    <allow send_requested_reply="true" send_type="error"/>
    <allow receive_type="method_call"/>
    <allow receive_type="method_return"/>
    <allow receive_type="error"/>
    <allow receive_type="signal"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Introspectable"/>
    <allow send_destination="org.freedesktop.DBus" send_interface="org.freedesktop.DBus.Properties"/>
  </policy>
  <!-- Who may own and call org.freedesktop.Avahi, as on a real system. -->
  <include ignore_missing="no">/usr/share/dbus-1/system.d/avahi-dbus.conf</include>
</busconfig>
XML
}

write_avahi_conf() {
  local ns=$1
  if [ "$(ns_if "$ns")" = lo ]; then
    # The project's loopback configuration (what avahi-up.sh runs), with this host's name.
    sed "s/^\[server\]\$/[server]\nhost-name=$ns/" "$HERE/avahi/loopback.conf" > "$STATE/$ns/avahi.conf"
    return
  fi
  cat > "$STATE/$ns/avahi.conf" <<CONF
# avahi-daemon of test host $ns (scripts/netns-hosts.sh): only its veth.
[server]
host-name=$ns
allow-interfaces=$(ns_if "$ns")
use-ipv4=yes
use-ipv6=yes
enable-dbus=yes
ratelimit-interval-usec=1000000
ratelimit-burst=1000
[wide-area]
enable-wide-area=no
[publish]
publish-workstation=no
publish-hinfo=no
publish-addresses=yes
publish-domain=no
[reflector]
enable-reflector=no
[rlimits]
CONF
}

# in_ns NS CMD...: run CMD in NS's network namespace (only: the mount namespace stays the
# caller's) with NS's bus as the system bus. `env --default-signal` unblocks signals a caller (a
# Swift test's Process) may have blocked.
in_ns() {
  local ns=$1
  shift
  nsenter --net="/run/netns/$ns" -- env --default-signal DBUS_SYSTEM_BUS_ADDRESS="$(ns_bus "$ns")" "$@"
}

avahi_running_in() { in_ns "$1" bash -c '. "$0"; share_avahi_running' "$HERE/avahi/common.sh"; }
bus_reachable_in() { in_ns "$1" bash -c '. "$0"; share_bus_reachable' "$HERE/avahi/common.sh"; }

start_host() {
  local ns=$1 pid
  mkdir -p "$STATE/$ns"
  write_dbus_conf "$ns"
  write_avahi_conf "$ns"

  rm -f "$STATE/$ns/dbus.sock" "$STATE/$ns/dbus.pid"
  in_ns "$ns" dbus-daemon --config-file="$STATE/$ns/dbus.conf" --fork \
    </dev/null >/dev/null 2>>"$STATE/$ns/dbus.log" ||
    share_die "dbus-daemon for $ns failed to start (see $STATE/$ns/dbus.log)"
  share_wait_until 50 bus_reachable_in "$ns" ||
    share_die "dbus-daemon for $ns does not answer (see $STATE/$ns/dbus.log)"

  # `setsid`, `nsenter`, `env` and `unshare` exec in place and `sh` execs
  # avahi-daemon, so $! is the daemon's pid.
  mkdir -p /run/avahi-daemon
  setsid nsenter --net="/run/netns/$ns" -- env --default-signal DBUS_SYSTEM_BUS_ADDRESS="$(ns_bus "$ns")" \
    unshare --mount --propagation private sh -c \
    'mount -t tmpfs -o mode=0755 tmpfs /run/avahi-daemon && exec avahi-daemon --no-drop-root --no-chroot -f "$0"' \
    "$STATE/$ns/avahi.conf" </dev/null >>"$STATE/$ns/avahi.log" 2>&1 &
  pid=$!
  echo "$pid" > "$STATE/$ns/avahi.pid"
  if ! share_wait_until 150 share_running_or_gone "$pid" avahi_running_in "$ns" ||
    ! share_pid_alive "$pid"; then
    tail -n 20 "$STATE/$ns/avahi.log" >&2 || true
    share_die "avahi-daemon in $ns exited at start or was not running within 15 s (log: $STATE/$ns/avahi.log)"
  fi
}

stop_host() {
  local ns=$1 pid
  if [ -f "$STATE/$ns/avahi.pid" ]; then
    pid=$(cat "$STATE/$ns/avahi.pid")
    share_stop_pid "$pid" avahi-daemon || true
  fi
  if [ -f "$STATE/$ns/dbus.pid" ]; then
    pid=$(cat "$STATE/$ns/dbus.pid")
    share_stop_pid "$pid" dbus-daemon || true
  fi
  if ns_exists "$ns"; then
    # Anything else still inside our namespace was started through `exec`.
    for pid in $(ip netns pids "$ns" 2>/dev/null); do
      kill -TERM "$pid" 2>/dev/null || true
    done
    for pid in $(ip netns pids "$ns" 2>/dev/null); do
      share_wait_until 30 bash -c '! kill -0 "$0" 2>/dev/null' "$pid" || kill -KILL "$pid" 2>/dev/null || true
    done
    ip netns del "$ns" 2>/dev/null || true
  fi
  rm -rf "${STATE:?}/$ns"
}

# down_set lan|all: stop and delete this set's hosts (lan: all but PREFIX-lo).
down_set() {
  local ns
  for ns in $(set_members "$1"); do stop_host "$ns"; done
  rmdir "$STATE" 2>/dev/null || true
}

cmd_down() {
  need_root down
  down_set all
  # The veth pair dies with its namespaces; this only catches a half-made one (default set).
  [ "$PREFIX" = share ] && ip link del veth-a 2>/dev/null || true
}

new_ns() {
  ip netns add "$1"
  ip -n "$1" link set lo up
}

# link_hosts NS...: two hosts get a veth pair; more get a veth each to the bridge of PREFIX-lan.
link_hosts() {
  local ns letter switch
  if [ $# = 2 ]; then
    ip link add "$(ns_if "$1")" netns "$1" type veth peer name "$(ns_if "$2")" netns "$2"
  else
    switch=$(switch_ns)
    new_ns "$switch"
    ip -n "$switch" link add lan type bridge
    ip -n "$switch" link set lan up
    for ns in "$@"; do
      letter=$(ns_letter "$ns")
      ip link add "$(ns_if "$ns")" netns "$ns" type veth peer name "port-$letter" netns "$switch"
      ip -n "$switch" link set "port-$letter" master lan
      ip -n "$switch" link set "port-$letter" up
    done
  fi
  for ns in "$@"; do
    ip -n "$ns" addr add "$(ns_addr "$ns")/24" dev "$(ns_if "$ns")"
    ip -n "$ns" link set "$(ns_if "$ns")" up
  done
}

ensure_packages() {
  share_ensure_packages ip:iproute2 nsenter:util-linux unshare:util-linux dbus-daemon:dbus dbus-send:dbus-bin \
    avahi-daemon:avahi-daemon avahi-browse:avahi-utils avahi-publish:avahi-utils
}

cmd_up() {
  need_root up
  local count=${1:-2} ns hosts=() summary=""
  case "$count" in
    '' | *[!0-9]*) share_die "up takes a number of hosts (2 to 26), not '$count'" ;;
  esac
  [ "$count" -ge 2 ] && [ "$count" -le 26 ] || share_die "up takes a number of hosts from 2 to 26 (got $count)"
  ensure_packages
  down_set lan
  trap 'rc=$?; if [ $rc != 0 ]; then share_say "up failed; cleaning up"; down_set lan; fi' EXIT
  for ((i = 0; i < count; i++)); do hosts+=("$PREFIX-${LETTERS:i:1}"); done
  for ns in "${hosts[@]}"; do new_ns "$ns"; done
  link_hosts "${hosts[@]}"
  for ns in "${hosts[@]}"; do
    start_host "$ns"
    summary+="${summary:+, }$ns $(ns_addr "$ns") ($(ns_if "$ns"))"
  done
  trap - EXIT
  share_say "up: $summary; run commands with '$0 exec NS CMD...'"
}

cmd_up_lo() {
  need_root up-lo
  local ns="$PREFIX-lo"
  ensure_packages
  stop_host "$ns"
  trap 'rc=$?; if [ $rc != 0 ]; then share_say "up-lo failed; cleaning up"; stop_host "$ns"; fi' EXIT
  new_ns "$ns"
  start_host "$ns"
  trap - EXIT
  share_say "up: $ns, lo only, Avahi on lo; run commands with '$0 exec $ns CMD...'"
}

cmd_exec() {
  need_root exec
  [ $# -ge 2 ] || { echo "Usage: $0 exec NS CMD..." >&2; exit 64; }
  local ns=$1
  shift
  ns_index "$ns" >/dev/null
  ns_exists "$ns" || share_die "namespace $ns does not exist; run '$0 up' first"
  exec nsenter --net="/run/netns/$ns" -- env --default-signal DBUS_SYSTEM_BUS_ADDRESS="$(ns_bus "$ns")" "$@"
}

cmd_status() {
  local ns found=0
  for ns in $(set_members all); do
    found=1
    if [ "$ns" = "$(switch_ns)" ]; then
      ns_exists "$ns" && echo "$ns: switch (bridge lan)" || echo "$ns: state left, namespace absent"
    elif ! ns_exists "$ns"; then
      echo "$ns: state left, namespace absent"
    elif avahi_running_in "$ns"; then
      echo "$ns: up, $(ns_addr "$ns") on $(ns_if "$ns"), avahi running, bus $(ns_bus "$ns")"
    else
      echo "$ns: namespace exists, avahi not running"
    fi
  done
  [ "$found" = 1 ] || echo "$PREFIX: no hosts"
}

cmd_hosts() {
  local ns
  for ns in $(set_members all); do
    [ "$ns" != "$(switch_ns)" ] && ns_exists "$ns" && echo "$ns"
  done
  return 0
}

case "${1:-}" in
  up) [ $# -le 2 ] || { echo "Usage: $0 up [N]" >&2; exit 64; }; cmd_up "${2:-2}" ;;
  up-lo) cmd_up_lo ;;
  down) cmd_down ;;
  exec) shift; cmd_exec "$@" ;;
  addr) [ $# = 2 ] || { echo "Usage: $0 addr NS" >&2; exit 64; }; ns_addr "$2" ;;
  bus) [ $# = 2 ] || { echo "Usage: $0 bus NS" >&2; exit 64; }; ns_index "$2" >/dev/null; ns_bus "$2" ;;
  hosts) cmd_hosts ;;
  status) cmd_status ;;
  -h|--help|help) usage ;;
  *) usage >&2; exit 64 ;;
esac
