/* Lip sync (crowd.h section 13), order 500: the controller's hooks (its LipSync parameters,
 * the weight setting, the level column, snapshots) and crowd_lipsync_rms ("Lip sync level").
 * The stage is kernels/lipsync.h's cvk_lipsync. */
#include <math.h>

#include "crowd.h"
#include "internal.h"
#include "kernels/lipsync.h"
#include "serial.h"
#include "settings.h"

/* lip sync's part of a rig: its view */
#define LIPSYNC(r) CROWDI_PART(r, LIPSYNC, crowdi_lipsync_view)

/* The settings, in snapshot order; the parameters follow them in the snapshot. */
static const crowdi_setting lipsync_settings_table[] = {
    CROWDI_FLOAT_SETTING(crowd_lipsync_desc, crowdi_lipsync_view, weight, weight, 0.8, 0, false, 1000, false, "",
                         "the level is added to each LipSync parameter times this (addParameterValueById's weight)"),
};
#define LIPSYNC_SETTINGS (uint32_t)(sizeof lipsync_settings_table / sizeof lipsync_settings_table[0])

crowd_lipsync_desc crowd_lipsync_defaults(void) {
    crowd_lipsync_desc d = {0};
    crowdi_settings_defaults(lipsync_settings_table, LIPSYNC_SETTINGS, &d);
    return d;
}

static bool lipsync_present(const crowd_rig_desc *d) { return d->lipsync != NULL; }

static crowd_result lipsync_validate(crowd_engine *engine, const crowd_rig_desc *desc, const crowdi_ids *ids) {
    const crowd_lipsync_desc *l = desc->lipsync;
    CROWDI_RIG_CHECK(l->parameter_count <= CROWD_MAX_ENTRIES, CROWD_ERR_CAPACITY,
                     "desc->lipsync->parameter_count (%u) exceeds %u", l->parameter_count, CROWD_MAX_ENTRIES);
    if (!ids) return CROWD_OK;
    CROWDI_RIG_CHECK(l->parameter_count == 0 || l->parameters, CROWD_ERR_NULL, "desc->lipsync->parameters is NULL");
    crowd_result res = crowdi_settings_check(engine, CROWDI_CTL_LIPSYNC, lipsync_settings_table, LIPSYNC_SETTINGS, l);
    if (res != CROWD_OK) return res;
    for (uint32_t k = 0; k < l->parameter_count; k++) {
        res = crowdi_rig_param_id(engine, ids, "desc->lipsync->parameters[%u]", k, l->parameters[k], NULL);
        if (res != CROWD_OK) return res;
    }
    return CROWD_OK;
}

static crowd_result lipsync_build(crowd_engine *engine, const crowd_rig_desc *desc, const crowdi_ids *ids, crowdi_rig *r) {
    const crowd_lipsync_desc *l = desc->lipsync;
    crowdi_lipsync_view *v = LIPSYNC(r);
    v->weight = l->weight;
    v->count = l->parameter_count;
    uint32_t *params = crowdi_alloc(engine, sizeof *params * (l->parameter_count ? l->parameter_count : 1));
    if (!(v->params = params)) return CROWD_ERR_OUT_OF_MEMORY;
    for (uint32_t k = 0; k < l->parameter_count; k++) params[k] = (uint32_t)crowdi_ids_find(ids, l->parameters[k]);
    return CROWD_OK;
}

static void lipsync_free(crowd_engine *engine, crowdi_rig *r) { crowdi_free(engine, (void *)LIPSYNC(r)->params); }

/* one column: the level (0 at first) */
static uint32_t lipsync_layout(crowdi_rig *r, uint32_t first) {
    (void)r, (void)first;
    return 1;
}

static void lipsync_init_bits(const crowdi_rig *r, uint32_t *bits) { (void)r, (void)bits; /* the level starts at 0 */ }

static void lipsync_settings(const crowdi_rig *r, bool *uniform) { uniform[r->col[CROWDI_CTL_LIPSYNC]] = true; }

