#!/usr/bin/env bash
# Writes scripts/share.order: the functions of the release binary that a daemon and a sender
# run in everyday use, for the linker to place side by side (`--symbol-ordering-file`, see
# scripts/setup.sh). The kernel maps a program's code 64 KiB at a time around each page it
# touches; with the few hundred KiB of code an idle daemon runs scattered over 17 MiB of text,
# it kept 12.5 MiB of it resident. Placed together, about half of that.
#
#   scripts/link-order.sh
#
# Runs the release build under valgrind's callgrind, which records every function executed:
# a daemon (start, advertising, a contact's sends of a text, a 30 MB file, a folder, a URL, a
# text and standard input, 300 small files, a stranger's ask accepted, status, requests, a
# graceful stop) and the `share send` commands themselves, then `share inbox list`. Only loopback
# (127.0.0.1); the daemon advertises on the Avahi that is running (scripts/avahi-up.sh starts one
# restricted to loopback), or says it cannot. Takes a few minutes. Regenerate it when the code
# has changed much: functions missing from it only lose their place, and names it lists that no
# longer exist are ignored. A release build then relinks with it.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh
command -v valgrind >/dev/null || {
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends valgrind >/dev/null
}
share=$(scripts/setup.sh release)
work=$(mktemp -d)
daemon_pid=""
asking=""
cleanup() {
  for pid in $daemon_pid $asking; do kill "$pid" 2>/dev/null || true; done
  rm -rf "$work"
}
trap cleanup EXIT

# callgrind: every function run, by name as the binary's symbol table has it. The daemon skips
# its Landlock re-execution (valgrind would have to follow /proc/self/exe); what it runs once
# confined is the same code.
profiled() {
  local out=$1; shift
  exec env SHARE_LANDLOCK_ABI=7 valgrind --tool=callgrind --demangle=no --compress-strings=no \
    --callgrind-out-file="$work/$out.cg" "$share" "$@"
}
for home in alice bob carol; do "$share" --home "$work/$home" id >/dev/null; done
alice_id=$("$share" --home "$work/alice" id | awk '/^ID:/ {print $2}')
"$share" --home "$work/bob" trust add "$alice_id" --name alice >/dev/null

port=$((47000 + RANDOM % 1000))
# First a daemon that starts, advertises and stops: its functions go first, so that an idle
# daemon's code is one compact run of pages.
(profiled idle --home "$work/bob" daemon --host 127.0.0.1 --port "$port") >"$work/idle.log" 2>&1 &
daemon_pid=$!
advertised() { # LOG: wait for the daemon under valgrind to advertise (or say it cannot)
  for _ in $(seq 1 600); do
    grep >/dev/null -E 'advertised as|cannot advertise|not advertised' "$1" && return 0
    kill -0 "$daemon_pid" 2>/dev/null || { echo "link-order: the daemon ended:" >&2; cat "$1" >&2; exit 1; }
    sleep 0.1
  done
}
advertised "$work/idle.log"
sleep 2
kill -TERM "$daemon_pid"
wait "$daemon_pid" || true

(profiled daemon --home "$work/bob" daemon --host 127.0.0.1 --port "$port") >"$work/daemon.log" 2>&1 &
daemon_pid=$!
advertised "$work/daemon.log"
to=(--to "127.0.0.1:$port" --busy-wait 60)

echo "meeting at six" >"$work/note.txt"
head -c 30000000 /dev/urandom >"$work/big.bin"
mkdir -p "$work/folder/sub" "$work/small"
for i in 1 2 3; do echo "page $i" >"$work/folder/sub/page-$i.txt"; done
for i in $(seq 1 300); do head -c 4096 /dev/urandom >"$work/small/f$i.bin"; done
(profiled send-items --home "$work/alice" send "$work/note.txt" "$work/big.bin" "$work/folder" https://example.com \
  --text "see you" "${to[@]}") >/dev/null
echo "from a pipe" | (profiled send-stdin --home "$work/alice" send - "${to[@]}" --json) >/dev/null
(profiled send-small --home "$work/alice" send "$work/small" "${to[@]}" --quiet) || echo "link-order: sending the small files exited $?" >&2
"$share" --home "$work/carol" send "$work/note.txt" "${to[@]}" --quiet &
asking=$!
# The daemon runs some 50 times slower under valgrind: its answers take a while.
for _ in $(seq 1 1200); do "$share" --home "$work/bob" requests 2>/dev/null | grep >/dev/null '^\[1\]' && break; sleep 0.1; done
"$share" --home "$work/bob" accept 1 >/dev/null || echo "link-order: the stranger's ask never arrived" >&2
wait "$asking" || echo "link-order: the stranger's send failed" >&2
asking=""
"$share" --home "$work/bob" status >/dev/null
(profiled inbox-list --home "$work/bob" inbox list) >/dev/null
kill -TERM "$daemon_pid"
wait "$daemon_pid" || true
daemon_pid=""

# The functions of the share binary itself (not of the libraries) that ran, one per line: the
# idle daemon's first, then the rest; callgrind marks recursion with 'N, which the symbol table
# does not have.
python3 - "$work" >"$work/share.order" <<'PY'
import glob, os, re, sys

def functions(path):
    names, ob = set(), None
    with open(path, errors="replace") as f:
        for line in f:
            if line.startswith("ob="):
                ob = line[3:].strip()
            elif line.startswith("fn=") and ob and ob.endswith("/share"):
                name = re.sub(r"'[0-9]+$", "", line[3:].strip())
                if not name.startswith("0x"):
                    names.add(name)
    return names

work = sys.argv[1]
idle = functions(os.path.join(work, "idle.cg"))
rest = set().union(*(functions(p) for p in glob.glob(work + "/*.cg") if not p.endswith("/idle.cg"))) - idle
print("# Generated by scripts/link-order.sh: the functions an idle daemon runs, then those a daemon")
print("# receiving and a sender run, for the linker to place together (scripts/setup.sh).")
print("# Regenerate rather than edit.")
for name in sorted(idle) + sorted(rest):
    print(name)
PY
mv "$work/share.order" scripts/share.order
echo "link-order: $(grep -vc '^#' scripts/share.order) functions in scripts/share.order" >&2
