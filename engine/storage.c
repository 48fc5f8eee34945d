/* A rig's table: one column of 4-byte values per field, all in one 64-byte aligned block,
 * capacity padded to 16 rows so that every column starts on a cache line. */
#include <string.h>

#include "internal.h"

static uint32_t bits_of(float f) {
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    return u;
}

static void refresh_view(crowdi_rig *r) {
    crowdi_rig_view *v = &r->view;
    for (uint32_t p = 0; p < r->param_count; p++) {
        r->base_ptrs[p] = r->columns[r->col_base + p];
        r->out_ptrs[p] = r->columns[r->col_out + p];
    }
    for (uint32_t h = 0; h < r->harm_count; h++) {
        r->harm_T_ptrs[h] = r->columns[r->col_harm_T + h];
        r->harm_NR_ptrs[h] = r->columns[r->col_harm_NR + h];
    }
    *v = (crowdi_rig_view){
        .param_count = r->param_count, .params = r->params, .base = r->base_ptrs, .out = r->out_ptrs,
        .look_enabled = r->has_look, .look_blend = r->look_blend, .look_count = r->look_count,
        .look_max_speed = r->look_max_speed, .look = r->look,
        .harm_enabled = r->has_harm, .harm_blend = r->harm_blend, .harm_count = r->harm_count,
        .harm = r->harm, .timescales = r->timescales, .harm_T = r->harm_T_ptrs, .harm_NR = r->harm_NR_ptrs,
        .blink_enabled = r->has_blink, .blink_blend = r->blink_blend, .blink_model = r->blink_model,
        .blink_count = r->blink_count, .blink_mean = r->blink_mean,
        .blink_max_deviation = r->blink_max_deviation, .blink_timescale = r->blink_timescale,
        .blink_param = r->blink_param,
        .rkey = (uint32_t *)(void *)r->columns[r->col_rkey],
        .draws = (uint32_t *)(void *)r->columns[r->col_draws],
    };
    if (r->has_look)
        for (int c = 0; c < CROWDI_LOOK_NCOLS; c++) v->look_col[c] = r->columns[r->col_look + (uint32_t)c];
    if (r->has_harm) v->harm_weight = r->columns[r->col_harm_weight];
    if (r->has_blink)
        for (int c = 0; c < CROWDI_BLINK_NCOLS; c++) v->blink_col[c] = r->columns[r->col_blink + (uint32_t)c];
    if (r->has_face) crowdi_face_view_fill(&r->face, r->columns[r->col_face], r->capacity, &v->face);
    if (r->has_limbs) {
        const crowdi_rig_view *l = &r->limbs;
        v->limbs_enabled = 1;
        v->limb_flip_y = l->limb_flip_y;
        v->limb_side_mode = l->limb_side_mode;
        v->limb_smoothing = l->limb_smoothing;
        memcpy(v->limb_sign, l->limb_sign, sizeof v->limb_sign);
        v->limb_visibility_threshold = l->limb_visibility_threshold;
        v->limb_hold_half_life = l->limb_hold_half_life;
        v->limb_reacquire_half_life = l->limb_reacquire_half_life;
        v->limb_bend_sin_min = l->limb_bend_sin_min;
        v->limb_bend_sin_range = l->limb_bend_sin_range;
        v->limb_min_cutoff = l->limb_min_cutoff;
        v->limb_beta = l->limb_beta;
        v->limb_d_cutoff = l->limb_d_cutoff;
        memcpy(v->limb_fix, l->limb_fix, sizeof v->limb_fix);
        for (int b = 0; b < CROWDI_BONES; b++) v->limb_fix_kind[b] = crowdi_fix_kind(v->limb_fix[b]);
        memcpy(v->limb_rest_local, l->limb_rest_local, sizeof v->limb_rest_local);
        memcpy(v->limb_rest_world, l->limb_rest_world, sizeof v->limb_rest_world);
        memcpy(v->limb_deps, l->limb_deps, sizeof v->limb_deps);
        v->limb_stride = r->capacity;
        v->limb_pose = r->columns[r->col_pose];
        v->limb_root = r->columns[r->col_root];
        v->limb_world = r->columns[r->col_world];
        v->limb_local = r->columns[r->col_local];
        v->limb_side = crowdi_limbs_have_side(l) ? r->columns[r->col_side] : NULL;
        v->limb_track = crowdi_limbs_track(l) ? r->columns[r->col_track] : NULL;
        v->limb_src = crowdi_limbs_track(l) ? r->columns[r->col_src] : NULL;
        v->limb_filter = l->limb_smoothing ? r->columns[r->col_filter] : NULL;
    }
}

