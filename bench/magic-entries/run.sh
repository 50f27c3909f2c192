#!/usr/bin/env bash
# Which of libmagic's database entries the time goes to: builds Debian's libmagic (the source of
# the installed `file` package) with a cycle counter per top-level entry (softmagic-profile.patch:
# `match()` timed from one top-level entry to the next, on the outermost level only), runs
# `share types check` over the files of FOLDER with it, and prints the TOP costliest entries:
# cycles, calls, the entry's line in its Magdir file, its type (17 regex, 20 search, 5 string),
# string flags and range, the value it tests and the description it prints.
#
#   bench/magic-entries/run.sh FOLDER [TOP]    (default TOP: 40)
#
# `types check` also asks libmagic for a description, which the receiver asks only for refusals:
# the calls counted are about twice the receiver's; which entries cost most is the same. Needs
# root once, to fetch the source (a deb-src line is added for the download and removed after).
# The build is kept in bench/.cache/libmagic-profile.
set -euo pipefail
folder="${1:?usage: bench/magic-entries/run.sh FOLDER [TOP]}"
top="${2:-40}"
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
share="$root/.build/release/share"
cache="$root/bench/.cache/libmagic-profile"
[ -x "$share" ] || { echo "magic-entries: build share first: scripts/setup.sh release" >&2; exit 1; }

if [ ! -f "$cache/built" ]; then
  rm -rf "$cache" && mkdir -p "$cache"
  list=/etc/apt/sources.list.d/share-magic-entries.sources
  trap 'rm -f "$list"' EXIT
  printf 'Types: deb-src\nURIs: http://deb.debian.org/debian\nSuites: bookworm\nComponents: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n' > "$list"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends build-essential zlib1g-dev libbz2-dev liblzma-dev >/dev/null
  (cd "$cache" && apt-get source -qq file >/dev/null 2>&1)
  rm -f "$list"
  apt-get update -qq
  src=$(find "$cache" -maxdepth 1 -type d -name 'file-*')
  (cd "$src" && patch -p1 < "$here/softmagic-profile.patch" && ./configure -q --disable-static CFLAGS="-O2 -g" \
    && make -C src -j"$(nproc)" libmagic.la) > "$cache/build.log" 2>&1 || { echo "magic-entries: build failed, see $cache/build.log" >&2; exit 1; }
  touch "$cache/built"
fi
lib=$(dirname "$(find "$cache" -path '*/src/.libs/libmagic.so.1' | sort | sed -n 1p)")
out=$(mktemp)
mapfile -t files < <(find "$folder" -maxdepth 1 -type f | sort)
home=$(mktemp -d)
# The system's compiled database, as the installed libmagic reads it; nothing advertised.
env LD_LIBRARY_PATH="$lib" MAGIC=/usr/lib/file/magic.mgc MAGPROF="$out" DBUS_SYSTEM_BUS_ADDRESS=unix:path=/nonexistent \
  "$share" --home "$home" types check "${files[@]}" >/dev/null || true
rm -rf "$home"
awk -v top="$top" 'NR <= top' "$out"
awk '{ cycles += $1 } END { printf "all entries: %.2f G cycles\n", cycles / 1e9 }' "$out"
rm -f "$out"
