// bench_lod: level of detail (crowd.h 8a) on the face workload (workloads.h: 12 parameters,
// gaze, harmonic, blink), one crowd_tick a frame on the engine's own pool, the widest target.
//   lod/face/<n>/far:<pct>/<layout>/threads:<t>   n instances, pct percent of them at
//       interval 8 and the rest at 1; layout `grouped`: the far instances are the last rows
//       (a host that adds the distant crowd as one batch, so rows of one interval and phase
//       lie together), `mixed`: every row i with i % 10 != 0 far (rows of the two intervals
//       interleaved: their runs are short and go through the width-1 kernels).
// Counters: updates_per_second (instance updates: an instance at interval 8 counts on its
// update ticks only), ticks_per_second (the row's time is the ms per tick); bytes_per_row, the columns a tick reads
// and writes per instance averaged over the crowd (workloads.h's face count for an update,
// plus level of detail's 12 bytes read and 8 written per row of a rig not all at interval 1).
// Wall clock (UseRealTime): two threads, and the goal is frames per second.
//
//   build/bench/bench_lod --benchmark_filter='lod/face/4000000/'
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <string>

extern "C" {
#include "crowd.h"
#include "workloads.h"
}

namespace {

struct Crowd {
  crowd_engine *engine = nullptr;
  crowd_rig rig{};
  double updates_per_tick = 0, bytes_per_row = 0;
};

bool Build(Crowd *c, uint32_t n, uint32_t far_pct, bool mixed, uint32_t threads, std::string *err) {
  bench_rig_tables t;
  bench_rig_tables_init(&t, BENCH_FACE);
  crowd_engine_desc desc = {};
  desc.seed = 7, desc.threads = threads;
  uint32_t count = 0;
  float *target[3], *active, *interval;
  auto check = [&](crowd_result r, const char *what) {
    if (r != CROWD_OK) *err = std::string(what) + ": " + crowd_last_error(c->engine);
    return r == CROWD_OK;
  };
  if (crowd_engine_create(&desc, &c->engine) != CROWD_OK) return *err = "crowd_engine_create", false;
  if (!check(crowd_rig_create(c->engine, &t.desc, &c->rig), "crowd_rig_create") ||
      !check(crowd_reserve(c->engine, c->rig, n), "crowd_reserve"))
    return false;
  crowd_add_desc add = crowd_add_defaults(c->rig, n);
  add.harmonic_phase = CROWD_HARMONIC_PHASE_RANDOM;
  if (!check(crowd_instances_add(c->engine, &add, nullptr), "crowd_instances_add") ||
      !check(crowd_rig_columns(c->engine, c->rig, CROWD_FIELD_LOOK_TARGET, 0, target, &count), "targets") ||
      !check(crowd_rig_column(c->engine, c->rig, CROWD_FIELD_LOOK_ACTIVE, 0, 0, &active, &count), "active"))
    return false;
  // every gaze moves toward a target of its own (workloads.c's spread), as a crowd looking around
  for (uint32_t i = 0; i < n; i++) {
    const float u = (float)(i % 977) / 977.0f, v = (float)(i % 613) / 613.0f;
    target[0][i] = 2.0f * u - 1.0f, target[1][i] = 1.0f - 2.0f * v, target[2][i] = 1.0f, active[i] = 1.0f;
  }
  const uint32_t near_rows = (uint32_t)((uint64_t)n * (100 - far_pct) / 100);
  uint64_t far = 0;
  if (far_pct) {
    if (!check(crowd_rig_column(c->engine, c->rig, CROWD_FIELD_LOD_INTERVAL, 0, 0, &interval, &count), "interval"))
      return false;
    for (uint32_t i = 0; i < n; i++) {
      const bool is_far = mixed ? (far_pct == 100 || i % 10 != 0) : i >= near_rows;
      interval[i] = is_far ? 8.0f : 1.0f;
      far += is_far;
    }
  }
  const double face = bench_bytes_per_instance(BENCH_FACE);
  c->updates_per_tick = (double)(n - far) + (double)far / 8.0;
  c->bytes_per_row = (face * c->updates_per_tick + (far_pct ? 20.0 * n : 0.0)) / n;
  for (int k = 0; k < 16; k++) crowd_tick(c->engine, BENCH_DT);  // every phase once: steady state
  return true;
}

void BM_Lod(benchmark::State &state) {
  const uint32_t n = (uint32_t)state.range(0), far_pct = (uint32_t)state.range(1);
  const bool mixed = state.range(2) != 0;
  const uint32_t threads = (uint32_t)state.range(3);
  Crowd c;
  std::string err;
  if (!Build(&c, n, far_pct, mixed, threads, &err)) {
    state.SkipWithError(err.c_str());
    crowd_engine_destroy(c.engine);
    return;
  }
  for (auto _ : state) crowd_tick(c.engine, BENCH_DT);
  const double ticks = (double)state.iterations();
  state.counters["updates_per_second"] = benchmark::Counter(c.updates_per_tick * ticks, benchmark::Counter::kIsRate);
  state.counters["ticks_per_second"] = benchmark::Counter(ticks, benchmark::Counter::kIsRate);
  state.counters["bytes_per_row"] = c.bytes_per_row;
  state.SetLabel(crowd_simd_name(crowd_simd_target(c.engine)));
  crowd_engine_destroy(c.engine);
}

void Rows(benchmark::internal::Benchmark *b) {
  b->ArgNames({"", "far", "mixed", "threads"});
  for (int threads = 1; threads <= 2; threads++) {
    b->Args({1000000, 0, 0, threads});
    b->Args({4000000, 0, 0, threads});
    b->Args({1000000, 90, 0, threads});
    b->Args({1000000, 90, 1, threads});
    b->Args({20000000, 90, 0, threads});
  }
}

}  // namespace

BENCHMARK(BM_Lod)->Name("lod/face")->Apply(Rows)->UseRealTime()->Unit(benchmark::kMillisecond)->MinTime(1.0);
