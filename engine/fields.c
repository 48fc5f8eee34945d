/* Fields: per-instance values by crowd_field, their checks from the field table (fields.h),
 * and the rig's columns and outputs. */
#include <float.h>
#include <math.h>
#include <string.h>

#include "internal.h"
#include "crowdi_stage_list.h" /* every controller's kernel header: its fields' rows (and the
                                  blink, harmonic and gaze bounds the rules read) */

static const struct {
    const char *name;
    int controller; /* CROWDI_CTL_*, or CROWDI_CTL_NONE */
    uint32_t width, indices;
    crowdi_rule rule;
    bool writable;
} field_info[CROWD_FIELD_COUNT] = {
#define X(F, name, ctl, width, indices, rule, writable) [CROWD_FIELD_##F] = {name, ctl, width, indices, rule, writable},
#define CROWDI_X_CTL_FIELDS(NAME, name) CROWDI_##NAME##_FIELDS(X, CROWDI_CTL_##NAME)
    CROWDI_ENGINE_FIELDS(X)
    CROWDI_CONTROLLER_LIST(CROWDI_X_CTL_FIELDS)
#undef CROWDI_X_CTL_FIELDS
#undef X
};
/* Every crowd_field has its row: as many rows as fields (and a field listed twice would
 * initialize its row twice, an error under -Werror's -Woverride-init). */
#define X(...) +1
#define CROWDI_X_CTL_FIELDS(NAME, name) CROWDI_##NAME##_FIELDS(X, CROWDI_CTL_##NAME)
_Static_assert(0 CROWDI_ENGINE_FIELDS(X) CROWDI_CONTROLLER_LIST(CROWDI_X_CTL_FIELDS) == CROWD_FIELD_COUNT,
               "every crowd_field has one row: fields.h's or its controller's (kernels/<name>.h)");
#undef CROWDI_X_CTL_FIELDS
#undef X

uint32_t crowd_field_width(crowd_field f) { return (unsigned)f < CROWD_FIELD_COUNT ? field_info[f].width : 0; }
const char *crowd_field_name(crowd_field f) { return (unsigned)f < CROWD_FIELD_COUNT ? field_info[f].name : NULL; }

/* The column of component `comp` of the field (its controller's field_column), after
 * check_field() said it exists. */
static float *field_column(const crowdi_rig *r, crowd_field f, uint32_t index, uint32_t comp) {
    if (f == CROWD_FIELD_BASE) return r->columns[r->col_base + index];
    if (f == CROWD_FIELD_OUTPUT) return r->columns[r->col_out + index];
    if (f == CROWD_FIELD_LOD_INTERVAL) return r->columns[r->col_lod_interval];
    if (f == CROWD_FIELD_LOD_ELAPSED) return r->columns[r->col_lod_elapsed];
    const int ctl = field_info[f].controller;
    return crowdi_controllers[ctl]->field_column(r, f, index, comp);
}

/* Is the field stored for a rig with its controller? All are, but those the controller's
 * settings leave out (the bone rotations of limbs outputs). */
static bool field_stored(const crowdi_rig *r, crowd_field f) {
    const int ctl = field_info[f].controller;
    return ctl == CROWDI_CTL_NONE || !crowdi_controllers[ctl]->field_stored || crowdi_controllers[ctl]->field_stored(r, f);
}

