// bench_avatar: the full avatar (issue 33; bench/avatar.h): motion, expression, pose, blink,
// face tracking, lip sync, harmonic, look, physics, 15 limb bones and 30 finger bones (two
// hands) on one rig, one tick of every avatar per iteration at dt 1/60.
//   avatar/<target>/<n>/threads:<1|2>  the engine, crowd_tick with the engine's own workers
//                                      (threads 2: one worker beside the caller)
//   avatar/per_object/<n>              the per-object reference, avatar after avatar
// Counters: items_per_second = avatars per second; bytes_per_inst (the engine: every column of
// the rig; per-object: one avatar's records). One-thread rows are timed in the thread's CPU
// time (the machine may be shared), two-thread rows in wall time.
//
//   build/bench/bench_avatar --benchmark_filter='avatar/(avx512|per_object)/10000'
#include <benchmark/benchmark.h>

#include <cmath>
#include <string>

#include "avatar.h"
#include "walk.h"

namespace {

const bench_clip *WalkClip() {
  static float rows[BENCH_WALK_ROWS * BENCH_WALK_FLOATS];
  static const bench_clip view = [] {
    bench_walk_rows(rows);
    return bench_clip{rows, BENCH_WALK_ROWS};
  }();
  return &view;
}

void Run(benchmark::State &state, int impl, uint32_t n, uint32_t threads) {
  bench_avatar *a = nullptr;
  char err[512];
  if (bench_avatar_create(&a, impl, n, threads, WalkClip(), err, sizeof err) != 0) {
    state.SkipWithError(err);
    return;
  }
  for (int k = 0; k < 4; k++) bench_avatar_tick(a, BENCH_DT); // the fades and filters under way
  crowd_rig rig;
  if (crowd_engine *e = bench_avatar_engine(a, &rig)) { // every output finite before timing
    for (uint32_t p = 0; p < crowd_rig_parameter_count(e, rig); p++) {
      float *col;
      uint32_t rows;
      crowd_rig_column(e, rig, CROWD_FIELD_OUTPUT, p, 0, &col, &rows);
      for (uint32_t i = 0; i < rows; i++)
        if (!std::isfinite(col[i])) {
          state.SkipWithError("an output is not finite");
          bench_avatar_destroy(a);
          return;
        }
    }
  }
  for (auto _ : state) {
    bench_avatar_tick(a, BENCH_DT);
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * n);
  state.counters["bytes_per_inst"] = bench_avatar_bytes_per_instance(a);
  bench_avatar_destroy(a);
}

const int kRegistered = [] {
  const struct {
    const char *name;
    int impl;
  } targets[] = {{"scalar", CROWD_SIMD_SCALAR}, {"sse2", CROWD_SIMD_SSE2}, {"avx2", CROWD_SIMD_AVX2},
                 {"avx512", CROWD_SIMD_AVX512}};
  for (const auto &t : targets)
    for (uint32_t n : {10000u, 100000u})
      for (uint32_t threads : {1u, 2u}) {
        const int impl = t.impl;
        const std::string name = std::string("avatar/") + t.name + "/" + std::to_string(n) + "/threads:" +
                                 std::to_string(threads);
        auto *b = benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State &s) { Run(s, impl, n, threads); });
        b->Unit(benchmark::kMillisecond);
        if (threads == 2) b->UseRealTime();
      }
  benchmark::RegisterBenchmark("avatar/per_object/10000", [](benchmark::State &s) { Run(s, BENCH_PER_OBJECT, 10000, 1); })
      ->Unit(benchmark::kMillisecond);
  return 0;
}();

} // namespace
