#!/usr/bin/env bash
# Tests scripts/install.sh --user and --uninstall in a temporary HOME (which already holds some
# of the user's own files in the same folders): what lands where, that the installed pieces work
# together, that a second install changes nothing, that a file it did not install is not
# replaced, and that --uninstall leaves the HOME exactly as it was (a file the user changed is
# kept and named). Uses a built share (SHARE_BIN, else the newest build; builds one if none).
#   scripts/install-test.sh      exit 0 when every check passes
set -euo pipefail
SHARE_SCRIPT=install-test
. "$(dirname "$0")/packaging/common.sh"

share_ensure_packages desktop-file-validate:desktop-file-utils
SHARE_BIN=$(share_find_binary)
export SHARE_BIN
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
failures=0
fail() { share_say "FAIL: $*"; failures=$((failures + 1)); }
check() { local d=$1; shift; if "$@"; then share_say "ok: $d"; else fail "$d"; fi; }

# A HOME with a space in its path (desktop entries must quote it) and some files of the user's.
export HOME="$work/home of tester"
mkdir -p "$HOME/.local/bin" "$HOME/.local/share/applications" "$HOME/.config"
echo '#!/bin/sh' >"$HOME/.local/bin/other-tool"
printf '[Desktop Entry]\nType=Application\nName=Other\nExec=other\n' >"$HOME/.local/share/applications/other.desktop"
snapshot() { (cd "$HOME" && find . -printf '%p %y %m\n' | LC_ALL=C sort); }
snapshot >"$work/before"
install_sh() { env -u XDG_RUNTIME_DIR -u DBUS_SESSION_BUS_ADDRESS "$SHARE_REPO/scripts/install.sh" "$@"; }

install_sh --user 2>"$work/install.err" || { cat "$work/install.err" >&2; share_die "install --user failed"; }
# This HOME is not the login home: the user manager (the real user's) is not touched (review 30).
check "a scratch HOME leaves the systemd user manager alone" grep -qF "the systemd user manager is left alone" "$work/install.err"
B="$HOME/.local/bin/share"
manifest="$HOME/.local/share/share/install-manifest"
check "binary installed and runs" bash -c '[ "$("$1" --version)" = "$("$SHARE_BIN" --version)" ]' _ "$B"
check "unit installed" cmp -s "$HOME/.config/systemd/user/share.service" "$SHARE_REPO/contrib/share.service"
for doc in README.md Declarations.plist TYPES.md INBOX.md DESKTOP.md examples/thunar-uca.xml; do
  check "doc $doc" test -f "$HOME/.local/share/doc/share/$doc"
done
check "helper installed, executable" test -x "$HOME/.local/lib/share/share-send-gui"
desktop="$HOME/.local/share/applications/share-send.desktop"
check "desktop entry points at this user's helper (quoted)" \
  grep -qxF "Exec=\"$HOME/.local/lib/share/share-send-gui\" %F" "$desktop"
check "desktop entry validates" desktop-file-validate "$desktop"
check "Dolphin service menu, executable (KDE requires it for a user's menus)" \
  bash -c 'test -x "$1" && grep -qxF "Exec=\"$2\" %F" "$1"' _ "$HOME/.local/share/kio/servicemenus/share-send.desktop" "$HOME/.local/lib/share/share-send-gui"
check "Nautilus script links to the helper" \
  test "$(readlink "$HOME/.local/share/nautilus/scripts/Send to nearby device")" = "$HOME/.local/lib/share/share-send-gui"
if command -v systemd-analyze >/dev/null 2>&1; then
  # Through a link without the space: systemd splits Documentation= URLs at spaces, and no real
  # home has one (this one has it for the desktop entries' quoting).
  mkdir -p "$work/run" && chmod 700 "$work/run"
  ln -s "$HOME" "$work/home"
  check "the installed unit verifies (its ExecStart is the installed binary)" \
    bash -c '[ -z "$(HOME="$3" XDG_RUNTIME_DIR="$1" systemd-analyze --user verify "$2" 2>&1)" ]' _ "$work/run" "$HOME/.config/systemd/user/share.service" "$work/home"
