/* The look controller (SPEC §2): gaze by SmoothDamp, blended into parameters by axis and
 * factor. Its settings live in its kernel view (kernels/look.h), where the stage cvk_look
 * reads them. */
#include <math.h>
#include <string.h>

#include "internal.h"
#include "kernels/look.h"
#include "serial.h"
#include "settings.h"

/* Its own public enums' names, name and parse functions (names.h). */
CROWDI_ENUM_NAMES_DEFINE(axis, crowd_axis, CROWD_AXIS_COUNT, "x", "y", "z")

/* the look controller's part of a rig */
typedef struct look_part {
    crowdi_look_view view;
    float damping; /* as given (the DAMPING column's start value) */
} look_part;
#define LOOK(r) CROWDI_PART(r, LOOK, look_part)

/* The settings, in snapshot order (blend kept with its default resolved). */
static const crowdi_setting look_settings_table[] = {
    CROWDI_ENUM_SETTING(crowd_look_desc, look_part, view.blend, blend, CROWD_BLEND_ADDITIVE, blend, CROWD_BLEND_COUNT,
                        "how the gaze blends into the look parameters"),
    CROWDI_FLOAT_SETTING(crowd_look_desc, look_part, damping, damping, 0.15, 0, false, CROWDI_MAX_SECONDS, false, "s",
                         "SmoothDamp's smooth time (0 acts as 0.0001); the look_damping field's start value"),
    CROWDI_FLOAT_SETTING(crowd_look_desc, look_part, view.max_speed, max_speed, INFINITY, 0, true, INFINITY, false,
                         "/s", "SmoothDamp's maximum speed; +inf: no limit"),
};
#define LOOK_SETTINGS (uint32_t)(sizeof look_settings_table / sizeof look_settings_table[0])

crowd_look_desc crowd_look_defaults(void) {
    crowd_look_desc d = {0};
    crowdi_settings_defaults(look_settings_table, LOOK_SETTINGS, &d);
    return d;
}

static bool look_present(const crowd_rig_desc *d) { return d->look != NULL; }

static crowd_result look_validate(crowd_engine *engine, const crowd_rig_desc *desc, const crowdi_ids *ids) {
    const crowd_look_desc *l = desc->look;
    CROWDI_RIG_CHECK(l->parameter_count <= CROWD_MAX_ENTRIES, CROWD_ERR_CAPACITY,
                     "desc->look->parameter_count (%u) exceeds %u", l->parameter_count, CROWD_MAX_ENTRIES);
    if (!ids) return CROWD_OK; /* counts only */
    CROWDI_RIG_CHECK(l->parameter_count == 0 || l->parameters, CROWD_ERR_NULL, "desc->look->parameters is NULL");
    crowd_result res = crowdi_settings_check(engine, CROWDI_CTL_LOOK, look_settings_table, LOOK_SETTINGS, l);
    if (res != CROWD_OK) return res;
    for (uint32_t k = 0; k < l->parameter_count; k++) {
        res = crowdi_rig_param_id(engine, ids, "desc->look->parameters[%u].id", k, l->parameters[k].id, NULL);
        if (res != CROWD_OK) return res;
        CROWDI_RIG_CHECK((unsigned)l->parameters[k].axis < CROWD_AXIS_COUNT, CROWD_ERR_BAD_ENUM,
                         "desc->look->parameters[%u].axis (%d) is not x, y or z", k, (int)l->parameters[k].axis);
        CROWDI_RIG_CHECK(crowdi_finite(l->parameters[k].factor), CROWD_ERR_NOT_FINITE,
                         "desc->look->parameters[%u].factor is not finite", k);
        CROWDI_RIG_CHECK(fabsf(l->parameters[k].factor) <= CROWDI_MAX_FACTOR, CROWD_ERR_RANGE,
                         "desc->look->parameters[%u].factor (%g) must be within +-1e6", k, (double)l->parameters[k].factor);
    }
    return CROWD_OK;
}

static crowd_result look_build(crowd_engine *engine, const crowd_rig_desc *desc, const crowdi_ids *ids, crowdi_rig *r) {
    const crowd_look_desc *l = desc->look;
    crowdi_look_view *v = &LOOK(r)->view;
    crowdi_look_entry *entries = crowdi_alloc(engine, sizeof *entries * l->parameter_count);
    if (!entries) return CROWD_ERR_OUT_OF_MEMORY;
    for (uint32_t k = 0; k < l->parameter_count; k++)
        entries[k] = (crowdi_look_entry){(uint32_t)crowdi_ids_find(ids, l->parameters[k].id),
                                         (uint32_t)l->parameters[k].axis, l->parameters[k].factor};
    v->blend = crowdi_blend_or(l->blend, CROWDI_BLEND_ADDITIVE);
    v->max_speed = l->max_speed;
    v->count = l->parameter_count;
    v->entries = entries;
    LOOK(r)->damping = l->damping;
    return CROWD_OK;
}

static void look_free(crowd_engine *engine, crowdi_rig *r) { crowdi_free(engine, (void *)LOOK(r)->view.entries); }

static uint32_t look_layout(crowdi_rig *r, uint32_t first) {
    (void)r, (void)first;
    return CROWDI_LOOK_NCOLS;
}

