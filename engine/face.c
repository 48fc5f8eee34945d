/* Face tracking (crowd.h section 11): the standard mapping, source names, the matrix to
 * quaternion helper, validation, build, columns, field rules and snapshot settings. The
 * stage itself is kernels/face.h. */
#include <math.h>
#include <string.h>

#include "internal.h"

static const char *const source_names[CROWD_FACE_SOURCE_COUNT] = {
    "_neutral", "browDownLeft", "browDownRight", "browInnerUp", "browOuterUpLeft", "browOuterUpRight",
    "cheekPuff", "cheekSquintLeft", "cheekSquintRight", "eyeBlinkLeft", "eyeBlinkRight", "eyeLookDownLeft",
    "eyeLookDownRight", "eyeLookInLeft", "eyeLookInRight", "eyeLookOutLeft", "eyeLookOutRight", "eyeLookUpLeft",
    "eyeLookUpRight", "eyeSquintLeft", "eyeSquintRight", "eyeWideLeft", "eyeWideRight", "jawForward", "jawLeft",
    "jawOpen", "jawRight", "mouthClose", "mouthDimpleLeft", "mouthDimpleRight", "mouthFrownLeft", "mouthFrownRight",
    "mouthFunnel", "mouthLeft", "mouthLowerDownLeft", "mouthLowerDownRight", "mouthPressLeft", "mouthPressRight",
    "mouthPucker", "mouthRight", "mouthRollLower", "mouthRollUpper", "mouthShrugLower", "mouthShrugUpper",
    "mouthSmileLeft", "mouthSmileRight", "mouthStretchLeft", "mouthStretchRight", "mouthUpperUpLeft",
    "mouthUpperUpRight", "noseSneerLeft", "noseSneerRight", "headYaw", "headPitch", "headRoll"};

const char *crowd_face_source_name(crowd_face_source source) {
    return (unsigned)source < CROWD_FACE_SOURCE_COUNT ? source_names[source] : NULL;
}

#define LIN CROWD_FACE_CURVE_LINEAR
static const crowd_face_mapping_desc standard_mapping[CROWD_FACE_STANDARD_MAPPING_COUNT] = {
    {CROWD_FACE_HEAD_YAW, "ParamAngleX", 1.0f, 0.0f, LIN},
    {CROWD_FACE_HEAD_PITCH, "ParamAngleY", 1.0f, 0.0f, LIN},
    {CROWD_FACE_HEAD_ROLL, "ParamAngleZ", 1.0f, 0.0f, LIN},
    {CROWD_FACE_EYE_BLINK_LEFT, "ParamEyeLOpen", -1.0f, 1.0f, LIN},
    {CROWD_FACE_EYE_BLINK_RIGHT, "ParamEyeROpen", -1.0f, 1.0f, LIN},
    {CROWD_FACE_EYE_LOOK_OUT_LEFT, "ParamEyeBallX", 0.5f, 0.0f, LIN},
    {CROWD_FACE_EYE_LOOK_IN_LEFT, "ParamEyeBallX", -0.5f, 0.0f, LIN},
    {CROWD_FACE_EYE_LOOK_IN_RIGHT, "ParamEyeBallX", 0.5f, 0.0f, LIN},
    {CROWD_FACE_EYE_LOOK_OUT_RIGHT, "ParamEyeBallX", -0.5f, 0.0f, LIN},
    {CROWD_FACE_EYE_LOOK_UP_LEFT, "ParamEyeBallY", 0.5f, 0.0f, LIN},
    {CROWD_FACE_EYE_LOOK_UP_RIGHT, "ParamEyeBallY", 0.5f, 0.0f, LIN},
    {CROWD_FACE_EYE_LOOK_DOWN_LEFT, "ParamEyeBallY", -0.5f, 0.0f, LIN},
    {CROWD_FACE_EYE_LOOK_DOWN_RIGHT, "ParamEyeBallY", -0.5f, 0.0f, LIN},
    {CROWD_FACE_JAW_OPEN, "ParamMouthOpenY", 1.0f, 0.0f, LIN},
    {CROWD_FACE_MOUTH_SMILE_LEFT, "ParamMouthForm", 0.5f, 0.0f, LIN},
    {CROWD_FACE_MOUTH_SMILE_RIGHT, "ParamMouthForm", 0.5f, 0.0f, LIN},
    {CROWD_FACE_BROW_INNER_UP, "ParamBrowLY", 1.0f, 0.0f, LIN},
    {CROWD_FACE_BROW_DOWN_LEFT, "ParamBrowLY", -1.0f, 0.0f, LIN},
    {CROWD_FACE_BROW_INNER_UP, "ParamBrowRY", 1.0f, 0.0f, LIN},
    {CROWD_FACE_BROW_DOWN_RIGHT, "ParamBrowRY", -1.0f, 0.0f, LIN},
};
#undef LIN
_Static_assert(sizeof standard_mapping / sizeof standard_mapping[0] == CROWD_FACE_STANDARD_MAPPING_COUNT,
               "CROWD_FACE_STANDARD_MAPPING_COUNT");

