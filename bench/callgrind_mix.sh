#!/usr/bin/env bash
# The dynamic instruction mix of a workload's counted tick (float arithmetic, compares, selects,
# loads, stores, spills, branches, the rest), per instance per tick, in total and per function of
# the limb stage's passes: callgrind counts every executed instruction (--dump-instr=yes) and
# callgrind_mix.py classifies it by objdump's disassembly. What bounds an instruction goal is
# read from here: the float operations a formula needs cannot go, the rest is the overhead.
#
#   bench/callgrind_mix.sh [BUILD_DIR [WORKLOAD [IMPL [N [TICKS [WARMUP]]]]]]
#   (default build-bench limbs avx2 2048 16 50)
set -euo pipefail
build=${1:-build-bench}
workload=${2:-limbs}
impl=${3:-avx2}
n=${4:-2048}
ticks=${5:-16}
warmup=${6:-50}
count="$build/bench/callgrind_tick"
[ -x "$count" ] || { echo "callgrind_mix.sh: $count not built" >&2; exit 2; }
out=$(mktemp)
trap 'rm -f "$out"' EXIT
fn=counted_tick
[ "$workload" = avatar ] && fn=counted_avatar_tick
valgrind --tool=callgrind --toggle-collect=$fn --dump-instr=yes --dump-line=no --compress-pos=no \
    --callgrind-out-file="$out" "$count" "$workload" "$impl" "$n" "$ticks" "$warmup" >/dev/null 2>&1
printf '%s %s: executed instructions per instance per tick by class (n=%s, %s ticks after %s)\n' \
    "$workload" "$impl" "$n" "$ticks" "$warmup"
python=/usr/bin/python3
[ -x "$python" ] || python=python3
"$python" "$(dirname "$0")/callgrind_mix.py" "$out" "$((n * ticks))" \
    cvk_limb_sides cvk_limb_rotations cvk_limb_outputs_plain cvk_limb_outputs_tracking cvk_limbs_range
