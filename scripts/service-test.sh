#!/usr/bin/env bash
# Checks the systemd user unit contrib/share.service, in both layouts (as scripts/install.sh --user
# installs it, and as the Debian package installs it):
#   - `systemd-analyze --user verify` loads it as a user manager would; any message fails the test
#     (verify exits 0 on unknown keys and bad values, so its output is what counts);
#   - no system-only unit in Wants=/Requires=/After=/Before= (a user manager cannot see them);
#   - the hardening issue 12 asks for is there;
#   - prints the `systemd-analyze security --offline=yes` exposure score and its open points.
# Runs without a user manager: verify needs only $XDG_RUNTIME_DIR, and the unit's ExecStart= must
# name an executable, so a temporary HOME holds the built share at ~/.local/bin/share.
#   scripts/service-test.sh        exit 0 when every check passes
set -euo pipefail
SHARE_SCRIPT=service-test
. "$(dirname "$0")/packaging/common.sh"

command -v systemd-analyze >/dev/null 2>&1 || share_die "systemd-analyze is missing (apt-get install systemd)"
binary=$(share_find_binary)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/home/.local/bin" "$work/run" "$work/user" "$work/system/usr/bin"
chmod 700 "$work/run"
ln -s "$binary" "$work/home/.local/bin/share"
share_unit user >"$work/user/share.service"
share_unit system >"$work/system/share.service"

failures=0
fail() { share_say "FAIL: $*"; failures=$((failures + 1)); }

for layout in user system; do
  unit="$work/$layout/share.service"
  manpath=${MANPATH:-}
  # The system layout runs /usr/bin/share: verify it with that path pointing at the built binary,
  # so a machine without the package checks the same file; its man:share(1) is the page that
  # binary prints, where MANPATH points man (verify runs `man share(1)`).
  if [ "$layout" = system ]; then
    ln -s "$binary" "$work/system/usr/bin/share"
    sed -i "s|^ExecStart=/usr/bin/share |ExecStart=$work/system/usr/bin/share |" "$unit"
    mkdir -p "$work/system/man/man1"
    "$binary" man >"$work/system/man/man1/share.1"
    manpath="$work/system/man"
  fi
  messages=$(HOME="$work/home" XDG_RUNTIME_DIR="$work/run" MANPATH="$manpath" systemd-analyze --user verify "$unit" 2>&1) ||
    fail "$layout: systemd-analyze --user verify exited $?"
  [ -z "$messages" ] || fail "$layout: systemd-analyze --user verify said:"$'\n'"$messages"

  for key in Wants Requires Requisite BindsTo After Before PartOf; do
    for system_only in network-online.target network.target avahi-daemon.service dbus.service \
      multi-user.target nss-lookup.target; do
      grep -Eq "^$key=.*\\b$system_only\\b" "$unit" && fail "$layout: $key= names the system unit $system_only"
    done
  done
  for setting in NoNewPrivileges=yes ProtectKernelTunables=yes ProtectKernelModules=yes \
    ProtectKernelLogs=yes ProtectControlGroups=yes RestrictNamespaces=yes LockPersonality=yes \
    MemoryDenyWriteExecute=yes SystemCallFilter=@system-service UMask=0077 'CapabilityBoundingSet=' \
    PrivateUsers=yes; do
    grep -qx -- "$setting" "$unit" || fail "$layout: '$setting' is missing"
  done
  # A folder the sandbox makes writable must be optional or created before the sandbox is set up.
  for path in $(sed -n 's/^ReadWritePaths=//p' "$unit"); do
    case "$path" in
      -*) ;;
      %h/Documents) grep -q '^ExecStartPre=+mkdir -p %h/Documents$' "$unit" || fail "$layout: %h/Documents is not created before the sandbox" ;;
      %E/share) grep -qx 'ConfigurationDirectory=share' "$unit" || fail "$layout: %E/share is not created (ConfigurationDirectory=share)" ;;
      %t) ;; # $XDG_RUNTIME_DIR always exists while a user manager runs
      *) fail "$layout: ReadWritePaths=$path may not exist on a fresh account; prefix it with '-'" ;;
    esac
  done
done
grep -q '^ExecStart=/usr/bin/share daemon' <(share_unit system) || fail "system: ExecStart= is not /usr/bin/share daemon"
grep -q '^Documentation=file:/usr/share/doc/share/README.md' <(share_unit system) || fail "system: Documentation= is not the packaged README"
grep -q '^Documentation=man:share(1)$' <(share_unit system) || fail "system: Documentation= does not name share(1)"

security=$(systemd-analyze security --offline=yes "$work/user/share.service" 2>&1) || fail "systemd-analyze security exited $?"
printf '%s\n' "$security" | grep '✗' >&2 || true
score=$(printf '%s\n' "$security" | sed -n 's/^→ Overall exposure level for share.service: //p')
[ -n "$score" ] || fail "no exposure score in systemd-analyze security's output"
share_say "systemd-analyze security --offline=yes: $score"

[ "$failures" = 0 ] || share_die "$failures check(s) failed"
share_say "ok: verify clean in both layouts, hardening present"
