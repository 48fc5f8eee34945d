// bench_sin.cc — the engine's vector sin (and cos) per SIMD target against a libm sinf loop,
// on 4096 floats uniform in [-8192, 8192]. Rows read as elements per second.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

extern "C" {
#include "dispatch.h"
}

namespace {

constexpr std::size_t kN = 4096;

std::vector<float> Inputs() {
  std::vector<float> x(kN);
  uint32_t s = 0x2545F491u;  // xorshift32: the same inputs for every row
  for (auto &v : x) {
    s ^= s << 13; s ^= s >> 17; s ^= s << 5;
    v = static_cast<float>(-8192.0 + 16384.0 * (s / 4294967296.0));
  }
  return x;
}

// target: 1 scalar, 2 sse2, 3 avx2, 4 avx512; cos selects cos_array.
void BM_array(benchmark::State &state, int target, const char *skip_msg, bool cos) {
  const crowdi_kernels *k = crowdi_kernels_for(target);
  if (!k) {
    state.SkipWithError(skip_msg);
    return;
  }
  const auto fn = cos ? k->cos_array : k->sin_array;
  std::vector<float> in = Inputs(), out(kN);
  for (auto _ : state) {
    fn(in.data(), out.data(), kN);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(kN));
}

void BM_libm_sinf(benchmark::State &state) {
  std::vector<float> in = Inputs(), out(kN);
  for (auto _ : state) {
    for (std::size_t i = 0; i < kN; i++) out[i] = std::sin(in[i]);
    benchmark::DoNotOptimize(out.data());
    benchmark::ClobberMemory();
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * static_cast<int64_t>(kN));
}

}  // namespace

BENCHMARK_CAPTURE(BM_array, sin_scalar, 1, "CPU lacks scalar", false);
BENCHMARK_CAPTURE(BM_array, sin_sse2, 2, "CPU lacks sse2", false);
BENCHMARK_CAPTURE(BM_array, sin_avx2, 3, "CPU lacks avx2", false);
BENCHMARK_CAPTURE(BM_array, sin_avx512, 4, "CPU lacks avx512", false);
BENCHMARK(BM_libm_sinf);
BENCHMARK_CAPTURE(BM_array, cos_scalar, 1, "CPU lacks scalar", true);
BENCHMARK_CAPTURE(BM_array, cos_sse2, 2, "CPU lacks sse2", true);
BENCHMARK_CAPTURE(BM_array, cos_avx2, 3, "CPU lacks avx2", true);
BENCHMARK_CAPTURE(BM_array, cos_avx512, 4, "CPU lacks avx512", true);
