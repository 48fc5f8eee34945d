/* The harmonic controller (SPEC §3): sines per parameter on shared channels. Its settings
 * live in its kernel view (kernels/harmonic.h), where the stage cvk_harmonic reads them. */
#include <math.h>
#include <string.h>

#include "internal.h"
#include "kernels/harmonic.h"
#include "random.h"
#include "serial.h"
#include "settings.h"

/* Its own public enums' names, name and parse functions (names.h). */
CROWDI_ENUM_NAMES_DEFINE(direction, crowd_direction, CROWD_DIRECTION_COUNT, "centric", "left", "right")
CROWDI_ENUM_NAMES_DEFINE(harmonic_phase, crowd_harmonic_phase, CROWD_HARMONIC_PHASE_COUNT, "zero", "random")

_Static_assert(CROWDI_HARMONIC_CHANNELS == CROWD_MAX_CHANNELS, "the view holds every channel's timescale");

/* the harmonic controller's part of a rig */
typedef struct harmonic_part {
    crowdi_harmonic_view view;
    float **T, **NR; /* [count] the columns the view points at */
} harmonic_part;
#define HARMONIC(r) CROWDI_PART(r, HARMONIC, harmonic_part)

crowd_harmonic_parameter_desc crowd_harmonic_parameter_defaults(const char *id) {
    return (crowd_harmonic_parameter_desc){
        .id = id, .channel = 0, .direction = CROWD_DIRECTION_CENTRIC,
        .origin = 0.5f, .range = 0.5f, .duration = 3.0f};
}

/* The settings, in snapshot order (blend kept with its default resolved); the channels and
 * entries follow them in the snapshot. */
static const crowdi_setting harmonic_settings_table[] = {
    CROWDI_ENUM_SETTING(crowd_harmonic_desc, harmonic_part, view.blend, blend, CROWD_BLEND_ADDITIVE, blend,
                        CROWD_BLEND_COUNT, "how the sines blend into their parameters"),
};
#define HARMONIC_SETTINGS (uint32_t)(sizeof harmonic_settings_table / sizeof harmonic_settings_table[0])

crowd_harmonic_desc crowd_harmonic_defaults(void) {
    crowd_harmonic_desc d = {0};
    crowdi_settings_defaults(harmonic_settings_table, HARMONIC_SETTINGS, &d);
    return d;
}

static bool harmonic_present(const crowd_rig_desc *d) { return d->harmonic != NULL; }

