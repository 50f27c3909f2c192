#!/usr/bin/env bash
# Installs the Debian package on a bare Debian 12 and uses it: a chroot made with
#   debootstrap --variant=minbase bookworm
# from Debian's archive (cached in .build/package-test/, with the .debs apt downloads, so only
# the first run fetches much), then, inside it:
#   apt-get install ./share_VERSION_amd64.deb        (its dependencies come from Debian's archive)
#   share --version, share id (a temporary HOME), share types check on files, share(1) and bash
#   completion in place, a daemon and a send to it over loopback, then apt-get purge share:
#   nothing of the package may be left in /usr.
# Each run gets a fresh copy of the cached system (an overlay), in a private mount namespace, with
# service starts barred (policy-rc.d), so nothing starts or stays behind on this machine.
#   scripts/package-test.sh [DEB]     DEB: a built package (default: scripts/package.sh builds it)
#   scripts/package-test.sh --prepare makes only what a run needs and takes longest: the cached
#                                     bare system, the packaging tools and the release build (the
#                                     test command runs it beside the fuzz targets, which use one core)
# Needs root, debootstrap (installed with apt-get when missing) and Debian's archive. When a chroot
# cannot be made here, or the archive cannot be reached, it prints "SKIPPED: <why>" and exits 0
# before building anything (SHARE_REQUIRE_PACKAGE_TEST=1: exits 1 instead).
set -euo pipefail
SHARE_SCRIPT=package-test
. "$(dirname "$0")/packaging/common.sh"
cd "$SHARE_REPO"
started=$SECONDS
prepare=0
if [ "${1:-}" = --prepare ]; then prepare=1; shift; fi

skip() {
  share_say "SKIPPED: $*"
  [ -z "${SHARE_REQUIRE_PACKAGE_TEST:-}" ] || exit 1
  exit 0
}
[ "$(id -u)" = 0 ] || skip "needs root (debootstrap, chroot, mounts)"
command -v unshare >/dev/null 2>&1 || skip "unshare (util-linux) is missing"
unshare --mount true 2>/dev/null || skip "cannot make a mount namespace here"
(share_ensure_packages debootstrap:debootstrap) || skip "debootstrap is missing and apt-get could not install it"

# The archive first, before the package's release build: apt-get in the chroot needs it even when
# the bare system is cached. wget comes with debootstrap, and honours http_proxy as apt does.
mirror=http://deb.debian.org/debian
wget -q --spider --tries=2 --timeout=15 "$mirror/dists/bookworm/InRelease" ||
  skip "Debian's archive cannot be reached ($mirror/dists/bookworm/InRelease)"

cache="$SHARE_REPO/.build/package-test"
base="$cache/bookworm-minbase"
mkdir -p "$cache/apt-archives/partial"
# A run killed before its EXIT trap leaves its copy behind (its mounts went with its namespace).
find "$cache" -maxdepth 1 -name 'run.*' -mmin +120 -exec rm -rf {} +
# The bare system, made once (debootstrap) and kept in the cache.
make_base() {
  if [ ! -f "$base/.complete" ]; then
    share_say "making the bare system once: debootstrap --variant=minbase bookworm ($mirror)"
    rm -rf "$base"
    # In a mount namespace of its own: the /proc it mounts in the target goes with it, even if killed.
    timeout 600 unshare --mount --propagation private debootstrap --variant=minbase bookworm "$base" "$mirror" >"$cache/debootstrap.log" 2>&1 ||
      skip "debootstrap failed or took over 10 minutes (log: $cache/debootstrap.log): $(tail -2 "$cache/debootstrap.log")"
    printf '%s\n' "deb $mirror bookworm main" "deb $mirror bookworm-updates main" \
      "deb http://deb.debian.org/debian-security bookworm-security main" >"$base/etc/apt/sources.list"
    touch "$base/.complete"
  fi
}
if [ "$prepare" = 1 ]; then
  # apt-get first, alone; then debootstrap (mostly the network) beside the release build.
  share_ensure_packages "${share_package_tools[@]}"
  make_base &
  base_made=$!
  scripts/setup.sh release >/dev/null
  wait "$base_made"
  share_say "prepared in $((SECONDS - started)) s: the bare system, the packaging tools, the release build"
  exit 0
fi
make_base

