// The per-object Cubism physics (bench/physics_reference.h), the yardstick of the physics
// controller (issue 26): Hiyori's .physics3.json (11 sub-rigs, 47 swinging particles, 35
// outputs) read by the tools' reader, one object per avatar, stepped avatar after avatar at
// dt 1/60 on one thread as a Cubism user's code runs CubismPhysics.evaluate. Counted: model-
// steps per second (items). Two versions: double (the framework's numbers) and float32 (the
// SIMD kernel's math at one lane). Each frame every avatar first gets the trace's inputs (a
// sine per input with a per-avatar phase) and its outputs back at their defaults, as
// loadParameters does. Needs ../shared/data/cubism (skipped without it).
//
// BM_physics_engine: the same avatars as instances of one rig of the engine (the physics
// controller, order 800), the same inputs written into their base columns (zero-copy), one
// crowd_tick(1/60) per frame on one thread, on the target CROWD_SIMD names (the widest the CPU
// has otherwise). Counters: model-steps per second (items) and the rig's bytes per instance
// (crowd_rig_bytes_per_instance: every column, parameters included) and the physics state's.
// The inputs of every version come from one table of the sines (600 frames, an avatar's own
// offset into it), so that what is timed is the physics, not the sines.
#include <benchmark/benchmark.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <vector>

#include <jansson.h>

extern "C" {
#include "physics3.h"
#include "physics_reference.h"
}