/* Does the field exist for this rig and index? */
static crowd_result check_field(const crowd_engine *e, const char *fn, const crowdi_rig *r,
                                crowd_field f, uint32_t index) {
    CROWDI_CHECK(e, (unsigned)f < CROWD_FIELD_COUNT, CROWD_ERR_BAD_ENUM, "%s: field (%d) is not a crowd_field", fn, (int)f);
    const int ctl = field_info[f].controller;
    CROWDI_CHECK(e, ctl == CROWDI_CTL_NONE || r->has[ctl], CROWD_ERR_NO_CONTROLLER, "%s: field %s: rig \"%s\" has no %s",
                 fn, field_info[f].name, r->name, ctl == CROWDI_CTL_NONE ? "" : crowdi_controllers[ctl]->name);
    CROWDI_CHECK(e, field_stored(r, f), CROWD_ERR_NOT_STORED, "%s: field %s: rig \"%s\" stores %s rotations only (limbs outputs)",
                 fn, field_info[f].name, r->name, f == CROWD_FIELD_BONE_WORLD ? "local" : "world");
    switch (field_info[f].indices) {
    case CROWDI_INDEX_PARAMETER:
        CROWDI_CHECK(e, index < r->param_count, CROWD_ERR_RANGE, "%s: index (%u) is not a parameter of rig \"%s\" (%u parameters)",
                     fn, index, r->name, r->param_count);
        break;
    case CROWDI_INDEX_ENTRY: {
        const uint32_t entries = crowdi_controllers[ctl]->entry_count(r);
        CROWDI_CHECK(e, index < entries, CROWD_ERR_RANGE, "%s: index (%u) is not a %s entry of rig \"%s\" (%u entries)", fn,
                     index, crowdi_controllers[ctl]->entry_name, r->name, entries);
    }
        break;
    case CROWDI_INDEX_BONE:
        CROWDI_CHECK(e, index < CROWD_BONE_COUNT, CROWD_ERR_RANGE, "%s: index (%u) is not a crowd_bone", fn, index);
        break;
    case CROWDI_INDEX_HAND:
        CROWDI_CHECK(e, index < CROWD_HAND_COUNT, CROWD_ERR_RANGE, "%s: index (%u) is not a crowd_hand", fn, index);
        break;
    case CROWDI_INDEX_FINGER_BONE:
        CROWDI_CHECK(e, index < CROWD_FINGER_BONE_COUNT, CROWD_ERR_RANGE,
                     "%s: index (%u) is not a finger bone (hand * 16 + crowd_hand_bone, below 32)", fn, index);
        break;
    default: break;
    }
    return CROWD_OK;
}

/* The rule of a field's values as a closed interval [lo, hi], finiteness included, with its
 * wording for messages; false for the rules whose values are discrete. crowd_instances_set
 * and snapshot loading both come here. */
static bool value_interval(const crowdi_rig *r, crowd_field f, uint32_t index, uint32_t comp, float *lo, float *hi,
                           const char **want) {
    *lo = -FLT_MAX, *hi = FLT_MAX, *want = "finite";
    switch (field_info[f].rule) {
    case CROWDI_RULE_SWITCH: case CROWDI_RULE_MANUAL: case CROWDI_RULE_OWN: case CROWDI_RULE_LOD_INTERVAL:
        return false;
    case CROWDI_RULE_LOD_ELAPSED: *lo = 0, *hi = 16, *want = "in [0, 16] s"; break;
    case CROWDI_RULE_SECONDS: *lo = 0, *hi = CROWDI_MAX_SECONDS, *want = "in [0, 1e6]"; break;
    case CROWDI_RULE_FRACTION: *lo = -CROWDI_MAX_FRACTION, *hi = CROWDI_MAX_FRACTION, *want = "within +-1000"; break;
    case CROWDI_RULE_WEIGHT: *lo = 0, *hi = 1, *want = "in [0, 1]"; break;
    case CROWDI_RULE_MULTIPLIER: *lo = 0, *hi = 100, *want = "in [0, 100]"; break;
    case CROWDI_RULE_PHASE:
        *lo = 0, *hi = CROWDI_PART(r, HARMONIC, crowdi_harmonic_view)->entries[index].duration, *want = "in [0, duration]";
        break;
    case CROWDI_RULE_POSE:
        if (comp % 4 == 3) *lo = 0, *hi = 1, *want = "a visibility in [0, 1]";
        else *lo = -CROWDI_MAX_LANDMARK, *hi = CROWDI_MAX_LANDMARK, *want = "a coordinate within +-1e9";
        break;
    case CROWDI_RULE_HAND:
        if (comp == 3 * CROWD_HAND_LANDMARK_COUNT) *lo = 0, *hi = 1, *want = "a presence in [0, 1]";
        else *lo = -CROWDI_MAX_LANDMARK, *hi = CROWDI_MAX_LANDMARK, *want = "a coordinate within +-1e9";
        break;
    case CROWDI_RULE_COORD: *lo = -CROWDI_MAX_COORD, *hi = CROWDI_MAX_COORD, *want = "within +-1e15 (SmoothDamp squares distances)"; break;
    case CROWDI_RULE_LOOK_POS: *lo = -CROWDI_LOOK_MAX_POSITION, *hi = CROWDI_LOOK_MAX_POSITION, *want = "within +-1e18"; break;
    case CROWDI_RULE_LOOK_VEL: *lo = -CROWDI_LOOK_MAX_VELOCITY, *hi = CROWDI_LOOK_MAX_VELOCITY, *want = "within +-1e24"; break;
    case CROWDI_RULE_AT_MOST_ONE: *hi = 1, *want = "<= 1"; break;
    default: break;
    }
    return true;
}

