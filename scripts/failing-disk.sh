#!/usr/bin/env bash
# A file system whose disk fails to write new data after `write` said yes, as a dying or
# overfull disk does: ext4 (no journal, so its own metadata keeps working) on a loop device whose
# backing file lives on a tmpfs much smaller than the file system, filled at once by a ballast
# file. Writing a new block to the backing file then fails (ENOSPC on the way to the "disk"),
# so the page cache's write-back of any new data fails and syncfs/fsync report it.
#   scripts/failing-disk.sh up [DIR]     mounts it at DIR (default /tmp/share-failing-disk), prints DIR
#                                        (ROOM_MIB=N: about N MiB of new data still fit first)
#   scripts/failing-disk.sh down [DIR]   unmounts it and frees the loop device
# Needs root and a free loop device; `up` exits 2, saying why, when it cannot make one.
set -euo pipefail
action=${1:-}
dir=${2:-/tmp/share-failing-disk}
backing="$dir.backing"

down() {
  if mountpoint -q "$dir"; then
    local loop
    loop=$(findmnt -n -o SOURCE --target "$dir")
    umount "$dir"
    losetup -d "$loop" 2>/dev/null || true  # detached already at `up` (autoclear); else now
  fi
  if mountpoint -q "$backing"; then umount "$backing" || true; fi
  # A folder still mounted in another mount namespace cannot be removed: left for its owner.
  rm -rf "$dir" "$backing" 2>/dev/null || true
}

case "$action" in
  up)
    [ "$(id -u)" -eq 0 ] || { echo "failing-disk: needs root" >&2; exit 2; }
    command -v losetup >/dev/null && command -v mkfs.ext4 >/dev/null ||
      { echo "failing-disk: needs losetup and mkfs.ext4" >&2; exit 2; }
    down
    mkdir -p "$dir" "$backing"
    room=${ROOM_MIB:-0}
    loop=""
    # Any step that fails undoes the ones before it and says why (exit 2: no failing disk here).
    fail() {
      [ -n "$loop" ] && losetup -d "$loop" 2>/dev/null
      mountpoint -q "$backing" && umount "$backing"
      rm -rf "$dir" "$backing" 2>/dev/null
      echo "failing-disk: $1" >&2
      exit 2
    }
    mount -t tmpfs -o "size=$((32 + room))m,mode=0700" tmpfs "$backing" || fail "cannot mount a tmpfs"
    truncate -s "$((256 + 2 * room))M" "$backing/disk.img" || fail "cannot make the disk image"
    loop=$(losetup --find --show "$backing/disk.img" 2>/dev/null) || fail "no free loop device"
    # Inode tables written now (no lazy initialisation writing them later, into a full disk).
    mkfs.ext4 -q -O ^has_journal -E lazy_itable_init=0 "$loop" || fail "mkfs.ext4 failed on $loop"
    mount -o errors=continue "$loop" "$dir" || fail "cannot mount $loop"
    # Detached now, while mounted: the kernel frees the loop device when the file system is
    # unmounted, or its mount namespace goes away, whatever kills this script's caller.
    losetup -d "$loop"
    # The ballast: all the backing holds but ROOM_MIB, so from then on every new data block fails.
    free_kib=$(df --output=avail -k "$backing" | tail -n 1)
    ballast_kib=$((free_kib - room * 1024))
    if [ "$ballast_kib" -gt 0 ]; then
      head -c "$((ballast_kib + 1024))K" /dev/zero >"$dir/ballast" 2>/dev/null || true
      sync -f "$dir" 2>/dev/null || true
    fi
    chmod 0777 "$dir"
    echo "$dir"
    ;;
  down) down ;;
  *)
    echo "usage: scripts/failing-disk.sh up|down [DIR]" >&2
    exit 2
    ;;
esac
