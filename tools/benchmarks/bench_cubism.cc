// The per-object Cubism reference (bench/cubism_reference.c) playing idle motions, the way a
// Cubism app plays its models one after another: N avatars, half Haru and half Hiyori (their
// model3.json's Idle groups, read with tools/cubism_files.c from ../shared/data/cubism), each
// with its own model record, motion manager and bound motion, looping one idle motion picked at
// random and started at a random time. One iteration = one frame (load, updateMotion at 1/60 s,
// save) of every avatar, one thread. Counters: avatars/s (items), curve evaluations/s, bytes of
// per-avatar state. Skipped when the traces' inputs are absent.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <vector>

#include <jansson.h>

extern "C" {
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

}  // namespace
