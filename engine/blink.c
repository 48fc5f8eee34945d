/* The blink controller (SPEC §4): eye opening by the sine or timed model, blended into its
 * parameters. Its settings live in its kernel view (kernels/blink.h), where the stage
 * cvk_blink reads them. */
#include <string.h>

#include "internal.h"
#include "kernels/blink.h"
#include "random.h"
#include "serial.h"
#include "settings.h"

/* Its own public enums' names, name and parse functions (names.h). */
CROWDI_ENUM_NAMES_DEFINE(blink_model, crowd_blink_model, CROWD_BLINK_MODEL_COUNT, "sine", "timed")
CROWDI_ENUM_NAMES_DEFINE(blink_start, crowd_blink_start, CROWD_BLINK_START_COUNT, "random", "cubism")

/* the blink controller's part of a rig: its view */
#define BLINK(r) CROWDI_PART(r, BLINK, crowdi_blink_view)

/* The settings, in snapshot order; the view keeps them (blend with its default resolved). */
static const crowdi_setting blink_settings_table[] = {
    CROWDI_ENUM_SETTING(crowd_blink_desc, crowdi_blink_view, model, model, CROWD_BLINK_SINE, blink_model,
                        CROWD_BLINK_MODEL_COUNT, "the eye-opening model"),
    CROWDI_ENUM_SETTING(crowd_blink_desc, crowdi_blink_view, blend, blend, CROWD_BLEND_MULTIPLY, blend, CROWD_BLEND_COUNT,
                        "how eye_opening blends into the blink parameters"),
    CROWDI_FLOAT_SETTING(crowd_blink_desc, crowdi_blink_view, mean, mean, 2.5, 0, false, CROWDI_MAX_SECONDS, false, "s",
                         "mean idle wait between blinks"),
    CROWDI_FLOAT_SETTING(crowd_blink_desc, crowdi_blink_view, max_deviation, max_deviation, 2.0, 0, false,
                         CROWDI_MAX_SECONDS, false, "s", "the wait is drawn uniformly within +-max_deviation of mean"),
    CROWDI_FLOAT_SETTING(crowd_blink_desc, crowdi_blink_view, timescale, timescale, 10.0, 0, true, CROWDI_MAX_SECONDS,
                         false, "", "speed of a blink's closing and opening"),
};
#define BLINK_SETTINGS (uint32_t)(sizeof blink_settings_table / sizeof blink_settings_table[0])

crowd_blink_desc crowd_blink_defaults(void) {
    crowd_blink_desc d = {0};
    crowdi_settings_defaults(blink_settings_table, BLINK_SETTINGS, &d);
    return d;
}

static bool blink_present(const crowd_rig_desc *d) { return d->blink != NULL; }

static crowd_result blink_validate(crowd_engine *engine, const crowd_rig_desc *desc, const crowdi_ids *ids) {
    const crowd_blink_desc *b = desc->blink;
    CROWDI_RIG_CHECK(b->parameter_count <= CROWD_MAX_ENTRIES, CROWD_ERR_CAPACITY,
                     "desc->blink->parameter_count (%u) exceeds %u", b->parameter_count, CROWD_MAX_ENTRIES);
    if (!ids) return CROWD_OK;
    CROWDI_RIG_CHECK(b->parameter_count == 0 || b->parameters, CROWD_ERR_NULL, "desc->blink->parameters is NULL");
    crowd_result res = crowdi_settings_check(engine, CROWDI_CTL_BLINK, blink_settings_table, BLINK_SETTINGS, b);
    if (res != CROWD_OK) return res;
    for (uint32_t k = 0; k < b->parameter_count; k++) {
        res = crowdi_rig_param_id(engine, ids, "desc->blink->parameters[%u]", k, b->parameters[k], NULL);
        if (res != CROWD_OK) return res;
    }
    return CROWD_OK;
}

static crowd_result blink_build(crowd_engine *engine, const crowd_rig_desc *desc, const crowdi_ids *ids, crowdi_rig *r) {
    const crowd_blink_desc *b = desc->blink;
    crowdi_blink_view *v = BLINK(r);
    v->blend = crowdi_blend_or(b->blend, CROWDI_BLEND_MULTIPLY);
    v->model = b->model == CROWD_BLINK_TIMED ? CROWDI_BLINK_TIMED : CROWDI_BLINK_SINE;
    v->mean = b->mean;
    v->max_deviation = b->max_deviation;
    v->timescale = b->timescale;
    v->count = b->parameter_count;
    uint32_t *param = crowdi_alloc(engine, sizeof *param * b->parameter_count);
    if (!(v->param = param)) return CROWD_ERR_OUT_OF_MEMORY;
    for (uint32_t k = 0; k < b->parameter_count; k++) param[k] = (uint32_t)crowdi_ids_find(ids, b->parameters[k]);
    return CROWD_OK;
}

static void blink_free(crowd_engine *engine, crowdi_rig *r) { crowdi_free(engine, (void *)BLINK(r)->param); }

static uint32_t blink_layout(crowdi_rig *r, uint32_t first) {
    (void)r, (void)first;
    return CROWDI_BLINK_NCOLS;
}

static void blink_init_bits(const crowdi_rig *r, uint32_t *bits) {
    const uint32_t first = r->col[CROWDI_CTL_BLINK];
    bits[first + CROWDI_BLINK_LAST] = crowdi_bits(1.0f);
    bits[first + CROWDI_BLINK_OPENING] = crowdi_bits(1.0f);
    bits[first + CROWDI_BLINK_MANUAL] = crowdi_bits(-1.0f);
    bits[first + CROWDI_BLINK_WEIGHT] = crowdi_bits(1.0f);
}