const crowd_face_mapping_desc *crowd_face_standard_mapping(void) { return standard_mapping; }

crowd_face_desc crowd_face_defaults(void) {
    return (crowd_face_desc){.mapping = standard_mapping, .mapping_count = CROWD_FACE_STANDARD_MAPPING_COUNT,
                             .blend = CROWD_BLEND_OVERRIDE, .presence_threshold = 0.5f, .handoff_half_life = 0.1f,
                             .smoothed_sources = 0, .min_cutoff = 1.0f, .beta = 0.0f, .d_cutoff = 1.0f};
}

/* ---- the matrix's rotation ---- */
crowd_result crowd_face_rotation_from_matrix(const float m[16], crowd_quat *out) {
    if (!m || !out) return CROWD_ERR_NULL;
    for (int k = 0; k < 16; k++)
        if (!crowdi_finite(m[k])) return CROWD_ERR_NOT_FINITE;
    /* column-major: column c is m[4c .. 4c+2]; R[r][c] = m[4c + r] */
    double R[3][3], len[3];
    for (int c = 0; c < 3; c++) {
        len[c] = sqrt((double)m[4 * c] * m[4 * c] + (double)m[4 * c + 1] * m[4 * c + 1] + (double)m[4 * c + 2] * m[4 * c + 2]);
        if (!(len[c] > 1e-12)) return CROWD_ERR_RANGE;
        for (int r = 0; r < 3; r++) R[r][c] = m[4 * c + r] / len[c];
    }
    for (int c = 1; c < 3; c++)
        if (fabs(len[c] - len[0]) > 1e-3 * len[0]) return CROWD_ERR_RANGE;
    for (int a = 0; a < 3; a++)
        for (int b = a + 1; b < 3; b++)
            if (fabs(R[0][a] * R[0][b] + R[1][a] * R[1][b] + R[2][a] * R[2][b]) > 1e-3) return CROWD_ERR_RANGE;
    double det = R[0][0] * (R[1][1] * R[2][2] - R[1][2] * R[2][1]) - R[0][1] * (R[1][0] * R[2][2] - R[1][2] * R[2][0]) +
                 R[0][2] * (R[1][0] * R[2][1] - R[1][1] * R[2][0]);
    if (!(det > 0)) return CROWD_ERR_RANGE;
    /* Shepperd: the largest of the four diagonal combinations keeps the division well away from 0 */
    double q[4], tr = R[0][0] + R[1][1] + R[2][2];
    if (tr > R[0][0] && tr > R[1][1] && tr > R[2][2]) {
        double s = 2.0 * sqrt(1.0 + tr);
        q[3] = 0.25 * s, q[0] = (R[2][1] - R[1][2]) / s, q[1] = (R[0][2] - R[2][0]) / s, q[2] = (R[1][0] - R[0][1]) / s;
    } else if (R[0][0] >= R[1][1] && R[0][0] >= R[2][2]) {
        double s = 2.0 * sqrt(1.0 + R[0][0] - R[1][1] - R[2][2]);
        q[3] = (R[2][1] - R[1][2]) / s, q[0] = 0.25 * s, q[1] = (R[0][1] + R[1][0]) / s, q[2] = (R[0][2] + R[2][0]) / s;
    } else if (R[1][1] >= R[2][2]) {
        double s = 2.0 * sqrt(1.0 + R[1][1] - R[0][0] - R[2][2]);
        q[3] = (R[0][2] - R[2][0]) / s, q[0] = (R[0][1] + R[1][0]) / s, q[1] = 0.25 * s, q[2] = (R[1][2] + R[2][1]) / s;
    } else {
        double s = 2.0 * sqrt(1.0 + R[2][2] - R[0][0] - R[1][1]);
        q[3] = (R[1][0] - R[0][1]) / s, q[0] = (R[0][2] + R[2][0]) / s, q[1] = (R[1][2] + R[2][1]) / s, q[2] = 0.25 * s;
    }
    double n = sqrt(q[0] * q[0] + q[1] * q[1] + q[2] * q[2] + q[3] * q[3]), sign = q[3] < 0 ? -1.0 : 1.0;
    *out = (crowd_quat){(float)(sign * q[0] / n), (float)(sign * q[1] / n), (float)(sign * q[2] / n), (float)(sign * q[3] / n)};
    return CROWD_OK;
}

