#!/usr/bin/env bash
# Instructions per instance per tick, counted by callgrind (stable on a shared machine, unlike
# time): for each workload and implementation, callgrind_tick ticks one crowd WARMUP times, then
# TICKS times through counted_tick, the only function callgrind collects.
#
#   bench/callgrind.sh [BUILD_DIR [N [TICKS [WARMUP]]]]      (default build-bench 2048 64 300)
#   WORKLOADS="face limbs" IMPLS="avx2 per_object" bench/callgrind.sh
#   WORKLOADS=avatar IMPLS="avx2 per_object" bench/callgrind.sh build 1024 4 8   (the full avatar)
set -euo pipefail
build=${1:-build-bench}
n=${2:-2048}
ticks=${3:-64}
warmup=${4:-300}
count="$build/bench/callgrind_tick"
[ -x "$count" ] || { echo "callgrind.sh: $count not built" >&2; exit 2; }
workloads=${WORKLOADS:-face gaze harmonic blink blend limbs body limbs_smoothed}
impls=${IMPLS:-scalar sse2 avx2 avx512 per_object}
printf '%-9s' workload
for i in $impls; do printf ' %11s' "$i"; done
printf '   (instructions per instance per tick; n=%s, %s ticks after %s)\n' "$n" "$ticks" "$warmup"
for w in $workloads; do
  printf '%-9s' "$w"
  for i in $impls; do
    fn=counted_tick
    [ "$w" = avatar ] && fn=counted_avatar_tick
    if out=$(valgrind --tool=callgrind --toggle-collect=$fn --callgrind-out-file=/dev/null \
             "$count" "$w" "$i" "$n" "$ticks" "$warmup" 2>&1); then
      ir=$(sed -n 's/.*Collected : \([0-9]*\).*/\1/p' <<<"$out")
      printf ' %11.1f' "$(echo "$ir / ($n * $ticks)" | bc -l)"
    else
      printf ' %11s' "-"   # the target is not built or the CPU (or valgrind) lacks it
    fi
  done
  printf '\n'
done
