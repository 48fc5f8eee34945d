#!/bin/sh
# The nightly fuzz job: CI (.ci/run) does not run it or wait for it. Configures and builds the
# libFuzzer targets in BUILD (clang, ASan+UBSan), replays the kept regressions, then runs every
# target for SECONDS (default 1800) through run.sh. Exit 0: nothing found; 1: a finding (see
# BUILD/tests/fuzz/artifacts); 2: the build could not be made.
#   tests/fuzz/nightly.sh [SECONDS] [BUILD]    (BUILD default: build-fuzz next to this repository's root)
# Needs clang and its runtime (Debian: apt-get install -y clang libclang-rt-14-dev).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
seconds=${1:-1800}
build=${2:-$root/build-fuzz}
command -v clang >/dev/null 2>&1 || { echo "nightly.sh: clang is missing (apt-get install -y clang libclang-rt-14-dev)" >&2; exit 2; }
CC=clang cmake -S "$root" -B "$build" -DCROWD_FUZZ=ON -DCROWD_SANITIZE=ON -DCROWD_BUILD_BENCH=OFF >/dev/null || exit 2
cmake --build "$build" -j "$(nproc 2>/dev/null || echo 2)" >/dev/null || exit 2
status=0
# every kept regression input still passes (ctest's fuzz.replay.NAME)
ctest --test-dir "$build" -R '^fuzz\.replay\.' --output-on-failure || status=1
"$here/run.sh" "$seconds" "$build" || status=1
exit $status
