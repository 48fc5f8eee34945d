/* Writes the snapshot seed corpus: small engines in every shape the format has (no rigs, a rig
 * without instances, each controller, each limbs variant, paused rows, free and reused slots).
 * argv[1]: the folder. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crowd.h"

#define CHECK(x)                                                      \
    do {                                                              \
        if ((x) != CROWD_OK) {                                        \
            fprintf(stderr, "fuzz_seeds: %s failed at line %d\n", #x, __LINE__); \
            exit(1);                                                  \
        }                                                             \
    } while (0)

static const char *folder;

static void write_snapshot(crowd_engine *e, const char *name) {
    size_t n;
    CHECK(crowd_snapshot_size(e, &n));
    unsigned char *b = malloc(n);
    CHECK(crowd_snapshot_save(e, b, n, NULL));
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.bin", folder, name);
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(b, 1, n, f) != n || fclose(f) != 0) {
        fprintf(stderr, "fuzz_seeds: cannot write %s\n", path);
        exit(1);
    }
    free(b);
}

static crowd_engine *engine(uint64_t seed) {
    crowd_engine_desc d = {.seed = seed, .simd = CROWD_SIMD_SCALAR};
    crowd_engine *e;
    CHECK(crowd_engine_create(&d, &e));
    return e;
}

/* A pose: a person standing, arms a little bent (engine frame). */
static void pose(float lm[132], float t) {
    static const float base[33][3] = {
        {0, 1.6f, 0.1f}, {-0.02f, 1.63f, 0.08f}, {-0.03f, 1.63f, 0.08f}, {-0.04f, 1.63f, 0.08f}, {0.02f, 1.63f, 0.08f},
        {0.03f, 1.63f, 0.08f}, {0.04f, 1.63f, 0.08f}, {-0.08f, 1.6f, 0}, {0.08f, 1.6f, 0}, {-0.02f, 1.55f, 0.08f},
        {0.02f, 1.55f, 0.08f}, {-0.18f, 1.4f, 0}, {0.18f, 1.4f, 0}, {-0.25f, 1.15f, 0.05f}, {0.25f, 1.15f, 0.05f},
        {-0.27f, 0.9f, 0.12f}, {0.27f, 0.9f, 0.12f}, {-0.28f, 0.82f, 0.11f}, {0.28f, 0.82f, 0.11f}, {-0.27f, 0.81f, 0.14f},
        {0.27f, 0.81f, 0.14f}, {-0.26f, 0.85f, 0.15f}, {0.26f, 0.85f, 0.15f}, {-0.1f, 0.9f, 0}, {0.1f, 0.9f, 0},
        {-0.11f, 0.48f, 0.05f}, {0.11f, 0.48f, 0.05f}, {-0.11f, 0.08f, 0}, {0.11f, 0.08f, 0}, {-0.11f, 0.03f, -0.05f},
        {0.11f, 0.03f, -0.05f}, {-0.11f, 0.01f, 0.12f}, {0.11f, 0.01f, 0.12f}};
    for (int k = 0; k < 33; k++) {
        lm[4 * k] = base[k][0] + 0.01f * sinf(t + (float)k);
        lm[4 * k + 1] = base[k][1];
        lm[4 * k + 2] = base[k][2] + 0.01f * cosf(t * 2 + (float)k);
        lm[4 * k + 3] = k == 26 ? 0.3f : 0.9f;
    }
}

