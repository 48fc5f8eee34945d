#!/usr/bin/env bash
# Bytes per instance per tick, measured: for each workload, bench/traffic.c ticks one crowd of
# N instances WARMUP times on the AVX2 kernels, then once more between two sentinel loads,
# under valgrind lackey; the loads and stores of that tick that fall in the rig's column block
# are counted (distinct 4-byte words) and compared with the hand count of workloads.h.
#
#   bench/traffic.sh [BUILD_DIR [N [WARMUP]]]      (default build 1024 2; ~15 s per workload)
#   WORKLOADS="face limbs" bench/traffic.sh
#   WORKLOADS=avatar bench/traffic.sh build 128    (the full avatar, avatar.h: measured, no hand
#                                                   count; ~45 s, so not in the default list)
#   TRAFFIC=path/to/traffic bench/traffic.sh        (the program, instead of BUILD_DIR/bench/traffic)
#
# Columns: read (words loaded before the tick stores them), write (words stored), their total,
# the hand count (bench_bytes_per_instance), reloaded (words loaded after the tick stored them:
# cache hits, not counted), and the parts where measurement and hand count differ. Exit 0 when
# every workload agrees, 1 when one differs, 2 on an error, 77 when valgrind (or AVX2) is missing.
set -euo pipefail
build=${1:-build}
n=${2:-1024}
warmup=${3:-2}
traffic=${TRAFFIC:-$build/bench/traffic}
[ -x "$traffic" ] || { echo "traffic.sh: $traffic not built" >&2; exit 2; }
command -v valgrind >/dev/null 2>&1 || { echo "traffic.sh: skipped: valgrind is not installed" >&2; exit 77; }
workloads=${WORKLOADS:-face gaze harmonic blink blend limbs body limbs_smoothed}

# The trace goes to a file, not a pipe (half the time: lackey writes every line on its own),
# through the program's own stderr, so that its layout lines stay in order with the trace.
trace=$(mktemp "${TMPDIR:-/tmp}/traffic.XXXXXX")
trap 'rm -f "$trace"' EXIT

"$traffic" header
printf '(bytes per instance per tick; n=%s, one tick after %s, AVX2 kernels)\n' "$n" "$warmup"
status=0
for w in $workloads; do
  rc=0
  valgrind --tool=lackey --trace-mem=yes "$traffic" tick "$w" "$n" "$warmup" 2>"$trace" >/dev/null || rc=$?
  if [ "$rc" -eq 77 ]; then
    grep '^traffic: ' "$trace" >&2 || true
    exit 77
  elif [ "$rc" -ne 0 ]; then
    echo "traffic.sh: $w: the tick failed under valgrind (exit $rc):" >&2
    grep -v '^ [LSM] \|^I ' "$trace" | tail -n 20 >&2 || true
    exit 2
  fi
  rc=0
  "$traffic" count <"$trace" || rc=$?
  [ "$rc" -eq 2 ] && exit 2
  [ "$rc" -ne 0 ] && status=1
done
exit "$status"
