/* The face tracking controller (crowd.h section 11), order 500: the standard mapping, source
 * names, the matrix to quaternion helper, and the controller's hooks (validation, build,
 * columns, start values, view, snapshot settings and loaded-row checks). The stage is
 * kernels/face.h's cvk_face. */
#include <math.h>
#include <string.h>

#include "internal.h"
#include "kernels/blink.h"
#include "kernels/face.h"
#include "serial.h"
#include "settings.h"

/* Its own public enums' names, name and parse functions (names.h). */
CROWDI_ENUM_NAMES_DEFINE(face_curve, crowd_face_curve, CROWD_FACE_CURVE_COUNT, "linear", "smoothstep")

typedef struct face_mapping {
    uint32_t source, param;
    float gain, offset;
    uint32_t curve;
} face_mapping;

/* face tracking's part of a rig: its view (the settings the stage reads) and the mapping as
 * given, for snapshots */
typedef struct face_part {
    crowdi_face_view view;
    uint32_t blend, mapping_count;
    uint64_t smoothed_mask;
    face_mapping *mapping; /* as given, parameters as indices */
    crowdi_face_entry *entries; /* grouped by target */
    crowdi_face_target *targets;
    uint32_t used[CROWDI_FACE_SOURCES], smoothed[CROWDI_FACE_SOURCES];
} face_part;
#define FACE(r) CROWDI_PART(r, FACE, face_part)

/* The settings, in snapshot order (blend kept with its default resolved); the mapping follows
 * them in the snapshot. */
static const crowdi_setting face_settings_table[] = {
    CROWDI_ENUM_SETTING(crowd_face_desc, face_part, blend, blend, CROWD_BLEND_OVERRIDE, blend, CROWD_BLEND_COUNT,
                        "how the mapping blends (a blink parameter always with override)"),
    CROWDI_FLOAT_SETTING(crowd_face_desc, face_part, view.threshold, presence_threshold, 0.5, 0, false, 1, false, "",
                         "the face drives while presence is above this"),
    CROWDI_FLOAT_SETTING(crowd_face_desc, face_part, view.half_life, handoff_half_life, 0.1, 0, true, 3600, false, "s",
                         "control eases halfway between the face and the automatic controllers in this time"),
    CROWDI_BITS64_SETTING(crowd_face_desc, face_part, smoothed_mask, smoothed_sources, CROWD_FACE_SOURCE_COUNT,
                          "CROWD_FACE_SOURCE_BIT(s) of each source the One Euro filter smooths"),
    CROWDI_FLOAT_SETTING(crowd_face_desc, face_part, view.min_cutoff, min_cutoff, 1, 0, true, CROWDI_MAX_SECONDS, false,
                         "Hz", "One Euro's minimum cutoff"),
    CROWDI_FLOAT_SETTING(crowd_face_desc, face_part, view.beta, beta, 0, 0, false, CROWDI_MAX_SECONDS, false, "",
                         "One Euro's speed coefficient"),
    CROWDI_FLOAT_SETTING(crowd_face_desc, face_part, view.d_cutoff, d_cutoff, 1, 0, true, CROWDI_MAX_SECONDS, false, "Hz",
                         "One Euro's derivative cutoff"),
};
#define FACE_SETTINGS (uint32_t)(sizeof face_settings_table / sizeof face_settings_table[0])

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

crowd_face_mapping_desc crowd_face_mapping_defaults(crowd_face_source source, const char *id) {
    return (crowd_face_mapping_desc){.source = source, .id = id, .gain = 1.0f, .offset = 0.0f,
                                     .curve = CROWD_FACE_CURVE_LINEAR};
}

