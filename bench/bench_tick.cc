// bench_tick.cc — tick throughput per stage, SIMD target, crowd size and thread count, with
// the two references measured in the same run:
//   tick/<workload>/<impl>/<n>/threads:<t>   workload face (the fused tick), gaze, harmonic,
//       blink, blend (the copy baseline), limbs, body (face + 15 bones), limbs_smoothed (limbs
//       with One Euro on every landmark); impl scalar, sse2,
//       avx2, avx512 (skipped with the reason when the CPU lacks it) or per_object (the
//       per-object way of reference.h); n 1000, 16000, 256000, 1000000, plus the sizes the
//       performance targets name (face and body at 10000, limbs and body at 100000); 1 or 2 threads.
//   stream/<triad|copy>/threads:<t>   STREAM over buffers as large as the face tick's working
//       set at 1M instances (224 MB): the machine's streaming bandwidth.
// Rows read as instances per second (items_per_second) and as bytes per second of the columns
// the tick really reads and writes (bytes_per_second; the per-instance formula is in
// workloads.h, shown as the bytes_per_inst counter). Limb rows add chains_per_second (4 limb
// chains, upper + lower bone, per instance). Per-object rows count the engine's bytes too, so
// the two bytes_per_second compare like the items.
//
// Fresh data: each row ticks a ring of `copies` identical rigs (per-object: crowds) of n
// instances, one per iteration, so that at least 8 MiB (16x L2) lies between two ticks of the
// same instance: nothing is replayed from L2 (1k and 16k run from L3, 256k and 1M from DRAM).
// The state moves every tick; gaze targets jump every 32 ticks of a copy, rewritten between
// iterations under PauseTiming (once per 32 iterations at most), so SmoothDamp never settles.
//
// Two threads: the benchmark's thread and one std::thread, each calling crowd_tick_range on its
// half of the rows (the first half a multiple of 16 rows), joined every tick, as a game would.
//
// Clocks: one-thread rows are timed by the thread's CPU time (Google Benchmark's default), as
// the machine may be shared and a descheduled thread must not count; two-thread rows by the
// wall clock (UseRealTime), from the start of a tick to the join.
//
//   build-bench/bench/bench_tick --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
//   build-bench/bench/bench_tick --benchmark_filter='tick/face/.*/10000/'
#include <benchmark/benchmark.h>

#include <atomic>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <thread>
#include <vector>

extern "C" {
#include "crowd.h"
#include "reference.h"
#include "walk.h"
#include "workloads.h"
}

namespace {

// ---- the built-in walk (walk.h), the clip of `crowd run`'s default crowd ----
const bench_clip *WalkClip() {
  static float rows[BENCH_WALK_ROWS * BENCH_WALK_FLOATS];
  static const bench_clip view = [] {
    bench_walk_rows(rows);
    return bench_clip{rows, BENCH_WALK_ROWS};
  }();
  return &view;
}

// ---- one helper thread, joined every tick ----
inline void Pause(uint32_t spins) {
  if (spins < 2048) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#endif
  } else {
    std::this_thread::yield();  // a shared 2-core machine: let the other tenant run
  }
}

class Helper {
 public:
  Helper() : thread_([this] { Loop(); }) {}
  ~Helper() {
    stop_.store(true, std::memory_order_release);
    thread_.join();
  }
  void Run(void (*fn)(void *), void *arg) {
    fn_ = fn;
    arg_ = arg;
    posted_.fetch_add(1, std::memory_order_release);
  }
  void Wait() {
    const uint64_t want = posted_.load(std::memory_order_relaxed);
    for (uint32_t s = 0; done_.load(std::memory_order_acquire) != want; s++) Pause(s);
  }

 private:
  void Loop() {
    uint64_t seen = 0;
    for (;;) {
      for (uint32_t s = 0; posted_.load(std::memory_order_acquire) == seen; s++) {
        if (stop_.load(std::memory_order_acquire)) return;
        Pause(s);
      }
      seen++;
      fn_(arg_);
      done_.store(seen, std::memory_order_release);
    }
  }
  std::atomic<uint64_t> posted_{0}, done_{0};
  std::atomic<bool> stop_{false};
  void (*fn_)(void *) = nullptr;
  void *arg_ = nullptr;
  std::thread thread_;
};

