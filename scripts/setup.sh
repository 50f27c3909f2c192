#!/usr/bin/env bash
# Installs what share needs on Debian 12 (only what is missing) and builds it.
#   scripts/setup.sh            debug build (what the tests use)
#   scripts/setup.sh release    release build (what the demo and benchmarks use)
# Idempotent: a second run installs nothing and rebuilds only what changed.
set -euo pipefail
cd "$(dirname "$0")/.."

packages=(
  pkg-config libssl-dev openssl libavahi-client-dev libmagic-dev libmagic-mgc zlib1g-dev shared-mime-info
  avahi-daemon avahi-utils dbus-daemon iproute2 python3 python3-venv zip procps util-linux tmux
  e2fsprogs mount
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep >/dev/null "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  # Installed with package scripts barred from starting services: avahi-daemon must never come
  # up on every interface from here (scripts/avahi-up.sh starts one restricted to loopback).
  SHARE_SCRIPT=setup
  . scripts/avahi/common.sh
  share_apt_install "${missing[@]}"
fi

. scripts/env.sh
if ! command -v swift >/dev/null 2>&1; then
  echo "setup: Swift 6 is needed (https://www.swift.org/install/linux/); not found on PATH or in /opt/swift" >&2
  exit 1
fi

configuration="${1:-debug}"
# A release build links the Swift runtime and Foundation statically: the process maps and
# touches far less (lower resident memory, faster start) and the binary runs anywhere. It binds
# every symbol at start (-z now; with the default -z relro the GOT is then read-only), as Debian's
# hardening asks of packaged binaries. It is linked with LLVM's lld (in the toolchain) so that
# the functions everyday use runs sit together (scripts/share.order, made by
# scripts/link-order.sh; each Swift function in a section of its own to make that possible),
# and with its relative relocations packed (DT_RELR, glibc 2.36): the kernel maps code 64 KiB at
# a time around each page touched, and an idle daemon kept 12.5 MiB of scattered code
# resident, about half that once ordered.
flags=()
if [ "$configuration" = release ]; then
  flags=(
    --static-swift-stdlib -Xswiftc -use-ld=lld -Xswiftc -Xfrontend -Xswiftc -function-sections
    -Xlinker -z -Xlinker now -Xlinker -z -Xlinker pack-relative-relocs
    -Xlinker "--symbol-ordering-file=$PWD/scripts/share.order" -Xlinker --no-warn-symbol-ordering
  )
fi
# The link order is not an input SwiftPM knows of: a changed one relinks.
binary="$(swift build -c "$configuration" "${flags[@]}" --show-bin-path 2>/dev/null)/share"
if [ "$configuration" = release ] && [ scripts/share.order -nt "$binary" ]; then rm -f "$binary"; fi
echo "setup: building ($configuration)" >&2
swift build -c "$configuration" "${flags[@]}" 2>&1 | { grep -v 'prohibited flag' || true; } >&2
echo "$binary"
