/* The settings tables and enum names of crowd.h: what crowd_setting_info describes is what
 * crowd_rig_create enforces (a value past each documented bound is refused, naming the desc
 * member), the documented defaults are what crowd_<controller>_defaults() sets, and every
 * public enum's name and parse functions agree with the spellings crowd.h documents. */
#include <math.h>
#include <stdlib.h>

#include "test_support.h"

/* A rig with only `ctl`, its desc at the defaults, then `mutate` applied to the desc. */
typedef struct one_rig {
    crowd_look_desc look;
    crowd_harmonic_desc harmonic;
    crowd_blink_desc blink;
    crowd_limbs_desc limbs;
    crowd_face_desc face;
    crowd_physics_desc physics;
    crowd_lipsync_desc lipsync;
    crowd_pose_desc pose;
    crowd_expression_desc expression;
    crowd_fingers_desc fingers;
    crowd_motion_desc motion;
    crowd_rig_desc rig;
} one_rig;

static void *one_rig_make(one_rig *o, crowd_controller ctl) {
    memset(o, 0, sizeof *o);
    o->look = crowd_look_defaults();
    o->harmonic = crowd_harmonic_defaults();
    o->blink = crowd_blink_defaults();
    o->limbs = crowd_limbs_defaults();
    o->face = crowd_face_defaults();
    o->face.mapping = NULL, o->face.mapping_count = 0; /* no parameters to map onto */
    o->physics = crowd_physics_defaults(); /* no sub-rigs: the settings alone */
    o->lipsync = crowd_lipsync_defaults();
    o->pose = crowd_pose_defaults();
    o->expression = crowd_expression_defaults();
    o->fingers = crowd_fingers_defaults();
    o->motion = crowd_motion_defaults();
    o->rig = crowd_rig_defaults();
    switch (ctl) {
    case CROWD_CONTROLLER_LOOK: o->rig.look = &o->look; return &o->look;
    case CROWD_CONTROLLER_HARMONIC: o->rig.harmonic = &o->harmonic; return &o->harmonic;
    case CROWD_CONTROLLER_BLINK: o->rig.blink = &o->blink; return &o->blink;
    case CROWD_CONTROLLER_LIMBS: o->rig.limbs = &o->limbs; return &o->limbs;
    case CROWD_CONTROLLER_PHYSICS: o->rig.physics = &o->physics; return &o->physics;
    case CROWD_CONTROLLER_LIPSYNC: o->rig.lipsync = &o->lipsync; return &o->lipsync;
    case CROWD_CONTROLLER_POSE: o->rig.pose = &o->pose; return &o->pose;
    case CROWD_CONTROLLER_EXPRESSION: o->rig.expression = &o->expression; return &o->expression;
    case CROWD_CONTROLLER_FINGERS: o->rig.fingers = &o->fingers; return &o->fingers;
    case CROWD_CONTROLLER_MOTION: o->rig.motion = &o->motion; return &o->motion;
    default: o->rig.face = &o->face; return &o->face;
    }
}

/* The desc with one float of setting s set to v is refused with `code` (or `also`), the
 * message naming it. */
static void expect_refused(crowd_engine *e, crowd_controller ctl, const crowd_setting *s, float v, crowd_result code,
                           crowd_result also) {
    one_rig o;
    char *desc = one_rig_make(&o, ctl);
    memcpy(desc + s->offset, &v, sizeof v);
    crowd_rig rig;
    crowd_result r = crowd_rig_create(e, &o.rig, &rig);
    char field[96];
    snprintf(field, sizeof field, "desc->%s->%s", crowd_controller_name(ctl), s->name);
    if ((r != code && r != also) || !strstr(crowd_last_error(e), field))
        FAILF("%s = %g: %s (%s), want %s naming %s", field, (double)v, rname(r), crowd_last_error(e), rname(code), field);
}

/* Each float setting: NaN and a value just past each finite bound are refused; the default
 * (what the table says) is the desc's default. */
static void test_settings_bounds(void **state) {
    (void)state;
    crowd_engine *e = crowd_test_engine(1);
    uint32_t floats = 0;
    for (int c = 0; c < CROWD_CONTROLLER_COUNT; c++) {
        const crowd_controller ctl = (crowd_controller)c;
        if (crowd_setting_count(ctl) == 0) FAILF("%s has no settings", crowd_controller_name(ctl));
        for (uint32_t k = 0; k < crowd_setting_count(ctl); k++) {
            crowd_setting s;
            OK(e, crowd_setting_info(ctl, k, &s));
            if (!s.name || !s.doc || !s.unit || s.doc[0] == 0) FAILF("%s setting %u is not described", crowd_controller_name(ctl), k);
            one_rig o;
            const char *desc = one_rig_make(&o, ctl);
            if (s.type == CROWD_SETTING_ENUM) {
                int v;
                memcpy(&v, desc + s.offset, sizeof v);
                if (v != (int)s.default_value) FAILF("%s.%s: default %d, the table says %g", crowd_controller_name(ctl), s.name, v, s.default_value);
                if (!s.value_names || strcmp(s.value_names[0], "") == 0) FAILF("%s.%s: no value names", crowd_controller_name(ctl), s.name);
                continue;
            }
            if (s.type != CROWD_SETTING_FLOAT) continue;
            floats++;
            float d;
            memcpy(&d, desc + s.offset, sizeof d);
            if (d != (float)s.default_value)
                FAILF("%s.%s: crowd defaults %g, the table says %g", crowd_controller_name(ctl), s.name, (double)d, s.default_value);
            /* NaN: not finite, or out of range where the value is a choice (fallback_sign: +-1) */
            expect_refused(e, ctl, &s, NAN, CROWD_ERR_NOT_FINITE, CROWD_ERR_RANGE);
            const float lo = (float)s.min, hi = (float)s.max;
            expect_refused(e, ctl, &s, s.min_open ? lo : nextafterf(lo, -INFINITY), CROWD_ERR_RANGE, CROWD_ERR_RANGE);
            if (s.max != INFINITY) expect_refused(e, ctl, &s, s.max_open ? hi : nextafterf(hi, INFINITY), CROWD_ERR_RANGE, CROWD_ERR_RANGE);
        }
    }
    if (floats < 15) FAILF("only %u float settings described", floats);
    crowd_setting s;
    assert_int_equal(crowd_setting_info(CROWD_CONTROLLER_COUNT, 0, &s), CROWD_ERR_BAD_ENUM);
    assert_int_equal(crowd_setting_info(CROWD_CONTROLLER_BLINK, crowd_setting_count(CROWD_CONTROLLER_BLINK), &s), CROWD_ERR_RANGE);
    assert_int_equal(crowd_setting_info(CROWD_CONTROLLER_BLINK, 0, NULL), CROWD_ERR_NULL);
    assert_int_equal(crowd_setting_count(CROWD_CONTROLLER_COUNT), 0);
    crowd_engine_destroy(e);
}

