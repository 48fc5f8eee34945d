// Snapshot save and load of the face crowd, in bytes per second of the snapshot. Load includes
// every check it makes (checksum, structure, the rules of every stored value) and the swap.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <vector>

extern "C" {
#include "crowd.h"
#include "workloads.h"
}

namespace {

struct Saved {
    bench_ring ring{};
    std::vector<unsigned char> blob;
    bool ok = false;
    char err[256] = {0};
};

// One ring copy of n face instances, ticked a little so that every state is in motion.
bool make(Saved &s, uint32_t n) {
    if (bench_ring_create_copies(&s.ring, BENCH_FACE, CROWD_SIMD_SCALAR, n, nullptr, 1, s.err, sizeof s.err) != 0)
        return false;
    for (int t = 0; t < 30; t++) bench_ring_tick(&s.ring, BENCH_DT, 0, n);
    size_t size = 0;
    if (crowd_snapshot_size(s.ring.engine, &size) != CROWD_OK) return false;
    s.blob.resize(size);
    return crowd_snapshot_save(s.ring.engine, s.blob.data(), size, &size) == CROWD_OK;
}

void BM_SnapshotSave(benchmark::State &state) {
    Saved s;
    if (!make(s, static_cast<uint32_t>(state.range(0)))) {
        state.SkipWithError(s.err[0] ? s.err : "could not build the crowd");
        return;
    }
    size_t written = 0;
    for (auto _ : state) {
        crowd_snapshot_save(s.ring.engine, s.blob.data(), s.blob.size(), &written);
        benchmark::DoNotOptimize(s.blob.data());
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * s.blob.size()));
    state.counters["snapshot_MB"] = static_cast<double>(s.blob.size()) / 1e6;
    bench_ring_destroy(&s.ring);
}

void BM_SnapshotLoad(benchmark::State &state) {
    Saved s;
    if (!make(s, static_cast<uint32_t>(state.range(0)))) {
        state.SkipWithError(s.err[0] ? s.err : "could not build the crowd");
        return;
    }
    crowd_engine *target = nullptr;
    crowd_engine_desc desc = {};
    crowd_engine_create(&desc, &target);
    for (auto _ : state) {
        if (crowd_snapshot_load(target, s.blob.data(), s.blob.size()) != CROWD_OK) {
            state.SkipWithError(crowd_last_error(target));
            break;
        }
    }
    state.SetBytesProcessed(static_cast<int64_t>(state.iterations() * s.blob.size()));
    state.counters["snapshot_MB"] = static_cast<double>(s.blob.size()) / 1e6;
    crowd_engine_destroy(target);
    bench_ring_destroy(&s.ring);
}

}  // namespace

BENCHMARK(BM_SnapshotSave)->ArgName("instances")->Arg(10000)->Arg(1000000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SnapshotLoad)->ArgName("instances")->Arg(10000)->Arg(1000000)->Unit(benchmark::kMillisecond);