static void lipsync_point(crowdi_rig *r) {
    crowdi_lipsync_view *v = LIPSYNC(r);
    v->level = crowdi_tick_column(r, r->col[CROWDI_CTL_LIPSYNC]);
    v->level_value = crowdi_start_value(r, r->col[CROWDI_CTL_LIPSYNC]);
}

static void lipsync_write(crowdi_writer *w, const crowdi_rig *r) {
    const crowdi_lipsync_view *v = LIPSYNC(r);
    crowdi_settings_write(w, lipsync_settings_table, 0, LIPSYNC_SETTINGS, v);
    crowdi_w_u32(w, v->count);
    for (uint32_t k = 0; k < v->count; k++) crowdi_w_u32(w, v->params[k]);
}

typedef struct {
    crowd_lipsync_desc desc;
    const char *ids[];
} lipsync_loaded;

static crowd_result lipsync_read(crowd_engine *e, crowd_engine *tmp, crowdi_reader *rd, const crowdi_loading *ld,
                                 crowd_rig_desc *desc, void **scratch) {
    crowd_lipsync_desc lipsync = {0};
    crowdi_settings_read(rd, lipsync_settings_table, 0, LIPSYNC_SETTINGS, &lipsync);
    uint32_t n = crowdi_r_u32(rd);
    if (ld->version < 5 || rd->bad || (size_t)n * 4 > rd->n - rd->off)
        return crowdi_fail(e, CROWD_ERR_BAD_SNAPSHOT, "crowd_snapshot_load: rigs[%u].lipsync is corrupt", ld->rig);
    lipsync_loaded *l = crowdi_alloc(tmp, sizeof *l + sizeof l->ids[0] * (n ? n : 1));
    if (!l)
        return crowdi_fail(e, CROWD_ERR_OUT_OF_MEMORY, "crowd_snapshot_load: out of memory for rigs[%u].lipsync", ld->rig);
    *scratch = l;
    for (uint32_t j = 0; j < n; j++) {
        uint32_t p = crowdi_r_u32(rd);
        l->ids[j] = crowdi_loading_id(ld, p);
    }
    l->desc = lipsync;
    l->desc.parameters = l->ids;
    l->desc.parameter_count = n;
    desc->lipsync = &l->desc;
    return CROWD_OK;
}

static float *lipsync_field_column(const crowdi_rig *r, crowd_field f, uint32_t index, uint32_t comp) {
    (void)index, (void)comp;
    return f == CROWD_FIELD_LIPSYNC_LEVEL ? crowdi_ctl_column(r, CROWDI_CTL_LIPSYNC, 0) : NULL;
}

const crowdi_controller crowdi_controller_lipsync = {
    .name = "lip sync",
    .size = sizeof(crowdi_lipsync_view),
    .present = lipsync_present,
    .validate = lipsync_validate,
    .build = lipsync_build,
    .free = lipsync_free,
    .layout = lipsync_layout,
    .init_bits = lipsync_init_bits,
    .settings = lipsync_settings,
    .point = lipsync_point,
    .write = lipsync_write,
    .read = lipsync_read,
    .field_column = lipsync_field_column,
    .setting_rows = lipsync_settings_table,
    .setting_count = LIPSYNC_SETTINGS,
};

float crowd_lipsync_rms(const float *samples, size_t frames, uint32_t channels) {
    if (!samples || frames == 0 || channels == 0) return 0.0f;
    size_t n = frames * channels;
    /* Eight partial sums in a fixed pattern (element i goes to sum i % 8), added in a fixed
     * tree: plain C arithmetic, so no target or compiler may reorder it (no -ffast-math), and
     * the loop vectorises as it stands. A float's square is exact in double. */
    double s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    size_t i = 0;
    for (; i + 8 <= n; i += 8)
        for (int k = 0; k < 8; k++) s[k] += (double)samples[i + k] * (double)samples[i + k];
    for (int k = 0; i < n; i++, k++) s[k] += (double)samples[i] * (double)samples[i];
    double sum = ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
    double rms = sqrt(sum / ((double)channels * (double)frames));
    return isfinite(rms) ? (float)rms : 0.0f;
}
