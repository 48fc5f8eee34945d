#include "simulate.h"

#include <stdio.h>
#include <string.h>

#include "diag.h"
#include "progress.h"
#include "resume.h"
#include "ticker.h"

/* A finger bone's name in the traces: "left_thumb_metacarpal" ... "right_little_distal" (index
 * as CROWD_FIELD_FINGER_WORLD's; the hands: "left_hand", "right_hand", the body's names). */
static const char *finger_name(uint32_t b, char buf[48]) {
    snprintf(buf, 48, "%s_%s", crowd_hand_name((crowd_hand)(b / CROWD_HAND_BONE_COUNT)),
             crowd_hand_bone_name((crowd_hand_bone)(b % CROWD_HAND_BONE_COUNT)));
    return buf;
}

/* Trace lines of instances lo .. hi-1. A rig with fingers writes crowd pose --hands' rows: the
 * hand rows the fingers' refined hands, then the 30 finger bones. */
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
                float *const(*src)[4] = wr->bone_world;
                uint32_t from = b;
                if (wr->fingers && (b == CROWD_BONE_LEFT_HAND || b == CROWD_BONE_RIGHT_HAND))
                    src = wr->finger_world, from = (b == CROWD_BONE_RIGHT_HAND ? CROWD_HAND_RIGHT : CROWD_HAND_LEFT) *
                                                   CROWD_HAND_BONE_COUNT;
                float q[4] = {src[from][0][row], src[from][1][row], src[from][2][row], src[from][3][row]};
                trace_bone(bones, k, w->first + i, crowd_bone_name((crowd_bone)b), q);
            }
        if (bones && wr->fingers)
            for (uint32_t b = 0; b < CROWD_FINGER_BONE_COUNT; b++) {
                if (b % CROWD_HAND_BONE_COUNT == CROWD_HAND_BONE_HAND && wr->limbs) continue; /* the hand rows above */
                float q[4] = {wr->finger_world[b][0][row], wr->finger_world[b][1][row], wr->finger_world[b][2][row],
                              wr->finger_world[b][3][row]};
                char name[48];
                trace_bone(bones, k, w->first + i, finger_name(b, name), q);
            }
    }
}

/* Instance i's 15 bone rotations of a kind (BONE_WORLD or BONE_LOCAL) and, for a rig with
 * fingers, its 32 hand bones' of the same kind with the body's hand rows replaced by the
 * fingers' refined hands (as crowd pose --hands writes them); *has_fingers says which. */
static int get_bones(const world *w, uint32_t i, bool local, float q[CROWD_BONE_COUNT][4],
                     float fingers[CROWD_FINGER_BONE_COUNT][4], bool *has_fingers) {
    crowd_result res = CROWD_OK;
    crowd_instance h = w->handles[i];
    for (uint32_t b = 0; res == CROWD_OK && b < CROWD_BONE_COUNT; b++)
        res = crowd_get(w->engine, h, local ? CROWD_FIELD_BONE_LOCAL : CROWD_FIELD_BONE_WORLD, b, q[b]);
    *has_fingers = w->rigs[w->rig_of[i]].fingers;
    for (uint32_t b = 0; res == CROWD_OK && *has_fingers && b < CROWD_FINGER_BONE_COUNT; b++)
        res = crowd_get(w->engine, h, local ? CROWD_FIELD_FINGER_LOCAL : CROWD_FIELD_FINGER_WORLD, b, fingers[b]);
    if (res != CROWD_OK) return tool_engine_error(TOOL_FAILED, w->engine, res, "crowd_get (bones)");
    if (*has_fingers) {
        memcpy(q[CROWD_BONE_LEFT_HAND], fingers[CROWD_HAND_LEFT * CROWD_HAND_BONE_COUNT], sizeof q[0]);
        memcpy(q[CROWD_BONE_RIGHT_HAND], fingers[CROWD_HAND_RIGHT * CROWD_HAND_BONE_COUNT], sizeof q[0]);
    }
    return TOOL_OK;
}

void simulate_write_traces(const world *w, trace_file *parameters, trace_file *bones, uint32_t k) {
    write_traces(w, parameters, bones, k, 0, w->instance_count);
}