crowd_result crowdi_rig_layout(crowd_engine *engine, crowdi_rig *r) {
    uint32_t n = 0, P = r->param_count, H = r->harm_count;
    r->col_rkey = n++;
    r->col_draws = n++;
    r->col_host_draws = n++;
    r->col_base = n, n += P;
    r->col_out = n, n += P;
    if (r->has_look) r->col_look = n, n += CROWDI_LOOK_NCOLS;
    if (r->has_harm) {
        r->col_harm_T = n, n += H;
        r->col_harm_NR = n, n += H;
        r->col_harm_weight = n++;
    }
    if (r->has_blink) r->col_blink = n, n += CROWDI_BLINK_NCOLS;
    if (r->has_face) r->col_face = n, n += crowdi_face_columns(&r->face); /* walked by stride: contiguous */
    if (r->has_limbs) {
        /* groups of columns the kernel walks by stride: keep each group contiguous */
        r->col_pose = n, n += 4 * CROWDI_LANDMARKS;
        r->col_root = n, n += 4;
        r->col_world = n, n += 4 * CROWDI_BONES;
        r->col_local = n, n += 4 * CROWDI_BONES;
        if (crowdi_limbs_have_side(&r->limbs)) r->col_side = n, n += 3 * CROWD_LIMB_COUNT;
        if (r->limbs.limb_smoothing) r->col_filter = n, n += 3 * 3 * CROWDI_LANDMARKS + 1;
        if (crowdi_limbs_track(&r->limbs)) {
            r->col_track = n, n += CROWDI_BONES;
            r->col_src = n, n += 4 * CROWDI_BONES;
        }
    }
    r->column_count = n;

    r->init_bits = crowdi_alloc(engine, sizeof *r->init_bits * n);
    r->columns = crowdi_alloc(engine, sizeof *r->columns * n);
    r->base_ptrs = crowdi_alloc(engine, sizeof(float *) * P);
    r->out_ptrs = crowdi_alloc(engine, sizeof(float *) * P);
    r->harm_T_ptrs = crowdi_alloc(engine, sizeof(float *) * H);
    r->harm_NR_ptrs = crowdi_alloc(engine, sizeof(float *) * H);
    if (!r->init_bits || !r->columns || !r->base_ptrs || !r->out_ptrs || !r->harm_T_ptrs || !r->harm_NR_ptrs)
        return CROWD_ERR_OUT_OF_MEMORY;
    memset(r->init_bits, 0, sizeof *r->init_bits * n);
    memset(r->columns, 0, sizeof *r->columns * n);
    for (uint32_t p = 0; p < P; p++) {
        r->init_bits[r->col_base + p] = bits_of(r->param_default[p]);
        r->init_bits[r->col_out + p] = bits_of(r->param_default[p]);
    }
    if (r->has_look) {
        r->init_bits[r->col_look + CROWDI_LOOK_DAMPING] = bits_of(r->look_damping);
        r->init_bits[r->col_look + CROWDI_LOOK_WEIGHT] = bits_of(1.0f);
    }
    if (r->has_harm) {
        for (uint32_t h = 0; h < H; h++) r->init_bits[r->col_harm_NR + h] = bits_of(r->harm_range[h]);
        r->init_bits[r->col_harm_weight] = bits_of(1.0f);
    }
    if (r->has_blink) {
        r->init_bits[r->col_blink + CROWDI_BLINK_LAST] = bits_of(1.0f);
        r->init_bits[r->col_blink + CROWDI_BLINK_OPENING] = bits_of(1.0f);
        r->init_bits[r->col_blink + CROWDI_BLINK_MANUAL] = bits_of(-1.0f);
        r->init_bits[r->col_blink + CROWDI_BLINK_WEIGHT] = bits_of(1.0f);
    }
    if (r->has_face)
        for (uint32_t c = 0; c < crowdi_face_columns(&r->face); c++)
            r->init_bits[r->col_face + c] = bits_of(crowdi_face_initial(&r->face, c));
    if (r->has_limbs) {
        r->init_bits[r->col_root + 3] = bits_of(1.0f);
        /* a new instance shows the rest pose (root identity), fully eased in */
        const crowdi_rig_view *l = &r->limbs;
        for (uint32_t b = 0; b < CROWDI_BONES; b++) {
            for (uint32_t c = 0; c < 4; c++) {
                r->init_bits[r->col_world + 4 * b + c] = bits_of(l->limb_rest_world[b][c]);
                r->init_bits[r->col_local + 4 * b + c] = bits_of(l->limb_rest_local[b][c]);
                if (crowdi_limbs_track(l)) r->init_bits[r->col_src + 4 * b + c] = bits_of(l->limb_rest_local[b][c]);
            }
            if (crowdi_limbs_track(l)) r->init_bits[r->col_track + b] = bits_of(1.0f);
        }
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
    void *block = crowdi_alloc(engine, column_bytes * r->column_count);
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
    refresh_view(r);
    return CROWD_OK;
}

void crowdi_rig_free(crowd_engine *engine, crowdi_rig *r) {
    if (!r) return;
    if (r->param_ids)
        for (uint32_t p = 0; p < r->param_count; p++) crowdi_free(engine, r->param_ids[p]);
    void *owned[] = {r->name, r->params, r->param_ids, r->param_default, r->look, r->harm,
                     r->harm_range, r->blink_param, r->block, r->init_bits, r->columns, r->handles,
                     r->base_ptrs, r->out_ptrs, r->harm_T_ptrs, r->harm_NR_ptrs,
                     (void *)r->limbs_desc.custom_fix, (void *)r->limbs_desc.bind_landmarks,
                     (void *)r->limbs_desc.bind_rotations};
    for (size_t k = 0; k < sizeof owned / sizeof owned[0]; k++) crowdi_free(engine, owned[k]);
    crowdi_face_free(engine, &r->face);
    crowdi_free(engine, r);
}
