#!/usr/bin/env bash
# Installs share for the current user, without root, or removes exactly that install.
#   scripts/install.sh --user [--force]   build (scripts/setup.sh release) and install:
#       ~/.local/bin/share                             the binary
#       ~/.config/systemd/user/share.service           the user unit (contrib/share.service)
#       ~/.local/share/doc/share/                      README, default declarations, TYPES.md, ...
#       ~/.local/lib/share/share-send-gui              "Send to nearby device" (see DESKTOP.md):
#       ~/.local/share/applications/share-send.desktop, ~/.local/share/kio/servicemenus/...,
#       ~/.local/share/nautilus/scripts/Send to nearby device
#       ~/.local/share/man/man1/share.1                 share(1), from `share man`
#       ~/.local/share/bash-completion/completions/share, ~/.local/share/fish/vendor_completions.d/
#       share.fish, ~/.local/share/zsh/site-functions/_share: from `share completions SHELL`
#     Every file, link and folder it creates is recorded in ~/.local/share/share/install-manifest.
#     It refuses to replace a file it did not install (--force: replace it, and own it from then on).
#     Run again to update: files no longer installed are removed.
#   scripts/install.sh --uninstall        remove what the manifest lists: files only if unchanged
#     since installed (a changed one is kept and named), links, then the folders it created if
#     they are empty. share's data (~/.config/share, ~/Documents/Inbox) is never touched.
# SHARE_BIN=PATH installs an already built binary instead of building one.
set -euo pipefail
SHARE_SCRIPT=install
. "$(dirname "$0")/packaging/common.sh"
umask 022

[ -n "${HOME:-}" ] && [ -d "$HOME" ] || share_die "HOME is not set to a folder"
manifest="$HOME/.local/share/share/install-manifest"
zsh_functions="$HOME/.local/share/zsh/site-functions"
helper="$HOME/.local/lib/share/share-send-gui"

# The files of a user install: SOURCE-KIND SOURCE DEST MODE, one a line. SOURCE-KIND: file (a
# repository file), unit, desktop (a .desktop file whose helper path is rewritten), binary, link,
# generated (what the installed binary prints when given SOURCE's words: `share man`, ...).
layout() {
  local doc="$HOME/.local/share/doc/share"
  cat <<EOF
binary	-	$HOME/.local/bin/share	0755
unit	-	$HOME/.config/systemd/user/share.service	0644
file	README.md	$doc/README.md	0644
file	Inbox/Declarations.plist	$doc/Declarations.plist	0644
file	Inbox/TYPES.md	$doc/TYPES.md	0644
file	Inbox/README.md	$doc/INBOX.md	0644
file	contrib/desktop/README.md	$doc/DESKTOP.md	0644
file	contrib/desktop/thunar-uca.xml	$doc/examples/thunar-uca.xml	0644
file	contrib/desktop/share-send-gui	$helper	0755
desktop	contrib/desktop/share-send.desktop	$HOME/.local/share/applications/share-send.desktop	0644
desktop	contrib/desktop/dolphin-share-send.desktop	$HOME/.local/share/kio/servicemenus/share-send.desktop	0755
link	$helper	$HOME/.local/share/nautilus/scripts/Send to nearby device	-
EOF
  # share(1) and the completions come from the binary's own declarations. bash-completion and
  # fish look in these folders by themselves; man finds ~/.local/share/man through ~/.local/bin
  # on PATH; zsh has no folder of a user's own, so after_install says what to add to fpath.
  cat <<EOF
generated	man	$HOME/.local/share/man/man1/share.1	0644
generated	completions bash	$HOME/.local/share/bash-completion/completions/share	0644
generated	completions fish	$HOME/.local/share/fish/vendor_completions.d/share.fish	0644
generated	completions zsh	$zsh_functions/_share	0644
EOF
}

