/* test_cli_run.c — `crowd run` end to end, against the engine's API:
 *   scene_vs_api      a scene with every controller, three rigs, five groups, look keys with
 *                     jitter, random phases and blink starts, pose clips (random offset + loop,
 *                     zero offset held at the end) runs through the command with --trace and
 *                     --bones; the same scene built here through crowd.h gives the same bits for
 *                     every value, and the same checksum; also with --frames/--dt/--seed
 *   threads_and_targets  the traces are byte-identical for --threads 1, 3 and --simd scalar
 *   default_crowd     the built-in crowd's checksum is the same on this target and scalar, for
 *                     1 and 2 threads; the --json line has the SPEC's shape
 *   interrupted       SIGINT while the trace is being written: exit 1, no trace and no
 *                     trace.tmp left
 *   limbs_outputs     the body rig's limbs "outputs": "world" runs to both's checksum, bones
 *                     trace and BVH refused; "local" to the checksum of the API's local
 *                     rotations, its BVH both's, bones trace, --vmc and render refused
 *
 * argv: TARGET CROWD_EXE */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_support.h"

/* ------------------------------------------------------------------------------------------
 * The scene, twice: as JSON for the command and as descs for the API. Keep them in step.
 * ---------------------------------------------------------------------------------------- */
#define CLIP_ROWS 9
static const char *const clip_t[CLIP_ROWS] = {"0.5", "0.53", "0.57", "0.57", "0.6", "0.65", "0.7", "0.71", "0.8"};
static float clip_lm[CLIP_ROWS * 132];

static const char scene_json[] =
    "{\"seed\": 12345, \"dt\": 0.0166666675, \"frames\": 40,\n"
    " \"rigs\": [\n"
    "  {\"name\": \"face\",\n"
    "   \"parameters\": [{\"id\": \"ParamAngleX\", \"min\": -30, \"max\": 30},\n"
    "                  {\"id\": \"ParamAngleY\", \"min\": -30, \"max\": 30},\n"
    "                  {\"id\": \"ParamEyeBallX\", \"min\": -1, \"max\": 1},\n"
    "                  {\"id\": \"ParamBreath\", \"min\": 0, \"max\": 1},\n"
    "                  {\"id\": \"ParamEyeLOpen\", \"min\": 0, \"max\": 1, \"default\": 1},\n"
    "                  {\"id\": \"ParamEyeROpen\", \"min\": 0, \"max\": 1, \"default\": 1},\n"
    "                  {\"id\": \"ParamHue\", \"min\": 0, \"max\": 360, \"default\": 350, \"repeat\": true}],\n"
    "   \"look\": {\"damping\": 0.2, \"max_speed\": 3, \"parameters\": [\n"
    "      {\"id\": \"ParamAngleX\", \"axis\": \"x\", \"factor\": 30}, {\"id\": \"ParamAngleY\", \"axis\": \"y\"},\n"
    "      {\"id\": \"ParamEyeBallX\", \"factor\": 1}]},\n"
    "   \"harmonic\": {\"channel_timescales\": [1, 0.5], \"parameters\": [\n"
    "      {\"id\": \"ParamBreath\"},\n"
    "      {\"id\": \"ParamHue\", \"channel\": 1, \"direction\": \"left\", \"origin\": 0.25, \"range\": 0.5, \"duration\": 2}]},\n"
    "   \"blink\": {\"model\": \"timed\", \"parameters\": [\"ParamEyeLOpen\", \"ParamEyeROpen\"], \"mean\": 1,\n"
    "             \"max_deviation\": 0.5}},\n"
    "  {\"name\": \"body\",\n"
    "   \"parameters\": [{\"id\": \"ParamX\", \"min\": -1, \"max\": 1}],\n"
    "   \"harmonic\": {\"blend\": \"override\", \"parameters\": [\n"
    "      {\"id\": \"ParamX\", \"direction\": \"right\", \"origin\": 0.5, \"range\": 0.4, \"duration\": 1.5}]},\n"
    "   \"limbs\": {\"frame\": \"engine\", \"axis_fix\": \"z_along_bone\", \"fallback\": \"previous\",\n"
    "             \"visibility_threshold\": 0.4, \"smoothing\": \"one_euro\"}},\n"
    "  {\"name\": \"plain\", \"parameters\": [{\"id\": \"P\", \"min\": -5, \"max\": 5, \"default\": 1}]}\n"
    " ],\n"
    " \"groups\": [\n"
    "  {\"rig\": \"face\", \"count\": 5, \"harmonic_phase\": \"random\", \"blink_start\": \"random\",\n"
    "   \"look\": {\"center\": [0.1, 0, 0], \"jitter\": 0.3, \"keys\": [\n"
    "      {\"t\": 0.05, \"target\": [1, 0.5, 0]}, {\"t\": 0.1, \"active\": false}, {\"t\": 0.2, \"target\": [-1, 0.2, 0.3]}]}},\n"
    "  {\"rig\": \"body\", \"count\": 4, \"harmonic_phase\": \"random\",\n"
    "   \"pose\": {\"clip\": \"clip.csv\", \"offset\": \"random\", \"loop\": true}},\n"
    "  {\"rig\": \"face\", \"count\": 3, \"harmonic_phase\": \"zero\", \"blink_start\": \"cubism\"},\n"
    "  {\"rig\": \"body\", \"count\": 2, \"pose\": {\"clip\": \"clip.csv\", \"offset\": \"zero\", \"loop\": false}},\n"
    "  {\"rig\": \"plain\", \"count\": 2}\n"
    " ]}\n";