namespace {

struct Model {
    bool ok = false;
    physics3 rig{};
    std::vector<std::string> ids;
    std::vector<const char *> id_ptrs;
    std::vector<float> minimum, maximum, defaults;
    std::vector<uint32_t> inputs; // parameter indices read as inputs
    std::vector<float> table;     // [frame][input], kTableFrames frames
};

constexpr uint32_t kTableFrames = 600;

float input_at(const Model &m, uint32_t frame, uint32_t avatar, size_t i) {
    return m.table[((frame + avatar * 7u) % kTableFrames) * m.inputs.size() + i];
}

const Model &hiyori() {
    static Model m;
    static bool loaded = false;
    if (loaded) return m;
    loaded = true;
    const char *data = CROWD_SHARED_DATA "/cubism";
    std::string p3 = std::string(data) + "/inputs/Hiyori/Hiyori.physics3.json";
    std::string golden = std::string(data) + "/physics/physics_Hiyori_60fps.json";
    json_error_t err;
    json_t *g = json_load_file(golden.c_str(), 0, &err); // the parameter table (ids, ranges)
    if (!g || physics3_read(p3.c_str(), &m.rig) != 0) return m;
    json_t *params = json_object_get(g, "parameters");
    for (size_t i = 0; i < json_array_size(params); i++) {
        json_t *p = json_array_get(params, i);
        m.ids.emplace_back(json_string_value(json_object_get(p, "id")));
        m.minimum.push_back(static_cast<float>(json_number_value(json_object_get(p, "min"))));
        m.maximum.push_back(static_cast<float>(json_number_value(json_object_get(p, "max"))));
        m.defaults.push_back(static_cast<float>(json_number_value(json_object_get(p, "default"))));
    }
    for (auto &s : m.ids) m.id_ptrs.push_back(s.c_str());
    json_t *in = json_object_get(g, "inputIds");
    for (size_t i = 0; i < json_array_size(in); i++)
        for (size_t j = 0; j < m.ids.size(); j++)
            if (m.ids[j] == json_string_value(json_array_get(in, i))) m.inputs.push_back(static_cast<uint32_t>(j));
    json_decref(g);
    for (uint32_t f = 0; f < kTableFrames; f++)
        for (size_t i = 0; i < m.inputs.size(); i++)
            m.table.push_back(static_cast<float>(20.0 * std::sin(2.0 * 3.14159265 * (0.3 + 0.1 * i) * f / 60.0)));
    m.ok = true;
    return m;
}

template <typename Obj, Obj *(*Create)(const crowd_physics_desc *, uint32_t, const char *const *, const float *, const float *),
          void (*Destroy)(Obj *), typename Dt, void (*Evaluate)(Obj *, float *, Dt)>
void run(benchmark::State &state) {
    const Model &m = hiyori();
    if (!m.ok) {
        state.SkipWithError("no ../shared/data/cubism (Hiyori's physics3 and trace)");
        return;
    }
    const uint32_t count = static_cast<uint32_t>(state.range(0));
    const uint32_t np = static_cast<uint32_t>(m.ids.size());
    std::vector<Obj *> objs(count);
    std::vector<float> values(static_cast<size_t>(count) * np);
    for (auto &o : objs) o = Create(&m.rig.desc, np, m.id_ptrs.data(), m.minimum.data(), m.maximum.data());
    uint32_t frame = 0;
    for (auto _ : state) {
        frame++;
        for (uint32_t a = 0; a < count; a++) {
            float *v = &values[static_cast<size_t>(a) * np];
            std::memcpy(v, m.defaults.data(), np * sizeof(float));
            for (size_t i = 0; i < m.inputs.size(); i++) v[m.inputs[i]] = input_at(m, frame, a, i);
            Evaluate(objs[a], v, static_cast<Dt>(1.0 / 60.0));
        }
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * count);
    state.counters["bytes_per_instance_kernel_state"] = static_cast<double>(physics_f32_state_bytes(&m.rig.desc));
    for (auto *o : objs) Destroy(o);
}

void BM_physics_per_object_double(benchmark::State &state) {
    run<physics_ref, physics_ref_create, physics_ref_destroy, double, physics_ref_evaluate>(state);
}
void BM_physics_per_object_float(benchmark::State &state) {
    run<physics_f32, physics_f32_create, physics_f32_destroy, float, physics_f32_evaluate>(state);
}

void BM_physics_engine(benchmark::State &state) {
    const Model &m = hiyori();
    if (!m.ok) {
        state.SkipWithError("no ../shared/data/cubism (Hiyori's physics3 and trace)");
        return;
    }
    const uint32_t count = static_cast<uint32_t>(state.range(0));
    const uint32_t np = static_cast<uint32_t>(m.ids.size());
    crowd_engine_desc ed = crowd_engine_defaults();
    crowd_engine *e = nullptr;
    if (crowd_engine_create(&ed, &e) != CROWD_OK) {
        state.SkipWithError("crowd_engine_create failed");
        return;
    }
    std::vector<crowd_parameter_desc> params(np);
    for (uint32_t i = 0; i < np; i++) {
        params[i] = crowd_parameter_defaults(m.id_ptrs[i]);
        params[i].min = m.minimum[i], params[i].max = m.maximum[i], params[i].default_value = m.defaults[i];
    }
    crowd_rig_desc rd = crowd_rig_defaults();
    rd.name = "Hiyori", rd.parameters = params.data(), rd.parameter_count = np, rd.physics = &m.rig.desc;
    crowd_rig rig;
    crowd_result res = crowd_rig_create(e, &rd, &rig);
    crowd_add_desc add = crowd_add_defaults(rig, count);
    if (res == CROWD_OK) res = crowd_instances_add(e, &add, nullptr);
    if (res != CROWD_OK) {
        state.SkipWithError(crowd_last_error(e));
        crowd_engine_destroy(e);
        return;
    }
    // the base columns of the inputs (rows are the avatars in order: none was removed or paused)
    std::vector<float *> base(m.inputs.size());
    for (size_t i = 0; i < m.inputs.size(); i++) {
        uint32_t rows;
        crowd_rig_column(e, rig, CROWD_FIELD_BASE, m.inputs[i], 0, &base[i], &rows);
    }
    uint32_t frame = 0;
    for (auto _ : state) {
        frame++;
        for (size_t i = 0; i < m.inputs.size(); i++)
            for (uint32_t a = 0; a < count; a++) base[i][a] = input_at(m, frame, a, i);
        crowd_tick(e, 1.0f / 60.0f);
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * count);
    size_t bytes = 0;
    crowd_rig_bytes_per_instance(e, rig, &bytes);
    state.counters["bytes_per_instance_rig"] = static_cast<double>(bytes);
    state.counters["bytes_per_instance_kernel_state"] = static_cast<double>(physics_f32_state_bytes(&m.rig.desc));
    state.SetLabel(crowd_simd_name(crowd_simd_target(e)));
    crowd_engine_destroy(e);
}

} // namespace

BENCHMARK(BM_physics_per_object_double)->Arg(10000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_physics_per_object_float)->Arg(10000)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_physics_engine)->Arg(10000)->Unit(benchmark::kMillisecond);
