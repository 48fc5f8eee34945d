// bench_live2d.cc — the pose and expression stages (crowd.h section 14) per SIMD target and
// crowd size, against the same rig without them (the base copy every tick pays):
//   live2d/<bare|pose_expression>/<target>/<n>
// The rig is shaped like Haru's: 60 parameters, 8 expressions of 28 entries each (Add,
// Multiply and Overwrite in turn, fades 0.5 s), a pose of 2 groups of 2 parts. The crowd
// starts its expressions in bulk (expression k on the k-th eighth), then half of it switches
// to another one, so that half the instances cross-fade two queue slots; the pose switches
// group 0 on every other instance; then ticks of dt 0 keep that state. items_per_second:
// instances per second.
//
//   build/bench/bench_live2d --benchmark_filter='live2d/.*/avx512/100000'
#include <benchmark/benchmark.h>

#include <cstdio>
#include <string>
#include <vector>

extern "C" {
#include "crowd.h"
}

namespace {

constexpr int kParams = 60, kExpressions = 8, kEntries = 28;

struct Crowd {
  crowd_engine *engine = nullptr;
  crowd_rig rig{};
  std::vector<crowd_instance> handles;
  ~Crowd() { crowd_engine_destroy(engine); }
};

bool Build(Crowd &c, crowd_simd simd, uint32_t n, bool live2d) {
  static char ids[kParams][16];
  static crowd_parameter_desc params[kParams];
  static crowd_expression_parameter_desc entries[kExpressions][kEntries];
  static crowd_expression_item_desc items[kExpressions];
  for (int p = 0; p < kParams; p++) {
    std::snprintf(ids[p], sizeof ids[p], "Param%d", p);
    params[p] = crowd_parameter_defaults(ids[p]);
    params[p].min = -1;
  }
  for (int e = 0; e < kExpressions; e++) {
    for (int k = 0; k < kEntries; k++)
      entries[e][k] = {ids[(2 * k + e) % kParams], 0.3f, static_cast<crowd_expression_blend>(k % 3)};
    items[e] = {entries[e], kEntries, 0.5f, 0.5f};
  }
  static const char *const part_ids[4] = {"PartArmA", "PartArmB", "PartArmC", "PartArmD"};
  static crowd_pose_part_desc parts[4];
  for (int k = 0; k < 4; k++) parts[k] = {part_ids[k], nullptr, 0};
  static crowd_pose_group_desc groups[2] = {{parts, 2}, {parts + 2, 2}};
  crowd_expression_desc expression = crowd_expression_defaults();
  expression.expressions = items;
  expression.expression_count = kExpressions;
  crowd_pose_desc pose = crowd_pose_defaults();
  pose.groups = groups;
  pose.group_count = 2;
  crowd_rig_desc desc = crowd_rig_defaults();
  desc.parameters = params;
  desc.parameter_count = kParams;
  if (live2d) desc.expression = &expression, desc.pose = &pose;
  crowd_engine_desc ed = crowd_engine_defaults();
  ed.simd = simd;
  if (crowd_engine_create(&ed, &c.engine) != CROWD_OK || crowd_rig_create(c.engine, &desc, &c.rig) != CROWD_OK)
    return false;
  c.handles.resize(n);
  crowd_add_desc add = crowd_add_defaults(c.rig, n);
  if (crowd_instances_add(c.engine, &add, c.handles.data()) != CROWD_OK) return false;
  if (!live2d) return true;
  const uint32_t eighth = n / kExpressions;
  for (int e = 0; e < kExpressions; e++)
    crowd_expressions_start(c.engine, c.handles.data() + e * eighth, eighth, static_cast<uint32_t>(e));
  for (int k = 0; k < 10; k++) crowd_tick(c.engine, 1.0f / 60);
  crowd_expressions_start(c.engine, c.handles.data(), n / 2, 3);
  std::vector<crowd_instance> odd;
  for (uint32_t i = 1; i < n; i += 2) odd.push_back(c.handles[i]);
  std::vector<float> off(odd.size(), 0.0f), on(odd.size(), 1.0f);
  crowd_instances_set(c.engine, CROWD_FIELD_PART_PARAMETER, 0, odd.data(), static_cast<uint32_t>(odd.size()), off.data());
  crowd_instances_set(c.engine, CROWD_FIELD_PART_PARAMETER, 1, odd.data(), static_cast<uint32_t>(odd.size()), on.data());
  return true;
}

void Tick(benchmark::State &state, crowd_simd simd, bool live2d, uint32_t n) {
  if (!crowd_simd_supported(simd)) {
    state.SkipWithError("the CPU lacks this target");
    return;
  }
  Crowd c;
  if (!Build(c, simd, n, live2d)) {
    state.SkipWithError(crowd_last_error(c.engine));
    return;
  }
  // dt 0: the state stays mid-fade for the whole run, and a tick of 0 does all the work a
  // fading tick does (the stages are branch-free; only the queue's collapse is left out)
  for (auto _ : state) crowd_tick(c.engine, 0.0f);
  state.SetItemsProcessed(state.iterations() * n);
  size_t bytes = 0;
  crowd_rig_bytes_per_instance(c.engine, c.rig, &bytes);
  state.counters["bytes_per_inst"] = static_cast<double>(bytes);
}

const int kRegistered = [] {
  const struct { const char *name; crowd_simd simd; } targets[] = {
      {"scalar", CROWD_SIMD_SCALAR}, {"avx2", CROWD_SIMD_AVX2}, {"avx512", CROWD_SIMD_AVX512}};
  for (bool live2d : {false, true})
    for (const auto &t : targets)
      for (int n : {10000, 100000}) {
        std::string name = std::string("live2d/") + (live2d ? "pose_expression/" : "bare/") + t.name + "/" +
                           std::to_string(n);
        const crowd_simd simd = t.simd;
        benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State &s) { Tick(s, simd, live2d, static_cast<uint32_t>(n)); });
      }
  return 0;
}();

}  // namespace
