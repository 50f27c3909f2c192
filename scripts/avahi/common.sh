# Shared helpers for scripts/avahi-up.sh, scripts/avahi-down.sh and
# scripts/netns-hosts.sh. Sourced, never run.

share_say() { printf '%s: %s\n' "${SHARE_SCRIPT:-share}" "$*" >&2; }
share_die() { printf '%s: error: %s\n' "${SHARE_SCRIPT:-share}" "$*" >&2; exit 1; }

# share_pid_alive PID: true when PID is a live (non-zombie) process.
share_pid_alive() {
  [ -n "${1:-}" ] && [ -r "/proc/$1/status" ] || return 1
  ! grep -q '^State:[[:space:]]*Z' "/proc/$1/status" 2>/dev/null
}

# share_pid_is PID COMM: true when PID is alive and its command name is COMM,
# so a recycled pid is never mistaken for a daemon we started.
share_pid_is() {
  share_pid_alive "$1" && [ "$(cat "/proc/$1/comm" 2>/dev/null)" = "$2" ]
}

# share_stop_pid PID COMM: SIGTERM, then wait (bounded) for it to exit; SIGKILL
# as a last resort. Only touches PID when it still is COMM.
share_stop_pid() {
  local pid=$1 comm=$2 i
  share_pid_is "$pid" "$comm" || return 0
  kill -TERM "$pid" 2>/dev/null || return 0
  for i in $(seq 1 100); do
    share_pid_alive "$pid" || return 0
    sleep 0.05
  done
  share_say "$comm (pid $pid) ignored SIGTERM for 5 s; sending SIGKILL"
  kill -KILL "$pid" 2>/dev/null || true
  for i in $(seq 1 40); do
    share_pid_alive "$pid" || return 0
    sleep 0.05
  done
  return 1
}

# share_wait_until TRIES CMD...: retry CMD every 0.1 s, at most TRIES times.
share_wait_until() {
  local tries=$1 i
  shift
  for i in $(seq 1 "$tries"); do
    "$@" && return 0
    sleep 0.1
  done
  return 1
}

# share_running_or_gone PID CHECK...: true when CHECK succeeds or PID has
# exited, so a wait on a daemon that died at start ends at once.
share_running_or_gone() {
  local pid=$1
  shift
  "$@" || ! share_pid_alive "$pid"
}

# share_ensure_packages CMD:PACKAGE...: installs (apt-get, Debian) the packages
# whose command is missing. Runs `apt-get update` once, only when something is
# missing. While installing, a temporary policy-rc.d keeps the package scripts
# from starting the system avahi-daemon, which would multicast on every
# interface.
share_ensure_packages() {
  local pair cmd pkg missing="" rc=0 policy_created=0
  for pair in "$@"; do
    cmd=${pair%%:*}
    pkg=${pair#*:}
    if ! command -v "$cmd" >/dev/null 2>&1 && [ ! -x "/usr/sbin/$cmd" ] && [ ! -x "/sbin/$cmd" ]; then
      case " $missing " in *" $pkg "*) ;; *) missing="$missing $pkg" ;; esac
    fi
  done
  [ -z "$missing" ] && return 0
  # shellcheck disable=SC2086
  share_apt_install $missing
}

# share_apt_install PACKAGE...: apt-get update, then install the packages. While
# installing, a temporary policy-rc.d keeps the package scripts from starting any
# service — above all the system avahi-daemon, which would multicast on every
# interface (eth0 included). Used by scripts/setup.sh too.
share_apt_install() {
  local rc=0 policy_created=0 sudo=""
  [ $# -gt 0 ] || return 0
  if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null 2>&1 || share_die "missing packages: $* (install them: sudo apt-get install $*)"
    sudo=sudo
  fi
  command -v apt-get >/dev/null 2>&1 || share_die "missing packages: $* and no apt-get to install them"
  share_say "installing: $*"
  if [ ! -e /usr/sbin/policy-rc.d ]; then
    printf '#!/bin/sh\n# temporary, from share scripts/avahi/common.sh\nexit 101\n' | $sudo tee /usr/sbin/policy-rc.d >/dev/null
    $sudo chmod 755 /usr/sbin/policy-rc.d
    policy_created=1
  fi
  # Another apt-get (a script beside this one) is waited for, not failed on.
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 update -qq >&2 &&
    $sudo env DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=300 install -y -qq --no-install-recommends "$@" >&2 || rc=$?
  [ "$policy_created" = 1 ] && $sudo rm -f /usr/sbin/policy-rc.d
  [ "$rc" = 0 ] || share_die "apt-get install $* failed (exit $rc)"
  export PATH="$PATH:/usr/sbin:/sbin"
}

# D-Bus probes. They never call a method on org.freedesktop.Avahi unless the
# name already has an owner: a method call to an unowned name would ask the bus
# to activate Avahi, which on a systemd desktop starts it on every interface.
share_bus_reachable() {
  dbus-send --system --print-reply --reply-timeout=2000 --dest=org.freedesktop.DBus \
    /org/freedesktop/DBus org.freedesktop.DBus.GetId >/dev/null 2>&1
}
share_avahi_owned() {
  dbus-send --system --print-reply=literal --reply-timeout=2000 --dest=org.freedesktop.DBus \
    /org/freedesktop/DBus org.freedesktop.DBus.NameHasOwner string:org.freedesktop.Avahi \
    2>/dev/null | grep >/dev/null true
}
# True when avahi-daemon answers on the system bus and its server state is
# AVAHI_SERVER_RUNNING (2): host name established, ready to publish/browse.
share_avahi_running() {
  share_avahi_owned &&
    dbus-send --system --print-reply=literal --reply-timeout=2000 --dest=org.freedesktop.Avahi \
      / org.freedesktop.Avahi.Server.GetState 2>/dev/null | grep >/dev/null 'int32 2$'
}
