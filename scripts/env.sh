# Sourced by the scripts: puts the Swift toolchain on PATH when it lives in /opt/swift.
if ! command -v swift >/dev/null 2>&1 && [ -x /opt/swift/usr/bin/swift ]; then
  export PATH="/opt/swift/usr/bin:$PATH"
fi

# share_binary PATH NAME: the share binary a test script named NAME runs — PATH if given, else
# the debug build's — as an absolute path; fails, saying so, when there is none.
share_binary() {
  local share=${1:-$(swift build --show-bin-path 2>/dev/null)/share}
  [ -x "$share" ] || { echo "$2: no share binary at $share (build first)" >&2; return 1; }
  realpath "$share"
}

# share_daemon_port FILE [SECONDS]: the port of a daemon whose standard output goes to FILE, once
# it says `listening on port N` (waiting up to SECONDS, default 30: a loaded machine); fails,
# printing nothing, when it does not say so in time.
share_daemon_port() {
  local file=$1 tries=$((${2:-30} * 20)) port
  for _ in $(seq 1 "$tries"); do
    port=$(sed -n 's/^listening on port //p' "$file" 2>/dev/null)
    [ -n "$port" ] && { echo "$port"; return 0; }
    sleep 0.05
  done
  return 1
}