static crowd_result check_value(const crowd_engine *e, const char *fn, const crowdi_rig *r, crowd_field f,
                                uint32_t index, uint32_t i, uint32_t comp, float v) {
    const char *name = field_info[f].name;
    const crowdi_rule rule = field_info[f].rule;
    CROWDI_CHECK(e, crowdi_finite(v), CROWD_ERR_NOT_FINITE, "%s: values[%u] (%s of instance %u) is not finite",
                 fn, i * field_info[f].width + comp, name, i);
    float lo, hi;
    const char *want;
    bool ok;
    if (value_interval(r, f, index, comp, &lo, &hi, &want)) {
        ok = v >= lo && v <= hi;
    } else if (rule == CROWDI_RULE_SWITCH) {
        ok = v == 0.0f || v == 1.0f, want = "0 or 1";
    } else if (rule == CROWDI_RULE_LOD_INTERVAL) {
        ok = v == 1.0f || v == 2.0f || v == 4.0f || v == 8.0f, want = "1, 2, 4 or 8 (ticks)";
    } else if (rule == CROWDI_RULE_MANUAL) {
        ok = v == -1.0f || (v >= 0 && v <= 1), want = "in [0, 1], or -1 for automatic";
    } else { /* CROWDI_RULE_OWN: the controller's */
        ok = crowdi_controllers[field_info[f].controller]->field_value(r, f, index, comp, v, &want);
    }
    CROWDI_CHECK(e, ok, CROWD_ERR_RANGE, "%s: values[%u] (%s of instance %u%s) is %g, must be %s", fn,
                 i * field_info[f].width + comp, name, i,
                 rule == CROWDI_RULE_HAND ? (comp == 3 * CROWD_HAND_LANDMARK_COUNT ? ", the hand's presence" : ", a hand landmark coordinate")
                 : rule != CROWDI_RULE_POSE ? "" : comp % 4 == 3 ? ", a landmark's visibility" : ", a landmark coordinate",
                 (double)v, want);
    return CROWD_OK;
}

/* Checks that need the whole value: rotations must be unit quaternions. */
static crowd_result check_whole(const crowd_engine *e, const char *fn, crowd_field f, uint32_t i, const float *v) {
    if (field_info[f].rule != CROWDI_RULE_QUAT) return CROWD_OK;
    float n = v[0] * v[0] + v[1] * v[1] + v[2] * v[2] + v[3] * v[3];
    CROWDI_CHECK(e, n >= 1.0f - 1e-4f && n <= 1.0f + 1e-4f, CROWD_ERR_RANGE,
                 "%s: values[%u..%u] (%s of instance %u) is not a unit quaternion (squared length %g)", fn, i * 4,
                 i * 4 + 3, field_info[f].name, i, (double)n);
    return CROWD_OK;
}

static uint32_t index_count(const crowdi_rig *r, crowd_field f) {
    switch (field_info[f].indices) {
    case CROWDI_INDEX_PARAMETER: return r->param_count;
    case CROWDI_INDEX_ENTRY: return crowdi_controllers[field_info[f].controller]->entry_count(r);
    case CROWDI_INDEX_BONE: return CROWD_BONE_COUNT;
    case CROWDI_INDEX_HAND: return CROWD_HAND_COUNT;
    case CROWDI_INDEX_FINGER_BONE: return CROWD_FINGER_BONE_COUNT;
    default: return 1;
    }
}

