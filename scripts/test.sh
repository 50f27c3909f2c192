#!/usr/bin/env bash
# Sets up everything the tests need (packages, build, Avahi restricted to loopback) and runs the
# whole test suite: unit tests, in-process two-peer tests, end-to-end tests of the built binary,
# and the multi-host test across two network namespaces.
set -euo pipefail
cd "$(dirname "$0")/.."
# The code's shape: no file in Sources/ over 400 lines, no function over 60.
scripts/code-shape.py
scripts/setup.sh debug >/dev/null
. scripts/env.sh
scripts/avahi-up.sh
swift build --build-tests 2>&1 | { grep -v 'prohibited flag' || true; }
# Discovery's live tests stop and restart Avahi and the bus: they run on their own, first.
swift test --skip-build --filter DiscoveryTests 2>&1 | { grep -v 'prohibited flag' || true; }
scripts/avahi-up.sh >/dev/null
# localsend-cli from PyPI (a LocalSend client nobody here wrote), cached outside the repo: the
# LocalSend interoperability tests run it.
scripts/localsend/setup-venv.sh
# The real-world type corpus (Debian packages, cached outside the repo): CorpusTests judges every file.
SHARE_CORPUS=$(scripts/corpus.sh)
export SHARE_CORPUS
swift test --skip-build --skip DiscoveryTests 2>&1 | { grep -v 'prohibited flag' || true; }
scripts/multihost-test.sh "$(swift build --show-bin-path)/share"
