#!/usr/bin/env bash
# Sets up everything the tests need (packages, build, Avahi restricted to loopback) and runs the
# whole test suite: unit tests, in-process two-peer tests, end-to-end tests of the built binary,
# the fuzz targets (briefly; scripts/fuzz.sh runs them longer), the multi-host test across two
# network namespaces, a receiver on a disk that fails to write (a loop device), then the
# packaging: the systemd unit, the desktop integration, the user install, and the Debian package
# installed, used and purged in a bare Debian 12 (skipped, saying why, when debootstrap cannot
# run here or reach the archive).
set -euo pipefail
cd "$(dirname "$0")/.."
# Each step's start, with the seconds since this script began: CI's log says where its time went.
step() { echo "test: [${SECONDS}s] $*"; }
step "checks of the code's shape, architecture and scripts"
# The code's shape: no file in Sources/ over 400 lines, no function over 60.
scripts/code-shape.py
# The architecture: the README's picture of the targets and every import match Package.swift.
scripts/architecture-check.py
# The scripts: no pipeline whose reader stops early (a SIGPIPE that pipefail turns into a failure).
scripts/pipefail-check.py
# /dev/null must be the null device, writable by everyone: unprivileged tests, apt's methods and
# the daemon's children write to it. Something outside the project (a program run as root that
# chmods through a symbolic link) once left it 0444 on a machine the suite then ran on.
if [ "$(id -u)" = 0 ] && [ -c /dev/null ] && [ "$(stat -c %a /dev/null)" != 666 ]; then
  echo "test: /dev/null had mode $(stat -c %a /dev/null), not 666 (changed by something outside the suite): made 666 again"
  chmod 666 /dev/null
fi
step "setup (packages, debug build)"
scripts/setup.sh debug >/dev/null
. scripts/env.sh
# The code's format: what swift-format (in the toolchain) would change, with .swift-format's rules.
step "swift-format lint"
swift-format lint --strict --recursive --parallel Sources Tests Fuzz Package.swift
scripts/avahi-up.sh
step "build the tests"
swift build --build-tests 2>&1 | { grep -v 'prohibited flag' || true; }
# Discovery's live tests stop and restart Avahi and the bus: they run on their own, first.
step "DiscoveryTests"
swift test --skip-build --filter DiscoveryTests 2>&1 | { grep -v 'prohibited flag' || true; }
scripts/avahi-up.sh >/dev/null
# localsend-cli from PyPI (a LocalSend client nobody here wrote), cached outside the repo: the
# LocalSend interoperability tests run it.
step "localsend-cli venv, the type corpus, the failing disk"
scripts/localsend/setup-venv.sh
# The real-world type corpus (Debian packages, cached outside the repo): CorpusTests judges every file.
SHARE_CORPUS=$(scripts/corpus.sh)
export SHARE_CORPUS
# A disk that fails to write what it accepted (scripts/failing-disk.sh; root and a loop device):
# the store's write-back error tests run on it, and say they were skipped without one.
failing_disk=$(mktemp -d /tmp/share-failing-disk.XXXXXX)
package_prepared=""
# On the way out, a failed step included: the failing disk goes, and so does the package test's
# preparation if it still runs (its release build would go on holding .build's lock).
cleanup() {
  scripts/failing-disk.sh down "$failing_disk" >/dev/null 2>&1 || true
  if [ -n "$package_prepared" ]; then pkill -TERM -P "$package_prepared" 2>/dev/null || true; kill "$package_prepared" 2>/dev/null || true; fi
}
trap cleanup EXIT
if SHARE_FAILING_DISK=$(scripts/failing-disk.sh up "$failing_disk"); then
  export SHARE_FAILING_DISK
else
  echo "test: no failing disk here (see above): WriteBackErrorTests will be skipped"
fi
step "the suite"
swift test --skip-build --skip DiscoveryTests 2>&1 | { grep -v 'prohibited flag' || true; }
share="$(swift build --show-bin-path)/share"
# The package test's longest parts (its release build, mostly one core; debootstrap, mostly the
# network) run beside the fuzz targets (one core each, one after another), the next steps, which
# mostly wait, and its own log kept for the package step. Nothing after this starts SwiftPM on
# .build, whose lock the release build holds: the fuzz build reads the manifest from a file.
swift package dump-package >.build/package-dump.json
package_log=$(mktemp /tmp/share-package-prepare.XXXXXX)
scripts/package-test.sh --prepare >"$package_log" 2>&1 &
package_prepared=$!
# Every fuzz target briefly (its seed corpus, then fresh mutations): about a minute in all.
step "fuzz targets (the package's release build and bare system made beside them)"
FUZZ_PACKAGE_DUMP=.build/package-dump.json scripts/fuzz.sh 12
step "multi-host, write-back, service, desktop, install"
scripts/multihost-test.sh "$share"
scripts/writeback-test.sh "$share"
# The packaging checks, on the debug binary just built (named: else they would take an older
# release build lying in .build/).
SHARE_BIN=$share scripts/service-test.sh
SHARE_BIN=$share scripts/desktop-test.sh
SHARE_BIN=$share scripts/install-test.sh
# scripts/package.sh (the release build made above), lintian, then the bare system: it runs last.
step "package (waiting for its release build and bare system)"
wait "$package_prepared" || echo "test: preparing the package test failed; it tries again now"
package_prepared=""
cat "$package_log"
rm -f "$package_log"
step "package"
scripts/package-test.sh
step "done"