Helper &TheHelper() {
  static Helper helper;
  return helper;
}

// ---- rings, kept while consecutive rows (threads 1 and 2, repetitions) use the same one ----
struct RingKey {
  bench_workload w;
  int impl;
  uint32_t n;
  bool operator==(const RingKey &o) const { return w == o.w && impl == o.impl && n == o.n; }
};

struct CachedRing {
  RingKey key;
  bench_ring ring;
  ~CachedRing() { bench_ring_destroy(&ring); }
};

std::unique_ptr<CachedRing> g_ring;

bench_ring *Ring(const RingKey &key, std::string *err) {
  if (g_ring && g_ring->key == key) return &g_ring->ring;
  g_ring.reset();  // free the last one first: 1M-instance rings take gigabytes
  auto c = std::make_unique<CachedRing>();
  c->key = key;
  char msg[512] = "";
  if (bench_ring_create(&c->ring, key.w, key.impl, key.n, WalkClip(), msg, sizeof msg) != 0) {
    *err = msg;
    return nullptr;
  }
  g_ring = std::move(c);
  return &g_ring->ring;
}

// The per-object reference must do the engine's work: checked once per workload against the
// widest target this CPU runs (outputs within 1e-4 of their range, bones within 1e-4).
const char *VerifyPerObject(bench_workload w) {
  static std::string result[BENCH_WORKLOAD_COUNT];
  static bool done[BENCH_WORKLOAD_COUNT];
  if (!done[w]) {
    done[w] = true;
    crowd_simd best = CROWD_SIMD_SCALAR;
    for (int t = CROWD_SIMD_SCALAR; t < CROWD_SIMD_COUNT; t++)
      if (!bench_impl_skip_reason(t)) best = static_cast<crowd_simd>(t);
    char msg[512] = "";
    if (bench_verify(w, best, 512, 300, WalkClip(), msg, sizeof msg) != 0)
      result[w] = std::string("the per-object reference disagrees with the engine: ") + msg;
  }
  return result[w].empty() ? nullptr : result[w].c_str();
}

struct TickJob {
  bench_ring *ring;
  uint32_t first, count;
};

void TickJobRun(void *arg) {
  auto *j = static_cast<TickJob *>(arg);
  bench_ring_tick(j->ring, BENCH_DT, j->first, j->count);
}

void BM_Tick(benchmark::State &state, bench_workload w, int impl, uint32_t n, uint32_t threads) {
  if (const char *why = bench_impl_skip_reason(impl)) {
    state.SkipWithError((std::string(bench_impl_name(impl)) + " skipped: " + why).c_str());
    return;
  }
  if (impl == BENCH_PER_OBJECT)
    if (const char *bad = VerifyPerObject(w)) {
      state.SkipWithError(bad);
      return;
    }
  std::string err;
  bench_ring *r = Ring({w, impl, n}, &err);
  if (!r) {
    state.SkipWithError(err.c_str());
    return;
  }
  TickJob job[2];
  for (uint32_t t = 0; t < threads; t++) {
    job[t].ring = r;
    job[t].count = bench_split(n, threads, t, &job[t].first);
  }
  Helper *helper = threads > 1 ? &TheHelper() : nullptr;
  for (auto _ : state) {
    if (bench_ring_due(r)) {
      state.PauseTiming();
      bench_ring_refresh(r);
      state.ResumeTiming();
    }
    if (helper) {
      helper->Run(TickJobRun, &job[1]);
      bench_ring_tick(r, BENCH_DT, job[0].first, job[0].count);
      helper->Wait();
    } else {
      bench_ring_tick(r, BENCH_DT, 0, n);
    }
    bench_ring_advance(r);
  }
  const auto iters = static_cast<int64_t>(state.iterations());
  const double bytes = bench_bytes_per_instance(w);
  state.SetItemsProcessed(iters * n);
  state.SetBytesProcessed(static_cast<int64_t>(static_cast<double>(iters) * n * bytes));
  state.counters["bytes_per_inst"] = bytes;
  state.counters["copies"] = r->copies;
  if (uint32_t chains = bench_chains_per_instance(w))
    state.counters["chains_per_second"] =
        benchmark::Counter(static_cast<double>(iters) * n * chains, benchmark::Counter::kIsRate);
  state.SetLabel(std::string(bench_workload_name(w)) + "/" + bench_impl_name(impl));
}

