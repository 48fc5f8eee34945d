/* The tick: each rig's running rows through the engine's kernels, whole blocks on its SIMD
 * target and the rest at width 1, split into slices for the pool. Allocates nothing, takes
 * no lock beyond the pool's handoff, reads no clock. */
#include "internal.h"

static crowd_result check_dt(const crowd_engine *e, const char *fn, double dt) {
    CROWDI_CHECK(e, dt - dt == 0.0, CROWD_ERR_NOT_FINITE, "%s: dt is not finite", fn);
    CROWDI_CHECK(e, dt >= 0 && dt <= 1, CROWD_ERR_RANGE, "%s: dt (%g) must be in [0, 1] seconds", fn, (double)dt);
    return CROWD_OK;
}

/* Whole blocks on the engine's target, the rest through the width-1 build of the same code. */
/* scratch: this thread's part of the rig's output scratch, or NULL (crowdi_rig.scratch). */
static void tick_rows(const crowd_engine *e, const crowdi_rig *r, double dt_exact, uint32_t first, uint32_t count,
                      float *scratch) {
    if (crowdi_lod_tick(e, r, (float)dt_exact, first, count)) return; /* some instance updates less often (lod.c) */
    uint32_t bulk = count - count % e->kernels->width;
    crowdi_rig_view view = r->view; /* its own copy carries dt_exact: concurrent ranges share nothing */
    view.dt_exact = dt_exact;
    view.scratch = scratch;
    const float dt = (float)dt_exact;
    if (bulk) e->kernels->tick(&view, dt, first, bulk);
    if (count > bulk) e->tail_kernels->tick(&view, dt, first + bulk, count - bulk);
}

/* Slice t of `slices` of every rig's running rows: stripes of up to CROWDI_STRIPE rows, the
 * slices taking turns, each stripe starting on a 16-row boundary (a cache line: no line is
 * written by two threads). Stripes rather than one contiguous part each: where rows cost
 * unequally (level of detail, a host adding the distant crowd as one batch) every slice gets
 * its share of each kind. */
#define CROWDI_STRIPE 65536u
void crowdi_tick_slice(const crowd_engine *e, double dt, uint32_t slice, uint32_t slices) {
    for (uint32_t k = 0; k < e->rig_count; k++) {
        const crowdi_rig *r = e->rigs[k];
        uint32_t per = (r->running + slices - 1) / slices;
        per = (per + CROWDI_LANES - 1) / CROWDI_LANES * CROWDI_LANES;
        if (per > CROWDI_STRIPE) per = CROWDI_STRIPE;
        float *scratch =
            slice < r->scratch_parts ? r->scratch + (size_t)slice * r->param_count * CROWDI_SCRATCH_STRIDE : NULL;
        for (uint64_t first = (uint64_t)per * slice; first < r->running; first += (uint64_t)per * slices) {
            uint32_t count = r->running - (uint32_t)first < per ? r->running - (uint32_t)first : per;
            tick_rows(e, r, dt, (uint32_t)first, count, scratch);
        }
    }
}

typedef struct { const crowd_engine *engine; double dt; } tick_work;

static void tick_slice(void *context, uint32_t slice, uint32_t slices) {
    const tick_work *w = context;
    crowdi_tick_slice(w->engine, w->dt, slice, slices);
}

static crowd_result tick_all(crowd_engine *e, const char *fn, double dt) {
    if (!e) return CROWD_ERR_NULL;
    crowd_result res = check_dt(e, fn, dt);
    if (res != CROWD_OK) return res;
    tick_work w = {e, dt};
    if (e->pool) crowdi_pool_run(e->pool, tick_slice, &w);
    else crowdi_tick_slice(e, dt, 0, 1);
    return CROWD_OK;
}

crowd_result crowd_tick(crowd_engine *e, float dt) { return tick_all(e, "crowd_tick", (double)dt); }
crowd_result crowd_tick_exact(crowd_engine *e, double dt) { return tick_all(e, "crowd_tick_exact", dt); }

/* Calls may run concurrently: errors go through crowdi_fail_concurrent. */
static crowd_result tick_range(crowd_engine *e, const char *fn, double dt, crowd_rig rig, uint32_t first,
                               uint32_t count) {
    if (!e) return CROWD_ERR_NULL;
    if (!(dt - dt == 0.0)) return crowdi_fail_concurrent(e, CROWD_ERR_NOT_FINITE, "%s: dt is not finite", fn);
    if (!(dt >= 0 && dt <= 1))
        return crowdi_fail_concurrent(e, CROWD_ERR_RANGE, "%s: dt (%g) must be in [0, 1] seconds", fn, (double)dt);
    const crowdi_rig *r = crowdi_rig_get(e, rig);
    if (!r) return crowdi_fail_concurrent(e, CROWD_ERR_HANDLE, "%s: rig is not a rig of this engine", fn);
    if (!(first <= r->count && count <= r->count - first))
        return crowdi_fail_concurrent(e, CROWD_ERR_RANGE, "%s: rows [%u, %u + %u) exceed the rig's %u instances", fn,
                                      first, first, count, r->count);
    /* paused rows (from crowd_rig_running_count() on) are left as they are */
    uint32_t end = first + count < r->running ? first + count : r->running;
    if (first < end) tick_rows(e, r, dt, first, end - first, NULL); /* calls may overlap in time: no shared scratch */
    return CROWD_OK;
}

crowd_result crowd_tick_range(crowd_engine *e, float dt, crowd_rig rig, uint32_t first, uint32_t count) {
    return tick_range(e, "crowd_tick_range", (double)dt, rig, first, count);
}
crowd_result crowd_tick_range_exact(crowd_engine *e, double dt, crowd_rig rig, uint32_t first, uint32_t count) {
    return tick_range(e, "crowd_tick_range_exact", dt, rig, first, count);
}