# The Exec= of a desktop file, pointed at this user's helper (quoted, as the desktop entry spec
# wants for a path with spaces; a path with characters it would have to escape is refused).
desktop_for_user() {
  local replacement
  case "$helper" in *[\"\`\$\\]*) share_die "cannot write a desktop entry for $helper (\", \`, \$ or \\ in it)" ;; esac
  replacement=$(printf '"%s"' "$helper" | sed 's/[&|]/\\&/g')
  sed -e "s|/usr/lib/share/share-send-gui|$replacement|g" -e 's|^TryExec="\(.*\)"$|TryExec=\1|' "$1"
}

declare -A owned=() owned_sum=()
load_manifest() {
  local kind path sum
  [ -f "$manifest" ] || return 0
  while IFS=$'\t' read -r kind path sum; do
    owned[$path]=$kind
    owned_sum[$path]=$sum
  done <"$manifest"
}
# What this install placed, written to the manifest when it ends (even when it fails half-way,
# so --uninstall can still remove what was placed).
records=()
record() { records+=("$1"$'\t'"$2"$'\t'"${3:-}"); }
write_manifest() {
  [ ${#records[@]} -gt 0 ] || return 0
  [ -d "$(dirname "$manifest")" ] || mkdir -p "$(dirname "$manifest")"
  printf '%s\n' "${records[@]}" | LC_ALL=C sort -u >"$manifest.new"
  mv -f "$manifest.new" "$manifest"
}

# make_dirs DIR: creates DIR and its missing parents, recording each one created.
make_dirs() {
  local dir=$1 missing=()
  while [ ! -d "$dir" ]; do missing=("$dir" "${missing[@]}"); dir=$(dirname "$dir"); done
  for dir in "${missing[@]}"; do mkdir "$dir" && record dir "$dir"; done
}

install_user() {
  local force=$1 binary kind source dest mode conflicts=() tmp
  load_manifest
  while IFS=$'\t' read -r kind source dest mode; do
    if { [ -e "$dest" ] || [ -L "$dest" ]; } && ! as_installed "$dest"; then
      # Review 30: a file it installed and the user then edited was called "not installed by".
      if [ -n "${owned[$dest]:-}" ]; then conflicts+=("$dest (changed since it was installed)"); else conflicts+=("$dest (not installed by it)"); fi
    fi
  done < <(layout)
  if [ ${#conflicts[@]} -gt 0 ] && [ "$force" != 1 ]; then
    share_die "not replaced, as scripts/install.sh did not leave them so (--force replaces them):$(printf '\n  %s' "${conflicts[@]}")"
  fi
  binary=${SHARE_BIN:-$(cd "$SHARE_REPO" && scripts/setup.sh release)}
  share_version "$binary" >/dev/null
  # Folders recorded before stay ours; the new manifest starts with them.
  for dest in "${!owned[@]}"; do [ "${owned[$dest]}" = dir ] && record dir "$dest"; done
  trap write_manifest EXIT
  make_dirs "$(dirname "$manifest")"
  while IFS=$'\t' read -r kind source dest mode; do
    make_dirs "$(dirname "$dest")"
    if [ "$kind" = link ]; then
      ln -sfn "$source" "$dest"
      record link "$dest" "$source"
      continue
    fi
    tmp="$dest.share-install.$$"
    case "$kind" in
      binary) cp "$binary" "$tmp" && { strip --strip-unneeded "$tmp" 2>/dev/null || true; } ;;
      unit) share_unit user >"$tmp" ;;
      desktop) desktop_for_user "$SHARE_REPO/$source" >"$tmp" ;;
      file) cp "$SHARE_REPO/$source" "$tmp" ;;
      # shellcheck disable=SC2086 # the words of a share command line
      generated) "$binary" $source >"$tmp" ;;
    esac
    chmod "$mode" "$tmp"
    mv -f "$tmp" "$dest"
    record file "$dest" "$(sha256sum "$dest" | cut -d' ' -f1)"
  done < <(layout)
  # Files of an earlier install that this one no longer has.
  for dest in "${!owned[@]}"; do
    printf '%s\n' "${records[@]}" | grep >/dev/null -F $'\t'"$dest"$'\t' || remove_entry "$dest"
  done
  write_manifest
  trap - EXIT
  after_install
}

# user_manager: whether the systemd user manager is this HOME's: with HOME pointing elsewhere (a
# scratch home to try an install in) it belongs to the login home, and is left alone (review 30).
user_manager() {
  local login
  login=$(getent passwd "$(id -u)" 2>/dev/null | cut -d: -f6)
  [ -z "$login" ] || [ "$(cd "$HOME" 2>/dev/null && pwd -P)" = "$(cd "$login" 2>/dev/null && pwd -P)" ]
}

after_install() {
  if ! user_manager; then
    share_say "HOME is not your login home: the systemd user manager is left alone"
  elif systemctl --user daemon-reload 2>/dev/null; then share_say "systemd user manager reloaded"; fi
  share_say "installed $("$HOME/.local/bin/share" --version) for $(id -un 2>/dev/null || id -u) (manifest: $manifest)"
  case ":$PATH:" in *":$HOME/.local/bin:"*) ;; *) share_say "note: ~/.local/bin is not on PATH; add it (Debian's ~/.profile does when the folder exists at login)" ;; esac
  share_say "receive in the background: systemctl --user enable --now share"
  share_say "Thunar: add the custom action from ~/.local/share/doc/share/examples/thunar-uca.xml (see DESKTOP.md)"
  share_say "zsh: for Tab completion, add to ~/.zshrc before compinit: fpath=(~${zsh_functions#"$HOME"} \$fpath)"
}

