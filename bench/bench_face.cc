// bench_face: face tracking on every instance (crowd.h section 11) against the per-object way.
//
// The rig: the 11 standard Cubism parameters, the standard mapping (20 entries: head yaw,
// pitch and roll from the tracker's rotation, eyes, eyeballs, mouth, brows), presence hand-off,
// One Euro on the head angles. Each iteration is one frame: fresh tracker results arrive for
// every avatar (52 scores, a rotation, a presence, taken from a bank of synthetic frames and
// written where each side keeps them), then one tick. The "tick only" rows leave the input as
// it is (the state still moves: hand-off, filters).
//   engine/<target>  the scores go into the rig's columns (crowd_rig_columns, zero-copy), one
//                    crowd_tick (one thread)
//   per_object       one record per avatar (its scores, rotation, presence, control, filter
//                    state and parameters), updated avatar by avatar as a VTuber tool's loop
//                    does: yaw/pitch/roll with libm atan2f, the same mapping, hand-off, One Euro
//                    and blends, float32, -O3; checked against the engine before timing
// Counters: bytes_per_inst (the engine's crowd_rig_bytes_per_instance, or the record's size).
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>
#if defined(__SSE2__)
#include <xmmintrin.h>
#endif

#include "crowd.h"

namespace {

constexpr int kScores = CROWD_FACE_SCORE_COUNT;
// Tracker frames per avatar, cycled: fresh values every frame, as a tracker thread has just
// written them (4 frames of 10k avatars, 9 MiB, stay in L3; the 100k rows stream from DRAM).
constexpr int kBank = 4;
constexpr float kDt = 1.0f / 30.0f;

const crowd_parameter_desc kParams[] = {
    {"ParamAngleX", -30, 30, 0, false},  {"ParamAngleY", -30, 30, 0, false},  {"ParamAngleZ", -30, 30, 0, false},
    {"ParamEyeLOpen", 0, 1, 1, false},   {"ParamEyeROpen", 0, 1, 1, false},   {"ParamEyeBallX", -1, 1, 0, false},
    {"ParamEyeBallY", -1, 1, 0, false},  {"ParamMouthOpenY", 0, 1, 0, false}, {"ParamMouthForm", -1, 1, 0, false},
    {"ParamBrowLY", -1, 1, 0, false},    {"ParamBrowRY", -1, 1, 0, false}};
constexpr uint32_t kP = sizeof kParams / sizeof kParams[0];

crowd_face_desc FaceDesc() {
  crowd_face_desc f = crowd_face_defaults();
  f.smoothed_sources = CROWD_FACE_SOURCE_BIT(CROWD_FACE_HEAD_YAW) | CROWD_FACE_SOURCE_BIT(CROWD_FACE_HEAD_PITCH) |
                       CROWD_FACE_SOURCE_BIT(CROWD_FACE_HEAD_ROLL);
  f.beta = 0.05f;
  return f;
}

// A bank of tracker frames: per avatar and frame, 52 scores, a unit rotation, a presence.
struct Bank {
  uint32_t n = 0;
  std::vector<float> scores, rot, presence; // [frame][avatar][...]
  void Make(uint32_t count) {
    n = count;
    scores.resize(static_cast<size_t>(kBank) * n * kScores);
    rot.resize(static_cast<size_t>(kBank) * n * 4);
    presence.resize(static_cast<size_t>(kBank) * n);
    uint64_t s = 12345;
    auto unit = [&s]() {
      s = s * 6364136223846793005ull + 1442695040888963407ull;
      return static_cast<double>(s >> 11) * 0x1p-53;
    };
    for (int f = 0; f < kBank; f++)
      for (uint32_t a = 0; a < n; a++) {
        size_t i = static_cast<size_t>(f) * n + a;
        for (int k = 0; k < kScores; k++) scores[i * kScores + k] = static_cast<float>(unit());
        double yaw = (unit() - 0.5) * 1.2, pitch = (unit() - 0.5) * 0.8, roll = (unit() - 0.5) * 0.5;
        double q[4] = {std::sin(pitch / 2), std::sin(yaw / 2), std::sin(roll / 2), std::cos(yaw / 2)};
        double nq = std::sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]);
        for (int k = 0; k < 4; k++) rot[i * 4 + k] = static_cast<float>(q[k] / nq);
        presence[i] = unit() < 0.9 ? 0.95f : 0.1f;
      }
  }
};

