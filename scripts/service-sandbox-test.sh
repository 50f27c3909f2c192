#!/usr/bin/env bash
# Runs contrib/share.service under a real, unprivileged systemd user manager and receives with
# it: proof that the sandbox (PrivateUsers, ProtectSystem=strict, MemoryDenyWriteExecute, the
# system call filter, no capabilities ...) does not break receiving. A filtered system call kills
# the daemon here (a drop-in resets SystemCallErrorNumber=), so one the unit's EPERM would hide
# shows up as a failure.
#   scripts/service-sandbox-test.sh     as root, on a machine NOT booted with systemd (a VM or
#                                       container like this project's CI)
# It makes what a login would: a temporary system user (its home under /home), its runtime folder
# under /run/user, a cgroup it owns, and — in a private mount namespace, so nothing leaks to the
# host — /run/systemd/system (systemd --user refuses to start without it). Everything is removed
# on exit. On a systemd desktop, do the same as yourself: scripts/install.sh --user, then
# systemctl --user start share, and send to it.
# Needs Avahi on the system bus (scripts/avahi-up.sh) and a built share (SHARE_BIN, else the
# newest build). Traffic: loopback only.
set -euo pipefail
SHARE_SCRIPT=service-sandbox-test
. "$(dirname "$0")/packaging/common.sh"

[ "$(id -u)" = 0 ] || share_die "needs root (a test user, a cgroup, a mount namespace)"
[ ! -d /run/systemd/system ] || share_die "this machine runs systemd: test with your own user manager instead (see the header)"
"$SHARE_REPO/scripts/avahi-up.sh"
binary=$(share_find_binary)

user=share-sandbox-$$
home=/home/$user
useradd --system --user-group --home-dir "$home" --create-home --shell /usr/sbin/nologin "$user"
uid=$(id -u "$user") gid=$(id -g "$user")
runtime=/run/user/$uid
made_run_user=""
[ -d /run/user ] || made_run_user=1
cgroups=()
manager=""
work=$(mktemp -d)
cleanup() {
  local pid
  # The manager stops its units when it exits; anything of the test user left is ours too.
  if [ -n "$manager" ]; then share_stop_pid "$manager" systemd || true; fi
  for pid in $(pgrep -U "$uid" 2>/dev/null); do kill -KILL "$pid" 2>/dev/null || true; done
  for cg in "${cgroups[@]}"; do find "$cg" -depth -type d -exec rmdir {} + 2>/dev/null || true; done
  userdel "$user" 2>/dev/null || true
  rm -rf "$home" "$runtime" "$work"
  if [ -n "$made_run_user" ]; then rmdir /run/user 2>/dev/null || true; fi
}
trap cleanup EXIT
mkdir -p "$runtime" "$home/.local/bin" "$home/.config/systemd/user/share.service.d"
cp "$binary" "$home/.local/bin/share"
share_unit user >"$home/.config/systemd/user/share.service"
printf '[Service]\n# this test only: a filtered system call kills instead of returning EPERM\nSystemCallErrorNumber=\n' \
  >"$home/.config/systemd/user/share.service.d/kill-on-filtered-call.conf"
chown -R "$uid:$gid" "$home" "$runtime"
chmod 700 "$runtime"

# A cgroup the user owns, in each hierarchy systemd uses (cgroup2, and name=systemd on hybrid).
for hierarchy in $(awk '$3 == "cgroup2" || ($3 == "cgroup" && $4 ~ /name=systemd/) {print $2}' /proc/mounts); do
  mkdir "$hierarchy/$user"
  chown -R "$uid:$gid" "$hierarchy/$user"
  cgroups+=("$hierarchy/$user")