/* ---- validation ---- */
#define FACE_FAIL(code, ...) return crowdi_fail(engine, code, "crowd_rig_create: desc->face" __VA_ARGS__)
#define FACE_CHECK(cond, code, ...) do { if (!(cond)) FACE_FAIL(code, __VA_ARGS__); } while (0)

static crowd_result check_bounded(crowd_engine *engine, const char *name, float v, float lo, float hi, bool open_lo) {
    FACE_CHECK(crowdi_finite(v), CROWD_ERR_NOT_FINITE, "->%s is not finite", name);
    FACE_CHECK(open_lo ? v > lo : v >= lo, CROWD_ERR_RANGE, "->%s (%g) must be in %s%g, %g]", name, (double)v,
               open_lo ? "(" : "[", (double)lo, (double)hi);
    FACE_CHECK(v <= hi, CROWD_ERR_RANGE, "->%s (%g) must be in %s%g, %g]", name, (double)v, open_lo ? "(" : "[",
               (double)lo, (double)hi);
    return CROWD_OK;
}

crowd_result crowdi_face_validate(crowd_engine *engine, const crowd_face_desc *d, crowdi_find_param find,
                                  const void *ids) {
    crowd_result res;
    FACE_CHECK(d->mapping_count <= CROWD_MAX_ENTRIES, CROWD_ERR_CAPACITY, "->mapping_count (%u) exceeds %u",
               d->mapping_count, CROWD_MAX_ENTRIES);
    FACE_CHECK(d->mapping_count == 0 || d->mapping, CROWD_ERR_NULL, "->mapping is NULL with mapping_count %u",
               d->mapping_count);
    FACE_CHECK((unsigned)d->blend < CROWD_BLEND_COUNT, CROWD_ERR_BAD_ENUM, "->blend (%d) is not a crowd_blend", (int)d->blend);
    if ((res = check_bounded(engine, "presence_threshold", d->presence_threshold, 0.0f, 1.0f, false)) != CROWD_OK) return res;
    if ((res = check_bounded(engine, "handoff_half_life", d->handoff_half_life, 0.0f, 3600.0f, true)) != CROWD_OK) return res;
    if ((res = check_bounded(engine, "min_cutoff", d->min_cutoff, 0.0f, CROWDI_MAX_SECONDS, true)) != CROWD_OK) return res;
    if ((res = check_bounded(engine, "beta", d->beta, 0.0f, CROWDI_MAX_SECONDS, false)) != CROWD_OK) return res;
    if ((res = check_bounded(engine, "d_cutoff", d->d_cutoff, 0.0f, CROWDI_MAX_SECONDS, true)) != CROWD_OK) return res;
    FACE_CHECK((d->smoothed_sources >> CROWD_FACE_SOURCE_COUNT) == 0, CROWD_ERR_RANGE,
               "->smoothed_sources (0x%llx) has bits beyond source %d", (unsigned long long)d->smoothed_sources,
               CROWD_FACE_SOURCE_COUNT - 1);
    for (uint32_t k = 0; k < d->mapping_count; k++) {
        const crowd_face_mapping_desc *m = &d->mapping[k];
        FACE_CHECK((unsigned)m->source < CROWD_FACE_SOURCE_COUNT, CROWD_ERR_BAD_ENUM,
                   "->mapping[%u].source (%d) is not a crowd_face_source", k, (int)m->source);
        FACE_CHECK(m->id != NULL, CROWD_ERR_NULL, "->mapping[%u].id is NULL", k);
        FACE_CHECK(find(ids, m->id) >= 0, CROWD_ERR_UNKNOWN_ID, "->mapping[%u].id \"%s\" is not a parameter of the rig",
                   k, m->id);
        FACE_CHECK(crowdi_finite(m->gain), CROWD_ERR_NOT_FINITE, "->mapping[%u].gain is not finite", k);
        FACE_CHECK(fabsf(m->gain) <= CROWDI_MAX_FACTOR, CROWD_ERR_RANGE, "->mapping[%u].gain (%g) must be within +-1e6",
                   k, (double)m->gain);
        FACE_CHECK(crowdi_finite(m->offset), CROWD_ERR_NOT_FINITE, "->mapping[%u].offset is not finite", k);
        FACE_CHECK(fabsf(m->offset) <= CROWDI_MAX_FACTOR, CROWD_ERR_RANGE,
                   "->mapping[%u].offset (%g) must be within +-1e6", k, (double)m->offset);
        FACE_CHECK((unsigned)m->curve < CROWD_FACE_CURVE_COUNT, CROWD_ERR_BAD_ENUM,
                   "->mapping[%u].curve (%d) is not linear or smoothstep", k, (int)m->curve);
    }
    return CROWD_OK;
}