typedef struct oracle_key {
    float t;
    bool active;
    float target[3];
} oracle_key;

static const oracle_key g0_keys[] = {{0.05f, true, {1, 0.5f, 0}}, {0.1f, false, {0}}, {0.2f, true, {-1, 0.2f, 0.3f}}};

#define GROUPS 5
static const struct {
    int rig, count;
    crowd_harmonic_phase phase;
    crowd_blink_start blink;
    float jitter;
    bool pose, random_offset, loop;
} groups[GROUPS] = {
    {0, 5, CROWD_HARMONIC_PHASE_RANDOM, CROWD_BLINK_START_RANDOM, 0.3f, false, false, false},
    {1, 4, CROWD_HARMONIC_PHASE_RANDOM, CROWD_BLINK_START_RANDOM, 0, true, true, true},
    {0, 3, CROWD_HARMONIC_PHASE_ZERO, CROWD_BLINK_START_CUBISM, 0, false, false, false},
    {1, 2, CROWD_HARMONIC_PHASE_ZERO, CROWD_BLINK_START_RANDOM, 0, true, false, false},
    {2, 2, CROWD_HARMONIC_PHASE_ZERO, CROWD_BLINK_START_RANDOM, 0, false, false, false},
};
#define INSTANCES 16

static const crowd_parameter_desc face_params[] = {
    {"ParamAngleX", -30, 30, 0, false}, {"ParamAngleY", -30, 30, 0, false}, {"ParamEyeBallX", -1, 1, 0, false},
    {"ParamBreath", 0, 1, 0, false},    {"ParamEyeLOpen", 0, 1, 1, false},  {"ParamEyeROpen", 0, 1, 1, false},
    {"ParamHue", 0, 360, 350, true},
};
static const crowd_parameter_desc body_params[] = {{"ParamX", -1, 1, 0, false}};
static const crowd_parameter_desc plain_params[] = {{"P", -5, 5, 1, false}};
static const uint32_t param_count[3] = {7, 1, 1};
static const crowd_parameter_desc *const params_of[3] = {face_params, body_params, plain_params};