/* Every stored row of the rig obeys the rules crowd_instances_set applies (snapshot loading);
 * stored rotations, writable or not, are read back by the tick (roots, held bones, parents):
 * unit ones only. */
crowd_result crowdi_check_rows(const crowd_engine *e, const char *fn, const crowdi_rig *r) {
    crowd_result res;
    for (int fi = 0; fi < CROWD_FIELD_COUNT; fi++) {
        const crowd_field f = (crowd_field)fi;
        const int ctl = field_info[f].controller;
        if ((ctl != CROWDI_CTL_NONE && !r->has[ctl]) || !field_stored(r, f)) continue;
        const uint32_t indices = index_count(r, f);
        if (field_info[f].writable)
            for (uint32_t index = 0; index < indices; index++)
                for (uint32_t c = 0; c < field_info[f].width; c++) {
                    const float *col = field_column(r, f, index, c);
                    float lo, hi;
                    const char *want;
                    if (value_interval(r, f, index, c, &lo, &hi, &want)) {
                        /* a plain interval: one tight loop, check_value only to word a failure */
                        for (uint32_t row = 0; row < r->count; row++)
                            if (!(col[row] >= lo && col[row] <= hi)) return check_value(e, fn, r, f, index, row, c, col[row]);
                    } else {
                        for (uint32_t row = 0; row < r->count; row++)
                            if ((res = check_value(e, fn, r, f, index, row, c, col[row])) != CROWD_OK) return res;
                    }
                }
        if (field_info[f].rule == CROWDI_RULE_QUAT)
            for (uint32_t index = 0; index < indices; index++)
                for (uint32_t row = 0; row < r->count; row++) {
                    float q[4];
                    for (uint32_t c = 0; c < 4; c++) q[c] = field_column(r, f, index, c)[row];
                    if ((res = check_whole(e, fn, f, row, q)) != CROWD_OK) return res;
                }
    }
    return CROWD_OK;
}

static crowd_result set_fields(crowd_engine *e, const char *fn, crowd_field f, uint32_t index,
                               const crowd_instance *h, uint32_t count, const float *values) {
    CROWDI_CHECK(e, (unsigned)f < CROWD_FIELD_COUNT, CROWD_ERR_BAD_ENUM, "%s: field (%d) is not a crowd_field", fn, (int)f);
    CROWDI_CHECK(e, field_info[f].writable, CROWD_ERR_READ_ONLY, "%s: field %s is read only", fn, field_info[f].name);
    crowd_result res = crowdi_check_handles(e, fn, h, count);
    if (res != CROWD_OK) return res;
    CROWDI_CHECK(e, count == 0 || values, CROWD_ERR_NULL, "%s: values is NULL", fn);
    uint32_t w = field_info[f].width;
    for (uint32_t i = 0; i < count; i++) {
        const crowdi_rig *r = e->rigs[crowdi_slot_get(e, h[i])->rig];
        if ((res = check_field(e, fn, r, f, index)) != CROWD_OK) return res;
        for (uint32_t c = 0; c < w; c++)
            if ((res = check_value(e, fn, r, f, index, i, c, values[i * w + c])) != CROWD_OK) return res;
        if ((res = check_whole(e, fn, f, i, values + (size_t)i * w)) != CROWD_OK) return res;
    }
    const crowdi_rig *seen = NULL;
    bool some_uniform = false; /* has the rig of these handles a uniform column of the field? */
    for (uint32_t i = 0; i < count; i++) {
        const crowdi_slot *s = crowdi_slot_get(e, h[i]);
        crowdi_rig *r = e->rigs[s->rig];
        if (r != seen) { /* once per run of handles of one rig, not per value */
            seen = r, some_uniform = false;
            for (uint32_t c = 0; c < w; c++) some_uniform |= crowdi_column_uniform(r, field_column(r, f, index, c));
        }
        for (uint32_t c = 0; c < w; c++) {
            float *col = field_column(r, f, index, c);
            col[s->row] = values[i * w + c];
            if (some_uniform) crowdi_column_written(r, col, values[i * w + c]);
        }
    }
    return CROWD_OK;
}

