/* Level of detail (crowd.h 8a): the rig's settings (a settings table, as the controllers'),
 * and the tick of a rig some of whose instances update less often than every tick. General
 * over the controller list: a controller follows the interval unless the rig's lod_every_tick
 * names it, and the kernels run a stage set chosen per run of rows (tick_some). */
#include "internal.h"
#include "kernels/lod_tags.h"
#include "serial.h"
#include "settings.h"

/* The rig's own settings, in snapshot order ("desc->lod_interval" in messages). */
static const crowdi_setting lod_settings_table[] = {
    CROWDI_ENUM_SETTING(crowd_rig_desc, crowdi_lod, interval, lod_interval, CROWD_LOD_INTERVAL_1, lod_interval,
                        CROWD_LOD_INTERVAL_COUNT, "the update interval a new instance starts with, in ticks"),
    CROWDI_BITS64_SETTING(crowd_rig_desc, crowdi_lod, every_tick, lod_every_tick, CROWD_CONTROLLER_COUNT,
                          "controllers that run every tick whatever an instance's interval (bit crowd_controller)"),
};
enum { LOD_SETTINGS = sizeof lod_settings_table / sizeof lod_settings_table[0] };

crowd_result crowdi_lod_validate(crowd_engine *engine, const crowd_rig_desc *desc) {
    crowd_result res = crowdi_settings_check(engine, -1, lod_settings_table, LOD_SETTINGS, desc);
    if (res != CROWD_OK) return res;
    /* the parameter controllers blend in one order into one out: all every tick or none */
    int first_in = -1, first_out = -1;
    for (int c = 0; c < CROWDI_CONTROLLER_COUNT; c++) {
        if (!crowdi_controllers[c]->present(desc) || crowdi_controllers[c]->leaves_parameters) continue;
        int *first = (desc->lod_every_tick >> c & 1u) ? &first_in : &first_out;
        if (*first < 0) *first = c;
    }
    CROWDI_RIG_CHECK(first_in < 0 || first_out < 0, CROWD_ERR_RANGE,
                     "desc->lod_every_tick (0x%llx) names %s but not %s: the controllers that blend into parameters "
                     "run every tick all or none",
                     (unsigned long long)desc->lod_every_tick, crowd_controller_name((crowd_controller)first_in),
                     crowd_controller_name((crowd_controller)first_out));
    return CROWD_OK;
}

void crowdi_lod_build(crowdi_rig *r, const crowd_rig_desc *desc) {
    r->lod.interval = crowdi_setting_u32(&lod_settings_table[0], desc);
    r->lod.every_tick = desc->lod_every_tick;
}

void crowdi_lod_write(crowdi_writer *w, const crowdi_rig *r) {
    crowdi_settings_write(w, lod_settings_table, 0, LOD_SETTINGS, &r->lod);
}

void crowdi_lod_read(crowdi_reader *rd, crowd_rig_desc *desc) {
    crowdi_settings_read(rd, lod_settings_table, 0, LOD_SETTINGS, desc);
}

/* ---- the tick ---- */
/* A run of rows through the kernels: whole blocks on the engine's target, the rest at width 1. */
static void run_rows(const crowd_engine *e, const crowdi_rig *r, const float *dt, uint32_t stages, uint32_t first,
                     uint32_t count) {
    uint32_t bulk = count - count % e->kernels->width;
    crowdi_rig_view view = r->view; /* the motion stage reads its dt as a double (kernel_table.h) */
    view.dt_exact = (double)dt[CROWDI_CTL_MOTION];
    if (bulk) e->kernels->tick_some(&view, dt, stages, first, bulk);
    if (count > bulk) e->tail_kernels->tick_some(&view, dt, stages, first + bulk, count - bulk);
}

/* Rows are classified in batches (a tag per row on the stack, kernels/lod_tags.h), then each
 * run of rows with one tag goes through the kernels at once. */
enum { LOD_BATCH = 1024 };

bool crowdi_lod_tick(const crowd_engine *e, const crowdi_rig *r, float dt, uint32_t first, uint32_t count) {
    if (r->uniform[r->col_lod_interval] && r->uniform[r->col_lod_elapsed] &&
        r->init_bits[r->col_lod_interval] == crowdi_bits(1.0f))
        return false; /* every row at interval 1 with nothing elapsed: the plain tick is the same */
    const float *interval = r->columns[r->col_lod_interval];
    float *elapsed = r->columns[r->col_lod_elapsed];
    uint32_t *counter = (uint32_t *)(void *)r->columns[r->col_lod_counter];

    /* the stages: every one on an update tick; on other ticks the every-tick controllers, and
     * out = base with them when they are the rig's parameter controllers */
    uint32_t every = 0, all = CROWDI_STAGE_BASE;
    bool params_every = false;
    for (int c = 0; c < CROWDI_CONTROLLER_COUNT; c++) {
        if (!r->has[c]) continue;
        all |= 1u << c;
        if (r->lod.every_tick >> c & 1u) {
            every |= 1u << c;
            params_every |= !crowdi_controllers[c]->leaves_parameters;
        }
    }
    if (params_every) every |= CROWDI_STAGE_BASE;
    float dt_every[CROWDI_CONTROLLER_COUNT], dt_update[CROWDI_CONTROLLER_COUNT];
    for (int c = 0; c < CROWDI_CONTROLLER_COUNT; c++) dt_every[c] = dt_update[c] = dt;

    uint32_t tag[LOD_BATCH];
    const uint32_t end = first + count, width = e->kernels->width;
    for (uint32_t b0 = first; b0 < end; b0 += LOD_BATCH) {
        const uint32_t b1 = end - b0 < LOD_BATCH ? end : b0 + LOD_BATCH;
        const uint32_t n = b1 - b0, bulk = n - n % width;
        if (bulk) e->kernels->lod_tags(interval, counter, elapsed, dt, tag, b0, bulk);
        if (n > bulk) e->tail_kernels->lod_tags(interval, counter, elapsed, dt, tag + bulk, b0 + bulk, n - bulk);
        for (uint32_t row = b0; row < b1;) {
            const uint32_t t = tag[row - b0];
            uint32_t stop = row + 1;
            while (stop < b1 && tag[stop - b0] == t) stop++;
            if (t != CROWDI_LOD_WAITS) {
                float sum;
                memcpy(&sum, &t, sizeof sum);
                for (int c = 0; c < CROWDI_CONTROLLER_COUNT; c++)
                    if (!(every >> c & 1u)) dt_update[c] = sum;
                run_rows(e, r, dt_update, all, row, stop - row);
            } else if (every) {
                run_rows(e, r, dt_every, every, row, stop - row);
            }
            row = stop;
        }
    }
    return true;
}
