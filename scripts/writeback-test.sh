#!/usr/bin/env bash
# The write-back test: a receiver whose disk fails to write what it was given, after `write`
# said yes (scripts/failing-disk.sh: ext4 on a loop device whose backing tmpfs is full, so the
# kernel's write-back of new data fails, as a dying or overfull disk's would), while another
# process keeps calling syncfs on the same file system (as any `sync -f` or backup tool may) and
# so may see the error first. Nothing may be reported stored that is not on the disk: every file
# in the Inbox reads back byte-identical once the file system is mounted afresh (nothing of it
# in the page cache), the send says items were not stored, and nothing partial is left.
#   scripts/writeback-test.sh [SHARE_BINARY]      (needs root and a free loop device)
set -euo pipefail
self=$(realpath "$0")
cd "$(dirname "$self")/.."
. scripts/env.sh
share=$(share_binary "${1:-}" writeback)

skip() { echo "writeback-test: SKIPPED: $*"; exit 0; }
[ "$(id -u)" -eq 0 ] || skip "needs root (a loop device and mounts)"
command -v losetup >/dev/null && command -v mkfs.ext4 >/dev/null || skip "needs losetup and mkfs.ext4"
# The mounts go in a mount namespace of the test's own: whatever happens, none outlives it.
if [ -z "${SHARE_WRITEBACK_UNSHARED:-}" ]; then
  exec env SHARE_WRITEBACK_UNSHARED=1 unshare --mount --propagation private "$self" "$share"
fi

work=$(mktemp -d /tmp/share-writeback.XXXXXX)
pids=()
cleanup() {
  for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  scripts/failing-disk.sh down "$work/recv/Documents" || true
  if [ -n "${KEEP_LOGS:-}" ]; then echo "# logs kept in $work"; else rm -rf "$work"; fi
}
trap cleanup EXIT
failures=0
check() { # check DESCRIPTION COMMAND...
  local what=$1; shift
  if "$@"; then echo "ok   - $what"; else echo "FAIL - $what"; failures=$((failures + 1)); fi
}

# The receiver's identity and settings on a healthy disk, its Documents (staging and Inbox) on
# the failing one.
recv="$work/recv"
disk="$recv/Documents"
export DBUS_SYSTEM_BUS_ADDRESS="unix:path=$work/no-bus.sock"  # nothing advertised
"$share" --home "$work/send" id >/dev/null
sender_id=$("$share" --home "$work/send" id --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])')
"$share" --home "$recv" trust add "$sender_id" --name sender >/dev/null 2>&1
# One round: COUNT files of SIZE bytes sent to a daemon whose Documents are on a fresh failing
# disk (80 MiB fit).
round() { # round SIZE COUNT WHAT
  local size=$1 count=$2
  echo "# $3"
  ROOM_MIB=80 scripts/failing-disk.sh up "$disk" >/dev/null 2>"$work/disk.err" && rc=0 || rc=$?
  [ "$rc" -eq 2 ] && skip "$(cat "$work/disk.err")"
  [ "$rc" -eq 0 ] || { cat "$work/disk.err" >&2; echo "FAIL - the failing disk could not be made"; exit 1; }

  rm -rf "$work/files" && mkdir -p "$work/files"
  for i in $(seq -w 1 "$count"); do head -c "$size" /dev/urandom >"$work/files/part-$i.bin"; done

  "$share" --home "$recv" daemon --port 0 --host 127.0.0.1 >"$work/daemon.out" 2>"$work/daemon.err" &
  pids+=($!)
  port=$(share_daemon_port "$work/daemon.out") ||
    { sed 's/^/#   /' "$work/daemon.err"; echo "FAIL - the daemon did not start"; exit 1; }

  # The other process that sees write-back errors first.
  (while :; do sync -f "$disk" 2>/dev/null || true; done) &
  pids+=($!)

  "$share" --home "$work/send" send "$work"/files/* --to "127.0.0.1:$port" --json >"$work/send.json" 2>"$work/send.err" &&
    rc=0 || rc=$?
  kill "${pids[@]}" 2>/dev/null || true
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  pids=()
  check "the send says some items were not stored (exit 3 or 4), not that all were" test "$rc" -eq 3 -o "$rc" -eq 4
  if ! grep -q '"event":"failed"\|"event":"done"' "$work/send.json"; then sed 's/^/#   /' "$work/send.err"; fi

  # Mounted afresh, every byte comes from the disk (the image), not from the page cache.
  # (The loop device goes with the unmount: failing-disk.sh detached it already; a new one on the
  # same image is detached the same way once mounted.)
  umount "$disk"
  loop=$(losetup --find --show "$disk.backing/disk.img")
  mount -o errors=continue "$loop" "$disk"
  losetup -d "$loop"
  # Every file in the Inbox compared with its source (80 MiB fit: the first batch of
  # 64 MiB is stored, the rest is not).
  python3 - "$work/send.json" "$recv/Documents/Inbox" "$work/files" >"$work/verdict.txt" <<'EOF' && ok=1 || ok=0
import filecmp, json, os, sys
events, inbox, sources = sys.argv[1], sys.argv[2], sys.argv[3]
stored = [e for e in map(json.loads, open(events)) if e.get("event") == "stored"]
print(f"# stored events: {len(stored)}")
bad = 0
for root, _, names in os.walk(inbox):
    for name in names:
        path = os.path.join(root, name)
        source = os.path.join(sources, name)
        if not os.path.exists(source) or not filecmp.cmp(path, source, shallow=False):
            print(f"# in the Inbox but not its source's bytes: {os.path.relpath(path, inbox)}")
            bad += 1
found = sum(len(names) for _, _, names in os.walk(inbox))
if found != len(stored):
    print(f"# {found} files in the Inbox, {len(stored)} reported stored")
    bad += 1
sys.exit(1 if bad else 0)
EOF
  sed -n '1,12p' "$work/verdict.txt"
  stored=$(sed -n 's/^# stored events: //p' "$work/verdict.txt")
  check "the first batch was stored ($stored items; the byte comparison is not of an empty Inbox)" test "${stored:-0}" -gt 0
  check "every file in the Inbox is one reported stored and reads back byte-identical from the disk" test "$ok" -eq 1
  leftover=$(find "$recv/Documents/Inbox" \( -name '*.part' -o -name '.*' \) -print -quit)
  check "nothing partial in the Inbox" test -z "$leftover"
  staged=$(find "$recv/Documents/.share/staging" -name '*.part' -print -quit)
  check "the items not stored were removed from staging" test -z "$staged"
  echo "# the failures named: $(grep -ho 'not stored: [^"]*' "$work/send.json" | sort | uniq -c | tr '\n' ';' || true)"

  scripts/failing-disk.sh down "$disk" >/dev/null 2>&1 || true
  rm -rf "$recv/Documents"
}

# 120 files of 768 KiB (90 MiB): more than fits, each below the size flushed on its own, in an
# Ask too large for a sync per item, so batches are made durable by syncfs.
round 786432 120 "120 files of 768 KiB: written through the page cache, batches synced by syncfs"
# 40 files of 3 MiB (120 MiB): large items, written with O_DIRECT by the session's writer
# queue, whose last writes are confirmed when their batch is handed off (a write that fails
# then must fail its item, not be reported stored).
round 3145728 40 "40 files of 3 MiB: written with O_DIRECT by the writer queue, confirmed at hand-off"

if [ "$failures" -ne 0 ]; then
  echo "writeback-test: $failures check(s) failed"
  exit 1
fi
echo "writeback-test: ok: all checks passed"
