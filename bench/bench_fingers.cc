// bench_fingers: finger bones from hand landmarks (crowd.h section 9a) against the per-object way.
//
// Each iteration is one tick of every instance: per hand 21 landmarks and a presence (a bank of
// noisy relaxed hands, written once; the solve is branch-free across lanes, and a joint limit's
// turn is worked out only in blocks where some lane exceeds one, which this bank's noise makes
// nearly every block), 16 bones solved (the hand and 15 finger bones, within the default joint
// limits), world and local stored.
//   engine/<target>/N       a fingers rig (both hands tracked, presence threshold 0.5), one
//                           crowd_tick on one thread; counter hands/s = 2 N per tick
//   body/<target>/N         limbs (15 bones from 33 landmarks) and fingers on the same rig, the
//                           hands hanging from the lower arms; counter avatars/s
//   per_object/N            one record per hand (landmarks, presence, progress, 16 world and local
//                           rotations), solved hand by hand as a tracking tool's loop does: the same
//                           formulas in float32 with libm sqrtf, LookRotation by Shepperd's method,
//                           the joint limits by the same products, a bone turned only when beyond
//                           a limit, -O3; checked against the engine before timing
// Counters: hands_per_s or avatars_per_s, bytes_per_inst (crowd_rig_bytes_per_instance, or the
// record's size times two hands).
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "crowd.h"