static int write_bvh(const world *w, const sim_options *o) {
    uint32_t i = o->bvh_instance, row = w->row[i];
    const world_rig *wr = &w->rigs[w->rig_of[i]];
    float lm[CLIP_FLOATS], q[CROWD_BONE_COUNT][4], fingers[CROWD_FINGER_BONE_COUNT][4];
    for (uint32_t c = 0; c < CLIP_FLOATS; c++) lm[c] = wr->pose[c][row];
    bool has_fingers;
    int st = get_bones(w, i, true, q, fingers, &has_fingers);
    if (st != TOOL_OK) return st;
    bvh_frame_hands(o->bvh, lm, (const float(*)[4])q, has_fingers ? (const float(*)[4])fingers : NULL);
    return TOOL_OK;
}

/* Where an instance's face comes from (vmc.h's vmc_face): its rig's blink controller, its
 * ParamMouthOpenY or its first LipSync parameter (lip sync, face tracking; VMC's "A"), its
 * ParamEyeBallX/Y with a look controller or face tracking (the gaze), and face tracking's
 * scores. */
typedef struct face_source {
    bool blink, scores;
    int mouth, gaze_x, gaze_y; /* parameter index, -1: none */
} face_source;

static int parameter_index(const scene_rig *sr, const char *id) {
    for (uint32_t p = 0; p < sr->parameter_count; p++)
        if (strcmp(sr->parameters[p].id, id) == 0) return (int)p;
    return -1;
}

static face_source face_source_of(const world *w, uint32_t i) {
    const scene_rig *sr = &w->scene->rigs[w->rig_of[i]];
    face_source fs = {.blink = sr->rig_desc.blink != NULL, .scores = sr->has_face, .mouth = parameter_index(sr, "ParamMouthOpenY"),
                      .gaze_x = -1, .gaze_y = -1};
    /* with lip sync, the mouth is its first LipSync parameter (Mao's is ParamA) */
    if (sr->has_lipsync && sr->lipsync.parameter_count) fs.mouth = parameter_index(sr, sr->lipsync_parameters[0]);
    if (sr->rig_desc.look || sr->has_face)
        fs.gaze_x = parameter_index(sr, "ParamEyeBallX"), fs.gaze_y = parameter_index(sr, "ParamEyeBallY");
    if (fs.gaze_x < 0 || fs.gaze_y < 0) fs.gaze_x = fs.gaze_y = -1;
    return fs;
}

/* Instance i's face after the tick into *face (scores: its CROWD_FACE_SCORE_COUNT floats). */
static int read_face(const world *w, uint32_t i, const face_source *fs, vmc_face *face, float *scores) {
    crowd_instance h = w->handles[i];
    crowd_result res = CROWD_OK;
    memset(face, 0, sizeof *face);
    float opening = 1.0f, gaze[2] = {0, 0};
    if (fs->blink) res = crowd_get(w->engine, h, CROWD_FIELD_BLINK_OPENING, 0, &opening);
    if (res == CROWD_OK && fs->scores) res = crowd_get(w->engine, h, CROWD_FIELD_FACE_SCORES, 0, scores);
    if (res == CROWD_OK && fs->mouth >= 0) res = crowd_get(w->engine, h, CROWD_FIELD_OUTPUT, (uint32_t)fs->mouth, &face->mouth);
    if (res == CROWD_OK && fs->gaze_x >= 0) res = crowd_get(w->engine, h, CROWD_FIELD_OUTPUT, (uint32_t)fs->gaze_x, &gaze[0]);
    if (res == CROWD_OK && fs->gaze_x >= 0) res = crowd_get(w->engine, h, CROWD_FIELD_OUTPUT, (uint32_t)fs->gaze_y, &gaze[1]);
    if (res != CROWD_OK) return tool_engine_error(TOOL_FAILED, w->engine, res, "crowd_get (face)");
    if (fs->blink) {
        face->has_blink = true;
        face->blink[0] = face->blink[1] = 1.0f - opening;
    } else if (fs->scores) {
        face->has_blink = true;
        face->blink[0] = scores[CROWD_FACE_EYE_BLINK_LEFT], face->blink[1] = scores[CROWD_FACE_EYE_BLINK_RIGHT];
    }
    face->scores = fs->scores ? scores : NULL;
    face->has_mouth = fs->mouth >= 0;
    face->has_gaze = fs->gaze_x >= 0;
    for (int c = 0; c < 2; c++) face->gaze[c] = gaze[c] < -1.0f ? -1.0f : gaze[c] > 1.0f ? 1.0f : gaze[c];
    return TOOL_OK;
}