static crowd_result get_fields(const crowd_engine *e, const char *fn, crowd_field f, uint32_t index,
                               const crowd_instance *h, uint32_t count, float *values) {
    CROWDI_CHECK(e, (unsigned)f < CROWD_FIELD_COUNT, CROWD_ERR_BAD_ENUM, "%s: field (%d) is not a crowd_field", fn, (int)f);
    crowd_result res = crowdi_check_handles(e, fn, h, count);
    if (res != CROWD_OK) return res;
    CROWDI_CHECK(e, count == 0 || values, CROWD_ERR_NULL, "%s: values is NULL", fn);
    for (uint32_t i = 0; i < count; i++)
        if ((res = check_field(e, fn, e->rigs[crowdi_slot_get(e, h[i])->rig], f, index)) != CROWD_OK) return res;
    uint32_t w = field_info[f].width;
    for (uint32_t i = 0; i < count; i++) {
        const crowdi_slot *s = crowdi_slot_get(e, h[i]);
        for (uint32_t c = 0; c < w; c++) values[i * w + c] = field_column(e->rigs[s->rig], f, index, c)[s->row];
    }
    return CROWD_OK;
}

crowd_result crowd_instances_set(crowd_engine *e, crowd_field f, uint32_t index, const crowd_instance *h,
                                 uint32_t count, const float *values) {
    if (!e) return CROWD_ERR_NULL;
    return set_fields(e, "crowd_instances_set", f, index, h, count, values);
}

crowd_result crowd_instances_get(const crowd_engine *e, crowd_field f, uint32_t index, const crowd_instance *h,
                                 uint32_t count, float *values) {
    if (!e) return CROWD_ERR_NULL;
    return get_fields(e, "crowd_instances_get", f, index, h, count, values);
}

crowd_result crowd_set(crowd_engine *e, crowd_instance h, crowd_field f, uint32_t index, const float *values) {
    if (!e) return CROWD_ERR_NULL;
    return set_fields(e, "crowd_set", f, index, &h, 1, values);
}

crowd_result crowd_get(const crowd_engine *e, crowd_instance h, crowd_field f, uint32_t index, float *values) {
    if (!e) return CROWD_ERR_NULL;
    return get_fields(e, "crowd_get", f, index, &h, 1, values);
}

crowd_result crowd_set_look_target(crowd_engine *e, crowd_instance h, float x, float y, float z, bool active) {
    if (!e) return CROWD_ERR_NULL;
    const char *fn = "crowd_set_look_target";
    const float target[3] = {x, y, z}, on = active ? 1.0f : 0.0f;
    crowd_result res = crowdi_check_handles(e, fn, &h, 1);
    if (res != CROWD_OK) return res;
    /* validate both fields before writing either */
    const crowdi_rig *r = e->rigs[crowdi_slot_get(e, h)->rig];
    if ((res = check_field(e, fn, r, CROWD_FIELD_LOOK_TARGET, 0)) != CROWD_OK) return res;
    for (uint32_t c = 0; c < 3; c++)
        if ((res = check_value(e, fn, r, CROWD_FIELD_LOOK_TARGET, 0, 0, c, target[c])) != CROWD_OK) return res;
    set_fields(e, fn, CROWD_FIELD_LOOK_TARGET, 0, &h, 1, target);
    return set_fields(e, fn, CROWD_FIELD_LOOK_ACTIVE, 0, &h, 1, &on);
}

crowd_result crowd_blink_now(crowd_engine *e, const crowd_instance *h, uint32_t count) {
    if (!e) return CROWD_ERR_NULL;
    const char *fn = "crowd_blink_now";
    crowd_result res = crowdi_check_handles(e, fn, h, count);
    if (res != CROWD_OK) return res;
    for (uint32_t i = 0; i < count; i++)
        if ((res = check_field(e, fn, e->rigs[crowdi_slot_get(e, h[i])->rig], CROWD_FIELD_BLINK_CLOCK, 0)) != CROWD_OK)
            return res;
    for (uint32_t i = 0; i < count; i++) {
        const crowdi_slot *s = crowdi_slot_get(e, h[i]);
        const crowdi_rig *r = e->rigs[s->rig];
        float *phase = crowdi_ctl_column(r, CROWDI_CTL_BLINK, CROWDI_BLINK_PHASE);
        float *clock = crowdi_ctl_column(r, CROWDI_CTL_BLINK, CROWDI_BLINK_CLOCK);
        if (phase[s->row] == 0.0f) clock[s->row] = 0.0f;
    }
    return CROWD_OK;
}