static crowd_rig make_rigs(crowd_engine *e, crowd_rig rigs[3]) {
    crowd_look_parameter_desc lp[] = {{"ParamAngleX", CROWD_AXIS_X, 30}, {"ParamAngleY", CROWD_AXIS_Y, 30},
                                      {"ParamEyeBallX", CROWD_AXIS_X, 1}};
    crowd_look_desc look = crowd_look_defaults();
    look.damping = 0.2f;
    look.max_speed = 3;
    look.parameters = lp;
    look.parameter_count = 3;
    crowd_harmonic_parameter_desc hp[2] = {crowd_harmonic_parameter_defaults("ParamBreath"),
                                           crowd_harmonic_parameter_defaults("ParamHue")};
    hp[1].channel = 1;
    hp[1].direction = CROWD_DIRECTION_LEFT;
    hp[1].origin = 0.25f;
    hp[1].range = 0.5f;
    hp[1].duration = 2;
    const float ts[2] = {1, 0.5f};
    crowd_harmonic_desc harm = crowd_harmonic_defaults();
    harm.parameters = hp;
    harm.parameter_count = 2;
    harm.channel_timescales = ts;
    harm.channel_count = 2;
    const char *const bp[] = {"ParamEyeLOpen", "ParamEyeROpen"};
    crowd_blink_desc blink = crowd_blink_defaults();
    blink.model = CROWD_BLINK_TIMED;
    blink.parameters = bp;
    blink.parameter_count = 2;
    blink.mean = 1;
    blink.max_deviation = 0.5f;
    crowd_rig_desc face = {.name = "face", .parameters = face_params, .parameter_count = 7, .look = &look,
                           .harmonic = &harm, .blink = &blink};
    assert_int_equal(crowd_rig_create(e, &face, &rigs[0]), CROWD_OK);

    crowd_harmonic_parameter_desc bhp = crowd_harmonic_parameter_defaults("ParamX");
    bhp.direction = CROWD_DIRECTION_RIGHT;
    bhp.range = 0.4f;
    bhp.duration = 1.5f;
    crowd_harmonic_desc bharm = crowd_harmonic_defaults();
    bharm.blend = CROWD_BLEND_OVERRIDE;
    bharm.parameters = &bhp;
    bharm.parameter_count = 1;
    crowd_limbs_desc limbs = crowd_limbs_defaults();
    limbs.frame = CROWD_FRAME_ENGINE;
    limbs.axis_fix = CROWD_AXIS_FIX_Z_ALONG_BONE;
    limbs.fallback = CROWD_FALLBACK_PREVIOUS;
    limbs.visibility_threshold = 0.4f;
    limbs.smoothing = true;
    crowd_rig_desc body = {.name = "body", .parameters = body_params, .parameter_count = 1, .harmonic = &bharm,
                           .limbs = &limbs};
    assert_int_equal(crowd_rig_create(e, &body, &rigs[1]), CROWD_OK);
    crowd_rig_desc plain = {.name = "plain", .parameters = plain_params, .parameter_count = 1};
    assert_int_equal(crowd_rig_create(e, &plain, &rigs[2]), CROWD_OK);
    return rigs[0];
}

/* The clip row in effect tau seconds after its start (io/pose/clip.h's rule, written again). */
static uint32_t clip_row(const double *t, double tau, bool loop) {
    double period = (t[CLIP_ROWS - 1] - t[0]) + (t[CLIP_ROWS - 1] - t[CLIP_ROWS - 2]);
    if (loop) tau = fmod(tau, period);
    double at = t[0] + tau;
    uint32_t row = 0;
    for (uint32_t k = 0; k < CLIP_ROWS; k++)
        if (t[k] <= at) row = k;
    return row;
}

/* ------------------------------------------------------------------------------------------
 * The expected values, frame by frame, from the API.
 * ---------------------------------------------------------------------------------------- */
typedef struct expected {
    uint32_t frames;
    float *params; /* [frames][instance][param] flattened in trace order */
    size_t param_count;
    float *bones; /* [frames][limb instance][15][4] */
    size_t bone_count;
    uint64_t checksum;
} expected;

static uint64_t fnv_float(uint64_t h, float v) {
    uint32_t b = cli_bits(v);
    for (int k = 0; k < 4; k++) h = (h ^ ((b >> (8 * k)) & 0xff)) * 0x100000001b3ull;
    return h;
}