static void limbs_engine(const char *name, crowd_axis_fix fix, crowd_limb_fallback fallback, bool smoothing) {
    crowd_engine *e = engine(7);
    crowd_limbs_desc l = crowd_limbs_defaults();
    l.frame = CROWD_FRAME_ENGINE;
    l.axis_fix = fix;
    l.fallback = fallback;
    l.smoothing = smoothing;
    crowd_quat q[CROWD_BONE_COUNT];
    float bind[132];
    for (int b = 0; b < CROWD_BONE_COUNT; b++) q[b] = (crowd_quat){0, 0, 0.6f, 0.8f};
    pose(bind, 0);
    for (int k = 0; k < 33; k++) bind[4 * k + 3] = 1;
    if (fix == CROWD_AXIS_FIX_CUSTOM) l.custom_fix = q;
    if (fix == CROWD_AXIS_FIX_CALIBRATED) {
        l.bind_landmarks = bind;
        l.bind_rotations = q;
    }
    crowd_parameter_desc p = {"P", -1, 1, 0, false};
    crowd_harmonic_parameter_desc hp = crowd_harmonic_parameter_defaults("P");
    crowd_harmonic_desc h = crowd_harmonic_defaults();
    h.parameters = &hp;
    h.parameter_count = 1;
    crowd_rig_desc rd = {.name = "body", .parameters = &p, .parameter_count = 1, .harmonic = &h, .limbs = &l};
    crowd_rig rig;
    CHECK(crowd_rig_create(e, &rd, &rig));
    crowd_instance hh[2];
    crowd_add_desc add = {.rig = rig, .count = 2, .harmonic_phase = CROWD_HARMONIC_PHASE_RANDOM};
    CHECK(crowd_instances_add(e, &add, hh));
    for (int k = 0; k < 3; k++) {
        float lm[132];
        pose(lm, (float)k);
        CHECK(crowd_set(e, hh[0], CROWD_FIELD_POSE, 0, lm));
        pose(lm, (float)k + 0.5f);
        CHECK(crowd_set(e, hh[1], CROWD_FIELD_POSE, 0, lm));
        CHECK(crowd_tick(e, 1.0f / 30));
    }
    write_snapshot(e, name);
    crowd_engine_destroy(e);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: fuzz_seeds FOLDER\n");
        return 2;
    }
    folder = argv[1];
    crowd_engine *e = engine(0);
    write_snapshot(e, "empty");

    /* a face: look, harmonic (two channels, left), sine blink; paused rows and free slots */
    static const crowd_parameter_desc fp[] = {{"X", -30, 30, 0, false}, {"B", 0, 1, 0, false}, {"E", 0, 1, 1, false},
                                              {"H", 0, 360, 10, true}};
    static const crowd_look_parameter_desc lp[] = {{"X", CROWD_AXIS_X, 30}};
    crowd_look_desc look = crowd_look_defaults();
    look.parameters = lp;
    look.parameter_count = 1;
    look.max_speed = 4;
    crowd_harmonic_parameter_desc hp[2] = {crowd_harmonic_parameter_defaults("B"), crowd_harmonic_parameter_defaults("H")};
    hp[1].channel = 1;
    hp[1].direction = CROWD_DIRECTION_LEFT;
    static const float ts[2] = {1, 0.5f};
    crowd_harmonic_desc harm = crowd_harmonic_defaults();
    harm.parameters = hp;
    harm.parameter_count = 2;
    harm.channel_timescales = ts;
    harm.channel_count = 2;
    static const char *const eyes[] = {"E"};
    crowd_blink_desc blink = crowd_blink_defaults();
    blink.parameters = eyes;
    blink.parameter_count = 1;
    crowd_rig_desc face = {.name = "face", .parameters = fp, .parameter_count = 4, .look = &look, .harmonic = &harm,
                           .blink = &blink};
    crowd_rig rig;
    CHECK(crowd_rig_create(e, &face, &rig));
    /* (reserved: saving a rig that never had rows passes NULL to memcpy, which UBSan stops;
     * the bytes are the same) */
    CHECK(crowd_reserve(e, rig, 16));
    write_snapshot(e, "rig_without_instances");
    crowd_instance h[6];
    crowd_add_desc add = {.rig = rig, .count = 6, .harmonic_phase = CROWD_HARMONIC_PHASE_RANDOM};
    CHECK(crowd_instances_add(e, &add, h));
    CHECK(crowd_set_look_target(e, h[0], 1, 0.5f, 0, true));
    for (int k = 0; k < 5; k++) CHECK(crowd_tick(e, 0.05f));
    write_snapshot(e, "face");
    CHECK(crowd_instances_pause(e, &h[1], 2, true));
    CHECK(crowd_instances_remove(e, &h[4], 1));
    for (int k = 0; k < 3; k++) CHECK(crowd_tick(e, 0.05f));
    write_snapshot(e, "face_paused_freed");
    add.count = 1;
    add.blink_start = CROWD_BLINK_START_CUBISM;
    CHECK(crowd_instances_add(e, &add, h));
    CHECK(crowd_tick(e, 0.05f));
    write_snapshot(e, "face_reused_slot");
    /* a timed blink rig next to it */
    static const crowd_parameter_desc tp[] = {{"E", 0, 1, 1, false}};
    crowd_blink_desc tb = crowd_blink_defaults();
    tb.model = CROWD_BLINK_TIMED;
    tb.parameters = eyes;
    tb.parameter_count = 1;
    tb.mean = 0.1f;
    tb.max_deviation = 0.05f;
    crowd_rig_desc timed = {.name = "timed", .parameters = tp, .parameter_count = 1, .blink = &tb};
    CHECK(crowd_rig_create(e, &timed, &rig));
    add = (crowd_add_desc){.rig = rig, .count = 2};
    CHECK(crowd_instances_add(e, &add, h));
    for (int k = 0; k < 4; k++) CHECK(crowd_tick(e, 0.04f));
    write_snapshot(e, "face_and_timed");
    crowd_engine_destroy(e);

    limbs_engine("limbs_y_root", CROWD_AXIS_FIX_Y_ALONG_BONE, CROWD_FALLBACK_ROOT, false);
    limbs_engine("limbs_z_previous_smooth", CROWD_AXIS_FIX_Z_ALONG_BONE, CROWD_FALLBACK_PREVIOUS, true);
    limbs_engine("limbs_custom", CROWD_AXIS_FIX_CUSTOM, CROWD_FALLBACK_ROOT, true);
    limbs_engine("limbs_calibrated", CROWD_AXIS_FIX_CALIBRATED, CROWD_FALLBACK_PREVIOUS, false);
    return 0;
}