Bank &TheBank(uint32_t n) {
  static Bank b;
  if (b.n != n) b.Make(n);
  return b;
}

// ---- the per-object way ----
struct Entry {
  int source, param;
  float gain, offset;
};
struct Avatar {
  float scores[kScores];
  float rot[4];
  float presence, control;
  float filt[3][3]; // yaw, pitch, roll: filtered, derivative, last raw
  int has_sample;
  float params[kP];
};

struct PerObject {
  std::vector<Entry> entries; // grouped by parameter, as the mapping gives them
  std::vector<Avatar> avatars;
  crowd_face_desc desc;
  void Make(uint32_t n) {
    desc = FaceDesc();
    const crowd_face_mapping_desc *m = desc.mapping;
    for (uint32_t p = 0; p < kP; p++)
      for (uint32_t k = 0; k < desc.mapping_count; k++)
        if (std::strcmp(m[k].id, kParams[p].id) == 0) entries.push_back({m[k].source, static_cast<int>(p), m[k].gain, m[k].offset});
    avatars.assign(n, Avatar{});
    for (auto &a : avatars) {
      a.rot[3] = 1;
      for (uint32_t p = 0; p < kP; p++) a.params[p] = kParams[p].default_value;
    }
  }
  float OneEuro(float *f, float x, int first, float dt) {
    if (first) {
      f[0] = x, f[1] = 0, f[2] = x;
      return x;
    }
    float ad = 1.0f / (1.0f + (1.0f / (6.2831855f * desc.d_cutoff)) / dt);
    float dx = (x - f[2]) / dt;
    float edx = ad * dx + (1 - ad) * f[1];
    float cutoff = desc.min_cutoff + desc.beta * std::fabs(edx);
    float c = 6.2831855f * dt * cutoff, a = c / (c + 1);
    float xf = a * x + (1 - a) * f[0];
    f[0] = xf, f[1] = edx, f[2] = x;
    return xf;
  }
  void Tick(float dt) {
    const float k = std::exp2f(-(dt / desc.handoff_half_life));
    for (auto &a : avatars) {
      float goal = a.presence > desc.presence_threshold ? 1.0f : 0.0f;
      a.control = goal + (a.control - goal) * k;
      if (std::fabs(a.control - goal) < 0x1p-10f) a.control = goal;
      const float x = a.rot[0], y = a.rot[1], z = a.rot[2], w = a.rot[3];
      float r02 = 2 * (x * z + w * y), r22 = 1 - 2 * (x * x + y * y), r12 = 2 * (y * z - w * x);
      float r10 = 2 * (x * y + w * z), r11 = 1 - 2 * (x * x + z * z), r00 = 1 - 2 * (y * y + z * z), r20 = 2 * (x * z - w * y);
      float c = std::sqrt(r02 * r02 + r22 * r22);
      float head[3];
      head[1] = std::atan2(-r12, c) * 57.29578f;
      if (c >= 0x1p-10f) {
        head[0] = std::atan2(r02, r22) * 57.29578f;
        head[2] = std::atan2(r10, r11) * 57.29578f;
      } else {
        head[0] = std::atan2(-r20, r00) * 57.29578f;
        head[2] = 0;
      }
      for (int h = 0; h < 3; h++) head[h] = OneEuro(a.filt[h], head[h], !a.has_sample, dt);
      a.has_sample = 1;
      for (uint32_t p = 0; p < kP; p++) a.params[p] = kParams[p].default_value; // out = base
      const float wgt = a.control;
      for (size_t e = 0; e < entries.size();) {
        const int p = entries[e].param;
        float sum = 0;
        bool first = true;
        for (; e < entries.size() && entries[e].param == p; e++) {
          const Entry &en = entries[e];
          float s = en.source >= kScores ? head[en.source - kScores] : a.scores[en.source];
          float v = en.offset + en.gain * s;
          sum = first ? v : sum + v;
          first = false;
        }
        float out = a.params[p] * (1 - wgt) + sum * wgt; // override
        a.params[p] = std::fmin(kParams[p].max, std::fmax(kParams[p].min, out));
      }
    }
  }
};