/* ---- outputs ---- */
crowd_result crowd_rig_column(crowd_engine *e, crowd_rig rig, crowd_field f, uint32_t index, uint32_t component,
                              float **out_values, uint32_t *out_count) {
    if (!e) return CROWD_ERR_NULL;
    const char *fn = "crowd_rig_column";
    crowdi_rig *r = crowdi_rig_get(e, rig);
    CROWDI_CHECK(e, r, CROWD_ERR_HANDLE, "%s: rig is not a rig of this engine", fn);
    CROWDI_CHECK(e, out_values && out_count, CROWD_ERR_NULL, "%s: out_values or out_count is NULL", fn);
    CROWDI_CHECK(e, (unsigned)f < CROWD_FIELD_COUNT, CROWD_ERR_BAD_ENUM, "%s: field (%d) is not a crowd_field", fn, (int)f);
    crowd_result res = check_field(e, fn, r, f, index);
    if (res != CROWD_OK) return res;
    CROWDI_CHECK(e, component < field_info[f].width, CROWD_ERR_RANGE, "%s: component (%u) of field %s must be < %u",
                 fn, component, field_info[f].name, field_info[f].width);
    *out_values = field_column(r, f, index, component);
    *out_count = r->count;
    crowdi_column_varies(r, *out_values); /* the caller may write through it */
    return CROWD_OK;
}

crowd_result crowd_rig_columns(crowd_engine *e, crowd_rig rig, crowd_field f, uint32_t index, float **out_columns,
                               uint32_t *out_count) {
    if (!e) return CROWD_ERR_NULL;
    float *first;
    crowd_result res = crowd_rig_column(e, rig, f, index, 0, out_columns ? &first : NULL, out_count);
    if (res != CROWD_OK) return res;
    crowdi_rig *r = crowdi_rig_get(e, rig);
    for (uint32_t c = 0; c < field_info[f].width; c++) {
        out_columns[c] = field_column(r, f, index, c);
        crowdi_column_varies(r, out_columns[c]);
    }
    return CROWD_OK;
}

crowd_result crowd_rig_handles(const crowd_engine *e, crowd_rig rig, const crowd_instance **out_handles,
                               uint32_t *out_count) {
    if (!e) return CROWD_ERR_NULL;
    const crowdi_rig *r = crowdi_rig_get(e, rig);
    CROWDI_CHECK(e, r, CROWD_ERR_HANDLE, "crowd_rig_handles: rig is not a rig of this engine");
    CROWDI_CHECK(e, out_handles && out_count, CROWD_ERR_NULL, "crowd_rig_handles: out_handles or out_count is NULL");
    *out_handles = r->count ? r->handles : NULL;
    *out_count = r->count;
    return CROWD_OK;
}

crowd_result crowd_get_outputs(const crowd_engine *e, crowd_instance h, float *out, uint32_t capacity) {
    if (!e) return CROWD_ERR_NULL;
    const char *fn = "crowd_get_outputs";
    const crowdi_slot *s = crowdi_slot_get(e, h);
    CROWDI_CHECK(e, s, CROWD_ERR_HANDLE, "%s: instance is zero, stale or from another engine", fn);
    const crowdi_rig *r = e->rigs[s->rig];
    CROWDI_CHECK(e, r->param_count == 0 || out, CROWD_ERR_NULL, "%s: out_values is NULL", fn);
    CROWDI_CHECK(e, capacity >= r->param_count, CROWD_ERR_RANGE, "%s: capacity (%u) < parameter count (%u)", fn,
                 capacity, r->param_count);
    for (uint32_t p = 0; p < r->param_count; p++) out[p] = r->columns[r->col_out + p][s->row];
    return CROWD_OK;
}