deb=${1:-$(scripts/package.sh)}
[ -f "$deb" ] || share_die "no package at $deb"
deb=$(readlink -f "$deb")
version=$(dpkg-deb -f "$deb" Version)

run=$(mktemp -d "$cache/run.XXXXXX")
trap 'rm -rf "$run"' EXIT
mkdir -p "$run/upper" "$run/work" "$run/root"
cp "$deb" "$run/"

# The steps inside the chroot. The .deb is at /tmp/pkg/.
cat >"$run/inside.sh" <<'INSIDE'
set -euo pipefail
export DEBIAN_FRONTEND=noninteractive LC_ALL=C.UTF-8 PATH=/usr/sbin:/usr/bin:/sbin:/bin
failures=0
say() { printf 'package-test (chroot): %s\n' "$*" >&2; }
fail() { say "FAIL: $*"; failures=$((failures + 1)); }
deb=$(ls /tmp/pkg/share_*_amd64.deb)
expected=$1

find /usr | LC_ALL=C sort >/tmp/usr-before
apt-get update -qq
apt-get install -y -qq "$deb" >/tmp/apt-install.log 2>&1 || { cat /tmp/apt-install.log >&2; exit 1; }
say "installed: $(dpkg-query -W -f='${Package} ${Version} ${Status}' share)"
dpkg -L share | LC_ALL=C sort >/tmp/share-files

[ "$(share --version)" = "share $expected" ] || fail "share --version printed '$(share --version)'"
home=$(mktemp -d)
id=$(HOME=$home share id) || fail "share id failed"
printf '%s\n' "$id" | grep >/dev/null -E '^ID: +([0-9a-f]{4}-){15}[0-9a-f]{4}$' || fail "share id printed: $id"
echo "meeting at six" >/tmp/notes.txt
cp /usr/bin/share /tmp/photo.png
HOME=$home share types check /tmp/notes.txt /tmp/photo.png >/tmp/types 2>&1 || true
grep -A3 '^/tmp/notes.txt' /tmp/types | grep >/dev/null 'verdict: *accepted' || fail "types check: notes.txt not accepted: $(cat /tmp/types)"
grep -A3 '^/tmp/photo.png' /tmp/types | grep >/dev/null -E 'verdict: *rejected: .*\[rule: excluded-content\]' || fail "types check: an ELF named .png not refused: $(cat /tmp/types)"

# share(1) and the completions where man and the shells look; bash's works without
# bash-completion (which minbase lacks), so it is run here.
zcat /usr/share/man/man1/share.1.gz | grep >/dev/null '^\.TH SHARE 1 ' || fail "no share(1) in /usr/share/man/man1"
modes=$(bash -c 'source /usr/share/bash-completion/completions/share && COMP_WORDS=(share receive "") COMP_CWORD=2 && _share && echo "${COMPREPLY[*]}"')
[ "$modes" = "off contacts everyone" ] || fail "bash completion offered '$modes' after 'share receive'"
for completion in /usr/share/zsh/vendor-completions/_share /usr/share/fish/vendor_completions.d/share.fish; do
  [ -s "$completion" ] || fail "no $completion"
done

# A daemon (no Avahi in here: it receives anyway) and a send to it by HOST:PORT.
receiver=$(mktemp -d) sender=$(mktemp -d)
sender_id=$(share --home "$sender" id | sed -n 's/^ID: *//p')
share --home "$receiver" trust add "$sender_id" --name sender >/dev/null 2>&1
share --home "$receiver" daemon --host 127.0.0.1 --port 0 --mode contacts >/tmp/daemon.out 2>/tmp/daemon.err &
daemon=$!
for _ in $(seq 100); do grep -q 'listening on port' /tmp/daemon.out && break; sleep 0.1; done
port=$(sed -n 's/^listening on port //p' /tmp/daemon.out)
if [ -n "$port" ]; then
  share --home "$sender" send /tmp/notes.txt --to "127.0.0.1:$port" >/tmp/send.out 2>&1 || fail "send failed: $(cat /tmp/send.out)"
  cmp -s /tmp/notes.txt "$receiver/Documents/Inbox/notes.txt" || fail "notes.txt did not arrive intact"
else
  fail "the daemon did not listen: $(cat /tmp/daemon.err)"
fi
kill -TERM "$daemon"; wait "$daemon" || true