namespace {

constexpr float kDt = 1.0f / 30.0f;

// Landmarks for avatar a, hand h: the relaxed rest hand scaled and noised (mediapipe_world).
void MakeHand(uint32_t a, int h, float out[CROWD_HAND_FLOATS]) {
  crowd_rest_hand_landmarks(CROWD_FRAME_MEDIAPIPE_WORLD, h ? CROWD_HAND_RIGHT : CROWD_HAND_LEFT, out);
  uint64_t s = 0x9e3779b97f4a7c15ull * (2ull * a + static_cast<uint64_t>(h) + 1);
  for (int k = 0; k < 3 * CROWD_HAND_LANDMARK_COUNT; k++) {
    s = s * 6364136223846793005ull + 1442695040888963407ull;
    out[k] += static_cast<float>((static_cast<double>(s >> 11) * 0x1p-53 - 0.5) * 0.02);
  }
  out[3 * CROWD_HAND_LANDMARK_COUNT] = 0.95f;
}

struct Engine {
  crowd_engine *e = nullptr;
  crowd_rig rig{};
  std::vector<crowd_instance> h;
  size_t bytes = 0;
  bool Make(crowd_simd simd, uint32_t n, bool body) {
    crowd_engine_desc ed = crowd_engine_defaults();
    ed.simd = simd;
    ed.threads = 1;
    if (crowd_engine_create(&ed, &e) != CROWD_OK) return false;
    crowd_fingers_desc fd = crowd_fingers_defaults();
    crowd_limbs_desc ld = crowd_limbs_defaults();
    crowd_rig_desc rd = crowd_rig_defaults();
    rd.name = "hands";
    rd.fingers = &fd;
    if (body) rd.limbs = &ld;
    if (crowd_rig_create(e, &rd, &rig) != CROWD_OK) return false;
    h.resize(n);
    crowd_add_desc ad = crowd_add_defaults(rig, n);
    if (crowd_instances_add(e, &ad, h.data()) != CROWD_OK) return false;
    std::vector<float> v(static_cast<size_t>(n) * CROWD_HAND_FLOATS);
    for (int hand = 0; hand < 2; hand++) {
      for (uint32_t a = 0; a < n; a++) MakeHand(a, hand, &v[static_cast<size_t>(a) * CROWD_HAND_FLOATS]);
      if (crowd_instances_set(e, CROWD_FIELD_HAND_LANDMARKS, static_cast<uint32_t>(hand), h.data(), n, v.data()) != CROWD_OK)
        return false;
    }
    if (body) {
      std::vector<float> pose(static_cast<size_t>(n) * 4 * CROWD_LANDMARK_COUNT);
      for (uint32_t a = 0; a < n; a++) crowd_rest_landmarks(CROWD_FRAME_MEDIAPIPE_WORLD, &pose[static_cast<size_t>(a) * 4 * CROWD_LANDMARK_COUNT]);
      if (crowd_instances_set(e, CROWD_FIELD_POSE, 0, h.data(), n, pose.data()) != CROWD_OK) return false;
    }
    return crowd_rig_bytes_per_instance(e, rig, &bytes) == CROWD_OK;
  }
  ~Engine() {
    if (e) crowd_engine_destroy(e);
  }
};

// ---- the per-object way ----
struct Quat {
  float x, y, z, w;
};
struct V3 {
  float x, y, z;
};
inline V3 Sub(V3 a, V3 b) { return {a.x - b.x, a.y - b.y, a.z - b.z}; }
inline V3 Cross(V3 l, V3 r) { return {l.y * r.z - l.z * r.y, l.z * r.x - l.x * r.z, l.x * r.y - l.y * r.x}; }
inline float Dot(V3 a, V3 b) { return a.x * b.x + a.y * b.y + a.z * b.z; }
inline V3 Norm(V3 a) {
  float l = std::sqrt(Dot(a, a));
  return l > 1e-5f ? V3{a.x / l, a.y / l, a.z / l} : V3{0, 0, 0};
}
inline Quat Mul(Quat a, Quat b) {
  return {a.w * b.x + a.x * b.w + a.y * b.z - a.z * b.y, a.w * b.y - a.x * b.z + a.y * b.w + a.z * b.x,
          a.w * b.z + a.x * b.y - a.y * b.x + a.z * b.w, a.w * b.w - a.x * b.x - a.y * b.y - a.z * b.z};
}
inline Quat Canon(Quat q) {
  float n = std::sqrt(q.x * q.x + q.y * q.y + q.z * q.z + q.w * q.w);
  if (q.w < 0) n = -n;
  return {q.x / n, q.y / n, q.z / n, q.w / n};
}
Quat Look(V3 f, V3 up) {
  V3 z = Norm(f);
  if (Dot(z, z) < 0.25f) return {0, 0, 0, 1};
  V3 x = Norm(Cross(up, z));
  if (Dot(x, x) < 0.25f) return Canon({-z.y, z.x, 0, 1 + z.z});
  V3 y = Cross(z, x);
  float t = x.x + y.y + z.z;
  Quat q;
  if (t > 0) q = {y.z - z.y, z.x - x.z, x.y - y.x, 1 + t};
  else if (x.x > y.y && x.x > z.z) q = {1 + x.x - y.y - z.z, y.x + x.y, z.x + x.z, y.z - z.y};
  else if (y.y > z.z) q = {y.x + x.y, 1 + y.y - x.x - z.z, z.y + y.z, z.x - x.z};
  else q = {z.x + x.z, z.y + y.z, 1 + z.z - x.x - y.y, x.y - y.x};
  return Canon(q);
}
// d turned about the unit axis h by the angle whose cos and sin are c, s
inline V3 Turn(V3 h, float c, float s, V3 d) {
  V3 x = Cross(h, d);
  float k = Dot(h, d) * (1 - c);
  return {d.x * c + x.x * s + h.x * k, d.y * c + x.y * s + h.y * k, d.z * c + x.z * s + h.z * k};
}
// The joint limits (crowd.h section 9a), MCP, PIP, DIP: cos and sin of each limit, cos of the
// zone each holds (180 - (max - min)), cos and sin of the far side's mirror (min + max - 180).
struct Limits {
  float cs[3][7];
  Limits() {
    crowd_fingers_desc d = crowd_fingers_defaults();
    const double deg[3][2] = {{d.mcp_min, d.mcp_max}, {d.pip_min, d.pip_max}, {d.dip_min, d.dip_max}};
    const double r = 3.14159265358979323846 / 180;
    for (int j = 0; j < 3; j++) {
      const double lo = deg[j][0], hi = deg[j][1];
      const double v[7] = {std::cos(lo * r), std::sin(lo * r), std::cos(hi * r), std::sin(hi * r), std::cos((180 - (hi - lo)) * r),
                           std::cos((lo + hi - 180) * r), std::sin((lo + hi - 180) * r)};
      for (int k = 0; k < 7; k++) cs[j][k] = static_cast<float>(v[k]);
    }
  }
};
const Limits kLimits;
const int kParent[16] = {-1, 0, 1, 2, 0, 4, 5, 0, 7, 8, 0, 10, 11, 0, 13, 14};
const int kFrom[16] = {0, 1, 2, 3, 5, 6, 7, 9, 10, 11, 13, 14, 15, 17, 18, 19};

struct HandObject {
  float lm[CROWD_HAND_FLOATS];
  float progress;
  Quat world[16], local[16];
  void Solve(float sin_min, float sin_range, bool right) {
    V3 p[21];
    for (int k = 0; k < 21; k++) p[k] = {lm[3 * k], -lm[3 * k + 1], lm[3 * k + 2]};
    V3 a = Sub(p[17], p[5]);
    V3 mid = {(p[5].x + p[17].x) * 0.5f, (p[5].y + p[17].y) * 0.5f, (p[5].z + p[17].z) * 0.5f};
    V3 f = Norm(Sub(mid, p[0]));
    V3 d[16];
    d[0] = f;
    for (int b = 1; b < 16; b++) d[b] = Norm(Sub(p[kFrom[b] + 1], p[kFrom[b]]));
    // each finger joint's flexion about the palm's side axis within its limits: a bone beyond
    // one turns to it, the bones after it with it
    V3 h = Norm(a);
    if (!right) h = {-h.x, -h.y, -h.z};
    for (int fg = 0; fg < 4 && Dot(h, h) > 0.5f; fg++) {
      V3 parent = f;
      float tc = 1, ts = 0;
      bool turned = false;
      for (int j = 0; j < 3; j++) {
        V3 &b = d[4 + 3 * fg + j];
        if (turned) b = Turn(h, tc, ts, b);
        const float *lim = kLimits.cs[j];
        float x = Dot(parent, b) - Dot(parent, h) * Dot(b, h), y = Dot(h, Cross(parent, b));
        bool below = lim[0] * y - lim[1] * x < 0, above = lim[3] * x - lim[2] * y < 0;
        if ((below || above) && x * x + y * y > 1e-6f) {
          float inv = 1 / std::sqrt(x * x + y * y), wc = x * inv, ws = y * inv;
          float lc = lim[5] * wc + lim[6] * ws, ls = lim[6] * wc - lim[5] * ws; // the mirror
          if (below && wc * lim[0] + ws * lim[1] >= lim[4]) lc = lim[0], ls = lim[1];
          else if (above && wc * lim[2] + ws * lim[3] >= lim[4]) lc = lim[2], ls = lim[3];
          float c1 = wc * lc + ws * ls, s1 = wc * ls - ws * lc;
          b = Turn(h, c1, s1, b);
          float c2 = tc * c1 - ts * s1, s2 = ts * c1 + tc * s1;
          tc = c2, ts = s2, turned = true;
        }
        parent = b;
      }
    }
    V3 ref = Norm(Cross(f, a)), c = Cross(d[1], d[3]);
    float bl = std::sqrt(Dot(c, c)), u = (bl - sin_min) / sin_range;
    u = Dot(c, ref) < 0 ? 0 : u < 0 ? 0 : u > 1 ? 1 : u;
    V3 thumb = ref;
    if (u > 0) thumb = Norm({c.x * (u / bl) + ref.x * (1 - u), c.y * (u / bl) + ref.y * (1 - u), c.z * (u / bl) + ref.z * (1 - u)});
    const Quat fix = {0.70710677f, 0, 0, 0.70710677f};
    for (int b = 0; b < 16; b++) {
      V3 side = b >= 1 && b <= 3 ? thumb : a;
      Quat q = Look(d[b], Cross(d[b], side));
      world[b] = b == 0 ? q : Canon(Mul(q, fix));
      Quat parent = kParent[b] < 0 ? Quat{0, 0, 0, 1} : world[kParent[b]];
      Quat l = Mul({-parent.x, -parent.y, -parent.z, parent.w}, world[b]);
      local[b] = l.w < 0 ? Quat{-l.x, -l.y, -l.z, -l.w} : l;
    }
    progress = lm[63] >= 0.5f ? 1.0f : -1.0f;
  }
};

std::vector<HandObject> &Objects(uint32_t n) {
  static std::vector<HandObject> v;
  if (v.size() != 2ull * n) {
    v.assign(2ull * n, HandObject{});
    for (uint32_t a = 0; a < n; a++)
      for (int h = 0; h < 2; h++) MakeHand(a, h, v[2ull * a + static_cast<size_t>(h)].lm);
  }
  return v;
}

// The per-object solve agrees with the engine (to float rounding) on the first avatars.
bool Agrees(uint32_t n) {
  Engine en;
  if (!en.Make(CROWD_SIMD_SCALAR, n, false) || crowd_tick(en.e, kDt) != CROWD_OK) return false;
  auto &obj = Objects(n);
  const float smin = std::sin(10.0 * 3.14159265358979323846 / 180), srange = std::sin(45.0 * 3.14159265358979323846 / 180) - smin;
  for (uint32_t a = 0; a < 64 && a < n; a++)
    for (int h = 0; h < 2; h++) {
      HandObject &o = obj[2ull * a + static_cast<size_t>(h)];
      o.Solve(smin, srange, h == 1);
      for (int b = 0; b < 16; b++) {
        float w[4];
        crowd_get(en.e, en.h[a], CROWD_FIELD_FINGER_WORLD, static_cast<uint32_t>(16 * h + b), w);
        float dot = std::fabs(w[0] * o.world[b].x + w[1] * o.world[b].y + w[2] * o.world[b].z + w[3] * o.world[b].w);
        if (dot < 1 - 1e-5f) {
          std::fprintf(stderr, "per_object disagrees with the engine: avatar %u hand %d bone %d (dot %g)\n", a, h, b, dot);
          return false;
        }
      }
    }
  return true;
}

void BM_Engine(benchmark::State &state, crowd_simd simd, bool body) {
  const uint32_t n = static_cast<uint32_t>(state.range(0));
  Engine en;
  if (!en.Make(simd, n, body)) {
    state.SkipWithError("target not available");
    return;
  }
  for (auto _ : state) {
    crowd_tick(en.e, kDt);
    benchmark::ClobberMemory();
  }
  if (body)
    state.counters["avatars_per_s"] = benchmark::Counter(static_cast<double>(n), benchmark::Counter::kIsIterationInvariantRate);
  else
    state.counters["hands_per_s"] = benchmark::Counter(2.0 * n, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["bytes_per_inst"] = static_cast<double>(en.bytes);
}

void BM_PerObject(benchmark::State &state) {
  const uint32_t n = static_cast<uint32_t>(state.range(0));
  if (!Agrees(n)) {
    state.SkipWithError("the per-object solve disagrees with the engine");
    return;
  }
  auto &obj = Objects(n);
  const float smin = std::sin(10.0 * 3.14159265358979323846 / 180), srange = std::sin(45.0 * 3.14159265358979323846 / 180) - smin;
  for (auto _ : state) {
    for (size_t k = 0; k < obj.size(); k++) obj[k].Solve(smin, srange, k % 2 == 1);
    benchmark::ClobberMemory();
  }
  state.counters["hands_per_s"] = benchmark::Counter(2.0 * n, benchmark::Counter::kIsIterationInvariantRate);
  state.counters["bytes_per_inst"] = 2.0 * sizeof(HandObject);
}

const struct {
  const char *name;
  crowd_simd simd;
} kTargets[] = {{"scalar", CROWD_SIMD_SCALAR}, {"sse2", CROWD_SIMD_SSE2}, {"avx2", CROWD_SIMD_AVX2}, {"avx512", CROWD_SIMD_AVX512}};

int Register() {
  for (const auto &t : kTargets) {
    benchmark::RegisterBenchmark((std::string("engine/") + t.name).c_str(), BM_Engine, t.simd, false)
        ->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);
    benchmark::RegisterBenchmark((std::string("body/") + t.name).c_str(), BM_Engine, t.simd, true)
        ->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);
  }
  benchmark::RegisterBenchmark("per_object", BM_PerObject)->Arg(10000)->Arg(100000)->Unit(benchmark::kMillisecond);
  return 0;
}
const int kRegistered = Register();

} // namespace