/* local: the checksum digests the body rig's local rotations (its limbs "outputs": "local") */
static expected oracle_of(uint64_t seed, float dt, uint32_t frames, bool local) {
    crowd_engine *e = crowd_test_engine(seed);
    crowd_rig rigs[3];
    make_rigs(e, rigs);
    crowd_instance h[INSTANCES];
    int rig_of[INSTANCES], group_of[INSTANCES];
    float jitter[INSTANCES][3] = {{0}};
    double offset[INSTANCES] = {0};
    double t[CLIP_ROWS];
    for (int k = 0; k < CLIP_ROWS; k++) t[k] = strtod(clip_t[k], NULL);
    double period = (t[CLIP_ROWS - 1] - t[0]) + (t[CLIP_ROWS - 1] - t[CLIP_ROWS - 2]);
    int n = 0;
    for (int g = 0; g < GROUPS; g++) {
        crowd_add_desc add = {.rig = rigs[groups[g].rig], .count = (uint32_t)groups[g].count,
                              .blink_start = groups[g].blink, .harmonic_phase = groups[g].phase};
        assert_int_equal(crowd_instances_add(e, &add, &h[n]), CROWD_OK);
        for (int i = n; i < n + groups[g].count; i++) {
            rig_of[i] = groups[g].rig;
            group_of[i] = g;
            if (g == 0) {
                const float center[3] = {0.1f, 0, 0};
                assert_int_equal(crowd_set(e, h[i], CROWD_FIELD_LOOK_CENTER, 0, center), CROWD_OK);
            }
            if (groups[g].jitter > 0) {
                float u[3];
                assert_int_equal(crowd_instance_random(e, h[i], 3, u), CROWD_OK);
                for (int c = 0; c < 3; c++) jitter[i][c] = (2.0f * u[c] - 1.0f) * groups[g].jitter;
            }
            if (groups[g].pose && groups[g].random_offset) {
                float u;
                assert_int_equal(crowd_instance_random(e, h[i], 1, &u), CROWD_OK);
                offset[i] = (double)u * period;
            }
        }
        n += groups[g].count;
    }
    expected x = {.frames = frames};
    size_t per_frame = 0, limb_instances = 0;
    for (int i = 0; i < INSTANCES; i++) {
        per_frame += param_count[rig_of[i]];
        limb_instances += rig_of[i] == 1;
    }
    x.param_count = per_frame * frames;
    x.bone_count = limb_instances * 15 * 4 * frames;
    x.params = malloc(sizeof(float) * (x.param_count + 1));
    x.bones = malloc(sizeof(float) * (x.bone_count + 1));
    size_t pi = 0, bi = 0;
    int key_in_effect = -1;
    for (uint32_t k = 1; k <= frames; k++) {
        double tau = (double)(k - 1) * (double)dt;
        int key = -1;
        for (int q = 0; q < 3; q++)
            if ((double)g0_keys[q].t <= tau) key = q;
        for (int i = 0; i < INSTANCES; i++) {
            if (group_of[i] == 0 && key != key_in_effect) {
                if (g0_keys[key].active) {
                    float target[3];
                    for (int c = 0; c < 3; c++) target[c] = g0_keys[key].target[c] + jitter[i][c];
                    assert_int_equal(crowd_set_look_target(e, h[i], target[0], target[1], target[2], true), CROWD_OK);
                } else {
                    const float off = 0;
                    assert_int_equal(crowd_set(e, h[i], CROWD_FIELD_LOOK_ACTIVE, 0, &off), CROWD_OK);
                }
            }
            if (groups[group_of[i]].pose) {
                uint32_t row = clip_row(t, tau + offset[i], groups[group_of[i]].loop);
                assert_int_equal(crowd_set(e, h[i], CROWD_FIELD_POSE, 0, &clip_lm[row * 132]), CROWD_OK);
            }
        }
        key_in_effect = key;
        assert_int_equal(crowd_tick(e, dt), CROWD_OK);
        /* the run checksum (tools/README.md): per instance an FNV-1a 64 digest of its floats,
         * then sum = sum * B + digest mod 2^64 in instance order, B the FNV prime */
        uint64_t sum = 0;
        for (int i = 0; i < INSTANCES; i++) {
            uint64_t digest = 0xcbf29ce484222325ull;
            float out[8];
            assert_int_equal(crowd_get_outputs(e, h[i], out, 8), CROWD_OK);
            for (uint32_t p = 0; p < param_count[rig_of[i]]; p++) {
                x.params[pi++] = out[p];
                digest = fnv_float(digest, out[p]);
            }
            if (rig_of[i] == 1)
                for (int b = 0; b < 15; b++) {
                    float q[4];
                    assert_int_equal(crowd_get(e, h[i], CROWD_FIELD_BONE_WORLD, (uint32_t)b, q), CROWD_OK);
                    for (int c = 0; c < 4; c++) x.bones[bi++] = q[c];
                    if (local) assert_int_equal(crowd_get(e, h[i], CROWD_FIELD_BONE_LOCAL, (uint32_t)b, q), CROWD_OK);
                    for (int c = 0; c < 4; c++) digest = fnv_float(digest, q[c]);
                }
            sum = sum * 0x100000001b3ull + digest;
        }
        x.checksum = sum;
    }
    crowd_engine_destroy(e);
    return x;
}

static expected oracle(uint64_t seed, float dt, uint32_t frames) { return oracle_of(seed, dt, frames, false); }

/* ------------------------------------------------------------------------------------------
 * Comparing traces
 * ---------------------------------------------------------------------------------------- */
static void expect_float(const char *text, float want, const char *where, uint32_t line) {
    char *end;
    float got = strtof(text, &end);
    if (cli_bits(got) != cli_bits(want))
        fail_msg("%s line %u: %s (%.9g) differs from the API's %.9g (bits %08x vs %08x)", where, line, text,
                 (double)got, (double)want, cli_bits(got), cli_bits(want));
}