static crowd_result harmonic_validate(crowd_engine *engine, const crowd_rig_desc *desc, const crowdi_ids *ids) {
    const crowd_harmonic_desc *h = desc->harmonic;
    CROWDI_RIG_CHECK(h->parameter_count <= CROWD_MAX_ENTRIES, CROWD_ERR_CAPACITY,
                     "desc->harmonic->parameter_count (%u) exceeds %u", h->parameter_count, CROWD_MAX_ENTRIES);
    if (!ids) return CROWD_OK;
    CROWDI_RIG_CHECK(h->parameter_count == 0 || h->parameters, CROWD_ERR_NULL, "desc->harmonic->parameters is NULL");
    CROWDI_RIG_CHECK(h->channel_count <= CROWD_MAX_CHANNELS, CROWD_ERR_CAPACITY,
                     "desc->harmonic->channel_count (%u) exceeds %d", h->channel_count, CROWD_MAX_CHANNELS);
    CROWDI_RIG_CHECK(h->channel_count == 0 || h->channel_timescales, CROWD_ERR_NULL,
                     "desc->harmonic->channel_timescales is NULL with channel_count %u", h->channel_count);
    crowd_result res = crowdi_settings_check(engine, CROWDI_CTL_HARMONIC, harmonic_settings_table, HARMONIC_SETTINGS, h);
    if (res != CROWD_OK) return res;
    for (uint32_t c = 0; c < h->channel_count; c++) {
        float ts = h->channel_timescales[c];
        CROWDI_RIG_CHECK(crowdi_finite(ts), CROWD_ERR_NOT_FINITE, "desc->harmonic->channel_timescales[%u] is not finite", c);
        CROWDI_RIG_CHECK(ts >= 0, CROWD_ERR_RANGE, "desc->harmonic->channel_timescales[%u] (%g) is negative", c, (double)ts);
    }
    uint32_t channels = h->channel_count ? h->channel_count : 1;
    for (uint32_t k = 0; k < h->parameter_count; k++) {
        const crowd_harmonic_parameter_desc *hp = &h->parameters[k];
        res = crowdi_rig_param_id(engine, ids, "desc->harmonic->parameters[%u].id", k, hp->id, NULL);
        if (res != CROWD_OK) return res;
        CROWDI_RIG_CHECK(hp->channel < channels, CROWD_ERR_RANGE,
                         "desc->harmonic->parameters[%u].channel (%u) is out of range (%u channels)", k, hp->channel, channels);
        CROWDI_RIG_CHECK((unsigned)hp->direction < CROWD_DIRECTION_COUNT, CROWD_ERR_BAD_ENUM,
                         "desc->harmonic->parameters[%u].direction (%d) is not centric, left or right", k, (int)hp->direction);
        CROWDI_RIG_CHECK(crowdi_finite(hp->origin), CROWD_ERR_NOT_FINITE, "desc->harmonic->parameters[%u].origin is not finite", k);
        CROWDI_RIG_CHECK(crowdi_finite(hp->range), CROWD_ERR_NOT_FINITE, "desc->harmonic->parameters[%u].range is not finite", k);
        CROWDI_RIG_CHECK(crowdi_finite(hp->duration), CROWD_ERR_NOT_FINITE,
                         "desc->harmonic->parameters[%u].duration is not finite", k);
        CROWDI_RIG_CHECK(hp->duration > 0, CROWD_ERR_RANGE, "desc->harmonic->parameters[%u].duration (%g) must be > 0",
                         k, (double)hp->duration);
        CROWDI_RIG_CHECK(fabsf(hp->origin) <= CROWDI_MAX_FRACTION && fabsf(hp->range) <= CROWDI_MAX_FRACTION, CROWD_ERR_RANGE,
                         "desc->harmonic->parameters[%u]: origin (%g) and range (%g) must be within +-1000", k,
                         (double)hp->origin, (double)hp->range);
        /* T wraps by repeated subtraction (SPEC §3): bound the rounds one tick (dt <= 1) needs */
        float ts = h->channel_count ? h->channel_timescales[hp->channel] : 1.0f;
        CROWDI_RIG_CHECK(ts / hp->duration <= 65536.0f, CROWD_ERR_RANGE,
                         "desc->harmonic->parameters[%u]: channel_timescales[%u] / duration (%g / %g) exceeds 65536 "
                         "periods per second", k, hp->channel, (double)ts, (double)hp->duration);
    }
    return CROWD_OK;
}

static crowd_result harmonic_build(crowd_engine *engine, const crowd_rig_desc *desc, const crowdi_ids *ids, crowdi_rig *r) {
    const crowd_harmonic_desc *h = desc->harmonic;
    harmonic_part *part = HARMONIC(r);
    crowdi_harmonic_view *v = &part->view;
    v->blend = crowdi_blend_or(h->blend, CROWDI_BLEND_ADDITIVE);
    v->channel_count = h->channel_count ? h->channel_count : 1;
    for (uint32_t c = 0; c < v->channel_count; c++) v->timescales[c] = h->channel_count ? h->channel_timescales[c] : 1.0f;
    v->count = h->parameter_count;
    crowdi_harm_entry *entries = crowdi_alloc(engine, sizeof *entries * h->parameter_count);
    float *start_range = crowdi_alloc(engine, sizeof *start_range * h->parameter_count);
    v->entries = entries, v->start_range = start_range;
    v->T = part->T = crowdi_alloc(engine, sizeof(float *) * h->parameter_count);
    v->NR = part->NR = crowdi_alloc(engine, sizeof(float *) * h->parameter_count);
    if (!entries || !start_range || !part->T || !part->NR) return CROWD_ERR_OUT_OF_MEMORY;
    for (uint32_t k = 0; k < h->parameter_count; k++) {
        const crowd_harmonic_parameter_desc *hp = &h->parameters[k];
        entries[k] = (crowdi_harm_entry){(uint32_t)crowdi_ids_find(ids, hp->id), hp->channel, (uint32_t)hp->direction,
                                         hp->origin, hp->duration};
        start_range[k] = hp->range;
    }
    return CROWD_OK;
}

