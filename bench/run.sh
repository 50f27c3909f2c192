#!/usr/bin/env bash
# The share benchmark, in one command: share against the physical limit (a minimal TLS 1.3
# stream with OpenSSL, disk writes, `openssl speed`) and the tools people use today (scp, rsync,
# magic-wormhole), side by side on loopback, printed as one table. See bench/README.md.
#
#   bench/run.sh                 the full run (2 GiB, 64 MiB, 5,000 x 4 KiB, 3,000 real files, 500
#                                photos, 1 KiB; 3 runs each; 50 senders, 8 receivers, a 100,000-item Inbox)
#   bench/run.sh --quick         a short run (256 MiB, 64 MiB, 1,000 x 4 KiB, 500 real files, 50 photos;
#                                1 run each; 10 senders, 8 receivers, a 10,000-item Inbox)
#   bench/run.sh --tools share,scp --workloads big,tiny --runs 5
#   bench/run.sh --help          every option
#
# Idempotent: installs only missing Debian packages (apt-get) and, the first time, magic-wormhole
# and its two servers from PyPI into bench/.venv; builds share in release mode (only what
# changed) and the reference program into bench/bin/. Everything it starts runs on loopback
# (inside a fresh network namespace when run as root) and is stopped when it ends, however it ends.
set -euo pipefail
cd "$(dirname "$0")/.."
bench=bench

for arg in "$@"; do
  case "$arg" in -h|--help) exec python3 "$bench/bench.py" --help ;; esac
done

# -- Debian packages: the project's own (scripts/setup.sh) plus the benchmark's peers and tools.
packages=(
  gcc libc6-dev libssl-dev openssl time openssh-server openssh-client rsync python3 python3-venv
  iproute2 util-linux coreutils linux-perf valgrind libjpeg-turbo-progs
)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep >/dev/null "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "bench: installing ${missing[*]}" >&2
  sudo=""; [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get update -qq
  $sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null \
    || echo "bench: some packages could not be installed; the table will say what is missing" >&2
fi
# Installing openssh-server may start (and enable) the system's sshd; the benchmark runs its
# own on a loopback port and does not need it. It is left as the package set it up.

# -- magic-wormhole, its mailbox server and transit relay, from PyPI into a venv (once).
venv="$bench/.venv"
if [ ! -x "$venv/bin/wormhole" ] || [ ! -x "$venv/bin/twist" ] \
   || ! "$venv/bin/python" -c 'import wormhole_mailbox_server, wormhole_transit_relay' 2>/dev/null; then
  echo "bench: installing magic-wormhole into $venv" >&2
  rm -rf "$venv"
  if /usr/bin/python3 -m venv "$venv" \
     && "$venv/bin/pip" install -q --disable-pip-version-check \
          magic-wormhole magic-wormhole-mailbox-server magic-wormhole-transit-relay >&2; then
    :
  else
    echo "bench: magic-wormhole could not be installed; its rows will say n/a" >&2
    rm -rf "$venv"
  fi
fi

# -- share, release build (scripts/setup.sh installs the project's own packages first), or the
# binary SHARE_BENCH_BINARY names (to compare two builds on the same machine, one after the other).
share=$(scripts/setup.sh release)
if [ -n "${SHARE_BENCH_BINARY:-}" ]; then share=$(realpath "$SHARE_BENCH_BINARY"); fi

# -- the reference TLS program.
mkdir -p "$bench/bin"
if [ ! -x "$bench/bin/tls_ref" ] || [ "$bench/tls_ref.c" -nt "$bench/bin/tls_ref" ]; then
  gcc -O2 -Wall -Wextra -pthread -o "$bench/bin/tls_ref" "$bench/tls_ref.c" -lssl -lcrypto
fi

# -- run. The driver cleans up after itself; this trap is the backstop if it is killed outright.
scratch=$(mktemp -d "${TMPDIR:-/tmp}/share-bench.XXXXXX")
keep=0
for arg in "$@"; do [ "$arg" = "--keep" ] && keep=1; done
cleanup() {
  # Process groups the driver started and left behind (only if it was killed outright): each
  # is ours if its leader still runs with the scratch folder in its command line or as its cwd.
  if [ -f "$scratch/pids" ]; then
    while read -r pgid; do
      if tr '\0' ' ' <"/proc/$pgid/cmdline" 2>/dev/null | grep >/dev/null -F "$scratch" \
         || [ "$(readlink "/proc/$pgid/cwd" 2>/dev/null)" = "$scratch/wormhole" ]; then
        kill -KILL -- "-$pgid" 2>/dev/null || true
      fi
    done <"$scratch/pids"
  fi
  # The bench's test hosts (scripts/netns-hosts.sh under its own prefix), if the driver could not
  # remove them itself.
  if [ "$(id -u)" -eq 0 ]; then SHARE_NETNS_PREFIX=$SHARE_BENCH_PREFIX scripts/netns-hosts.sh down || true; fi
  if mountpoint -q "$scratch/mnt" 2>/dev/null; then umount "$scratch/mnt" || umount -l "$scratch/mnt" || true; fi
  if [ "$keep" = 1 ]; then echo "bench: kept $scratch" >&2; else rm -rf "$scratch"; fi
}
# The prefix of the bench's network namespaces (scripts/netns-hosts.sh): its own, never the test
# suite's share-a/share-b.
export SHARE_BENCH_PREFIX="share-bench$$"
trap cleanup EXIT
trap 'exit 130' INT TERM HUP

mkdir -p "$bench/out"
python3 "$bench/bench.py" --scratch "$scratch" --share "$share" --tls-ref "$bench/bin/tls_ref" --venv "$venv" \
  --out "$bench/out/latest.txt" --json "$bench/out/latest.json" "$@"
