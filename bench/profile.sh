#!/usr/bin/env bash
# Where share's CPU goes on one big send: `perf record` (cpu-clock sampling, call graphs) on
# both the receiving daemon and the sender, then a flat profile of each side by shared object
# and by symbol. Loopback only (inside a fresh network namespace when run as root).
#
#   bench/profile.sh              one 2 GiB file
#   bench/profile.sh 512M         one file of another size
#   bench/profile.sh --files 5000 5,000 files of 4 KiB in one send
#   bench/profile.sh --mixed 3000 3,000 real files of mixed kinds from /usr/share in one send (the
#                                 bench's mixed folder; files share refuses make the send exit 3)
#   bench/profile.sh --folder DIR the files in DIR in one send (the bench's photos, once made:
#                                 bench/.cache/photos-500)
#
# Writes bench/out/profile-{receiver,sender}-TAG.txt (and the perf.data files beside them) and prints
# the top of each. Uses the release build in .build/release (run bench/run.sh or
# scripts/setup.sh release first). This VM has no hardware counters: cpu-clock is a software
# event, which is fine for "where does the time go". If perf is missing, it says so; valgrind
# --tool=callgrind on a smaller file is the other way (see bench/README.md).
set -euo pipefail
size="2G"; files=0; mixed=0; folder=""
case "${1:-}" in
  --files) files="${2:-5000}" ;;
  --mixed) mixed="${2:-3000}" ;;
  --folder)
    # Resolved here, from where the script was called.
    folder=$(cd "${2:?--folder needs a folder}" 2>/dev/null && pwd) || { echo "profile: no folder ${2:-}" >&2; exit 1; }
    set -- --folder "$folder" ;;  # absolute, for the re-run in a network namespace below
  "") ;;
  *) size="$1" ;;
esac
cd "$(dirname "$0")/.."
. scripts/env.sh
out="$PWD/bench/out"
share="$PWD/.build/release/share"
[ -x "$share" ] || { echo "profile: build share first: scripts/setup.sh release" >&2; exit 1; }
command -v perf >/dev/null || { echo "profile: perf is missing: apt-get install linux-perf" >&2; exit 1; }

if [ "$(id -u)" -eq 0 ] && [ -z "${SHARE_BENCH_NETNS:-}" ]; then
  exec unshare --net -- env SHARE_BENCH_NETNS=1 sh -c 'ip link set lo up && exec "$0" "$@"' "$0" "$@"
fi