static void harmonic_free(crowd_engine *engine, crowdi_rig *r) {
    harmonic_part *part = HARMONIC(r);
    void *owned[] = {(void *)part->view.entries, (void *)part->view.start_range, part->T, part->NR};
    for (size_t k = 0; k < sizeof owned / sizeof owned[0]; k++) crowdi_free(engine, owned[k]);
}

/* columns: T per entry, NR per entry, the weight */
static uint32_t harmonic_layout(crowdi_rig *r, uint32_t first) {
    (void)first;
    return 2 * HARMONIC(r)->view.count + 1;
}

static void harmonic_init_bits(const crowdi_rig *r, uint32_t *bits) {
    const crowdi_harmonic_view *v = &HARMONIC(r)->view;
    const uint32_t first = r->col[CROWDI_CTL_HARMONIC];
    for (uint32_t h = 0; h < v->count; h++) bits[first + v->count + h] = crowdi_bits(v->start_range[h]);
    bits[first + 2 * v->count] = crowdi_bits(1.0f);
}

/* the weight (the ranges are written back by the tick) */
static void harmonic_settings(const crowdi_rig *r, bool *uniform) {
    uniform[r->col[CROWDI_CTL_HARMONIC] + 2 * HARMONIC(r)->view.count] = true;
}

static void harmonic_point(crowdi_rig *r) {
    harmonic_part *part = HARMONIC(r);
    const uint32_t first = r->col[CROWDI_CTL_HARMONIC], n = part->view.count;
    for (uint32_t h = 0; h < n; h++) {
        part->T[h] = r->columns[first + h];
        part->NR[h] = r->columns[first + n + h];
    }
    part->view.weight = crowdi_tick_column(r, first + 2 * n);
    part->view.weight_value = crowdi_start_value(r, first + 2 * n);
}

/* one phase per entry, drawn after the blink wait */
static void harmonic_init_row(const crowd_engine *e, crowdi_rig *r, uint32_t row, const crowd_add_desc *d) {
    (void)e;
    const harmonic_part *part = HARMONIC(r);
    if (d->harmonic_phase == CROWD_HARMONIC_PHASE_RANDOM)
        for (uint32_t h = 0; h < part->view.count; h++) part->T[h][row] = crowdi_next_draw(r, row) * part->view.entries[h].duration;
}

static void harmonic_write(crowdi_writer *w, const crowdi_rig *r) {
    const crowdi_harmonic_view *v = &HARMONIC(r)->view;
    crowdi_settings_write(w, harmonic_settings_table, 0, HARMONIC_SETTINGS, HARMONIC(r));
    crowdi_w_u32(w, v->channel_count);
    for (uint32_t c = 0; c < v->channel_count; c++) crowdi_w_f32(w, v->timescales[c]);
    crowdi_w_u32(w, v->count);
    for (uint32_t k = 0; k < v->count; k++) {
        const crowdi_harm_entry *e = &v->entries[k];
        crowdi_w_u32(w, e->param);
        crowdi_w_u32(w, e->channel);
        crowdi_w_u32(w, e->direction);
        crowdi_w_f32(w, e->origin);
        crowdi_w_f32(w, e->duration);
        crowdi_w_f32(w, v->start_range[k]);
    }
}

typedef struct {
    crowd_harmonic_desc desc;
    float timescales[CROWD_MAX_CHANNELS];
    crowd_harmonic_parameter_desc entries[];
} harmonic_loaded;