// The bank's frame f into each side. The engine's columns are filled as a host would transpose
// the tracker's per-face records: 64 avatars at a time (13 KiB of records, in L1), column by
// column, so every column gets a contiguous run of writes.
void FeedEngine(float *const *scores, float *const *rot, float *presence, const Bank &b, int f) {
  const size_t base = static_cast<size_t>(f) * b.n;
  constexpr uint32_t kBlock = 64;
  for (uint32_t a0 = 0; a0 < b.n; a0 += kBlock) {
    const uint32_t a1 = a0 + kBlock < b.n ? a0 + kBlock : b.n;
    const float *s = &b.scores[(base + a0) * kScores], *r = &b.rot[(base + a0) * 4];
#if defined(__SSE2__)
    if (a1 - a0 == kBlock) { // 4 avatars x 4 scores at a time: one 4x4 transpose each
      for (uint32_t a = 0; a < kBlock; a += 4)
        for (int k = 0; k < kScores; k += 4) {
          __m128 r0 = _mm_loadu_ps(s + (a + 0) * kScores + k), r1 = _mm_loadu_ps(s + (a + 1) * kScores + k);
          __m128 r2 = _mm_loadu_ps(s + (a + 2) * kScores + k), r3 = _mm_loadu_ps(s + (a + 3) * kScores + k);
          _MM_TRANSPOSE4_PS(r0, r1, r2, r3);
          _mm_storeu_ps(scores[k] + a0 + a, r0);
          _mm_storeu_ps(scores[k + 1] + a0 + a, r1);
          _mm_storeu_ps(scores[k + 2] + a0 + a, r2);
          _mm_storeu_ps(scores[k + 3] + a0 + a, r3);
        }
    } else
#endif
      for (int k = 0; k < kScores; k++) {
        float *col = scores[k];
        for (uint32_t a = a0; a < a1; a++) col[a] = s[(a - a0) * kScores + k];
      }
    for (int k = 0; k < 4; k++) {
      float *col = rot[k];
      for (uint32_t a = a0; a < a1; a++) col[a] = r[(a - a0) * 4 + k];
    }
    std::memcpy(presence + a0, &b.presence[base + a0], sizeof(float) * (a1 - a0));
  }
}

void FeedPerObject(PerObject &po, const Bank &b, int f) {
  const size_t base = static_cast<size_t>(f) * b.n;
  for (uint32_t a = 0; a < b.n; a++) {
    Avatar &av = po.avatars[a];
    std::memcpy(av.scores, &b.scores[(base + a) * kScores], sizeof av.scores);
    std::memcpy(av.rot, &b.rot[(base + a) * 4], sizeof av.rot);
    av.presence = b.presence[base + a];
  }
}

struct EngineSide {
  crowd_engine *e = nullptr;
  crowd_rig rig{};
  float *scores[kScores], *rot[4], *presence = nullptr, *out[kP];
  std::string Make(crowd_simd simd, uint32_t n) {
    crowd_engine_desc ed{};
    ed.simd = simd;
    if (crowd_engine_create(&ed, &e) != CROWD_OK) return "cannot create the engine";
    crowd_face_desc face = FaceDesc();
    crowd_rig_desc rd{};
    rd.name = "face", rd.parameters = kParams, rd.parameter_count = kP, rd.face = &face;
    crowd_add_desc add{};
    if (crowd_rig_create(e, &rd, &rig) != CROWD_OK) return crowd_last_error(e);
    add.rig = rig, add.count = n;
    if (crowd_instances_add(e, &add, nullptr) != CROWD_OK) return crowd_last_error(e);
    uint32_t count;
    crowd_rig_columns(e, rig, CROWD_FIELD_FACE_SCORES, 0, scores, &count);
    crowd_rig_columns(e, rig, CROWD_FIELD_FACE_ROTATION, 0, rot, &count);
    crowd_rig_column(e, rig, CROWD_FIELD_FACE_PRESENCE, 0, 0, &presence, &count);
    for (uint32_t p = 0; p < kP; p++) crowd_rig_column(e, rig, CROWD_FIELD_OUTPUT, p, 0, &out[p], &count);
    return "";
  }
  ~EngineSide() { crowd_engine_destroy(e); }
};

