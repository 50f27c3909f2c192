#!/usr/bin/env bash
# Builds the libFuzzer targets under Fuzz/ from the current sources and runs each for a while.
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]     default: 600 seconds each, every target
#
# Each target starts from its seed corpus (Fuzz/<target>/corpus, in the repository). Runs of two
# minutes or more also keep what they discover in .build/fuzz/corpus/<target> and start from it
# next time; shorter runs (the test command's) use a scratch folder, so their time goes to the
# seeds and fresh mutations rather than to replaying a large corpus. A crash or a violated property
# fails the script: the input is saved under .build/fuzz/artifacts/<target>/ and the command that
# replays it is printed. Violations marked as known issues (Fuzz/README.md, "Findings") are
# counted, not fatal; FUZZ_STRICT=1 makes them fatal. Every run is appended to
# .build/fuzz/history.tsv (date, commit, target, seconds, executions, result).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/env.sh

seconds="${1:-600}"
[ $# -gt 0 ] && shift
case "$seconds" in
  '' | *[!0-9]*) echo "Usage: scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]" >&2; exit 64 ;;
esac

out=.build/fuzz
mkdir -p "$out/logs"
built=$(python3 Fuzz/build.py "$@")
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT

# SWIFT_BACKTRACE=enable=no: without it a crash spends seconds symbolising in Swift's backtracer
# before libFuzzer can save the input.
export SWIFT_BACKTRACE=enable=no
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}"

failed=0
printf '%-16s %12s %10s %8s  %s\n' target executions "exec/s" corpus result >&2
while read -r name binary; do
  if [ "$seconds" -ge 120 ]; then work="$out/corpus/$name"; else work="$scratch/$name"; fi
  artifacts="$out/artifacts/$name/"
  mkdir -p "$work" "$artifacts"
  options=(-max_total_time="$seconds" -timeout=20 -print_final_stats=1 -artifact_prefix="$artifacts")
  [ -f "Fuzz/$name/dictionary" ] && options+=(-dict="Fuzz/$name/dictionary")
  [ -f "Fuzz/$name/options" ] && read -r -a extra < "Fuzz/$name/options" && options+=("${extra[@]}")
  log="$out/logs/$name.log"
  status=0
  "$binary" "${options[@]}" "$work" "Fuzz/$name/corpus" >"$log" 2>&1 || status=$?
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  speed=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  corpus=$(ls "$work" | wc -l)
  known=$(grep -c '^known issue (.*) hit by' "$log" || true)
  if [ "$status" -eq 0 ]; then
    result=ok
    [ "$known" -gt 0 ] && result="ok ($known known issue(s) hit: see $log)"
  else
    result="FAILED"
    failed=1
  fi
  printf '%-16s %12s %10s %8s  %s\n' "$name" "${runs:-?}" "${speed:-?}" "$corpus" "$result" >&2
  printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%FT%TZ)" "$commit" "$name" "$seconds" "${runs:-?}" "${result%% *}" >>"$out/history.tsv"
  if [ "$status" -ne 0 ]; then
    grep -E 'property violated|ERROR: |SUMMARY: |Fatal error|Test unit written' "$log" | awk 'NR <= 8' | sed 's/^/    /' >&2
    crash=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$log" | tail -1)
    [ -n "$crash" ] && echo "    replay: SWIFT_BACKTRACE=enable=no $binary $crash" >&2
    echo "    full log: $log" >&2
  fi
done <<<"$built"
exit "$failed"