static void compare_parameter_trace(const char *path, const expected *x) {
    char *text = cli_read(path, NULL);
    assert_non_null(text);
    char *save, *line = strtok_r(text, "\n", &save);
    assert_string_equal(line, "frame,instance,id,value");
    size_t pi = 0;
    uint32_t ln = 1;
    for (uint32_t k = 1; k <= x->frames; k++)
        for (int g = 0, i = 0; g < GROUPS; g++)
            for (int j = 0; j < groups[g].count; j++, i++) {
                int r = groups[g].rig;
                for (uint32_t p = 0; p < param_count[r]; p++) {
                    line = strtok_r(NULL, "\n", &save);
                    ln++;
                    if (!line) fail_msg("%s ends at line %u", path, ln);
                    char want_head[96];
                    snprintf(want_head, sizeof want_head, "%u,%d,%s,", k, i, params_of[r][p].id);
                    if (strncmp(line, want_head, strlen(want_head)) != 0)
                        fail_msg("%s line %u: \"%s\", expected it to start \"%s\"", path, ln, line, want_head);
                    expect_float(line + strlen(want_head), x->params[pi++], path, ln);
                }
            }
    assert_null(strtok_r(NULL, "\n", &save));
    assert_int_equal(pi, x->param_count);
    free(text);
}

static const char *const bone_names[15] = {
    "hips", "chest", "head", "left_upper_arm", "left_lower_arm", "left_hand", "right_upper_arm", "right_lower_arm",
    "right_hand", "left_upper_leg", "left_lower_leg", "left_foot", "right_upper_leg", "right_lower_leg", "right_foot"};

static void compare_bone_trace(const char *path, const expected *x) {
    char *text = cli_read(path, NULL);
    assert_non_null(text);
    char *save, *line = strtok_r(text, "\n", &save);
    assert_string_equal(line, "frame,instance,bone,qx,qy,qz,qw");
    size_t bi = 0;
    uint32_t ln = 1;
    for (uint32_t k = 1; k <= x->frames; k++)
        for (int g = 0, i = 0; g < GROUPS; g++)
            for (int j = 0; j < groups[g].count; j++, i++) {
                if (groups[g].rig != 1) continue;
                for (int b = 0; b < 15; b++) {
                    line = strtok_r(NULL, "\n", &save);
                    ln++;
                    if (!line) fail_msg("%s ends at line %u", path, ln);
                    char head[96];
                    snprintf(head, sizeof head, "%u,%d,%s,", k, i, bone_names[b]);
                    if (strncmp(line, head, strlen(head)) != 0)
                        fail_msg("%s line %u: \"%s\", expected it to start \"%s\"", path, ln, line, head);
                    char *p = line + strlen(head);
                    for (int c = 0; c < 4; c++) {
                        char *comma = strchr(p, ',');
                        if (comma) *comma = 0;
                        expect_float(p, x->bones[bi++], path, ln);
                        if (c < 3 && !comma) fail_msg("%s line %u: fewer than 7 fields", path, ln);
                        p = comma ? comma + 1 : p;
                    }
                }
            }
    assert_null(strtok_r(NULL, "\n", &save));
    assert_int_equal(bi, x->bone_count);
    free(text);
}

/* The JSON summary: the last line of stdout, exactly the SPEC's keys in order. */
static json_t *summary(const char *out) {
    size_t n = strlen(out);
    assert_true(n > 0 && out[n - 1] == '\n');
    const char *last = out + n - 1;
    while (last > out && last[-1] != '\n') last--;
    static const char *const keys[] = {"{\"instances\": ", ", \"frames\": ", ", \"tick_seconds\": ",
                                       ", \"updates_per_second\": ", ", \"simd\": \"", ", \"threads\": ",
                                       ", \"checksum\": \"0x"};
    const char *p = last;
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        p = strstr(p, keys[k]);
        if (!p) fail_msg("the summary line lacks %s: %s", keys[k], last);
    }
    json_error_t err;
    json_t *j = json_loadb(last, (size_t)(out + n - last), 0, &err);
    if (!j) fail_msg("the summary line is not JSON (%s): %s", err.text, last);
    assert_int_equal(json_object_size(j), 7);
    assert_true(json_is_integer(json_object_get(j, "instances")));
    assert_true(json_is_integer(json_object_get(j, "frames")));
    assert_true(json_is_number(json_object_get(j, "tick_seconds")));
    assert_true(json_is_number(json_object_get(j, "updates_per_second")));
    assert_true(json_is_string(json_object_get(j, "simd")));
    assert_true(json_is_integer(json_object_get(j, "threads")));
    const char *sum = json_string_value(json_object_get(j, "checksum"));
    assert_non_null(sum);
    assert_int_equal(strlen(sum), 18);
    assert_int_equal(strspn(sum + 2, "0123456789abcdef"), 16);
    /* U = N*F/S (printed rounded to an integer) */
    double N = (double)json_integer_value(json_object_get(j, "instances")),
           F = (double)json_integer_value(json_object_get(j, "frames")),
           S = json_number_value(json_object_get(j, "tick_seconds")),
           U = json_number_value(json_object_get(j, "updates_per_second"));
    if (S > 0 && fabs(U - N * F / S) > 1e-6 * U + 1) fail_msg("updates_per_second %.17g != N*F/S %.17g", U, N * F / S);
    return j;
}

