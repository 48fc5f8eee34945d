#!/usr/bin/env bash
# Where a workload's instructions go: callgrind's self cost of each function of the counted tick,
# per instance per tick. The limb stage's passes are functions of their own (cvk_limb_sides,
# cvk_limb_rotations, cvk_limb_outputs_plain / _tracking; cvk_limbs_range holds pass 1), so
# this is the per-pass profile of bench/callgrind.sh's figure.
#
#   bench/callgrind_passes.sh [BUILD_DIR [WORKLOAD [IMPL [N [TICKS [WARMUP]]]]]]
#   (default build-bench limbs avx2 2048 16 50)
set -euo pipefail
build=${1:-build-bench}
workload=${2:-limbs}
impl=${3:-avx2}
n=${4:-2048}
ticks=${5:-16}
warmup=${6:-50}
count="$build/bench/callgrind_tick"
[ -x "$count" ] || { echo "callgrind_passes.sh: $count not built" >&2; exit 2; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
fn=counted_tick
[ "$workload" = avatar ] && fn=counted_avatar_tick   # the full avatar (bench/avatar.h)
valgrind --tool=callgrind --toggle-collect=$fn --callgrind-out-file="$out" \
    "$count" "$workload" "$impl" "$n" "$ticks" "$warmup" >/dev/null 2>&1
printf '%s %s: instructions per instance per tick by function (n=%s, %s ticks after %s)\n' \
    "$workload" "$impl" "$n" "$ticks" "$warmup"
# callgrind_annotate's function table: "12,345 (..%)  file:function [object]" (a function inlined
# from several files has several lines: they are summed)
callgrind_annotate --auto=no --threshold=100 "$out" 2>/dev/null |
    awk -v per="$((n * ticks))" '
        /file:function/ { table = 1; next }
        table && $1 ~ /^[0-9,]+$/ {
            ir = $1; gsub(",", "", ir)
            fn = ""
            for (k = 2; k <= NF; k++) if ($k ~ /:/ && $k !~ /%/) { fn = $k; break }
            if (fn == "") next
            sub(/^.*:/, "", fn)
            cost[fn] += ir; total += ir
        }
        END {
            for (f in cost) if (cost[f] / per >= 0.05) printf "%10.1f  %s\n", cost[f] / per, f | "sort -rn"
            close("sort -rn")
            printf "%10.1f  total\n", total / per
        }'
