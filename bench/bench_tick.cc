// The fused tick (gaze + harmonic + blink) on the 12-parameter face rig, per SIMD target and
// crowd size. Rows read as instance-updates per second, and bytes per second of the columns
// the tick really reads and writes.
#include <benchmark/benchmark.h>

#include "face_rig.h"

static void BM_FaceTick(benchmark::State &state) {
    const auto simd = static_cast<crowd_simd>(state.range(0));
    const auto n = static_cast<uint32_t>(state.range(1));
    if (!crowd_simd_supported(simd)) {
        state.SkipWithError("target not built or the CPU lacks it");
        return;
    }
    crowd_engine_desc desc = {};
    desc.seed = 7;
    desc.simd = simd;
    crowd_engine *e = nullptr;
    bench::check(crowd_engine_create(&desc, &e), "crowd_engine_create", nullptr);
    crowd_rig rig = bench::face_rig(e);
    bench::add_crowd(e, rig, n);
    // the state moves on every tick (gaze, phases, blinks): nothing is replayed
    for (auto _ : state) bench::check(crowd_tick(e, 1.0f / 60.0f), "crowd_tick", e);
    state.SetItemsProcessed(state.iterations() * n);
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * n * bench::face_bytes_per_instance));
    state.SetLabel(crowd_simd_name(simd));
    state.counters["bytes_per_instance"] = bench::face_bytes_per_instance;
    crowd_engine_destroy(e);
}

BENCHMARK(BM_FaceTick)
    ->ArgNames({"simd", "n"})
    ->ArgsProduct({{CROWD_SIMD_SCALAR, CROWD_SIMD_SSE2, CROWD_SIMD_AVX2, CROWD_SIMD_AVX512}, {10000, 1000000}})
    ->Unit(benchmark::kMicrosecond)
    ->UseRealTime();
