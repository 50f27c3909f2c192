#!/usr/bin/env bash
# Stop what scripts/avahi-up.sh started, and nothing else.
#
#   scripts/avahi-down.sh                stop avahi-daemon, then the system dbus-daemon, if avahi-up.sh started them
#   scripts/avahi-down.sh --avahi-only   stop only the avahi-daemon (the bus stays; used to test daemon restarts)
#
# An Avahi or D-Bus that was already running before avahi-up.sh (no pid file in
# /run/share-avahi/) is left alone. Idempotent.
set -euo pipefail

SHARE_SCRIPT=avahi-down.sh
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=avahi/common.sh
. "$HERE/avahi/common.sh"
STATE=/run/share-avahi

avahi_only=0
case "${1:-}" in
  "") ;;
  --avahi-only) avahi_only=1 ;;
  -h|--help) sed -n '2,9p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
  *) echo "Usage: $0 [--avahi-only]" >&2; exit 64 ;;
esac

if [ -f "$STATE/avahi.pid" ]; then
  pid=$(cat "$STATE/avahi.pid")
  share_stop_pid "$pid" avahi-daemon || share_die "avahi-daemon (pid $pid) would not stop"
  rm -f "$STATE/avahi.pid"
  share_say "stopped avahi-daemon (pid $pid)"
fi

if [ "$avahi_only" = 0 ] && [ -f "$STATE/dbus.pid" ]; then
  pid=$(cat "$STATE/dbus.pid")
  share_stop_pid "$pid" dbus-daemon || share_die "dbus-daemon (pid $pid) would not stop"
  # dbus-daemon leaves both behind on SIGTERM; they are ours, so tidy them.
  if [ "$(cat /run/dbus/pid 2>/dev/null || true)" = "$pid" ]; then
    rm -f /run/dbus/pid /run/dbus/system_bus_socket
  fi
  rm -f "$STATE/dbus.pid"
  share_say "stopped the system dbus-daemon (pid $pid)"
fi
exit 0
