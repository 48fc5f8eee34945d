#!/usr/bin/env python3
"""Summarises a bench_tick JSON run: speed-ups over the per-object way, fractions of the STREAM
triad, two-thread scaling, and the performance targets (set for AVX-512) on the widest target run.

  build/bench/bench_tick --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \\
      --benchmark_out=run.json --benchmark_out_format=json
  bench/summary.py run.json

Uses the median of the repetitions when there are any (else the single run). Python 3 standard
library only."""
import json
import re
import sys

TARGETS = ["scalar", "sse2", "avx2", "avx512"]


def load(path):
    rows, stream = {}, {}
    with open(path) as f:
        data = json.load(f)
    has_aggregates = any(b.get("run_type") == "aggregate" for b in data["benchmarks"])
    for b in data["benchmarks"]:
        if b.get("error_occurred"):
            continue
        if has_aggregates and b.get("aggregate_name") != "median":
            continue
        name = b.get("run_name", b["name"])
        m = re.match(r"tick/(\w+)/(\w+)/(\d+)/threads:(\d+)", name)
        if m:
            w, impl, n, t = m.group(1), m.group(2), int(m.group(3)), int(m.group(4))
            rows[(w, impl, n, t)] = b
            continue
        m = re.match(r"stream/(\w+)/threads:(\d+)", name)
        if m:
            stream[(m.group(1), int(m.group(2)))] = b["bytes_per_second"]
    return data.get("context", {}), rows, stream


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    context, rows, stream = load(sys.argv[1])
    print("host: %s, %s CPUs at %s MHz, load %s" % (context.get("host_name"), context.get("num_cpus"),
                                                    context.get("mhz_per_cpu"), context.get("load_avg")))
    for (kind, t), bps in sorted(stream.items()):
        print("stream %-5s %d thread%s: %6.2f GB/s" % (kind, t, "s" if t > 1 else " ", bps / 1e9))
    impls = ["per_object"] + [t for t in TARGETS if any(k[1] == t for k in rows)]
    best = impls[-1]
    keys = sorted({(k[0], k[2], k[3]) for k in rows},
                  key=lambda k: (["face", "gaze", "harmonic", "blink", "blend", "limbs", "body", "limbs_smoothed"].index(k[0]), k[2], k[1]))
    print()
    print("%-14s %8s %2s | %s | %s | %s" % ("workload", "n", "th", " ".join("%10s" % i for i in impls),
                                          " ".join("%7s" % ("x " + i) for i in impls[1:]), "of triad (" + best + ")"))
    for w, n, t in keys:
        po = rows.get((w, "per_object", n, t))
        rates = [rows.get((w, i, n, t), {}).get("items_per_second") for i in impls]
        ups = ["%7.1f" % (r / po["items_per_second"]) if r and po else "%7s" % "-" for r in rates[1:]]
        b = rows.get((w, best, n, t))
        frac = "%5.0f%%" % (100 * b["bytes_per_second"] / stream[("triad", t)]) if b and ("triad", t) in stream else "-"
        print("%-14s %8d %2d | %s | %s | %s" % (w, n, t, " ".join("%9.3gM" % (r / 1e6) if r else "%10s" % "-" for r in rates),
                                              " ".join(ups), frac))
    print()
    print("two threads / one thread (wall vs CPU time):")
    for w, n, t in keys:
        if t != 2:
            continue
        parts = []
        for i in impls:
            one, two = rows.get((w, i, n, 1)), rows.get((w, i, n, 2))
            if one and two:
                parts.append("%s %.2f" % (i, two["items_per_second"] / one["items_per_second"]))
        print("  %-8s %8d  %s" % (w, n, ", ".join(parts)))

    def rate(w, i, n, t=1, field="items_per_second"):
        r = rows.get((w, i, n, t))
        return r.get(field) if r else None

    def up(w, n):
        a, b = rate(w, best, n), rate(w, "per_object", n)
        return a / b if a and b else None

    print()
    print("performance targets (set for AVX-512; measured here on %s):" % best)
    checks = [
        ("face 10k, 1 thread, x per-object", up("face", 10000), 15),
        ("face 1M, 1 thread, x per-object", up("face", 1000000), 6),
        ("body 10k, 1 thread, x per-object", up("body", 10000), 10),
        ("limbs 100k, 1 thread, M chains/s", (rate("limbs", best, 100000, 1, "chains_per_second") or 0) / 1e6, 150),
        ("face 1M, 1 thread, fraction of triad",
         (rate("face", best, 1000000, 1, "bytes_per_second") or 0) / stream.get(("triad", 1), float("inf")), 0.7),
    ]
    for n in (256000, 1000000):
        one, two = rate("face", best, n, 1), rate("face", best, n, 2)
        checks.append(("face %dk, 2 threads / 1" % (n // 1000), two / one if one and two else None, 1.7))
    for what, got, want in checks:
        status = "-" if got is None else ("met" if got >= want else "MISSED")
        print("  %-40s %8s  (>= %g)  %s" % (what, "-" if got is None else "%.3g" % got, want, status))


if __name__ == "__main__":
    main()
