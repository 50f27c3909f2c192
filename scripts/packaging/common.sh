# shellcheck shell=bash
# Shared by scripts/package.sh, scripts/install.sh and their tests. Sourced, never run.
# Where each installed file comes from, and the two layouts it goes to: the Debian package's
# (/usr) and a user install's (~/.local, ~/.config). One list, so the package and the user
# install cannot drift apart.

SHARE_REPO=${SHARE_REPO:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
# shellcheck source=../avahi/common.sh
. "$SHARE_REPO/scripts/avahi/common.sh"

# What scripts/package.sh builds the package with (COMMAND:PACKAGE pairs for share_ensure_packages).
share_package_tools=(
  dpkg-deb:dpkg dpkg-shlibdeps:dpkg-dev dpkg-gencontrol:dpkg-dev strip:binutils chrpath:chrpath
  lintian:lintian desktop-file-validate:desktop-file-utils gzip:gzip
)

# share_version BINARY: the version `share --version` prints (the one source of the version).
share_version() {
  local line version
  line=$("$1" --version) || share_die "$1 --version failed"
  version=${line#share }
  [[ "$version" =~ ^[0-9][0-9A-Za-z.+~-]*$ ]] || share_die "'$1 --version' printed '$line', not 'share VERSION'"
  printf '%s\n' "$version"
}

# share_find_binary: a built share (release preferred), else builds one (debug) with setup.sh.
share_find_binary() {
  local candidate
  if [ -n "${SHARE_BIN:-}" ]; then
    [ -x "$SHARE_BIN" ] || share_die "SHARE_BIN=$SHARE_BIN is not an executable"
    printf '%s\n' "$SHARE_BIN"
    return
  fi
  for candidate in "$SHARE_REPO"/.build/x86_64-unknown-linux-gnu/release/share \
    "$SHARE_REPO"/.build/x86_64-unknown-linux-gnu/debug/share; do
    [ -x "$candidate" ] && { printf '%s\n' "$candidate"; return; }
  done
  "$SHARE_REPO/scripts/setup.sh" debug
}

# share_unit LAYOUT: contrib/share.service for LAYOUT. `user` is the file as it is (binary in
# ~/.local/bin, documentation in ~/.local/share/doc/share); `system` points both into /usr, and
# names share(1) too (in /usr/share/man, where man always looks).
share_unit() {
  local unit="$SHARE_REPO/contrib/share.service"
  case "$1" in
    user) cat "$unit" ;;
    system)
      grep -q '^ExecStart=%h/.local/bin/share ' "$unit" || share_die "$unit: ExecStart= is not %h/.local/bin/share"
      grep -q '^Documentation=file:%h/.local/share/doc/share/README.md' "$unit" ||
        share_die "$unit: Documentation= is not file:%h/.local/share/doc/share/README.md"
      sed -e 's|^ExecStart=%h/.local/bin/share |ExecStart=/usr/bin/share |' \
        -e 's|^Documentation=file:%h/.local/share/doc/share/README.md|Documentation=man:share(1)\nDocumentation=file:/usr/share/doc/share/README.md|' "$unit"
      ;;
    *) share_die "share_unit: unknown layout $1" ;;
  esac
}