/* The spellings crowd.h documents, and name/parse agreeing on every value of every enum. */
#define ROUND_TRIP(stem, type, count)                                                                         \
    for (int k = 0; k < (int)(count); k++) {                                                                  \
        const char *n = crowd_##stem##_name((type)k);                                                         \
        type back;                                                                                            \
        if (!n || crowd_##stem##_parse(n, &back) != CROWD_OK || (int)back != k)                               \
            FAILF(#stem " value %d: name %s does not parse back", k, n ? n : "NULL");                         \
    }                                                                                                         \
    if (crowd_##stem##_name((type)(count)) != NULL) FAILF(#stem ": a name past the last value");              \
    {                                                                                                         \
        type none;                                                                                            \
        assert_int_equal(crowd_##stem##_parse("no such value", &none), CROWD_ERR_UNKNOWN_ID);                 \
        assert_int_equal(crowd_##stem##_parse(NULL, &none), CROWD_ERR_NULL);                                  \
    }

static void test_enum_names(void **state) {
    (void)state;
    ROUND_TRIP(blend, crowd_blend, CROWD_BLEND_COUNT)
    ROUND_TRIP(axis, crowd_axis, CROWD_AXIS_COUNT)
    ROUND_TRIP(direction, crowd_direction, CROWD_DIRECTION_COUNT)
    ROUND_TRIP(blink_model, crowd_blink_model, CROWD_BLINK_MODEL_COUNT)
    ROUND_TRIP(pose_frame, crowd_pose_frame, CROWD_FRAME_COUNT)
    ROUND_TRIP(axis_fix, crowd_axis_fix, CROWD_AXIS_FIX_COUNT)
    ROUND_TRIP(limb_fallback, crowd_limb_fallback, CROWD_FALLBACK_COUNT)
    ROUND_TRIP(limb, crowd_limb, CROWD_LIMB_COUNT)
    ROUND_TRIP(limb_outputs, crowd_limb_outputs, CROWD_LIMB_OUTPUTS_COUNT)
    ROUND_TRIP(face_curve, crowd_face_curve, CROWD_FACE_CURVE_COUNT)
    ROUND_TRIP(blink_start, crowd_blink_start, CROWD_BLINK_START_COUNT)
    ROUND_TRIP(harmonic_phase, crowd_harmonic_phase, CROWD_HARMONIC_PHASE_COUNT)
    ROUND_TRIP(controller, crowd_controller, CROWD_CONTROLLER_COUNT)
    ROUND_TRIP(setting_type, crowd_setting_type, CROWD_SETTING_TYPE_COUNT)
    ROUND_TRIP(bone, crowd_bone, CROWD_BONE_COUNT)
    ROUND_TRIP(face_source, crowd_face_source, CROWD_FACE_SOURCE_COUNT)
    ROUND_TRIP(field, crowd_field, CROWD_FIELD_COUNT)
    /* crowd_simd_name names AUTO too */
    ROUND_TRIP(simd, crowd_simd, CROWD_SIMD_COUNT)
    static const char *const want[] = {"stable", "root", "previous", "additive", "mediapipe_world",
                                       "smoothstep", "cubism", "CROWD_ERR_RANGE", "limbs", "left_leg"};
    const char *got[] = {crowd_limb_fallback_name(CROWD_FALLBACK_STABLE), crowd_limb_fallback_name(CROWD_FALLBACK_ROOT),
                         crowd_limb_fallback_name(CROWD_FALLBACK_PREVIOUS), crowd_blend_name(CROWD_BLEND_ADDITIVE),
                         crowd_pose_frame_name(CROWD_FRAME_MEDIAPIPE_WORLD), crowd_face_curve_name(CROWD_FACE_CURVE_SMOOTHSTEP),
                         crowd_blink_start_name(CROWD_BLINK_START_CUBISM), crowd_result_name(CROWD_ERR_RANGE),
                         crowd_controller_name(CROWD_CONTROLLER_LIMBS), crowd_limb_name(CROWD_LIMB_LEFT_LEG)};
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++)
        if (!got[k] || strcmp(got[k], want[k]) != 0) FAILF("got %s, want %s", got[k] ? got[k] : "NULL", want[k]);
    assert_null(crowd_result_name(CROWD_RESULT_COUNT));
}

int main(int argc, char **argv) {
    crowd_test_target(argc, argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_settings_bounds),
        cmocka_unit_test(test_enum_names),
    };
    return CROWD_TEST_GROUP("settings", tests) ? 1 : 0;
}
