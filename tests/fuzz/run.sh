#!/bin/sh
# Runs every fuzz target of a CROWD_FUZZ build for SECONDS each (default 300), from its seeds,
# keeping what it finds in BUILD/tests/fuzz/corpus/NAME and crashes in BUILD/tests/fuzz/artifacts.
#   tests/fuzz/run.sh [SECONDS] [BUILD]        (BUILD default: build-fuzz next to this repository's root)
# Configure BUILD first:
#   CC=clang cmake -S . -B build-fuzz -DCROWD_FUZZ=ON -DCROWD_SANITIZE=ON -DCROWD_BUILD_BENCH=OFF
#   cmake --build build-fuzz -j2
# Extra libFuzzer flags through FUZZ_FLAGS, e.g. FUZZ_FLAGS="-fork=2 -ignore_crashes=1" to go on
# past a finding, or CROWD_FUZZ_SKIP_FINITE=1 to leave out the finite-output oracles.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
seconds=${1:-300}
build=${2:-$root/build-fuzz}
out=$build/tests/fuzz
[ -x "$out/fuzz_snapshot" ] || { echo "run.sh: no fuzz targets in $out (configure with -DCROWD_FUZZ=ON)" >&2; exit 2; }
status=0
for pair in snapshot:snapshot snapshot_sum:snapshot scene:scene clip:clip landmarks:landmarks face:face; do
  name=${pair%%:*} kind=${pair#*:}
  seeds=$here/corpus/$kind
  [ "$kind" = snapshot ] && seeds=$out/seeds/snapshot
  dict=
  [ -f "$here/$kind.dict" ] && dict=-dict=$here/$kind.dict
  mkdir -p "$out/corpus/$name" "$out/artifacts"
  echo "== fuzz_$name for $seconds s"
  # shellcheck disable=SC2086
  "$out/fuzz_$name" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 -close_fd_mask=2 \
    -print_final_stats=1 -artifact_prefix="$out/artifacts/$name-" $dict ${FUZZ_FLAGS:-} \
    "$out/corpus/$name" "$seeds" || status=1
done
exit $status
