/* A rig's table: one column of 4-byte values per field, all in one 64-byte aligned block,
 * capacity padded to 16 rows so that every column starts on a cache line. */
#include <string.h>

#include "internal.h"

/* The view's pointers into the columns (the settings it holds stay as the controllers' build
 * left them). */
static void refresh_view(crowdi_rig *r) {
    crowdi_rig_view *v = &r->view;
    for (uint32_t p = 0; p < r->param_count; p++) {
        r->base_ptrs[p] = crowdi_tick_column(r, r->col_base + p);
        r->out_ptrs[p] = r->columns[r->col_out + p];
    }
    v->param_count = r->param_count;
    v->params = r->params;
    v->base = r->base_ptrs;
    v->base_value = r->param_default;
    v->out = r->out_ptrs;
    v->rkey = (uint32_t *)(void *)r->columns[r->col_rkey];
    v->draws = (uint32_t *)(void *)r->columns[r->col_draws];
    for (int c = 0; c < CROWDI_CONTROLLER_COUNT; c++) {
        if (r->has[c]) crowdi_controllers[c]->point(r);
        v->controller[c] = r->controller[c]; /* its part starts with its view */
    }
}

crowd_result crowdi_rig_layout(crowd_engine *engine, crowdi_rig *r) {
    uint32_t n = 0, P = r->param_count;
    r->col_rkey = n++;
    r->col_draws = n++;
    r->col_host_draws = n++;
    r->col_base = n, n += P;
    r->col_out = n, n += P;
    for (int c = 0; c < CROWDI_CONTROLLER_COUNT; c++)
        if (r->has[c]) r->col[c] = n, n += crowdi_controllers[c]->layout(r, n);
    /* last, so that a snapshot before level of detail (version 4) holds the columns before them */
    r->col_lod_interval = n++;
    r->col_lod_elapsed = n++;
    r->col_lod_counter = n++;
    r->column_count = n;

    r->init_bits = crowdi_alloc(engine, sizeof *r->init_bits * n);
    r->columns = crowdi_alloc(engine, sizeof *r->columns * n);
    r->uniform = crowdi_alloc(engine, sizeof *r->uniform * n);
    r->base_ptrs = crowdi_alloc(engine, sizeof(float *) * P);
    r->out_ptrs = crowdi_alloc(engine, sizeof(float *) * P);
    if (!r->init_bits || !r->columns || !r->uniform || !r->base_ptrs || !r->out_ptrs) return CROWD_ERR_OUT_OF_MEMORY;
    memset(r->init_bits, 0, sizeof *r->init_bits * n);
    memset(r->columns, 0, sizeof *r->columns * n);
    memset(r->uniform, 0, sizeof *r->uniform * n);
    for (uint32_t p = 0; p < P; p++) {
        r->init_bits[r->col_base + p] = crowdi_bits(r->param_default[p]);
        r->init_bits[r->col_out + p] = crowdi_bits(r->param_default[p]);
        r->uniform[r->col_base + p] = true; /* base values: set by callers, only read by the tick */
    }
    static const float lod_intervals[CROWD_LOD_INTERVAL_COUNT] = {1.0f, 2.0f, 4.0f, 8.0f};
    r->init_bits[r->col_lod_interval] = crowdi_bits(lod_intervals[r->lod.interval]);
    /* While every row holds interval 1 and elapsed 0 (both columns uniform) the tick is the
     * plain one and reads neither (lod.c); the elapsed column, which the tick writes, can only
     * leave 0 once the interval column varies (or by a caller's write, which marks it). */
    r->uniform[r->col_lod_interval] = true;
    r->uniform[r->col_lod_elapsed] = true;
    for (int c = 0; c < CROWDI_CONTROLLER_COUNT; c++)
        if (r->has[c]) {
            crowdi_controllers[c]->init_bits(r, r->init_bits);
            if (crowdi_controllers[c]->settings) crowdi_controllers[c]->settings(r, r->uniform);
        }
    refresh_view(r);
    return CROWD_OK;
}