static void blink_settings(const crowdi_rig *r, bool *uniform) {
    uniform[r->col[CROWDI_CTL_BLINK] + CROWDI_BLINK_MANUAL] = true;
    uniform[r->col[CROWDI_CTL_BLINK] + CROWDI_BLINK_WEIGHT] = true;
}

static void blink_point(crowdi_rig *r) {
    crowdi_blink_view *v = BLINK(r);
    for (int c = 0; c < CROWDI_BLINK_NCOLS; c++) {
        v->col[c] = crowdi_tick_column(r, r->col[CROWDI_CTL_BLINK] + (uint32_t)c);
        v->value[c] = crowdi_start_value(r, r->col[CROWDI_CTL_BLINK] + (uint32_t)c);
    }
}

/* the first wait, the first draw of a row */
static void blink_init_row(const crowd_engine *e, crowdi_rig *r, uint32_t row, const crowd_add_desc *d) {
    (void)e;
    const crowdi_blink_view *v = BLINK(r);
    float clock = 0.0f;
    if (!(d->blink_start == CROWD_BLINK_START_CUBISM && v->model == CROWDI_BLINK_SINE)) {
        float u = crowdi_next_draw(r, row), dev = v->max_deviation;
        clock = (v->mean + u * (2.0f * dev)) - dev;
    }
    crowdi_ctl_column(r, CROWDI_CTL_BLINK, CROWDI_BLINK_CLOCK)[row] = clock;
}

static void blink_write(crowdi_writer *w, const crowdi_rig *r) {
    const crowdi_blink_view *v = BLINK(r);
    crowdi_settings_write(w, blink_settings_table, 0, BLINK_SETTINGS, v);
    crowdi_w_u32(w, v->count);
    for (uint32_t k = 0; k < v->count; k++) crowdi_w_u32(w, v->param[k]);
}

typedef struct {
    crowd_blink_desc desc;
    const char *ids[];
} blink_loaded;

static crowd_result blink_read(crowd_engine *e, crowd_engine *tmp, crowdi_reader *rd, const crowdi_loading *ld,
                               crowd_rig_desc *desc, void **scratch) {
    crowd_blink_desc blink = {0};
    crowdi_settings_read(rd, blink_settings_table, 0, BLINK_SETTINGS, &blink);
    uint32_t n = crowdi_r_u32(rd);
    if (rd->bad || (size_t)n * 4 > rd->n - rd->off)
        return crowdi_fail(e, CROWD_ERR_BAD_SNAPSHOT, "crowd_snapshot_load: rigs[%u].blink is corrupt", ld->rig);
    blink_loaded *l = crowdi_alloc(tmp, sizeof *l + sizeof l->ids[0] * n);
    if (!l) return crowdi_fail(e, CROWD_ERR_OUT_OF_MEMORY, "crowd_snapshot_load: out of memory for rigs[%u].blink", ld->rig);
    *scratch = l;
    for (uint32_t j = 0; j < n; j++) {
        uint32_t p = crowdi_r_u32(rd);
        l->ids[j] = crowdi_loading_id(ld, p);
    }
    l->desc = blink;
    l->desc.parameters = l->ids;
    l->desc.parameter_count = n;
    desc->blink = &l->desc;
    return CROWD_OK;
}

static float *blink_field_column(const crowdi_rig *r, crowd_field f, uint32_t index, uint32_t comp) {
    (void)index, (void)comp;
    switch (f) {
    case CROWD_FIELD_BLINK_WEIGHT: return crowdi_ctl_column(r, CROWDI_CTL_BLINK, CROWDI_BLINK_WEIGHT);
    case CROWD_FIELD_BLINK_MANUAL: return crowdi_ctl_column(r, CROWDI_CTL_BLINK, CROWDI_BLINK_MANUAL);
    case CROWD_FIELD_BLINK_OPENING: return crowdi_ctl_column(r, CROWDI_CTL_BLINK, CROWDI_BLINK_OPENING);
    case CROWD_FIELD_BLINK_PHASE: return crowdi_ctl_column(r, CROWDI_CTL_BLINK, CROWDI_BLINK_PHASE);
    case CROWD_FIELD_BLINK_CLOCK: return crowdi_ctl_column(r, CROWDI_CTL_BLINK, CROWDI_BLINK_CLOCK);
    case CROWD_FIELD_BLINK_LAST: return crowdi_ctl_column(r, CROWDI_CTL_BLINK, CROWDI_BLINK_LAST);
    default: return NULL;
    }
}

/* blink_phase (its one CROWDI_RULE_OWN field): 0, 1, 2, and 3 for the timed model */
static bool blink_field_value(const crowdi_rig *r, crowd_field f, uint32_t index, uint32_t comp, float v, const char **want) {
    (void)f, (void)index, (void)comp;
    const bool timed = BLINK(r)->model == CROWDI_BLINK_TIMED;
    *want = timed ? "0, 1, 2 or 3" : "0, 1 or 2";
    return v == 0.0f || v == 1.0f || v == 2.0f || (v == 3.0f && timed);
}

const crowdi_controller crowdi_controller_blink = {
    .name = "blink controller",
    .size = sizeof(crowdi_blink_view),
    .present = blink_present,
    .validate = blink_validate,
    .build = blink_build,
    .free = blink_free,
    .layout = blink_layout,
    .init_bits = blink_init_bits,
    .settings = blink_settings,
    .point = blink_point,
    .init_row = blink_init_row,
    .write = blink_write,
    .read = blink_read,
    .field_column = blink_field_column,
    .field_value = blink_field_value,
    .setting_rows = blink_settings_table,
    .setting_count = BLINK_SETTINGS,
};