static uint64_t checksum_of(const json_t *j) {
    return strtoull(json_string_value(json_object_get(j, "checksum")) + 2, NULL, 16);
}

/* ------------------------------------------------------------------------------------------
 * Tests
 * ---------------------------------------------------------------------------------------- */
static int write_files(void **state) {
    (void)state;
    for (int r = 0; r < CLIP_ROWS; r++) {
        cli_synthetic_pose(strtod(clip_t[r], NULL), 1, &clip_lm[r * 132]);
        /* low visibility here and there: the held-bone path */
        if (r == 3) clip_lm[r * 132 + 15 * 4 + 3] = 0.2f;
        if (r == 4 || r == 5) clip_lm[r * 132 + 27 * 4 + 3] = 0.1f;
    }
    char *clip = cli_clip_text(CLIP_ROWS, clip_t, clip_lm);
    cli_write("clip.csv", clip);
    free(clip);
    cli_write("scene.json", scene_json);
    return 0;
}

static void run_and_compare(const char *const *extra, uint64_t seed, float dt, uint32_t frames) {
    const char *args[16] = {"run", cli_path("scene.json"), "--simd", cli_target, "--trace", cli_path("p.csv"),
                            "--bones", cli_path("b.csv"), "--json"};
    size_t n = 9;
    for (size_t k = 0; extra && extra[k]; k++) args[n++] = extra[k];
    cli_result r = cli_run_argv(args, NULL);
    cli_expect_ok(&r);
    assert_string_equal(r.err, ""); /* no progress line when stderr is not a terminal */
    json_t *j = summary(r.out);
    assert_int_equal(json_integer_value(json_object_get(j, "instances")), INSTANCES);
    assert_int_equal(json_integer_value(json_object_get(j, "frames")), frames);
    assert_string_equal(json_string_value(json_object_get(j, "simd")), cli_target);
    expected x = oracle(seed, dt, frames);
    compare_parameter_trace(cli_path("p.csv"), &x);
    compare_bone_trace(cli_path("b.csv"), &x);
    assert_false(cli_exists_prefix(cli_path("p.csv.")));
    assert_false(cli_exists_prefix(cli_path("b.csv.")));
    if (checksum_of(j) != x.checksum)
        fail_msg("checksum 0x%016" PRIx64 ", the API's outputs give 0x%016" PRIx64, checksum_of(j), x.checksum);
    json_decref(j);
    free(x.params);
    free(x.bones);
    cli_result_free(&r);
}

static void test_scene_vs_api(void **state) {
    (void)state;
    run_and_compare(NULL, 12345, 0.0166666675f, 40);
}

static void test_scene_vs_api_overrides(void **state) {
    (void)state;
    const char *const extra[] = {"--frames", "25", "--dt", "0.02", "--seed", "99", NULL};
    run_and_compare(extra, 99, 0.02f, 25);
}

static void test_threads_and_targets(void **state) {
    (void)state;
    const char *scene = cli_path("scene.json");
    cli_result r = cli_run("run", scene, "--simd", cli_target, "--trace", cli_path("t1.csv"), "--bones", cli_path("b1.csv"));
    cli_expect_ok(&r);
    cli_result_free(&r);
    r = cli_run("run", scene, "--simd", cli_target, "--threads", "3", "--trace", cli_path("t3.csv"), "--bones",
                cli_path("b3.csv"));
    cli_expect_ok(&r);
    cli_result_free(&r);
    r = cli_run("run", scene, "--simd", "scalar", "--trace", cli_path("ts.csv"), "--bones", cli_path("bs.csv"));
    cli_expect_ok(&r);
    cli_result_free(&r);
    const char *pairs[][2] = {{"t1.csv", "t3.csv"}, {"t1.csv", "ts.csv"}, {"b1.csv", "b3.csv"}, {"b1.csv", "bs.csv"}};
    for (int k = 0; k < 4; k++) {
        size_t na, nb;
        char *a = cli_read(cli_path(pairs[k][0]), &na), *b = cli_read(cli_path(pairs[k][1]), &nb);
        assert_non_null(a);
        assert_non_null(b);
        if (na != nb || memcmp(a, b, na) != 0) fail_msg("%s and %s differ", pairs[k][0], pairs[k][1]);
        free(a);
        free(b);
    }
}