static bool has_face(const vmc_face *f) { return f->has_blink || f->has_mouth || f->has_gaze || f->scores; }

/* Frame k of instance bvh_instance into the VRM Animation, at (k-1)*dt. */
static int write_vrma(const world *w, const sim_options *o, const face_source *fs, uint32_t k) {
    uint32_t i = o->bvh_instance, row = w->row[i];
    const world_rig *wr = &w->rigs[w->rig_of[i]];
    float lm[CLIP_FLOATS], q[CROWD_BONE_COUNT][4], scores[CROWD_FACE_SCORE_COUNT], fingers[CROWD_FINGER_BONE_COUNT][4];
    for (uint32_t c = 0; c < CLIP_FLOATS; c++) lm[c] = wr->pose[c][row];
    bool has_fingers;
    int st = get_bones(w, i, false, q, fingers, &has_fingers);
    if (st != TOOL_OK) return st;
    vmc_face face;
    if ((st = read_face(w, i, fs, &face, scores)) != TOOL_OK) return st;
    const double t = (double)(k - 1) * (double)o->dt;
    const crowd_pose_frame frame = w->scene->rigs[w->rig_of[i]].limbs.frame;
    if (has_fingers)
        return vrma_frame_fingers(o->vrma, t, (const float(*)[4])q, (const float(*)[4])fingers, lm, frame,
                                  has_face(&face) ? &face : NULL);
    return vrma_frame(o->vrma, t, (const float(*)[4])q, lm, frame, has_face(&face) ? &face : NULL);
}

/* After tick k: instance vmc_instance over VMC, at (k-1)*dt. */
static int send_vmc(const world *w, const sim_options *o, const face_source *fs, uint32_t k) {
    float q[CROWD_BONE_COUNT][4], scores[CROWD_FACE_SCORE_COUNT], fingers[CROWD_FINGER_BONE_COUNT][4];
    uint32_t i = o->vmc_instance, row = w->row[i];
    bool has_fingers;
    int st = get_bones(w, i, false, q, fingers, &has_fingers);
    if (st != TOOL_OK) return st;
    const world_rig *wr = &w->rigs[w->rig_of[i]];
    float lm[CLIP_FLOATS];
    for (uint32_t c = 0; c < CLIP_FLOATS; c++) lm[c] = wr->pose[c][row];
    vmc_face face;
    if ((st = read_face(w, i, fs, &face, scores)) != TOOL_OK) return st;
    vmc_frame f = {.world = (const float(*)[4])q, .landmarks = lm, .frame = w->scene->rigs[w->rig_of[i]].limbs.frame,
                   .face = has_face(&face) ? &face : NULL, .t_s = (double)(k - 1) * (double)o->dt,
                   .fingers = has_fingers ? (const float(*)[4])fingers : NULL};
    return vmc_send_frame(o->vmc, &f);
}

int simulate(world *w, const sim_options *o, double *tick_seconds) {
    *tick_seconds = 0.0;
    int st = TOOL_OK;
    if (o->snapshot_path && o->snapshot_at == o->first) st = resume_save(w, o->first, o->snapshot_path);
    face_source vrma_source = o->vrma ? face_source_of(w, o->bvh_instance) : (face_source){0};
    face_source vmc_source = o->vmc ? face_source_of(w, o->vmc_instance) : (face_source){0};
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
        if (st == TOOL_OK && o->vrma) st = write_vrma(w, o, &vrma_source, k);
        if (st == TOOL_OK && o->vmc) st = send_vmc(w, o, &vmc_source, k);
        if (st == TOOL_OK && o->snapshot_path && k == o->snapshot_at) st = resume_save(w, k, o->snapshot_path);
        progress_update(&pr, k);
    }
    progress_end(&pr);
    if (tool_interrupted && st == TOOL_FAILED) tool_error(TOOL_FAILED, "interrupted");
    return st;
}