crowd_result crowdi_rig_grow(crowd_engine *engine, crowdi_rig *r, uint32_t capacity) {
    if (capacity <= r->capacity) return CROWD_OK;
    if (capacity > CROWDI_MAX_ROWS) return CROWD_ERR_CAPACITY;
    uint32_t cap = (capacity + CROWDI_LANES - 1) / CROWDI_LANES * CROWDI_LANES;
    /* Columns a multiple of 4 KiB apart would share cache sets and alias in the store
     * buffer; the tick walks dozens of them side by side. */
    if ((cap * 4u) % 4096u == 0) cap += CROWDI_LANES;
    size_t column_bytes = (size_t)cap * 4;
    if (r->column_count && column_bytes > SIZE_MAX / r->column_count) return CROWD_ERR_CAPACITY;
    void *block = crowdi_alloc_large(engine, column_bytes * r->column_count);
    crowd_instance *handles = crowdi_alloc(engine, sizeof *handles * cap);
    if (!block || !handles) {
        crowdi_free(engine, block);
        crowdi_free(engine, handles);
        return CROWD_ERR_OUT_OF_MEMORY;
    }
    /* Rows past count are never read: the tick runs whole blocks only inside its range and the
     * rest at width 1, and adding a row writes all its columns first. */
    for (uint32_t c = 0; c < r->column_count; c++) {
        float *col = (float *)(void *)((char *)block + column_bytes * c);
        if (r->count) memcpy(col, r->columns[c], (size_t)r->count * 4);
        r->columns[c] = col;
    }
    if (r->count) memcpy(handles, r->handles, sizeof *handles * r->count);
    crowdi_free(engine, r->block);
    crowdi_free(engine, r->handles);
    r->block = block;
    r->handles = handles;
    r->capacity = cap;
    if (!r->scratch && crowdi_streams_outputs(r)) {
        /* without it the tick still runs, writing outputs in place */
        r->scratch = crowdi_alloc(engine, sizeof(float) * r->param_count * CROWDI_SCRATCH_STRIDE * engine->threads);
        r->scratch_parts = r->scratch ? engine->threads : 0;
    }
    refresh_view(r);
    return CROWD_OK;
}

/* Streaming the outputs pays where the columns are far beyond the last-level cache (64 MiB
 * and more: the outputs would go to memory anyway, and a store there first reads the line it
 * overwrites) and the store instructions exist (x86); a chunk's outputs stay in the scratch
 * within the core's cache only while they are few. */
bool crowdi_streams_outputs(const crowdi_rig *r) {
#if defined(__x86_64__) || defined(__i386__)
    return r->param_count > 0 && r->param_count <= CROWDI_SCRATCH_PARAMS &&
           (size_t)r->capacity * 4 * r->column_count >= ((size_t)64 << 20);
#else
    (void)r;
    return false;
#endif
}

/* Which column of the block a pointer into it is (columns are capacity * 4 bytes apart). */
static uint32_t column_of(const crowdi_rig *r, const float *column) {
    return (uint32_t)((size_t)((const char *)column - (const char *)r->block) / ((size_t)r->capacity * 4));
}

bool crowdi_column_uniform(const crowdi_rig *r, const float *column) {
    if (!column || !r->block) return false; /* no rows yet: nothing can have been written */
    uint32_t c = column_of(r, column);
    return c < r->column_count && r->uniform[c];
}

void crowdi_column_varies(crowdi_rig *r, const float *column) {
    if (!crowdi_column_uniform(r, column)) return; /* no rows yet, or read row by row already */
    r->uniform[column_of(r, column)] = false;
    refresh_view(r);
}

void crowdi_column_written(crowdi_rig *r, const float *column, float value) {
    if (crowdi_column_uniform(r, column) && crowdi_bits(value) != r->init_bits[column_of(r, column)])
        crowdi_column_varies(r, column);
}

void crowdi_rig_find_uniform(crowdi_rig *r) {
    for (uint32_t c = 0; c < r->column_count; c++) {
        if (!r->uniform[c]) continue;
        const uint32_t *u = (const uint32_t *)(const void *)r->columns[c];
        for (uint32_t row = 0; row < r->count; row++)
            if (u[row] != r->init_bits[c]) {
                r->uniform[c] = false;
                break;
            }
    }
    refresh_view(r);
}

void crowdi_rig_free(crowd_engine *engine, crowdi_rig *r) {
    if (!r) return;
    if (r->param_ids)
        for (uint32_t p = 0; p < r->param_count; p++) crowdi_free(engine, r->param_ids[p]);
    for (int c = 0; c < CROWDI_CONTROLLER_COUNT; c++) {
        if (r->controller[c]) crowdi_controllers[c]->free(engine, r);
        crowdi_free(engine, r->controller[c]);
    }
    void *owned[] = {r->name, r->params, r->param_ids, r->param_default, r->block, r->scratch,
                     r->init_bits, r->columns, r->uniform, r->handles, r->base_ptrs, r->out_ptrs};
    for (size_t k = 0; k < sizeof owned / sizeof owned[0]; k++) crowdi_free(engine, owned[k]);
    crowdi_free(engine, r);
}
