#!/usr/bin/env bash
# Two test "hosts" on one machine: network namespaces joined by a veth pair,
# each with its own dbus-daemon and avahi-daemon, for multi-host tests of share.
#
#   scripts/netns-hosts.sh up                 create share-a and share-b (idempotent: recreates them)
#   scripts/netns-hosts.sh exec NS CMD...     run CMD inside NS, talking to that namespace's Avahi
#   scripts/netns-hosts.sh addr NS            print NS's IPv4 address
#   scripts/netns-hosts.sh status             say what runs
#   scripts/netns-hosts.sh down               stop everything started here, delete the namespaces (idempotent)
#
# Layout (needs root):
#   share-a: lo, veth-a 198.18.0.1/24 (+ IPv6 link-local), avahi host name share-a.local
#   share-b: lo, veth-b 198.18.0.2/24 (+ IPv6 link-local), avahi host name share-b.local
# The namespaces hold no other interface, so nothing in them can reach eth0.
#
# How a client in a namespace finds "its" Avahi: libavahi-client talks to
# avahi-daemon only over the system D-Bus, and libdbus takes the system bus
# address from DBUS_SYSTEM_BUS_ADDRESS. Each namespace has a private
# dbus-daemon listening on /run/share-netns/NS/dbus.sock (a filesystem socket,
# so it is reachable from any network namespace); `exec` sets
# DBUS_SYSTEM_BUS_ADDRESS=unix:path=/run/share-netns/NS/dbus.sock. No mount
# namespace is needed for clients. avahi-daemon itself runs in a private mount
# namespace with a tmpfs on /run/avahi-daemon, because it refuses to start
# while another avahi-daemon's pid file (/run/avahi-daemon/pid) is live, e.g.
# the loopback one from scripts/avahi-up.sh.
set -euo pipefail

SHARE_SCRIPT=netns-hosts.sh
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=avahi/common.sh
. "$HERE/avahi/common.sh"
export PATH="$PATH:/usr/sbin:/sbin"

STATE=/run/share-netns
HOSTS=(share-a share-b)

ns_index() {
  case "$1" in
    share-a) echo 1 ;;
    share-b) echo 2 ;;
    *) share_die "unknown namespace '$1' (expected: ${HOSTS[*]})" ;;
  esac
}
ns_if() { echo "veth-${1#share-}"; }
ns_addr() { echo "198.18.0.$(ns_index "$1")"; }
ns_bus() { echo "unix:path=$STATE/$1/dbus.sock"; }

usage() { sed -n '2,10p' "$0" | sed 's/^# \{0,1\}//'; }

need_root() { [ "$(id -u)" = 0 ] || share_die "$1 needs root (network namespaces, daemons)"; }

ns_exists() { ip netns list 2>/dev/null | awk '{print $1}' | grep -qx "$1"; }

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

# in_ns NS CMD...: run CMD in NS with NS's bus as the system bus.
in_ns() {
  local ns=$1
  shift
  ip netns exec "$ns" env DBUS_SYSTEM_BUS_ADDRESS="$(ns_bus "$ns")" "$@"
}

avahi_running_in() { in_ns "$1" bash -c '. "$0"; share_avahi_running' "$HERE/avahi/common.sh"; }
bus_reachable_in() { in_ns "$1" bash -c '. "$0"; share_bus_reachable' "$HERE/avahi/common.sh"; }

start_host() {
  local ns=$1 pid
  mkdir -p "$STATE/$ns"
  write_dbus_conf "$ns"
  write_avahi_conf "$ns"

  rm -f "$STATE/$ns/dbus.sock" "$STATE/$ns/dbus.pid"
  ip netns exec "$ns" env --default-signal dbus-daemon --config-file="$STATE/$ns/dbus.conf" --fork \
    </dev/null >/dev/null 2>>"$STATE/$ns/dbus.log" ||
    share_die "dbus-daemon for $ns failed to start (see $STATE/$ns/dbus.log)"
  share_wait_until 50 bus_reachable_in "$ns" ||
    share_die "dbus-daemon for $ns does not answer (see $STATE/$ns/dbus.log)"

  # `setsid`, `ip netns exec`, `env` and `unshare` exec in place and `sh`
  # execs avahi-daemon, so $! is the daemon's pid. `env --default-signal`
  # unblocks signals a caller (a Swift test's Process) may have blocked.
  mkdir -p /run/avahi-daemon
  setsid ip netns exec "$ns" env --default-signal DBUS_SYSTEM_BUS_ADDRESS="$(ns_bus "$ns")" \
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

cmd_down() {
  need_root down
  local ns
  for ns in "${HOSTS[@]}"; do stop_host "$ns"; done
  # The veth pair dies with its namespaces; this only catches a half-made one.
  ip link del veth-a 2>/dev/null || true
  rmdir "$STATE" 2>/dev/null || true
}

cmd_up() {
  need_root up
  share_ensure_packages ip:iproute2 unshare:util-linux dbus-daemon:dbus dbus-send:dbus-bin \
    avahi-daemon:avahi-daemon avahi-browse:avahi-utils avahi-publish:avahi-utils
  cmd_down
  trap 'rc=$?; if [ $rc != 0 ]; then share_say "up failed; cleaning up"; cmd_down; fi' EXIT

  local ns
  for ns in "${HOSTS[@]}"; do
    ip netns add "$ns"
    ip -n "$ns" link set lo up
  done
  ip link add veth-a netns share-a type veth peer name veth-b netns share-b
  for ns in "${HOSTS[@]}"; do
    ip -n "$ns" addr add "$(ns_addr "$ns")/24" dev "$(ns_if "$ns")"
    ip -n "$ns" link set "$(ns_if "$ns")" up
  done
  for ns in "${HOSTS[@]}"; do start_host "$ns"; done
  trap - EXIT
  share_say "up: share-a 198.18.0.1 (veth-a), share-b 198.18.0.2 (veth-b); run commands with '$0 exec NS CMD...'"
}

cmd_exec() {
  need_root exec
  [ $# -ge 2 ] || { echo "Usage: $0 exec NS CMD..." >&2; exit 64; }
  local ns=$1
  shift
  ns_index "$ns" >/dev/null
  ns_exists "$ns" || share_die "namespace $ns does not exist; run '$0 up' first"
  exec ip netns exec "$ns" env --default-signal DBUS_SYSTEM_BUS_ADDRESS="$(ns_bus "$ns")" "$@"
}

cmd_status() {
  local ns
  for ns in "${HOSTS[@]}"; do
    if ! ns_exists "$ns"; then echo "$ns: absent"; continue; fi
    if avahi_running_in "$ns"; then
      echo "$ns: up, $(ns_addr "$ns") on $(ns_if "$ns"), avahi running, bus $(ns_bus "$ns")"
    else
      echo "$ns: namespace exists, avahi not running"
    fi
  done
}

case "${1:-}" in
  up) cmd_up ;;
  down) cmd_down ;;
  exec) shift; cmd_exec "$@" ;;
  addr) [ $# = 2 ] || { echo "Usage: $0 addr NS" >&2; exit 64; }; ns_addr "$2" ;;
  status) cmd_status ;;
  -h|--help|help) usage ;;
  *) usage >&2; exit 64 ;;
esac