static uint64_t default_checksum(const char *simd, const char *threads) {
    cli_result r = cli_run("run", "--frames", "20", "--json", "--simd", simd, "--threads", threads);
    cli_expect_ok(&r);
    json_t *j = summary(r.out);
    assert_int_equal(json_integer_value(json_object_get(j, "instances")), 10000);
    assert_int_equal(json_integer_value(json_object_get(j, "frames")), 20);
    assert_string_equal(json_string_value(json_object_get(j, "simd")), simd);
    assert_int_equal(json_integer_value(json_object_get(j, "threads")), atoi(threads));
    uint64_t sum = checksum_of(j);
    json_decref(j);
    cli_result_free(&r);
    return sum;
}

static void test_default_crowd(void **state) {
    (void)state;
    uint64_t ref = default_checksum("scalar", "1");
    uint64_t one = default_checksum(cli_target, "1"), two = default_checksum(cli_target, "2");
    if (one != ref || two != ref)
        fail_msg("default crowd checksums: scalar 0x%016" PRIx64 ", %s 1 thread 0x%016" PRIx64 ", 2 threads 0x%016" PRIx64,
                 ref, cli_target, one, two);
    /* the human summary names the same checksum */
    cli_result r = cli_run("run", "--frames", "20", "--simd", cli_target);
    cli_expect_ok(&r);
    char want[40];
    snprintf(want, sizeof want, "0x%016" PRIx64, ref);
    assert_non_null(strstr(r.out, want));
    assert_non_null(strstr(r.out, "instances           10000"));
    cli_result_free(&r);
}

static void test_interrupted(void **state) {
    (void)state;
    const char *trace = cli_path("big.csv");
    const char *args[] = {"run", "--frames", "100000", "--simd", cli_target, "--trace", trace, NULL};
    cli_result r = cli_run_argv(args, cli_path("big.csv."));
    cli_expect_fail(&r, 1, "interrupted");
    assert_false(cli_exists(trace));
    assert_false(cli_exists_prefix(cli_path("big.csv."))); /* the temporary is gone too */
    cli_result_free(&r);
}

/* The scene with the body rig's limbs storing one kind of rotation. */
static const char *outputs_scene(const char *kind) {
    char name[32];
    const char *from = "\"smoothing\": \"one_euro\"}}";
    char to[96];
    snprintf(to, sizeof to, "\"smoothing\": \"one_euro\", \"outputs\": \"%s\"}}", kind);
    const char *at = strstr(scene_json, from);
    assert_non_null(at);
    size_t head = (size_t)(at - scene_json), tail = strlen(at + strlen(from));
    char *text = malloc(head + strlen(to) + tail + 1);
    assert_non_null(text);
    memcpy(text, scene_json, head);
    memcpy(text + head, to, strlen(to));
    memcpy(text + head + strlen(to), at + strlen(from), tail + 1);
    snprintf(name, sizeof name, "scene_%s.json", kind);
    const char *path = cli_write(name, text);
    free(text);
    return path;
}

static uint64_t run_checksum(const char *scene) {
    cli_result r = cli_run("run", scene, "--simd", cli_target, "--json");
    cli_expect_ok(&r);
    json_t *j = summary(r.out);
    uint64_t sum = checksum_of(j);
    json_decref(j);
    cli_result_free(&r);
    return sum;
}

static void expect_same_file(const char *a, const char *b) {
    size_t na, nb;
    char *x = cli_read(a, &na), *y = cli_read(b, &nb);
    assert_non_null(x);
    assert_non_null(y);
    if (na != nb || memcmp(x, y, na) != 0) fail_msg("%s and %s differ", a, b);
    free(x);
    free(y);
}

