#!/usr/bin/env bash
# Make an avahi-daemon reachable on the system D-Bus, for `share` and its tests.
#
#   scripts/avahi-up.sh        idempotent; exit 0 once Avahi answers, 1 with a reason otherwise
#
# If a system D-Bus with a running avahi-daemon is already there (a desktop),
# it is used as it is and nothing is started. Otherwise (a container, CI) this
# starts what is missing:
#   - the system dbus-daemon (`dbus-daemon --system --fork`),
#   - avahi-daemon with scripts/avahi/loopback.conf: mDNS on `lo` only, so it
#     never multicasts on eth0 or any other real interface.
# Pid files of what it started go to /run/share-avahi/; scripts/avahi-down.sh
# stops exactly those. Daemon logs: /run/share-avahi/*.log.
set -euo pipefail

SHARE_SCRIPT=avahi-up.sh
HERE=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=avahi/common.sh
. "$HERE/avahi/common.sh"

CONF="$HERE/avahi/loopback.conf"
STATE=/run/share-avahi
export PATH="$PATH:/usr/sbin:/sbin"

if command -v dbus-send >/dev/null 2>&1 && share_avahi_running; then
  share_say "avahi-daemon is running and reachable on the system D-Bus; using it"
  exit 0
fi

[ "$(id -u)" = 0 ] || share_die "Avahi is not reachable and starting it needs root: run 'sudo $0' (or 'sudo systemctl start avahi-daemon')"

share_ensure_packages dbus-daemon:dbus dbus-send:dbus-bin avahi-daemon:avahi-daemon \
  avahi-browse:avahi-utils avahi-publish:avahi-utils

mkdir -p "$STATE"

# --- system D-Bus -----------------------------------------------------------
if ! share_bus_reachable; then
  old=$(cat /run/dbus/pid 2>/dev/null || true)
  if share_pid_is "$old" dbus-daemon; then
    share_die "the system dbus-daemon (pid $old) runs but does not answer on /run/dbus/system_bus_socket"
  fi
  # A dbus-daemon killed with SIGTERM leaves its pid file and socket behind,
  # and refuses to start while the pid file exists.
  rm -f /run/dbus/pid /run/dbus/system_bus_socket
  mkdir -p /run/dbus
  env --default-signal dbus-daemon --system --fork </dev/null >/dev/null 2>>"$STATE/dbus.log" ||
    share_die "dbus-daemon --system failed to start (see $STATE/dbus.log)"
  share_wait_until 50 share_bus_reachable ||
    share_die "dbus-daemon started but the system bus does not answer (see $STATE/dbus.log)"
  pid=$(cat /run/dbus/pid 2>/dev/null || true)
  share_pid_is "$pid" dbus-daemon || share_die "dbus-daemon wrote no usable pid file /run/dbus/pid"
  echo "$pid" > "$STATE/dbus.pid"
  share_say "started the system dbus-daemon (pid $pid)"
fi

# --- avahi-daemon -------------------------------------------------------------
if share_avahi_owned; then
  # Running but still establishing its host name: give it a moment.
  share_wait_until 100 share_avahi_running && exit 0
  share_die "avahi-daemon is on the system bus but never reached the running state"
fi

old=$(cat /run/avahi-daemon/pid 2>/dev/null || true)
if share_pid_is "$old" avahi-daemon; then
  if [ "$old" = "$(cat "$STATE/avahi.pid" 2>/dev/null || true)" ]; then
    # Ours, left without a bus (dbus-daemon died under it): restart it.
    share_stop_pid "$old" avahi-daemon || share_die "could not stop the stale avahi-daemon (pid $old)"
  else
    share_die "an avahi-daemon (pid $old) runs but is not on the system D-Bus; stop it first (sudo avahi-daemon -k)"
  fi
fi
rm -f "$STATE/avahi.pid"
mkdir -p /run/avahi-daemon

# Foreground mode in the background rather than --daemonize: its log then goes
# to a file (this machine may have no syslog). All three standard descriptors
# are redirected so a caller reading our stdout/stderr through a pipe (a test
# using Process) is not kept waiting for EOF by the daemon.
# `env --default-signal`: callers such as Swift tests (Foundation.Process) can
# hand us a signal mask with SIGTERM blocked, which the daemons would inherit
# and then ignore avahi-down.sh.
# `env` and `setsid` exec in place, so $! is the daemon's pid.
env --default-signal setsid avahi-daemon --no-drop-root --no-chroot -f "$CONF" \
  </dev/null >>"$STATE/avahi.log" 2>&1 &
launched=$!

started() {
  local p
  p=$(cat /run/avahi-daemon/pid 2>/dev/null || true)
  share_pid_is "$p" avahi-daemon && share_avahi_running
}
if ! share_wait_until 100 share_running_or_gone "$launched" started || ! started; then
  tail -n 20 "$STATE/avahi.log" >&2 || true
  share_die "avahi-daemon exited at start or was not running within 10 s (log: $STATE/avahi.log)"
fi
pid=$(cat /run/avahi-daemon/pid)
echo "$pid" > "$STATE/avahi.pid"
share_say "started avahi-daemon on loopback only (pid $pid, config $CONF)"