done
[ ${#cgroups[@]} -gt 0 ] || share_die "no cgroup hierarchy to give the user manager"

as_user() { setpriv --reuid "$uid" --regid "$gid" --clear-groups env -i HOME="$home" XDG_RUNTIME_DIR="$runtime" PATH=/usr/bin:/bin "$@"; }
cat >"$work/manager.sh" <<EOF
set -e
for cg in ${cgroups[*]}; do echo \$\$ >"\$cg/cgroup.procs"; done
mountpoint -q /run || mount --bind /run /run   # as on a booted system: /run is its own mount
mount -t tmpfs tmpfs /run/systemd 2>/dev/null || { mkdir -p /run/systemd && mount -t tmpfs tmpfs /run/systemd; }
mkdir /run/systemd/system
exec setpriv --reuid $uid --regid $gid --clear-groups env -i HOME=$home XDG_RUNTIME_DIR=$runtime USER=$user PATH=/usr/bin:/bin /lib/systemd/systemd --user
EOF
unshare --mount --propagation private bash "$work/manager.sh" >"$work/manager.log" 2>&1 &
manager=$!
in_manager() { nsenter --mount --target "$manager" setpriv --reuid "$uid" --regid "$gid" --clear-groups \
  env -i HOME="$home" XDG_RUNTIME_DIR="$runtime" PATH=/usr/bin:/bin "$@"; }
running() { in_manager systemctl --user is-system-running 2>/dev/null | grep >/dev/null -E 'running|degraded'; }
share_wait_until 100 running || share_die "the user manager did not start: $(cat "$work/manager.log")"

failures=0
fail() { share_say "FAIL: $*"; failures=$((failures + 1)); }
S="$home/.local/bin/share"
# The sender: a home of root's; the receiver trusts it.
export SHARE_HOME="$work/sender"
sender_id=$("$S" id | sed -n 's/^ID: *//p')
in_manager "$S" trust add "$sender_id" --name sandbox-sender >/dev/null 2>&1
in_manager systemctl --user start share.service || fail "share.service did not start"
pid=$(in_manager systemctl --user show -p MainPID --value share.service)
[ "$pid" != 0 ] || share_die "share.service is not running: $(in_manager systemctl --user show -p ActiveState,Result,ExecMainCode,ExecMainStatus share.service | tr '\n' ' ')"
grep -q '^NoNewPrivs:[[:space:]]*1' "/proc/$pid/status" || fail "no NoNewPrivs"
grep -q '^Seccomp:[[:space:]]*2' "/proc/$pid/status" || fail "no seccomp filter"
grep -q '^CapBnd:[[:space:]]*0*$' "/proc/$pid/status" || fail "capabilities left in the bounding set"
awk '$5 == "/" {print $6}' "/proc/$pid/mountinfo" | grep >/dev/null '^ro' || fail "/ is not read-only for the daemon"
awk -v d="$home/Documents" '$5 == d {print $6}' "/proc/$pid/mountinfo" | grep >/dev/null '^rw' || fail "$home/Documents is not writable"
advertised() { in_manager "$S" status 2>/dev/null | grep >/dev/null '(advertised)'; }
share_wait_until 100 advertised || fail "not advertised through Avahi: $(in_manager "$S" status 2>&1)"
port=$(in_manager "$S" status | sed -n 's/^Daemon:.*port \([0-9]*\)$/\1/p')

echo "sandboxed" >"$work/notes.txt"
head -c 64M /dev/urandom >"$work/big.bin" && tar -cf "$work/big.tar" -C "$work" big.bin
# (A folder is left out: receiving one fails for any user but root, sandbox or not: the Inbox
# moves a folder it already made read-only, which needs write permission on it. Lead's note.)
"$S" send "$work/notes.txt" "$work/big.tar" --to "127.0.0.1:$port" >"$work/send.out" 2>&1 || fail "send: $(cat "$work/send.out")"
cmp -s "$work/big.tar" "$home/Documents/Inbox/big.tar" || fail "big.tar did not arrive intact"
# A stranger's ask, accepted through the control socket; then reload, a mode change, a stop.
SHARE_HOME="$work/stranger" "$S" send "$work/notes.txt" --to "127.0.0.1:$port" >"$work/stranger.out" 2>&1 &
stranger=$!
asked() { in_manager "$S" requests 2>/dev/null | grep >/dev/null '^\[1\]'; }
share_wait_until 100 asked && in_manager "$S" accept 1 >/dev/null || fail "the stranger's ask never showed"
wait "$stranger" || fail "the stranger's send: $(cat "$work/stranger.out")"
in_manager systemctl --user reload share.service || fail "reload"
in_manager "$S" receive contacts >/dev/null || fail "receive contacts"
in_manager systemctl --user stop share.service
result=$(in_manager systemctl --user show -p Result --value share.service)
[ "$result" = success ] || fail "the daemon ended with $result (signal: $(in_manager systemctl --user show -p ExecMainStatus --value share.service))"
[ "$(ls "$home/Documents/Inbox" | wc -l)" = 3 ] || fail "Inbox: $(ls "$home/Documents/Inbox")"

[ "$failures" = 0 ] || share_die "$failures check(s) failed"
share_say "ok: share.service received under its full sandbox as an unprivileged user (no filtered call, no W+X mapping refused)"