static crowd_result harmonic_read(crowd_engine *e, crowd_engine *tmp, crowdi_reader *rd, const crowdi_loading *ld,
                                  crowd_rig_desc *desc, void **scratch) {
    crowd_harmonic_desc harm = {0};
    crowdi_settings_read(rd, harmonic_settings_table, 0, HARMONIC_SETTINGS, &harm);
    uint32_t channels = crowdi_r_u32(rd);
    if (rd->bad || channels < 1 || channels > CROWD_MAX_CHANNELS)
        return crowdi_fail(e, CROWD_ERR_BAD_SNAPSHOT, "crowd_snapshot_load: rigs[%u].harmonic channels are corrupt", ld->rig);
    float timescales[CROWD_MAX_CHANNELS];
    for (uint32_t c = 0; c < channels; c++) timescales[c] = crowdi_r_f32(rd);
    uint32_t n = crowdi_r_u32(rd);
    if (rd->bad || (size_t)n * 24 > rd->n - rd->off)
        return crowdi_fail(e, CROWD_ERR_BAD_SNAPSHOT, "crowd_snapshot_load: rigs[%u].harmonic is corrupt", ld->rig);
    harmonic_loaded *l = crowdi_alloc(tmp, sizeof *l + sizeof l->entries[0] * n);
    if (!l) return crowdi_fail(e, CROWD_ERR_OUT_OF_MEMORY, "crowd_snapshot_load: out of memory for rigs[%u].harmonic", ld->rig);
    *scratch = l;
    memcpy(l->timescales, timescales, sizeof timescales[0] * channels);
    for (uint32_t j = 0; j < n; j++) {
        uint32_t p = crowdi_r_u32(rd);
        uint32_t ch = crowdi_r_u32(rd);
        uint32_t dir = crowdi_r_u32(rd);
        float origin = crowdi_r_f32(rd);
        float duration = crowdi_r_f32(rd);
        float range = crowdi_r_f32(rd);
        l->entries[j] = (crowd_harmonic_parameter_desc){crowdi_loading_id(ld, p), ch, (crowd_direction)dir, origin, range, duration};
    }
    l->desc = harm;
    l->desc.parameters = l->entries;
    l->desc.parameter_count = n;
    l->desc.channel_timescales = l->timescales;
    l->desc.channel_count = channels;
    desc->harmonic = &l->desc;
    return CROWD_OK;
}

static float *harmonic_field_column(const crowdi_rig *r, crowd_field f, uint32_t index, uint32_t comp) {
    (void)comp;
    const uint32_t n = HARMONIC(r)->view.count;
    switch (f) {
    case CROWD_FIELD_HARMONIC_WEIGHT: return crowdi_ctl_column(r, CROWDI_CTL_HARMONIC, 2 * n);
    case CROWD_FIELD_HARMONIC_PHASE: return crowdi_ctl_column(r, CROWDI_CTL_HARMONIC, index);
    case CROWD_FIELD_HARMONIC_RANGE: return crowdi_ctl_column(r, CROWDI_CTL_HARMONIC, n + index);
    default: return NULL;
    }
}

static uint32_t harmonic_entry_count(const crowdi_rig *r) { return HARMONIC(r)->view.count; }

const crowdi_controller crowdi_controller_harmonic = {
    .name = "harmonic controller",
    .size = sizeof(harmonic_part),
    .present = harmonic_present,
    .validate = harmonic_validate,
    .build = harmonic_build,
    .free = harmonic_free,
    .layout = harmonic_layout,
    .init_bits = harmonic_init_bits,
    .settings = harmonic_settings,
    .point = harmonic_point,
    .init_row = harmonic_init_row,
    .write = harmonic_write,
    .read = harmonic_read,
    .field_column = harmonic_field_column,
    .entry_count = harmonic_entry_count,
    .entry_name = "harmonic",
    .setting_rows = harmonic_settings_table,
    .setting_count = HARMONIC_SETTINGS,
};
