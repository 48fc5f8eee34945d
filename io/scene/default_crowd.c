#include "default_crowd.h"

#include "diag.h"
#include "walk.h"

int default_walk_clip(pose_clip *clip) {
    int st = clip_alloc(clip, "(built-in walk)", BENCH_WALK_ROWS);
    if (st != TOOL_OK) return st;
    for (uint32_t k = 0; k < BENCH_WALK_ROWS; k++) clip->t_s[k] = (double)k / BENCH_WALK_FPS;
    bench_walk_rows(clip->landmarks);
    return TOOL_OK;
}

/* ---- the scene ---- */
static const crowd_parameter_desc face_parameters[] = {
    {"ParamAngleX", -30, 30, 0, false},     {"ParamAngleY", -30, 30, 0, false},
    {"ParamAngleZ", -30, 30, 0, false},     {"ParamEyeBallX", -1, 1, 0, false},
    {"ParamEyeBallY", -1, 1, 0, false},     {"ParamBodyAngleX", -10, 10, 0, false},
    {"ParamBodyAngleY", -10, 10, 0, false}, {"ParamBodyAngleZ", -10, 10, 0, false},
    {"ParamBreath", 0, 1, 0, false},        {"ParamEyeLOpen", 0, 1, 1, false},
    {"ParamEyeROpen", 0, 1, 1, false},      {"ParamMouthOpenY", 0, 1, 0, false},
};
#define FACE_PARAMETERS (uint32_t)(sizeof face_parameters / sizeof face_parameters[0])

static const crowd_look_parameter_desc face_look[] = {
    {"ParamAngleX", CROWD_AXIS_X, 30},    {"ParamAngleY", CROWD_AXIS_Y, 30},
    {"ParamEyeBallX", CROWD_AXIS_X, 1},   {"ParamEyeBallY", CROWD_AXIS_Y, 1},
    {"ParamBodyAngleX", CROWD_AXIS_X, 10},
};

static const char *const face_blink[] = {"ParamEyeLOpen", "ParamEyeROpen"};

/* where two groups look: keys every 1.5 s, with pauses */
static const scene_key keys_a[] = {
    {0.0f, true, {-0.8f, 0.3f, 0}}, {1.5f, true, {0.9f, -0.2f, 0}}, {3.0f, false, {0}},
    {4.0f, true, {0.2f, 0.8f, 0}},  {5.5f, true, {-0.6f, -0.5f, 0}}, {7.0f, true, {0.7f, 0.4f, 0}},
    {8.5f, false, {0}},
};
static const scene_key keys_b[] = {
    {0.75f, true, {0.5f, 0.5f, 0}}, {2.25f, true, {-0.9f, 0.1f, 0}}, {3.75f, true, {0.0f, -0.6f, 0}},
    {5.25f, false, {0}},            {6.0f, true, {0.8f, 0.6f, 0}},   {7.5f, true, {-0.4f, 0.2f, 0}},
    {9.0f, true, {0.3f, -0.3f, 0}},
};

int default_crowd_scene(scene *s) {
    scene_init(s, "(default crowd)");
    s->rigs = scene_alloc(s, 1, sizeof *s->rigs);
    s->groups = scene_alloc(s, 2, sizeof *s->groups);
    if (!s->rigs || !s->groups) return TOOL_FAILED;
    s->rig_count = 1;
    scene_rig *r = &s->rigs[0];
    r->name = "face";
    r->parameters = face_parameters;
    r->parameter_count = FACE_PARAMETERS;

    r->look = crowd_look_defaults();
    r->look_parameters = face_look;
    r->look.parameter_count = (uint32_t)(sizeof face_look / sizeof face_look[0]);

    r->harmonic = crowd_harmonic_defaults();
    crowd_harmonic_parameter_desc *hps = scene_alloc(s, 3, sizeof *hps);
    if (!hps) return TOOL_FAILED;
    r->harmonic_parameters = hps;
    hps[0] = crowd_harmonic_parameter_defaults("ParamBreath");
    hps[0].duration = 3.2345f;
    hps[1] = crowd_harmonic_parameter_defaults("ParamAngleZ");
    hps[1].channel = 1;
    hps[1].range = 0.15f;
    hps[1].duration = 5.1f;
    hps[2] = crowd_harmonic_parameter_defaults("ParamBodyAngleZ");
    hps[2].channel = 1;
    hps[2].range = 0.2f;
    hps[2].duration = 4.2f;
    r->harmonic.parameter_count = 3;
    r->channel_timescales[0] = 1.0f;
    r->channel_timescales[1] = 0.8f;
    r->harmonic.channel_count = 2;

    r->blink = crowd_blink_defaults();
    r->blink_parameters = face_blink;
    r->blink.parameter_count = 2;

    r->limbs = crowd_limbs_defaults();
    r->limbs.frame = CROWD_FRAME_ENGINE;
    scene_rig_link(r, true, true, true, true);

    pose_clip walk;
    int st = default_walk_clip(&walk);
    if (st != TOOL_OK) return st;
    const pose_clip *clip = scene_adopt_clip(s, &walk);
    if (!clip) return TOOL_FAILED;

    s->group_count = 2;
    for (uint32_t g = 0; g < 2; g++) {
        scene_group *grp = &s->groups[g];
        grp->rig = 0;
        grp->count = DEFAULT_CROWD_INSTANCES / 2;
        grp->keys = g == 0 ? keys_a : keys_b;
        grp->key_count = g == 0 ? (uint32_t)(sizeof keys_a / sizeof keys_a[0]) : (uint32_t)(sizeof keys_b / sizeof keys_b[0]);
        grp->jitter = g == 0 ? 0.25f : 0.35f;
        grp->harmonic_phase = CROWD_HARMONIC_PHASE_RANDOM;
        grp->blink_start = CROWD_BLINK_START_RANDOM;
        grp->clip = clip;
        grp->pose_offset = SCENE_OFFSET_RANDOM;
        grp->pose_loop = true;
    }
    return TOOL_OK;
}
