#include "simulate.h"

#include "diag.h"
#include "progress.h"
#include "resume.h"
#include "ticker.h"

/* Trace lines of instances lo .. hi-1. */
static void write_traces(const world *w, trace_file *parameters, trace_file *bones, uint32_t k, uint32_t lo, uint32_t hi) {
    const scene *s = w->scene;
    for (uint32_t i = lo; i < hi; i++) {
        const scene_rig *sr = &s->rigs[w->rig_of[i]];
        const world_rig *wr = &w->rigs[w->rig_of[i]];
        uint32_t row = w->row[i];
        if (parameters)
            for (uint32_t p = 0; p < sr->parameter_count; p++)
                trace_parameter(parameters, k, w->first + i, sr->parameters[p].id, wr->out[p][row]);
        if (bones && wr->limbs && !wr->local_only) /* (callers refuse a local-only rig: scene_rig_without) */
            for (uint32_t b = 0; b < CROWD_BONE_COUNT; b++) {
                float q[4] = {wr->bone_world[b][0][row], wr->bone_world[b][1][row], wr->bone_world[b][2][row],
                              wr->bone_world[b][3][row]};
                trace_bone(bones, k, w->first + i, crowd_bone_name((crowd_bone)b), q);
            }
    }
}

void simulate_write_traces(const world *w, trace_file *parameters, trace_file *bones, uint32_t k) {
    write_traces(w, parameters, bones, k, 0, w->instance_count);
}

static int write_bvh(const world *w, const sim_options *o) {
    uint32_t i = o->bvh_instance, row = w->row[i];
    const world_rig *wr = &w->rigs[w->rig_of[i]];
    float lm[CLIP_FLOATS], q[CROWD_BONE_COUNT][4];
    for (uint32_t c = 0; c < CLIP_FLOATS; c++) lm[c] = wr->pose[c][row];
    for (uint32_t b = 0; b < CROWD_BONE_COUNT; b++) {
        crowd_result res = crowd_get(w->engine, w->handles[i], CROWD_FIELD_BONE_LOCAL, b, q[b]);
        if (res != CROWD_OK) return tool_engine_error(TOOL_FAILED, w->engine, res, "crowd_get (bone_local)");
    }
    bvh_frame(o->bvh, lm, (const float(*)[4])q);
    return TOOL_OK;
}

/* Frame k of instance bvh_instance into the VRM Animation, at (k-1)*dt. */
static int write_vrma(const world *w, const sim_options *o, uint32_t k) {
    uint32_t i = o->bvh_instance, row = w->row[i];
    const world_rig *wr = &w->rigs[w->rig_of[i]];
    float lm[CLIP_FLOATS], q[CROWD_BONE_COUNT][4];
    for (uint32_t c = 0; c < CLIP_FLOATS; c++) lm[c] = wr->pose[c][row];
    for (uint32_t b = 0; b < CROWD_BONE_COUNT; b++) {
        crowd_result res = crowd_get(w->engine, w->handles[i], CROWD_FIELD_BONE_WORLD, b, q[b]);
        if (res != CROWD_OK) return tool_engine_error(TOOL_FAILED, w->engine, res, "crowd_get (bone_world)");
    }
    float opening = 1.0f;
    if (o->vmc_blink) {
        crowd_result res = crowd_get(w->engine, w->handles[i], CROWD_FIELD_BLINK_OPENING, 0, &opening);
        if (res != CROWD_OK) return tool_engine_error(TOOL_FAILED, w->engine, res, "crowd_get (blink)");
    }
    vmc_face face = {.has_blink = o->vmc_blink, .blink = {1.0f - opening, 1.0f - opening}};
    vrma_frame(o->vrma, (double)(k - 1) * (double)o->dt, (const float(*)[4])q, lm, w->scene->rigs[w->rig_of[i]].limbs.frame,
               o->vmc_blink ? &face : NULL);
    return TOOL_OK;
}

/* After tick k: instance vmc_instance over VMC, at (k-1)*dt. */
static int send_vmc(const world *w, const sim_options *o, uint32_t k) {
    crowd_instance h = w->handles[o->vmc_instance];
    float q[CROWD_BONE_COUNT][4], opening = 1.0f;
    crowd_result res = CROWD_OK;
    for (uint32_t b = 0; res == CROWD_OK && b < CROWD_BONE_COUNT; b++)
        res = crowd_get(w->engine, h, CROWD_FIELD_BONE_WORLD, b, q[b]);
    if (res == CROWD_OK && o->vmc_blink) res = crowd_get(w->engine, h, CROWD_FIELD_BLINK_OPENING, 0, &opening);
    if (res != CROWD_OK) return tool_engine_error(TOOL_FAILED, w->engine, res, "crowd_get (vmc)");
    uint32_t i = o->vmc_instance, row = w->row[i];
    const world_rig *wr = &w->rigs[w->rig_of[i]];
    float lm[CLIP_FLOATS];
    for (uint32_t c = 0; c < CLIP_FLOATS; c++) lm[c] = wr->pose[c][row];
    vmc_face face = {.has_blink = o->vmc_blink, .blink = {1.0f - opening, 1.0f - opening}};
    vmc_frame f = {.world = (const float(*)[4])q, .landmarks = lm, .frame = w->scene->rigs[w->rig_of[i]].limbs.frame,
                   .face = o->vmc_blink ? &face : NULL, .t_s = (double)(k - 1) * (double)o->dt};
    return vmc_send_frame(o->vmc, &f);
}

int simulate(world *w, const sim_options *o, double *tick_seconds) {
    *tick_seconds = 0.0;
    int st = TOOL_OK;
    if (o->snapshot_path && o->snapshot_at == o->first) st = resume_save(w, o->first, o->snapshot_path);
    progress pr;
    progress_start(&pr, o->quiet, o->frames, w->instance_count);
    for (uint32_t k = o->first + 1; st == TOOL_OK && k <= o->frames; k++) {
        if (tool_interrupted) {
            st = TOOL_FAILED;
            break;
        }
        if (o->pacer) vmc_pace(o->pacer, (double)(k - 1) * (double)o->dt);
        world_prepare_frame(w, k, o->dt);
        st = ticker_tick(w, o->dt, tick_seconds);
        if (st == TOOL_OK && o->bones_one) {
            if (o->parameters) simulate_write_traces(w, o->parameters, NULL, k);
            if (o->bones) write_traces(w, NULL, o->bones, k, o->bvh_instance, o->bvh_instance + 1);
        } else if (st == TOOL_OK && (o->parameters || o->bones)) {
            simulate_write_traces(w, o->parameters, o->bones, k);
        }
        if (st == TOOL_OK && o->bvh) st = write_bvh(w, o);
        if (st == TOOL_OK && o->vrma) st = write_vrma(w, o, k);
        if (st == TOOL_OK && o->vmc) st = send_vmc(w, o, k);
        if (st == TOOL_OK && o->snapshot_path && k == o->snapshot_at) st = resume_save(w, k, o->snapshot_path);
        progress_update(&pr, k);
    }
    progress_end(&pr);
    if (tool_interrupted && st == TOOL_FAILED) tool_error(TOOL_FAILED, "interrupted");
    return st;
}