static void test_limbs_outputs(void **state) {
    (void)state;
    char world[1400], local[1400], both[1400]; /* (cli_path's buffers are reused) */
    snprintf(world, sizeof world, "%s", outputs_scene("world"));
    snprintf(local, sizeof local, "%s", outputs_scene("local"));
    snprintf(both, sizeof both, "%s", cli_path("scene.json"));
    /* world: the checksum digests world rotations, which are both's bit for bit */
    const uint64_t both_sum = run_checksum(both);
    if (run_checksum(world) != both_sum) fail_msg("outputs world: the checksum is not both's");
    cli_result r = cli_run("run", world, "--simd", cli_target, "--bones", cli_path("ow.csv"), "--quiet");
    cli_expect_ok(&r);
    cli_result_free(&r);
    r = cli_run("run", both, "--simd", cli_target, "--bones", cli_path("ob.csv"), "--quiet");
    cli_expect_ok(&r);
    cli_result_free(&r);
    r = cli_run("run", both, "--simd", cli_target, "--bvh", cli_path("ob.bvh"), "--instance", "5", "--quiet");
    cli_expect_ok(&r);
    cli_result_free(&r);
    expect_same_file(cli_path("ow.csv"), cli_path("ob.csv"));
    r = cli_run("run", world, "--bvh", cli_path("ow.bvh"), "--instance", "5");
    cli_expect_fail(&r, 2, "run: --bvh needs local rotations", "rig \"body\" stores world rotations only",
                    "\"outputs\": \"world\"");
    cli_result_free(&r);
    assert_false(cli_exists(cli_path("ow.bvh")));
    /* local: the checksum digests local rotations; the BVH (local rotations) is both's */
    expected x = oracle_of(12345, 0.0166666675f, 40, true);
    if (run_checksum(local) != x.checksum) fail_msg("outputs local: the checksum is not that of the API's local rotations");
    free(x.params);
    free(x.bones);
    r = cli_run("run", local, "--simd", cli_target, "--bvh", cli_path("ol.bvh"), "--instance", "5", "--quiet");
    cli_expect_ok(&r);
    cli_result_free(&r);
    expect_same_file(cli_path("ol.bvh"), cli_path("ob.bvh"));
    r = cli_run("run", local, "--bones", cli_path("ol.csv"));
    cli_expect_fail(&r, 2, "run: --bones needs world rotations", "rig \"body\" stores local rotations only");
    cli_result_free(&r);
    assert_false(cli_exists(cli_path("ol.csv")));
    r = cli_run("run", local, "--vmc", "127.0.0.1:9", "--instance", "5");
    cli_expect_fail(&r, 2, "run: --vmc needs world rotations", "\"outputs\": \"local\"");
    cli_result_free(&r);
    r = cli_run("render", local, "--out", cli_path("ol.png"));
    cli_expect_fail(&r, 2, "render needs world rotations");
    cli_result_free(&r);
    assert_false(cli_exists(cli_path("ol.png")));
}

/* Every example scene in README.md and tools/README.md runs as written (a few frames). */
static void test_readme_scenes(void **state) {
    (void)state;
    const char *docs[] = {CROWD_SOURCE_DIR "/README.md", CROWD_SOURCE_DIR "/tools/README.md"};
    int scenes = 0;
    for (size_t d = 0; d < sizeof docs / sizeof docs[0]; d++) {
        char *text = cli_read(docs[d], NULL);
        assert_non_null(text);
        for (char *p = text; (p = strstr(p, "```json\n")) != NULL;) {
            p += 8;
            char *end = strstr(p, "```");
            assert_non_null(end);
            *end = 0;
            if (strstr(p, "\"rigs\"")) { /* a scene, not another JSON example */
                char name[32];
                snprintf(name, sizeof name, "readme_scene%d.json", scenes++);
                const char *path = cli_write(name, p);
                cli_result r = cli_run("run", path, "--frames", "3", "--quiet");
                if (r.status != 0) fail_msg("%s: the example scene at byte %td fails: %s", docs[d], p - text, r.err);
                cli_result_free(&r);
            }
            p = end + 3;
        }
        free(text);
    }
    if (scenes == 0) fail_msg("no example scene found in the READMEs");
}

int main(int argc, char **argv) {
    cli_setup(argc, argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_scene_vs_api),
        cmocka_unit_test(test_scene_vs_api_overrides),
        cmocka_unit_test(test_threads_and_targets),
        cmocka_unit_test(test_default_crowd),
        cmocka_unit_test(test_readme_scenes),
        cmocka_unit_test(test_limbs_outputs),
        cmocka_unit_test(test_interrupted),
    };
    return cmocka_run_group_tests_name("cli_run", tests, write_files, NULL);
}