/* ---- build ---- */
crowd_result crowdi_face_build(crowd_engine *engine, const crowd_face_desc *d, crowdi_find_param find, const void *ids,
                               const uint32_t *blink_params, uint32_t blink_count, uint32_t param_count, crowdi_face *f) {
    const uint32_t n = d->mapping_count;
    memset(f, 0, sizeof *f);
    f->blend = d->blend == CROWD_BLEND_DEFAULT ? CROWDI_BLEND_OVERRIDE : (uint32_t)d->blend;
    f->threshold = d->presence_threshold;
    f->half_life = d->handoff_half_life;
    f->smoothed_mask = d->smoothed_sources;
    f->min_cutoff = d->min_cutoff;
    f->beta = d->beta;
    f->d_cutoff = d->d_cutoff;
    f->mapping_count = n;
    f->mapping = crowdi_alloc(engine, sizeof *f->mapping * (n ? n : 1));
    f->entries = crowdi_alloc(engine, sizeof *f->entries * (n ? n : 1));
    f->targets = crowdi_alloc(engine, sizeof *f->targets * (n ? n : 1));
    /* a parameter's target slot + 1, and whether it is a blink parameter */
    uint32_t *slot = crowdi_alloc(engine, sizeof *slot * (param_count ? param_count : 1));
    uint8_t *blink = crowdi_alloc(engine, param_count ? param_count : 1);
    if (!f->mapping || !f->entries || !f->targets || !slot || !blink) {
        crowdi_free(engine, slot);
        crowdi_free(engine, blink);
        return CROWD_ERR_OUT_OF_MEMORY;
    }
    memset(slot, 0, sizeof *slot * param_count);
    memset(blink, 0, param_count);
    for (uint32_t k = 0; k < blink_count; k++) blink[blink_params[k]] = 1;
    /* targets in the order their parameters first appear; entries grouped by target, in the
     * order given within each */
    uint32_t targets = 0;
    for (uint32_t k = 0; k < n; k++) {
        const crowd_face_mapping_desc *m = &d->mapping[k];
        uint32_t p = (uint32_t)find(ids, m->id);
        f->mapping[k] = (crowdi_face_mapping){(uint32_t)m->source, p, m->gain, m->offset, (uint32_t)m->curve};
        if (!slot[p]) {
            slot[p] = ++targets;
            f->targets[targets - 1] = (crowdi_face_target){p, blink[p] ? CROWDI_BLEND_OVERRIDE : f->blend, 0, 0};
        }
        f->targets[slot[p] - 1].count++;
    }
    for (uint32_t t = 0, first = 0; t < targets; t++) {
        f->targets[t].first = first;
        first += f->targets[t].count;
        f->targets[t].count = 0;
    }
    for (uint32_t k = 0; k < n; k++) {
        crowdi_face_target *t = &f->targets[slot[f->mapping[k].param] - 1];
        f->entries[t->first + t->count++] =
            (crowdi_face_entry){f->mapping[k].source, f->mapping[k].curve, f->mapping[k].gain, f->mapping[k].offset};
    }
    crowdi_free(engine, slot);
    crowdi_free(engine, blink);
    f->target_count = targets;
    bool used[CROWD_FACE_SOURCE_COUNT] = {false};
    for (uint32_t k = 0; k < n; k++) used[f->mapping[k].source] = true;
    for (uint32_t s = 0; s < CROWD_FACE_SOURCE_COUNT; s++) {
        if (used[s]) f->used[f->used_count++] = s;
        if (used[s] && s >= CROWDI_FACE_HEAD) f->need_head = 1;
        /* only a source some entry reads is filtered: the others would filter for nobody */
        if (used[s] && (d->smoothed_sources & CROWD_FACE_SOURCE_BIT(s))) f->smoothed[f->smoothed_count++] = s;
    }
    return CROWD_OK;
}

