#!/usr/bin/env bash
# Builds the Debian package dist/share_VERSION_amd64.deb (Debian 12, amd64):
#   /usr/bin/share                          the release binary (scripts/setup.sh release), stripped
#   /usr/lib/systemd/user/share.service     the user unit (contrib/share.service, pointed at /usr)
#   /usr/share/doc/share/                   README, the default declarations and TYPES.md, the
#                                           Inbox contract, the desktop guide, copyright, changelog
#   /usr/share/applications/share-send.desktop, /usr/share/kio/servicemenus/share-send.desktop,
#   /usr/lib/share/share-send-gui           "Send to nearby device" (contrib/desktop/README.md)
#   /usr/share/man/man1/share.1.gz, completions for bash, zsh and fish (/usr/share/bash-completion/
#                                           completions/share, zsh/vendor-completions/_share,
#                                           fish/vendor_completions.d/share.fish): `share man`,
#                                           `share completions SHELL`
# The version is the one `share --version` prints; contrib/debian/changelog's newest entry must
# say the same. Depends: is computed by dpkg-shlibdeps from the binary, plus avahi-daemon.
# Then lintian runs on the package; any error (E:) fails the build.
#   scripts/package.sh          idempotent: the same inputs give the same package, byte for byte
# Network: only apt-get (Debian's archive), for the build and packaging tools that are missing.
# SHARE_BIN=PATH packages an already built release binary instead of building one.
set -euo pipefail
SHARE_SCRIPT=package
. "$(dirname "$0")/packaging/common.sh"
cd "$SHARE_REPO"
umask 022

share_ensure_packages "${share_package_tools[@]}"

binary=${SHARE_BIN:-$(scripts/setup.sh release)}
version=$(share_version "$binary")
changelog_version=$(dpkg-parsechangelog -l contrib/debian/changelog -S Version)
[ "$changelog_version" = "$version" ] ||
  share_die "share --version says $version, contrib/debian/changelog's newest entry $changelog_version: add an entry for $version (dch -c contrib/debian/changelog -v $version)"
# Every timestamp in the package is the changelog entry's date, so rebuilding changes nothing.
SOURCE_DATE_EPOCH=$(dpkg-parsechangelog -l contrib/debian/changelog -S Timestamp)
export SOURCE_DATE_EPOCH

work="$SHARE_REPO/.build/package"
root="$work/root"
rm -rf "$work"
mkdir -p "$work/src/debian" "$root/DEBIAN" dist

# put SOURCE DEST MODE: one file into the package tree.
put() { install -D -m "$3" "$1" "$root/$2"; }

# The binary, stripped as dh_strip does, without the build tree's RUNPATH ($ORIGIN: nothing of
# share lives beside it, and lintian rejects custom search paths).
put "$binary" usr/bin/share 0755
strip --strip-unneeded --remove-section=.comment --remove-section=.note "$root/usr/bin/share"
if readelf -d "$root/usr/bin/share" | grep >/dev/null -E 'R(UN)?PATH'; then chrpath -d "$root/usr/bin/share" >/dev/null; fi
[ "$("$root/usr/bin/share" --version)" = "share $version" ] || share_die "the stripped binary does not run"

share_unit system >"$work/share.service"
put "$work/share.service" usr/lib/systemd/user/share.service 0644

doc=usr/share/doc/share
put README.md "$doc/README.md" 0644
put Inbox/Declarations.plist "$doc/Declarations.plist" 0644
put Inbox/TYPES.md "$doc/TYPES.md" 0644
put Inbox/README.md "$doc/INBOX.md" 0644
put contrib/desktop/README.md "$doc/DESKTOP.md" 0644
put contrib/desktop/thunar-uca.xml "$doc/examples/thunar-uca.xml" 0644
put contrib/debian/copyright "$doc/copyright" 0644
mkdir -p "$root/$doc"
gzip -9n <contrib/debian/changelog >"$root/$doc/changelog.gz"
chmod 0644 "$root/$doc/changelog.gz"

put contrib/debian/lintian-overrides usr/share/lintian/overrides/share 0644

put contrib/desktop/share-send-gui usr/lib/share/share-send-gui 0755
put contrib/desktop/share-send.desktop usr/share/applications/share-send.desktop 0644
put contrib/desktop/dolphin-share-send.desktop usr/share/kio/servicemenus/share-send.desktop 0644
desktop-file-validate "$root/usr/share/applications/share-send.desktop"

# Shell completions and share(1), printed by the packaged binary itself: generated from the
# same command and option declarations as its help (and, for the man page, the README's prose
# embedded at build time), so they cannot describe another version. The page is dated from
# SOURCE_DATE_EPOCH (the changelog entry), so rebuilding changes nothing.
"$root/usr/bin/share" completions bash >"$work/share.bash"
"$root/usr/bin/share" completions zsh >"$work/_share"
"$root/usr/bin/share" completions fish >"$work/share.fish"
put "$work/share.bash" usr/share/bash-completion/completions/share 0644
put "$work/_share" usr/share/zsh/vendor-completions/_share 0644
put "$work/share.fish" usr/share/fish/vendor_completions.d/share.fish 0644
"$root/usr/bin/share" man >"$work/share.1"
mkdir -p "$root/usr/share/man/man1"
gzip -9n <"$work/share.1" >"$root/usr/share/man/man1/share.1.gz"
chmod 0644 "$root/usr/share/man/man1/share.1.gz"

# DEBIAN/control: dpkg-shlibdeps reads the binary's real library needs; dpkg-gencontrol fills in
# the version, Depends: and Installed-Size from contrib/debian/control.
cp contrib/debian/control contrib/debian/changelog "$work/src/debian/"
(
  cd "$work/src"
  dpkg-shlibdeps -Tdebian/substvars -e"$root/usr/bin/share"
  # Packed relative relocations (DT_RELR, setup.sh's release link) need glibc 2.36, which
  # libc6's symbols file does not say: raise the bound when the binary asks for them.
  if readelf -V "$root/usr/bin/share" | grep >/dev/null GLIBC_ABI_DT_RELR; then
    sed -i -E 's/libc6 \(>= 2\.([0-9]|[12][0-9]|3[0-5])(\.[0-9]+)?\)/libc6 (>= 2.36)/' debian/substvars
  fi
  dpkg-gencontrol -v"$version" -P"$root" -Tdebian/substvars -fdebian/files
)
(cd "$root" && find . -type f ! -path './DEBIAN/*' -printf '%P\0' | LC_ALL=C sort -z | xargs -0 md5sum >DEBIAN/md5sums)
find "$root" -exec touch -h -d "@$SOURCE_DATE_EPOCH" {} +

deb="dist/share_${version}_amd64.deb"
dpkg-deb --root-owner-group -Zxz --build "$root" "$deb" >/dev/null
share_say "built $deb"
sed -n 's/^Depends: /  Depends: /p; s/^Recommends: /  Recommends: /p; s/^Suggests: /  Suggests: /p' "$root/DEBIAN/control" >&2

share_say "lintian $deb"
report=$(lintian --info --display-level '>=info' "$deb" 2>&1) || true
[ -z "$report" ] || printf '%s\n' "$report" >&2
! printf '%s\n' "$report" | grep >/dev/null '^E: ' || share_die "lintian reports errors"
echo "$SHARE_REPO/$deb"
