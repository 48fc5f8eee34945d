#!/bin/sh
# What this machine gives two threads, without any code of ours shared between them: a
# one-thread benchmark's median alone, then two copies of it at once (two processes), then alone
# again. Two cores that each run a copy as fast as one alone complete twice the work; a figure
# below 2 bounds what any two-thread tick can reach here.
#   bench/pair_scaling.sh BUILD_DIR FILTER   (BENCH=bench_tick by default; e.g. BENCH=bench_avatar)
set -eu
build=${1:?usage: bench/pair_scaling.sh BUILD_DIR FILTER}
filter=${2:?usage: bench/pair_scaling.sh BUILD_DIR FILTER}
bin="$build/bench/${BENCH:-bench_tick}"
[ -x "$bin" ] || { echo "pair_scaling: $bin is not built (cmake --build $build --target ${BENCH:-bench_tick})" >&2; exit 2; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
median() { # CPU time of the median repetition, in the benchmark's unit
    "$bin" --benchmark_filter="$filter" --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
        --benchmark_format=csv 2>/dev/null | grep '_median"' | cut -d, -f4
}
a1=$(median)
median >"$tmp/a" &
median >"$tmp/b"
wait
p1=$(cat "$tmp/a") p2=$(cat "$tmp/b")
a2=$(median)
if [ -z "$a1" ] || [ -z "$p1" ] || [ -z "$p2" ] || [ -z "$a2" ]; then
    echo "pair_scaling: no benchmark matched '$filter'" >&2
    exit 2
fi
awk -v a1="$a1" -v a2="$a2" -v p1="$p1" -v p2="$p2" 'BEGIN {
    alone = (a1 + a2) / 2
    printf "alone %.4g and %.4g, together %.4g and %.4g: two copies do %.2fx the work of one\n", a1, a2, p1, p2, alone / p1 + alone / p2
}'