void crowdi_face_free(crowd_engine *engine, crowdi_face *f) {
    crowdi_free(engine, f->mapping);
    crowdi_free(engine, f->entries);
    crowdi_free(engine, f->targets);
    memset(f, 0, sizeof *f);
}

uint32_t crowdi_face_columns(const crowdi_face *f) {
    return CROWDI_FACE_COL_FILTER + (f->smoothed_count ? 3 * f->smoothed_count + 1 : 0);
}

/* start values: identity rotation, weight 1, everything else 0 */
float crowdi_face_initial(const crowdi_face *f, uint32_t column) {
    (void)f;
    return column == CROWDI_FACE_COL_ROT + 3 || column == CROWDI_FACE_COL_WEIGHT ? 1.0f : 0.0f;
}

void crowdi_face_view_fill(const crowdi_face *f, float *first_column, size_t stride, crowdi_face_view *v) {
    *v = (crowdi_face_view){
        .enabled = 1, .target_count = f->target_count, .used_count = f->used_count,
        .smoothed_count = f->smoothed_count, .need_head = f->need_head, .targets = f->targets,
        .entries = f->entries, .used = f->used, .smoothed = f->smoothed, .threshold = f->threshold,
        .half_life = f->half_life, .min_cutoff = f->min_cutoff, .beta = f->beta, .d_cutoff = f->d_cutoff,
        .stride = stride, .cols = first_column};
}