// ---- STREAM ----
stream_buffers *Stream() {
  static stream_buffers s;
  static bool made = false;
  if (!made) {
    // three arrays totalling the face tick's working set at 1M instances
    const size_t n = static_cast<size_t>(bench_workload_traffic(BENCH_FACE).columns) * 1000000 / 3;
    if (stream_buffers_create(&s, n) != 0) return nullptr;
    made = true;
  }
  return &s;
}

struct StreamJob {
  stream_buffers *s;
  bool triad;
  size_t first, count;
};

void StreamJobRun(void *arg) {
  auto *j = static_cast<StreamJob *>(arg);
  if (j->triad)
    stream_triad(j->s, 3.0f, j->first, j->count);
  else
    stream_copy(j->s, j->first, j->count);
}

void BM_Stream(benchmark::State &state, bool triad, uint32_t threads) {
  g_ring.reset();  // give the memory back before allocating the buffers
  stream_buffers *s = Stream();
  if (!s) {
    state.SkipWithError("out of memory");
    return;
  }
  StreamJob job[2];
  const size_t half = s->n / 2 / 16 * 16;
  job[0] = {s, triad, 0, threads > 1 ? half : s->n};
  job[1] = {s, triad, half, s->n - half};
  Helper *helper = threads > 1 ? &TheHelper() : nullptr;
  for (auto _ : state) {
    if (helper) {
      helper->Run(StreamJobRun, &job[1]);
      StreamJobRun(&job[0]);
      helper->Wait();
    } else {
      StreamJobRun(&job[0]);
    }
    benchmark::ClobberMemory();
  }
  const double per = triad ? STREAM_TRIAD_BYTES : STREAM_COPY_BYTES;
  state.SetBytesProcessed(static_cast<int64_t>(static_cast<double>(state.iterations()) * s->n * per));
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations() * s->n));
  state.counters["buffer_MB"] = 3.0 * s->n * sizeof(float) / 1e6;
}

// ---- registration ----
int RegisterAll() {
  const int impls[] = {BENCH_PER_OBJECT, CROWD_SIMD_SCALAR, CROWD_SIMD_SSE2, CROWD_SIMD_AVX2, CROWD_SIMD_AVX512};
  for (int t = 1; t <= 2; t++)
    for (bool triad : {true, false}) {
      auto *b = benchmark::RegisterBenchmark(
          (std::string("stream/") + (triad ? "triad" : "copy") + "/threads:" + std::to_string(t)).c_str(),
          [triad, t](benchmark::State &st) { BM_Stream(st, triad, static_cast<uint32_t>(t)); });
      b->Unit(benchmark::kMillisecond);
      if (t > 1) b->UseRealTime();
    }
  for (int wi = 0; wi < BENCH_WORKLOAD_COUNT; wi++) {
    const auto w = static_cast<bench_workload>(wi);
    std::vector<uint32_t> sizes = {1000, 16000, 256000, 1000000};
    if (w == BENCH_FACE || w == BENCH_BODY) sizes.insert(sizes.begin() + 1, 10000);
    if (w == BENCH_LIMBS || w == BENCH_LIMBS_SMOOTHED || w == BENCH_BODY)  // body: the two-thread goal's size
      sizes.insert(sizes.begin() + 3, 100000);
    for (uint32_t n : sizes)
      for (int impl : impls)
        for (uint32_t threads = 1; threads <= 2; threads++) {
          std::string name = std::string("tick/") + bench_workload_name(w) + "/" + bench_impl_name(impl) + "/" +
                             std::to_string(n) + "/threads:" + std::to_string(threads);
          auto *b = benchmark::RegisterBenchmark(name.c_str(), [w, impl, n, threads](benchmark::State &st) {
            BM_Tick(st, w, impl, n, threads);
          });
          b->Unit(benchmark::kMicrosecond);
          if (threads > 1) b->UseRealTime();
        }
  }
  return 0;
}

const int registered = RegisterAll();

}  // namespace