static void look_init_bits(const crowdi_rig *r, uint32_t *bits) {
    const uint32_t first = r->col[CROWDI_CTL_LOOK];
    bits[first + CROWDI_LOOK_DAMPING] = crowdi_bits(LOOK(r)->damping);
    bits[first + CROWDI_LOOK_WEIGHT] = crowdi_bits(1.0f);
}

/* target, centre, active, damping and weight: the tick only reads them */
static void look_settings(const crowdi_rig *r, bool *uniform) {
    for (int c = CROWDI_LOOK_TARGET_X; c <= CROWDI_LOOK_WEIGHT; c++) uniform[r->col[CROWDI_CTL_LOOK] + (uint32_t)c] = true;
}

static void look_point(crowdi_rig *r) {
    crowdi_look_view *v = &LOOK(r)->view;
    for (int c = 0; c < CROWDI_LOOK_NCOLS; c++) {
        v->col[c] = crowdi_tick_column(r, r->col[CROWDI_CTL_LOOK] + (uint32_t)c);
        v->value[c] = crowdi_start_value(r, r->col[CROWDI_CTL_LOOK] + (uint32_t)c);
    }
}

static void look_write(crowdi_writer *w, const crowdi_rig *r) {
    const crowdi_look_view *v = &LOOK(r)->view;
    crowdi_settings_write(w, look_settings_table, 0, LOOK_SETTINGS, LOOK(r));
    crowdi_w_u32(w, v->count);
    for (uint32_t k = 0; k < v->count; k++) {
        crowdi_w_u32(w, v->entries[k].param);
        crowdi_w_u32(w, v->entries[k].axis);
        crowdi_w_f32(w, v->entries[k].factor);
    }
}

typedef struct {
    crowd_look_desc desc;
    crowd_look_parameter_desc entries[];
} look_loaded;

static crowd_result look_read(crowd_engine *e, crowd_engine *tmp, crowdi_reader *rd, const crowdi_loading *ld,
                              crowd_rig_desc *desc, void **scratch) {
    /* one read per statement: the order of evaluation inside an initializer is unspecified */
    crowd_look_desc look = {0};
    crowdi_settings_read(rd, look_settings_table, 0, LOOK_SETTINGS, &look);
    uint32_t n = crowdi_r_u32(rd);
    /* entry counts are bounded by the bytes left before anything is allocated for them */
    if (rd->bad || (size_t)n * 12 > rd->n - rd->off)
        return crowdi_fail(e, CROWD_ERR_BAD_SNAPSHOT, "crowd_snapshot_load: rigs[%u].look is corrupt", ld->rig);
    look_loaded *l = crowdi_alloc(tmp, sizeof *l + sizeof l->entries[0] * n);
    if (!l) return crowdi_fail(e, CROWD_ERR_OUT_OF_MEMORY, "crowd_snapshot_load: out of memory for rigs[%u].look", ld->rig);
    *scratch = l;
    for (uint32_t j = 0; j < n; j++) {
        uint32_t p = crowdi_r_u32(rd);
        uint32_t axis = crowdi_r_u32(rd);
        float factor = crowdi_r_f32(rd);
        l->entries[j] = (crowd_look_parameter_desc){crowdi_loading_id(ld, p), (crowd_axis)axis, factor};
    }
    l->desc = look;
    l->desc.parameters = l->entries;
    l->desc.parameter_count = n;
    desc->look = &l->desc;
    return CROWD_OK;
}

static float *look_field_column(const crowdi_rig *r, crowd_field f, uint32_t index, uint32_t comp) {
    (void)index;
    switch (f) {
    case CROWD_FIELD_LOOK_TARGET: return crowdi_ctl_column(r, CROWDI_CTL_LOOK, CROWDI_LOOK_TARGET_X + comp);
    case CROWD_FIELD_LOOK_ACTIVE: return crowdi_ctl_column(r, CROWDI_CTL_LOOK, CROWDI_LOOK_ACTIVE);
    case CROWD_FIELD_LOOK_CENTER: return crowdi_ctl_column(r, CROWDI_CTL_LOOK, CROWDI_LOOK_CENTER_X + comp);
    case CROWD_FIELD_LOOK_DAMPING: return crowdi_ctl_column(r, CROWDI_CTL_LOOK, CROWDI_LOOK_DAMPING);
    case CROWD_FIELD_LOOK_WEIGHT: return crowdi_ctl_column(r, CROWDI_CTL_LOOK, CROWDI_LOOK_WEIGHT);
    case CROWD_FIELD_LOOK_POSITION: return crowdi_ctl_column(r, CROWDI_CTL_LOOK, CROWDI_LOOK_POS_X + comp);
    case CROWD_FIELD_LOOK_VELOCITY: return crowdi_ctl_column(r, CROWDI_CTL_LOOK, CROWDI_LOOK_VEL_X + comp);
    default: return NULL;
    }
}

const crowdi_controller crowdi_controller_look = {
    .name = "look controller",
    .size = sizeof(look_part),
    .present = look_present,
    .validate = look_validate,
    .build = look_build,
    .free = look_free,
    .layout = look_layout,
    .init_bits = look_init_bits,
    .settings = look_settings,
    .point = look_point,
    .write = look_write,
    .read = look_read,
    .field_column = look_field_column,
    .setting_rows = look_settings_table,
    .setting_count = LOOK_SETTINGS,
};