apt-get purge -y -qq share >/tmp/apt-purge.log 2>&1 || { cat /tmp/apt-purge.log >&2; exit 1; }
dpkg-query -W -f='${Status}' share 2>/dev/null | grep >/dev/null . && fail "dpkg still knows share: $(dpkg-query -W -f='${Status}' share)"
find /usr | LC_ALL=C sort >/tmp/usr-after
# Packages still list /lib, /bin and /sbin, which are /usr/lib, /usr/bin and /usr/sbin here.
sed -E 's#^/(lib|lib64|bin|sbin)(/|$)#/usr/\1\2#' /var/lib/dpkg/info/*.list | LC_ALL=C sort -u >/tmp/owned
# Left behind: a path of the package still there that neither was there before nor belongs to
# another installed package (/usr, /usr/share ... stay, of course).
left=$(LC_ALL=C comm -12 /tmp/share-files /tmp/usr-after | LC_ALL=C comm -23 - /tmp/usr-before | LC_ALL=C comm -23 - /tmp/owned)
[ -z "$left" ] || fail "left in /usr after purge:"$'\n'"$left"
if grep -rls 'share-send' /usr/share/applications /usr/share/kio 2>/dev/null; then
  fail "a desktop database still names share-send.desktop"
fi
# What the dependencies' triggers generated (shared-mime-info's database, caches) stays, as
# it would on any system; shown for the record.
LC_ALL=C comm -13 /tmp/usr-before /tmp/usr-after | LC_ALL=C comm -23 - /tmp/owned >/tmp/generated
say "generated in /usr by the dependencies' triggers (not share's; they stay with the dependencies):"
grep -c '^/usr/share/mime/' /tmp/generated | sed 's#^#  shared-mime-info database (/usr/share/mime): #; s#$# paths#' >&2
grep -v '^/usr/share/mime/' /tmp/generated | sed 's/^/  /' >&2 || true
[ "$failures" = 0 ] || exit 1
say "ok: installed, ran, purged clean"
INSIDE

# Everything below runs in a private mount namespace: the overlay and the bind mounts vanish
# with it, whatever happens.
unshare --mount --propagation private bash -euo pipefail -s -- "$base" "$run" "$cache" "$version" <<'OUTSIDE'
base=$1 run=$2 cache=$3 version=$4
root="$run/root"
mount -t overlay overlay -o "lowerdir=$base,upperdir=$run/upper,workdir=$run/work" "$root"
mount -t proc proc "$root/proc"
# A /dev of its own, not the host's: nothing run in here (apt's methods, maintainer scripts) can
# change the host's device nodes, and a host /dev/null some other program broke (mode 0444: apt's
# unprivileged methods then fail "cannot create /dev/null") does not fail this test.
mount -t tmpfs -o mode=755,nosuid tmpfs "$root/dev"
for node in null:1:3 zero:1:5 full:1:7 random:1:8 urandom:1:9 tty:5:0; do
  IFS=: read -r name major minor <<<"$node"
  if ! mknod -m 666 "$root/dev/$name" c "$major" "$minor" 2>/dev/null; then
    # No mknod here (a container without CAP_MKNOD): the host's node, bound, as debootstrap does.
    touch "$root/dev/$name"
    mount --bind "/dev/$name" "$root/dev/$name"
  fi
done
mkdir "$root/dev/pts" && mkdir -m 1777 "$root/dev/shm"
ln -s /proc/self/fd "$root/dev/fd"
ln -s /proc/self/fd/0 "$root/dev/stdin"
ln -s /proc/self/fd/1 "$root/dev/stdout"
ln -s /proc/self/fd/2 "$root/dev/stderr"
mount -t tmpfs tmpfs "$root/run"
mount -t tmpfs tmpfs "$root/tmp"
mount --bind "$cache/apt-archives" "$root/var/cache/apt/archives"
mkdir -p "$root/tmp/pkg"
cp "$run"/share_*_amd64.deb "$root/tmp/pkg/"
cp /etc/resolv.conf "$root/etc/resolv.conf"
# No service may start in here (avahi-daemon would start on the host's network).
printf '#!/bin/sh\nexit 101\n' >"$root/usr/sbin/policy-rc.d"
chmod 755 "$root/usr/sbin/policy-rc.d"
cp "$run/inside.sh" "$root/tmp/inside.sh"
chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb bash /tmp/inside.sh "$version"
OUTSIDE
share_say "ok in $((SECONDS - started)) s (package $(basename "$deb"))"