# as_installed PATH: true when PATH is a file or link the manifest lists, unchanged since then.
as_installed() {
  local path=$1
  case "${owned[$path]:-}" in
    file) [ -f "$path" ] && [ ! -L "$path" ] && [ "$(sha256sum "$path" | cut -d' ' -f1)" = "${owned_sum[$path]}" ] ;;
    link) [ -L "$path" ] && [ "$(readlink "$path")" = "${owned_sum[$path]}" ] ;;
    *) return 1 ;;
  esac
}

# remove_entry PATH: removes one file or link of an install if it is still as installed.
remove_entry() {
  local path=$1
  [ -e "$path" ] || [ -L "$path" ] || return 0
  if as_installed "$path"; then rm -f "$path"; else share_say "kept $path: changed since it was installed"; fi
}

uninstall_user() {
  local kind path sum wants="$HOME/.config/systemd/user/default.target.wants/share.service"
  load_manifest
  [ ${#owned[@]} -gt 0 ] || { share_say "nothing to remove: no install manifest at $manifest"; return 0; }
  # An enabled unit leaves a link in default.target.wants; disable it before its file goes.
  if [ -n "${owned[$HOME/.config/systemd/user/share.service]:-}" ]; then
    if user_manager; then systemctl --user disable --now share.service 2>/dev/null || true; fi
    [ -L "$wants" ] && [ "$(readlink "$wants")" = "$HOME/.config/systemd/user/share.service" ] && rm -f "$wants"
    rmdir "$(dirname "$wants")" 2>/dev/null || true
  fi
  for path in "${!owned[@]}"; do [ "${owned[$path]}" = dir ] || remove_entry "$path"; done
  rm -f "$manifest"
  # Folders last, deepest first; one that is not empty holds something else and stays.
  while IFS=$'\t' read -r kind path sum; do
    rmdir "$path" 2>/dev/null || true
  done < <(for path in "${!owned[@]}"; do [ "${owned[$path]}" = dir ] && printf 'dir\t%s\t\n' "$path"; done | LC_ALL=C sort -r)
  if user_manager; then systemctl --user daemon-reload 2>/dev/null || true; fi
  share_say "removed the user install (share's data in ~/.config/share and ~/Documents/Inbox is kept)"
}

case "${1:-}" in
  --user)
    case "${2:-}" in --force) install_user 1 ;; "") install_user 0 ;; *) share_die "unknown option $2 (usage: $0 --user [--force] | --uninstall)" ;; esac
    ;;
  --uninstall) uninstall_user ;;
  *) share_die "usage: $0 --user [--force] | --uninstall" ;;
esac