fi
# The helper, started through the Nautilus link with no share on PATH, finds ~/.local/bin/share:
# with no chooser available it gets as far as saying so (not "share is not installed"). Where
# notify-send is installed the helper says it there too, and GLib makes its cache folder: kept
# out of HOME, which the uninstall check compares.
status=0
env -i HOME="$HOME" XDG_CACHE_HOME="$work/cache" PATH="$(dirname "$(command -v jq)"):/nonexistent" \
  "$HOME/.local/share/nautilus/scripts/Send to nearby device" "$HOME/.local/bin/other-tool" 2>"$work/helper.err" || status=$?
check "the installed helper finds the installed share" grep -q "no way to ask which device" "$work/helper.err"
# share(1) and the completions, from the installed binary, where man and each shell look.
check "share(1) installed, as 'share man' prints it" cmp -s "$HOME/.local/share/man/man1/share.1" <("$B" man)
if command -v man >/dev/null 2>&1; then
  check "man finds share(1) through ~/.local/bin on PATH" \
    bash -c '[ "$(PATH="$1:/usr/bin:/bin" man -w share)" = "$2" ]' _ "$HOME/.local/bin" "$HOME/.local/share/man/man1/share.1"
fi
check "bash completion installed and completes the modes (bash-completion's user folder)" \
  bash -c 'source "$1" && COMP_WORDS=(share receive "") COMP_CWORD=2 && _share && [ "${COMPREPLY[*]}" = "off contacts everyone" ]' \
  _ "$HOME/.local/share/bash-completion/completions/share"
check "fish completion installed" cmp -s "$HOME/.local/share/fish/vendor_completions.d/share.fish" <("$B" completions fish)
check "zsh completion installed" cmp -s "$HOME/.local/share/zsh/site-functions/_share" <("$B" completions zsh)

cp "$manifest" "$work/manifest.1"
install_sh --user 2>/dev/null
check "a second install records the same" cmp -s "$manifest" "$work/manifest.1"
check "the manifest lists only paths in HOME" bash -c '! cut -f2 "$1" | grep -v "^$2/"' _ "$manifest" "$HOME"

# Not the install's: refused without --force, nothing changed.
rm -f "$B" && echo "mine" >"$B"
snapshot >"$work/mine"
status=0
install_sh --user 2>"$work/refused.err" || status=$?
check "a file it installed and that was changed since is not replaced (exit 1, named as changed)" \
  bash -c '[ "$1" = 1 ] && grep -qF "$2 (changed since it was installed)" "$3"' _ "$status" "$B" "$work/refused.err"
check "the refused install changed nothing" bash -c 'cmp -s "$1" <(cd "$HOME" && find . -printf "%p %y %m\n" | LC_ALL=C sort)' _ "$work/mine"
install_sh --user --force 2>/dev/null
check "--force replaces it" bash -c '"$1" --version >/dev/null' _ "$B"

# A file the user changed after installing is kept by --uninstall; everything else goes.
echo "# my change" >>"$HOME/.local/share/doc/share/DESKTOP.md"
install_sh --uninstall 2>"$work/uninstall.err"
check "uninstall names the changed file it keeps" grep -qF "kept $HOME/.local/share/doc/share/DESKTOP.md" "$work/uninstall.err"
rm "$HOME/.local/share/doc/share/DESKTOP.md"
rmdir "$HOME/.local/share/doc/share" "$HOME/.local/share/doc"
snapshot >"$work/after"
check "uninstall leaves HOME as it was (apart from the kept file)" cmp -s "$work/before" "$work/after" ||
  diff "$work/before" "$work/after" >&2 || true
check "a second uninstall has nothing to do" bash -c 'install_sh() { "$1/scripts/install.sh" "$2"; }; install_sh "$1" --uninstall 2>&1 | grep >/dev/null "nothing to remove"' _ "$SHARE_REPO"

[ "$failures" = 0 ] || share_die "$failures check(s) failed"
share_say "ok: all checks passed"