// The per-object outputs agree with the engine's (to float rounding: libm atan2f against the
// engine's own) over a few frames.
std::string Verify(uint32_t n) {
  const Bank &b = TheBank(n);
  EngineSide es;
  std::string err = es.Make(CROWD_SIMD_SCALAR, n);
  if (!err.empty()) return err;
  PerObject po;
  po.Make(n);
  for (int f = 0; f < 8; f++) {
    FeedEngine(es.scores, es.rot, es.presence, b, f);
    FeedPerObject(po, b, f);
    crowd_tick(es.e, kDt);
    po.Tick(kDt);
  }
  for (uint32_t a = 0; a < n; a++)
    for (uint32_t p = 0; p < kP; p++)
      if (std::fabs(es.out[p][a] - po.avatars[a].params[p]) > 1e-3f * (1 + std::fabs(po.avatars[a].params[p])))
        return "per-object avatar " + std::to_string(a) + " parameter " + kParams[p].id + " disagrees with the engine";
  return "";
}

crowd_simd Best() {
  crowd_simd best = CROWD_SIMD_SCALAR;
  for (int t = CROWD_SIMD_SCALAR; t < CROWD_SIMD_COUNT; t++)
    if (crowd_simd_supported(static_cast<crowd_simd>(t))) best = static_cast<crowd_simd>(t);
  return best;
}

void BM_FaceEngine(benchmark::State &state) {
  const uint32_t n = static_cast<uint32_t>(state.range(0));
  const crowd_simd simd = state.range(1) ? Best() : CROWD_SIMD_SCALAR;
  const Bank &b = TheBank(n);
  EngineSide es;
  std::string err = es.Make(simd, n);
  if (!err.empty()) {
    state.SkipWithError(err.c_str());
    return;
  }
  int f = 0;
  const bool feed = state.range(2) != 0;
  for (auto _ : state) {
    if (feed) FeedEngine(es.scores, es.rot, es.presence, b, f);
    crowd_tick(es.e, kDt);
    f = (f + 1) % kBank;
  }
  size_t bytes = 0;
  crowd_rig_bytes_per_instance(es.e, es.rig, &bytes);
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * n);
  state.counters["bytes_per_inst"] = static_cast<double>(bytes);
  state.SetLabel(std::string("engine/") + crowd_simd_name(simd) + (feed ? "" : "/tick only"));
}

void BM_FacePerObject(benchmark::State &state) {
  const uint32_t n = static_cast<uint32_t>(state.range(0));
  std::string bad = Verify(n < 4096 ? n : 4096);
  if (!bad.empty()) {
    state.SkipWithError(bad.c_str());
    return;
  }
  const Bank &b = TheBank(n);
  PerObject po;
  po.Make(n);
  int f = 0;
  const bool feed = state.range(1) != 0;
  if (!feed) FeedPerObject(po, b, 0);
  for (auto _ : state) {
    if (feed) FeedPerObject(po, b, f);
    po.Tick(kDt);
    benchmark::DoNotOptimize(po.avatars.data());
    f = (f + 1) % kBank;
  }
  state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * n);
  state.counters["bytes_per_inst"] = static_cast<double>(sizeof(Avatar));
  state.SetLabel(feed ? "per_object" : "per_object/tick only");
}

} // namespace

// args: instances, best target (1) or scalar (0), fresh tracker input each frame (1) or not
BENCHMARK(BM_FaceEngine)->ArgsProduct({{10000, 100000}, {1}, {1}})->Args({10000, 0, 1})->Args({10000, 1, 0})->Unit(benchmark::kMicrosecond);
// args: instances, fresh tracker input each frame (1) or not
BENCHMARK(BM_FacePerObject)->Args({10000, 1})->Args({100000, 1})->Args({10000, 0})->Unit(benchmark::kMicrosecond);
