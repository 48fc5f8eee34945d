// The per-object Cubism reference (bench/cubism_reference.c) playing idle motions, the way a
// Cubism app plays its models one after another: N avatars, half Haru and half Hiyori (their
// model3.json's Idle groups, read with tools/cubism_files.c from ../shared/data/cubism), each
// with its own model record, motion manager and bound motion, looping one idle motion picked at
// random and started at a random time. One iteration = one frame (load, updateMotion at 1/60 s,
// save) of every avatar, one thread. Counters: avatars/s (items), curve evaluations/s, bytes of
// per-avatar state. Skipped when the traces' inputs are absent.
//
// BM_cubism_engine_idle: the same avatars in the engine's motion controller (crowd.h section
// 12): one rig per model with its Idle group as the library, every instance looping one idle
// clip picked at random from a random time, crowd_tick_exact(1/60) on one thread. Bytes per
// instance: the rig's columns (crowd_rig_bytes_per_instance); the clips are stored once per rig.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include <jansson.h>

extern "C" {
#include "crowd.h"
#include "cubism_files.h"
#include "cubism_reference.h"
}

namespace {

struct Rig {
    cubism_model3 m3{};
    json_t *cdi = nullptr;
    std::vector<const char *> ids, part_ids;
    std::vector<float> minimum, maximum, defaults;
    std::vector<cubism_motion> idles;
};

struct Avatar {
    cubism_ref_model *model = nullptr;
    cubism_ref_motion *motion = nullptr;
    cubism_ref_motion_manager manager{};
    uint32_t curves = 0;
};

std::string inputs() { return std::string(CROWD_SHARED_DATA) + "/cubism/inputs/"; }

bool load_rig(Rig &rig, const char *name) {
    std::string dir = inputs() + name + "/";
    if (cubism_model3_read((dir + name + ".model3.json").c_str(), &rig.m3) != 0) return false;
    rig.cdi = json_load_file((dir + name + ".cdi3.json").c_str(), 0, nullptr);
    if (!rig.cdi) return false;
    json_t *params = json_object_get(rig.cdi, "Parameters"), *parts = json_object_get(rig.cdi, "Parts");
    for (size_t i = 0; i < json_array_size(params); i++) {
        const char *id = json_string_value(json_object_get(json_array_get(params, i), "Id"));
        rig.ids.push_back(id);
        std::string s(id);
        bool angle = s.find("Angle") != std::string::npos;
        rig.minimum.push_back(angle ? -30.0f : -10.0f);
        rig.maximum.push_back(angle ? 30.0f : 10.0f);
        rig.defaults.push_back(s.find("Open") != std::string::npos ? 1.0f : 0.0f);
    }
    for (size_t i = 0; i < json_array_size(parts); i++)
        rig.part_ids.push_back(json_string_value(json_object_get(json_array_get(parts, i), "Id")));
    for (uint32_t g = 0; g < rig.m3.motion_group_count; g++) {
        if (std::string(rig.m3.motion_groups[g].name) != "Idle") continue;
        for (uint32_t k = 0; k < rig.m3.motion_groups[g].motion_count; k++) {
            cubism_motion m{};
            if (cubism_motion_read((dir + rig.m3.motion_groups[g].motions[k].file).c_str(), &m) != 0) return false;
            rig.idles.push_back(m);
        }
    }
    return !rig.idles.empty();
}

void free_rig(Rig &rig) {
    for (auto &m : rig.idles) cubism_motion_free(&m);
    cubism_model3_free(&rig.m3);
    json_decref(rig.cdi);
}

void BM_cubism_reference_idle(benchmark::State &state) {
    const uint32_t count = static_cast<uint32_t>(state.range(0));
    Rig rigs[2];
    if (!load_rig(rigs[0], "Haru") || !load_rig(rigs[1], "Hiyori")) {
        state.SkipWithError("the Cubism inputs (../shared/data/cubism/inputs) are absent");
        for (auto &r : rigs) free_rig(r);
        return;
    }
    std::vector<Avatar> avatars(count);
    std::mt19937 random(20261202);
    size_t bytes = 0, curves = 0;
    for (uint32_t a = 0; a < count; a++) {
        Rig &rig = rigs[a % 2];
        Avatar &av = avatars[a];
        av.model = cubism_ref_model_create(static_cast<uint32_t>(rig.ids.size()), rig.ids.data(), rig.minimum.data(),
                                           rig.maximum.data(), rig.defaults.data(),
                                           static_cast<uint32_t>(rig.part_ids.size()), rig.part_ids.data());
        const cubism_motion &data = rig.idles[random() % rig.idles.size()];
        av.motion = cubism_ref_motion_create(&data, av.model, -1, -1, rig.m3.eye_blink_ids, rig.m3.eye_blink_count,
                                             rig.m3.lip_sync_ids, rig.m3.lip_sync_count);
        cubism_ref_motion_set_loop(av.motion, true);
        cubism_ref_motion_manager_init(&av.manager);
        cubism_ref_start_motion(&av.manager, av.motion, 1);
        // a random time: the first update jumps into the motion
        double offset = std::uniform_real_distribution<double>(0.0, data.duration)(random);
        cubism_ref_update_motion(&av.manager, av.model, offset);
        cubism_ref_save_parameters(av.model);
        av.curves = data.curve_count;
        curves += data.curve_count;
        bytes += sizeof av.manager + cubism_ref_model_bytes(av.model) + cubism_ref_motion_bytes(av.motion);
    }
    for (auto _ : state) {
        for (Avatar &av : avatars) {
            cubism_ref_load_parameters(av.model);
            cubism_ref_update_motion(&av.manager, av.model, 1.0 / 60.0);
            cubism_ref_save_parameters(av.model);
        }
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * count);
    state.counters["curve_evals/s"] =
        benchmark::Counter(static_cast<double>(curves) * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
    state.counters["bytes/instance"] = static_cast<double>(bytes) / count;
    for (Avatar &av : avatars) {
        cubism_ref_motion_destroy(av.motion);
        cubism_ref_model_destroy(av.model);
    }
    for (auto &r : rigs) free_rig(r);
}

BENCHMARK(BM_cubism_reference_idle)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);

// The engine's form of a rig's Idle clips.
struct EngineClips {
    std::vector<std::vector<crowd_motion_curve>> curves;
    std::vector<std::vector<crowd_motion_point>> points;
    std::vector<std::vector<double>> events;
    std::vector<crowd_motion_clip> clips;
};

void engine_clips(const Rig &rig, EngineClips &out) {
    for (const cubism_motion &m : rig.idles) {
        std::vector<crowd_motion_curve> cv;
        for (uint32_t k = 0; k < m.curve_count; k++)
            cv.push_back({m.curves[k].id, static_cast<crowd_motion_target>(m.curves[k].target), m.curves[k].fade_in,
                          m.curves[k].fade_out, m.curves[k].first_segment, m.curves[k].segment_count});
        std::vector<crowd_motion_point> pt;
        for (uint32_t k = 0; k < m.point_count; k++) pt.push_back({m.points[k].time, m.points[k].value});
        std::vector<double> ev;
        for (uint32_t k = 0; k < m.event_count; k++) ev.push_back(m.events[k].time);
        out.curves.push_back(std::move(cv));
        out.points.push_back(std::move(pt));
        out.events.push_back(std::move(ev));
    }
    for (size_t k = 0; k < rig.idles.size(); k++) {
        const cubism_motion &m = rig.idles[k];
        out.clips.push_back({m.duration, m.fps, m.beziers_restricted, m.fade_in, m.fade_out, m.curve_count,
                             m.segment_count, m.point_count, m.event_count, out.curves[k].data(), m.segment_types,
                             m.segment_points, out.points[k].data(), out.events[k].data()});
    }
}

void BM_cubism_engine_idle(benchmark::State &state) {
    const uint32_t count = static_cast<uint32_t>(state.range(0));
    Rig rigs[2];
    if (!load_rig(rigs[0], "Haru") || !load_rig(rigs[1], "Hiyori")) {
        state.SkipWithError("the Cubism inputs (../shared/data/cubism/inputs) are absent");
        for (auto &r : rigs) free_rig(r);
        return;
    }
    crowd_engine_desc ed = crowd_engine_defaults();
    ed.seed = 20261202;
    crowd_engine *engine = nullptr;
    if (crowd_engine_create(&ed, &engine) != CROWD_OK) {
        state.SkipWithError("crowd_engine_create failed");
        return;
    }
    std::mt19937 random(20261202);
    EngineClips clips[2];
    size_t bytes = 0, curves = 0;
    for (int k = 0; k < 2; k++) {
        Rig &rig = rigs[k];
        engine_clips(rig, clips[k]);
        std::vector<crowd_parameter_desc> params;
        for (size_t i = 0; i < rig.ids.size(); i++) {
            crowd_parameter_desc p = crowd_parameter_defaults(rig.ids[i]);
            p.min = rig.minimum[i], p.max = rig.maximum[i], p.default_value = rig.defaults[i];
            params.push_back(p);
        }
        crowd_motion_desc md = crowd_motion_defaults();
        md.clips = clips[k].clips.data(), md.clip_count = static_cast<uint32_t>(clips[k].clips.size());
        md.eye_blink_ids = rig.m3.eye_blink_ids, md.eye_blink_count = rig.m3.eye_blink_count;
        md.lip_sync_ids = rig.m3.lip_sync_ids, md.lip_sync_count = rig.m3.lip_sync_count;
        crowd_rig_desc rd = crowd_rig_defaults();
        rd.name = k ? "Hiyori" : "Haru", rd.parameters = params.data();
        rd.parameter_count = static_cast<uint32_t>(params.size()), rd.motion = &md;
        crowd_rig r;
        uint32_t n = count / 2 + (k == 0 ? count % 2 : 0);
        std::vector<crowd_instance> h(n);
        crowd_add_desc add = crowd_add_defaults(r, n);
        if (crowd_rig_create(engine, &rd, &r) != CROWD_OK || (add.rig = r, crowd_instances_add(engine, &add, h.data())) != CROWD_OK) {
            state.SkipWithError(crowd_last_error(engine));
            crowd_engine_destroy(engine);
            return;
        }
        for (uint32_t i = 0; i < n; i++) {
            uint32_t c = static_cast<uint32_t>(random() % clips[k].clips.size());
            crowd_motion_start_desc sd = crowd_motion_start_defaults(c);
            sd.loop = true;
            sd.offset = std::uniform_real_distribution<double>(0.0, clips[k].clips[c].duration)(random);
            crowd_motion_start(engine, &h[i], 1, &sd, nullptr);
            curves += clips[k].clips[c].curve_count;
        }
        size_t per = 0;
        crowd_rig_bytes_per_instance(engine, r, &per);
        bytes += per * n;
    }
    crowd_tick_exact(engine, 0.0);
    for (auto _ : state) {
        crowd_tick_exact(engine, 1.0 / 60.0);
        benchmark::ClobberMemory();
    }
    state.SetItemsProcessed(static_cast<int64_t>(state.iterations()) * count);
    state.counters["curve_evals/s"] =
        benchmark::Counter(static_cast<double>(curves) * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
    state.counters["bytes/instance"] = static_cast<double>(bytes) / count;
    crowd_engine_destroy(engine);
    for (auto &r : rigs) free_rig(r);
}

BENCHMARK(BM_cubism_engine_idle)->Arg(1000)->Arg(10000)->Unit(benchmark::kMillisecond);

}  // namespace