work=$(mktemp -d "${TMPDIR:-/tmp}/share-profile.XXXXXX")
perf_pid=""
cleanup() {
  if [ -n "$perf_pid" ] && kill -0 "$perf_pid" 2>/dev/null; then
    kill -TERM "$perf_pid" 2>/dev/null || true
    wait "$perf_pid" 2>/dev/null || true
  fi
  rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM HUP
mkdir -p "$out"

if [ -n "$folder" ]; then
  # Its regular files only (a sub-folder would be sent whole, and `cat` below cannot read it).
  mapfile -t listed < <(find "$folder" -mindepth 1 -maxdepth 1 -type f | sort)
  [ "${#listed[@]}" -gt 0 ] || { echo "profile: no files in $folder" >&2; exit 1; }
  what="the ${#listed[@]} files of $folder"; tag="$(basename "$folder")"
  set -- "${listed[@]}"
elif [ "$mixed" -gt 0 ]; then
  what="$mixed real files of mixed kinds"; tag="${mixed}mixed"
  echo "profile: gathering $what from /usr/share" >&2
  python3 - "$work/files" "$mixed" <<'PY'
import sys
sys.path.insert(0, "bench")
from benchlib.workloads import mixed_folder
mixed_folder(sys.argv[1], int(sys.argv[2]), 1)
PY
  set -- "$work"/files/*
elif [ "$files" -gt 0 ]; then
  what="$files files of 4 KiB"; tag="${files}files"
  echo "profile: making $what" >&2
  mkdir "$work/files"
  python3 - "$work/files" "$files" <<'PY'
import os, sys
for i in range(1, int(sys.argv[2]) + 1):
    with open(os.path.join(sys.argv[1], f"f{i:05d}.bin"), "wb") as f:
        f.write(os.urandom(4096))
PY
  set -- "$work"/files/*
else
  what="one $size file"; tag="$size"
  echo "profile: making $what" >&2
  head -c "$size" /dev/urandom >"$work/file.bin"
  set -- "$work/file.bin"
fi
sync
cat "$@" >/dev/null
# No Avahi here: the daemon must not advertise on the machine's own (its bus is reachable from
# any network namespace); it says it cannot advertise and receives all the same.
export DBUS_SYSTEM_BUS_ADDRESS="unix:path=$work/no-bus.sock"
# The receiver trusts the sender (no ask waits for `share accept`) and takes random bytes
# (public.data), as in bench.py.
"$share" --home "$work/send" id >/dev/null
sender_id=$("$share" --home "$work/send" id --json | python3 -c 'import json, sys; print(json.load(sys.stdin)["id"])')
"$share" --home "$work/recv" trust add "$sender_id" --name bench-sender >/dev/null 2>&1
cp bench/receiver-declarations.plist "$work/recv/Declarations.plist"

# Starts the receiving daemon (under `$@`, if given) and sets `port` and `daemon_pid`.
start_daemon() {
  rm -f "$work/daemon.out"  # an earlier daemon's port must not be read as this one's
  "$@" "$share" --home "$work/recv" daemon --port 0 --host 127.0.0.1 >"$work/daemon.out" 2>"$work/daemon.err" &
  perf_pid=$!
  port=$(share_daemon_port "$work/daemon.out") ||
    { cat "$work/daemon.err" >&2; echo "profile: the daemon did not start" >&2; exit 1; }
  daemon_pid=$perf_pid
  # Under a wrapper (perf), the daemon is its child; without one, a child of the daemon (a hook
  # runner) must not be taken for it.
  if [ $# -gt 0 ]; then
    daemon_pid=$(pgrep -P "$perf_pid" | awk 'NR == 1' || true)
    [ -n "$daemon_pid" ] || daemon_pid=$perf_pid
  fi
}

# Stops it (repeat SIGTERM: an early one can be lost, see README).
stop_daemon() {
  for _ in $(seq 1 20); do
    kill -TERM "$daemon_pid" 2>/dev/null || break
    sleep 0.5
    kill -0 "$daemon_pid" 2>/dev/null || break
  done
  wait "$perf_pid" || true
  perf_pid=""
}

# An everyday daemon has its cut magic database in its home already (built at its first sniff,
# config/cache/magic-mime.cut), as the bench's receivers do: one unrecorded send of one file
# makes it.
start_daemon
head -c 4096 /dev/urandom >"$work/warm.bin"
"$share" --home "$work/send" send "$work/warm.bin" --to "127.0.0.1:$port" --quiet >/dev/null
stop_daemon
sync

# The receiver, under perf; perf forwards nothing, so SIGTERM goes to share itself.
start_daemon perf record -q -e cpu-clock -F 1999 -g -o "$out/perf-receiver-$tag.data" --

echo "profile: sending (receiver on port $port)" >&2
start=$(date +%s.%N)
perf record -q -e cpu-clock -F 1999 -g -o "$out/perf-sender-$tag.data" -- \
  "$share" --home "$work/send" send "$@" --to "127.0.0.1:$port" --quiet || echo "profile: share send exited $? (3: some items were refused)" >&2
end=$(date +%s.%N)
echo "profile: sent in $(awk "BEGIN{printf \"%.2f\", $end - $start}") s (under perf)" >&2

stop_daemon

# Reports: `head` closes pipes early, which pipefail would turn into a failure.
set +e +o pipefail
for side in receiver sender; do
  f="$out/profile-$side-$tag.txt"
  {
    echo "### $side: share send of $what over loopback (cpu-clock samples)"
    echo
    perf report -i "$out/perf-$side-$tag.data" --stdio --no-children -n --sort dso -g none 2>/dev/null \
      | awk '!/^#/ && NF >= 3 {n += $2} END {printf "%d samples at 1999 Hz = about %.2f CPU seconds\n\n", n, n/1999}'
    echo "## by shared object"
    perf report -i "$out/perf-$side-$tag.data" --stdio --no-children --sort dso -g none --percent-limit 0.5 2>/dev/null \
      | grep -v '^#' | grep -v '^$' | sed 's/ *$//' | head -15
    echo
    echo "## by symbol (self time)"
    perf report -i "$out/perf-$side-$tag.data" --stdio --no-children --sort dso,symbol -g none --percent-limit 0.3 2>/dev/null \
      | grep -v '^#' | grep -v '^$' | sed 's/ *$//' | cut -c1-200 | head -45
    echo
    echo "## libcrypto by kind (its assembly kernels have no symbols; see bench/crypto_split.py)"
    python3 bench/crypto_split.py "$out/perf-$side-$tag.data" 2>/dev/null || echo "(crypto_split failed)"
    echo
    echo "## by caller chain (children), top"
    perf report -i "$out/perf-$side-$tag.data" --stdio --children --sort symbol -g none --percent-limit 2 2>/dev/null \
      | grep -v '^#' | grep -v '^$' | sed 's/ *$//' | cut -c1-200 | head -45
  } >"$f"
  echo
  head -60 "$f"
done
echo "profile: full reports in $out/profile-receiver-$tag.txt and $out/profile-sender-$tag.txt" >&2