crowd_face_desc crowd_face_defaults(void) {
    crowd_face_desc d = {.mapping = standard_mapping, .mapping_count = CROWD_FACE_STANDARD_MAPPING_COUNT};
    crowdi_settings_defaults(face_settings_table, FACE_SETTINGS, &d);
    return d;
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
#define FACE_CHECK(cond, code, ...) CROWDI_RIG_CHECK(cond, code, "desc->face" __VA_ARGS__)

static bool face_present(const crowd_rig_desc *d) { return d->face != NULL; }

/* ids NULL: the entry count only (before the parameters are checked) */
static crowd_result face_validate(crowd_engine *engine, const crowd_rig_desc *desc, const crowdi_ids *ids) {
    const crowd_face_desc *d = desc->face;
    crowd_result res;
    FACE_CHECK(d->mapping_count <= CROWD_MAX_ENTRIES, CROWD_ERR_CAPACITY, "->mapping_count (%u) exceeds %u",
               d->mapping_count, CROWD_MAX_ENTRIES);
    if (!ids) return CROWD_OK;
    FACE_CHECK(d->mapping_count == 0 || d->mapping, CROWD_ERR_NULL, "->mapping is NULL with mapping_count %u",
               d->mapping_count);
    if ((res = crowdi_settings_check(engine, CROWDI_CTL_FACE, face_settings_table, FACE_SETTINGS, d)) != CROWD_OK) return res;
    for (uint32_t k = 0; k < d->mapping_count; k++) {
        const crowd_face_mapping_desc *m = &d->mapping[k];
        FACE_CHECK((unsigned)m->source < CROWD_FACE_SOURCE_COUNT, CROWD_ERR_BAD_ENUM,
                   "->mapping[%u].source (%d) is not a crowd_face_source", k, (int)m->source);
        if ((res = crowdi_rig_param_id(engine, ids, "desc->face->mapping[%u].id", k, m->id, NULL)) != CROWD_OK) return res;
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
/* Runs after blink's (the table's order): a parameter blink drives blends with override. */
static crowd_result face_build(crowd_engine *engine, const crowd_rig_desc *desc, const crowdi_ids *ids, crowdi_rig *r) {
    const crowd_face_desc *d = desc->face;
    face_part *f = FACE(r);
    crowdi_face_view *v = &f->view;
    const uint32_t n = d->mapping_count, P = r->param_count;
    f->blend = crowdi_blend_or(d->blend, CROWDI_BLEND_OVERRIDE);
    v->threshold = d->presence_threshold;
    v->half_life = d->handoff_half_life;
    f->smoothed_mask = d->smoothed_sources;
    v->min_cutoff = d->min_cutoff;
    v->beta = d->beta;
    v->d_cutoff = d->d_cutoff;
    f->mapping_count = n;
    f->mapping = crowdi_alloc(engine, sizeof *f->mapping * (n ? n : 1));
    f->entries = crowdi_alloc(engine, sizeof *f->entries * (n ? n : 1));
    f->targets = crowdi_alloc(engine, sizeof *f->targets * (n ? n : 1));
    /* per parameter: its target slot + 1, and whether blink drives it */
    uint32_t *slot = crowdi_alloc(engine, sizeof *slot * (P ? P : 1));
    uint8_t *blink = crowdi_alloc(engine, P ? P : 1);
    crowd_result res = CROWD_OK;
    if (!f->mapping || !f->entries || !f->targets || !slot || !blink) {
        res = CROWD_ERR_OUT_OF_MEMORY;
        goto done;
    }
    memset(slot, 0, sizeof *slot * P);
    memset(blink, 0, P);
    const crowdi_blink_view *bv = CROWDI_PART(r, BLINK, crowdi_blink_view);
    if (bv)
        for (uint32_t k = 0; k < bv->count; k++) blink[bv->param[k]] = 1;
    /* targets in the order their parameters first appear; entries grouped by target, in the
     * order given within each */
    uint32_t targets = 0;
    for (uint32_t k = 0; k < n; k++) {
        const crowd_face_mapping_desc *m = &d->mapping[k];
        uint32_t p = (uint32_t)crowdi_ids_find(ids, m->id);
        f->mapping[k] = (face_mapping){(uint32_t)m->source, p, m->gain, m->offset, (uint32_t)m->curve};
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
    v->target_count = targets;
    bool used[CROWD_FACE_SOURCE_COUNT] = {false};
    for (uint32_t k = 0; k < n; k++) used[f->mapping[k].source] = true;
    for (uint32_t s = 0; s < CROWD_FACE_SOURCE_COUNT; s++) {
        if (used[s]) f->used[v->used_count++] = s;
        if (used[s] && s >= CROWDI_FACE_HEAD) v->need_head = 1;
        /* only a source some entry reads is filtered: the others would filter for nobody */
        if (used[s] && (d->smoothed_sources & CROWD_FACE_SOURCE_BIT(s))) f->smoothed[v->smoothed_count++] = s;
    }
    v->targets = f->targets, v->entries = f->entries, v->used = f->used, v->smoothed = f->smoothed;
done:
    crowdi_free(engine, slot);
    crowdi_free(engine, blink);
    return res;
}

static void face_free(crowd_engine *engine, crowdi_rig *r) {
    face_part *f = FACE(r);
    crowdi_free(engine, f->mapping);
    crowdi_free(engine, f->entries);
    crowdi_free(engine, f->targets);
}

/* ---- storage ---- */
/* scores, rotation, presence, weight, control, then the filter state (kernels/face.h): one
 * contiguous group the stage walks by stride */
static uint32_t face_layout(crowdi_rig *r, uint32_t first) {
    (void)first;
    const uint32_t smoothed = FACE(r)->view.smoothed_count;
    return CROWDI_FACE_COL_FILTER + (smoothed ? 3 * smoothed + 1 : 0);
}

/* identity rotation, weight 1, everything else 0 (no face yet, control with the automatic
 * controllers, no filter sample) */
static void face_init_bits(const crowdi_rig *r, uint32_t *bits) {
    bits[r->col[CROWDI_CTL_FACE] + CROWDI_FACE_COL_ROT + 3] = crowdi_bits(1.0f);
    bits[r->col[CROWDI_CTL_FACE] + CROWDI_FACE_COL_WEIGHT] = crowdi_bits(1.0f);
}

static void face_point(crowdi_rig *r) {
    crowdi_face_view *v = &FACE(r)->view;
    v->stride = r->capacity;
    v->cols = r->columns[r->col[CROWDI_CTL_FACE]];
}

/* ---- snapshots ---- */
static void face_write(crowdi_writer *w, const crowdi_rig *r) {
    const face_part *f = FACE(r);
    crowdi_settings_write(w, face_settings_table, 0, FACE_SETTINGS, f);
    crowdi_w_u32(w, f->mapping_count);
    for (uint32_t k = 0; k < f->mapping_count; k++) {
        crowdi_w_u32(w, f->mapping[k].source);
        crowdi_w_u32(w, f->mapping[k].param);
        crowdi_w_f32(w, f->mapping[k].gain);
        crowdi_w_f32(w, f->mapping[k].offset);
        crowdi_w_u32(w, f->mapping[k].curve);
    }
}

typedef struct {
    crowd_face_desc desc;
    crowd_face_mapping_desc mapping[];
} face_loaded;

static crowd_result face_read(crowd_engine *e, crowd_engine *tmp, crowdi_reader *rd, const crowdi_loading *ld,
                              crowd_rig_desc *desc, void **scratch) {
    /* one read per statement: the order of evaluation inside an initializer is unspecified */
    crowd_face_desc face = {0};
    crowdi_settings_read(rd, face_settings_table, 0, FACE_SETTINGS, &face);
    uint32_t n = crowdi_r_u32(rd);
    if (rd->bad || (size_t)n * 20 > rd->n - rd->off)
        return crowdi_fail(e, CROWD_ERR_BAD_SNAPSHOT, "crowd_snapshot_load: rigs[%u].face is corrupt", ld->rig);
    face_loaded *l = crowdi_alloc(tmp, sizeof *l + sizeof l->mapping[0] * n);
    if (!l) return crowdi_fail(e, CROWD_ERR_OUT_OF_MEMORY, "crowd_snapshot_load: out of memory for rigs[%u].face", ld->rig);
    *scratch = l;
    for (uint32_t j = 0; j < n; j++) {
        crowd_face_mapping_desc *m = &l->mapping[j];
        m->source = (crowd_face_source)crowdi_r_u32(rd);
        m->id = crowdi_loading_id(ld, crowdi_r_u32(rd));
        m->gain = crowdi_r_f32(rd);
        m->offset = crowdi_r_f32(rd);
        m->curve = (crowd_face_curve)crowdi_r_u32(rd);
    }
    l->desc = face;
    l->desc.mapping = l->mapping;
    l->desc.mapping_count = n;
    desc->face = &l->desc;
    return CROWD_OK;
}

/* the One Euro state no field rule covers: finite (the fields' rules cover the rest) */
static crowd_result face_check_rows(crowd_engine *e, const crowdi_rig *r, uint32_t k) {
    const uint32_t first = r->col[CROWDI_CTL_FACE] + CROWDI_FACE_COL_FILTER;
    const uint32_t smoothed = FACE(r)->view.smoothed_count, cols = smoothed ? 3 * smoothed + 1 : 0;
    for (uint32_t c = first; c < first + cols; c++)
        for (uint32_t row = 0; row < r->count; row++)
            if (!crowdi_finite(r->columns[c][row]))
                return crowdi_fail(e, CROWD_ERR_BAD_SNAPSHOT,
                                   "crowd_snapshot_load: rigs[%u]: face filter column %u of row %u is not finite", k,
                                   c - first, row);
    return CROWD_OK;
}

static float *face_field_column(const crowdi_rig *r, crowd_field f, uint32_t index, uint32_t comp) {
    (void)index;
    switch (f) {
    case CROWD_FIELD_FACE_SCORES: return crowdi_ctl_column(r, CROWDI_CTL_FACE, comp);
    case CROWD_FIELD_FACE_ROTATION: return crowdi_ctl_column(r, CROWDI_CTL_FACE, CROWDI_FACE_COL_ROT + comp);
    case CROWD_FIELD_FACE_PRESENCE: return crowdi_ctl_column(r, CROWDI_CTL_FACE, CROWDI_FACE_COL_PRESENCE);
    case CROWD_FIELD_FACE_WEIGHT: return crowdi_ctl_column(r, CROWDI_CTL_FACE, CROWDI_FACE_COL_WEIGHT);
    case CROWD_FIELD_FACE_CONTROL: return crowdi_ctl_column(r, CROWDI_CTL_FACE, CROWDI_FACE_COL_CONTROL);
    default: return NULL;
    }
}

const crowdi_controller crowdi_controller_face = {
    .name = "face tracking",
    .size = sizeof(face_part),
    .present = face_present,
    .validate = face_validate,
    .build = face_build,
    .free = face_free,
    .layout = face_layout,
    .init_bits = face_init_bits,
    .point = face_point,
    .write = face_write,
    .read = face_read,
    .check_rows = face_check_rows,
    .field_column = face_field_column,
    .setting_rows = face_settings_table,
    .setting_count = FACE_SETTINGS,
};
