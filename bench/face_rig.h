// The 12-parameter face rig the performance targets name: 6 look parameters, 5 harmonic,
// blink on both eyes (Cubism's standard parameter ranges). Shared by the benchmarks.
#ifndef CROWD_BENCH_FACE_RIG_H
#define CROWD_BENCH_FACE_RIG_H

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>

extern "C" {
#include "crowd.h"
}

namespace bench {

inline void check(crowd_result r, const char *what, crowd_engine *e) {
    if (r != CROWD_OK) {
        std::fprintf(stderr, "%s: %s (%s)\n", what, crowd_result_text(r), e ? crowd_last_error(e) : "");
        std::abort();
    }
}

inline crowd_rig face_rig(crowd_engine *e) {
    static const crowd_parameter_desc params[12] = {
        {"ParamAngleX", -30, 30, 0, false},     {"ParamAngleY", -30, 30, 0, false},
        {"ParamAngleZ", -30, 30, 0, false},     {"ParamEyeBallX", -1, 1, 0, false},
        {"ParamEyeBallY", -1, 1, 0, false},     {"ParamBodyAngleX", -10, 10, 0, false},
        {"ParamBreath", 0, 1, 0, false},        {"ParamBodyAngleY", -10, 10, 0, false},
        {"ParamBodyAngleZ", -10, 10, 0, false}, {"ParamHairFront", -1, 1, 0, false},
        {"ParamEyeLOpen", 0, 1, 1, false},      {"ParamEyeROpen", 0, 1, 1, false}};
    static const crowd_look_parameter_desc look_params[6] = {
        {"ParamAngleX", CROWD_AXIS_X, 30},   {"ParamAngleY", CROWD_AXIS_Y, 30},
        {"ParamAngleZ", CROWD_AXIS_Z, -30},  {"ParamEyeBallX", CROWD_AXIS_X, 1},
        {"ParamEyeBallY", CROWD_AXIS_Y, 1},  {"ParamBodyAngleX", CROWD_AXIS_X, 10}};
    crowd_look_desc look = crowd_look_defaults();
    look.parameters = look_params;
    look.parameter_count = 6;
    crowd_harmonic_parameter_desc harm[5] = {
        crowd_harmonic_parameter_defaults("ParamBreath"), crowd_harmonic_parameter_defaults("ParamBodyAngleX"),
        crowd_harmonic_parameter_defaults("ParamBodyAngleY"), crowd_harmonic_parameter_defaults("ParamBodyAngleZ"),
        crowd_harmonic_parameter_defaults("ParamHairFront")};
    harm[1].range = 0.1f, harm[1].duration = 5.0f, harm[1].direction = CROWD_DIRECTION_LEFT;
    harm[2].range = 0.1f, harm[2].duration = 7.0f, harm[2].direction = CROWD_DIRECTION_RIGHT;
    harm[3].range = 0.1f, harm[3].duration = 6.5f;
    harm[4].range = 0.2f, harm[4].duration = 2.0f;
    crowd_harmonic_desc harmonic = crowd_harmonic_defaults();
    harmonic.parameters = harm;
    harmonic.parameter_count = 5;
    static const char *const eyes[2] = {"ParamEyeLOpen", "ParamEyeROpen"};
    crowd_blink_desc blink = crowd_blink_defaults();
    blink.parameters = eyes;
    blink.parameter_count = 2;
    crowd_rig_desc desc = {};
    desc.name = "face";
    desc.parameters = params;
    desc.parameter_count = 12;
    desc.look = &look;
    desc.harmonic = &harmonic;
    desc.blink = &blink;
    crowd_rig rig;
    check(crowd_rig_create(e, &desc, &rig), "crowd_rig_create", e);
    return rig;
}

// Adds n instances with random-phase harmonics, drawn blink waits and varied gaze targets.
inline std::vector<crowd_instance> add_crowd(crowd_engine *e, crowd_rig rig, uint32_t n) {
    std::vector<crowd_instance> h(n);
    crowd_add_desc add = {};
    add.rig = rig;
    add.count = n;
    add.harmonic_phase = CROWD_HARMONIC_PHASE_RANDOM;
    check(crowd_instances_add(e, &add, h.data()), "crowd_instances_add", e);
    std::vector<float> target(3 * (size_t)n), active(n);
    uint32_t s = 12345;
    for (size_t i = 0; i < target.size(); i++) {
        s = s * 1664525u + 1013904223u;
        target[i] = (float)(s >> 8) * 0x1p-24f * 2.0f - 1.0f;
    }
    for (uint32_t i = 0; i < n; i++) active[i] = (i % 7) ? 1.0f : 0.0f;
    check(crowd_instances_set(e, CROWD_FIELD_LOOK_TARGET, 0, h.data(), n, target.data()), "set targets", e);
    check(crowd_instances_set(e, CROWD_FIELD_LOOK_ACTIVE, 0, h.data(), n, active.data()), "set active", e);
    return h;
}

// Bytes the tick reads and writes per instance of this rig (4-byte columns): base 12 read,
// out 12 written; look: target 3, center 3, active, damping, weight read, pos 3 and vel 3
// read and written; harmonic: weight read, T 5 and NR 5 read and written; blink: manual and
// weight read, clock, phase, last and opening read and written.
constexpr double face_bytes_per_instance = 4.0 * ((12 + 12) + (9 + 2 * 6) + (1 + 2 * 10) + (2 + 2 * 4));

}  // namespace bench

#endif
