/* The per-object way and the streaming limit (see reference.h). */
#include "reference.h"

#include <cglm/cglm.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "random.h" /* the engine's counter-based generator: the same blink waits and phases */

static void rest_pose(per_object_rig *r);

/* ------------------------------------------------------------------------------------------
 * The rig: what a model type shares with its avatars.
 * ---------------------------------------------------------------------------------------- */
enum { PO_OVERRIDE = 1, PO_ADDITIVE, PO_MULTIPLY };
enum { PO_CENTRIC = 0, PO_LEFT, PO_RIGHT };
enum { PO_BONES = CROWD_BONE_COUNT, PO_LANDMARKS = CROWD_LANDMARK_COUNT, PO_USED = 23 };

typedef struct po_param {
    float min, max, size, default_value;
    bool repeat;
} po_param;

typedef struct po_look_entry {
    uint32_t param, axis;
    float factor;
} po_look_entry;

typedef struct po_harm_entry {
    uint32_t param, direction;
    float origin, range, duration, timescale;
} po_harm_entry;

/* Sections of an avatar's record, present only when the rig has that controller. */
typedef struct po_look {
    vec3 pos, vel, target, center;
    float active, damping, weight;
} po_look;

typedef struct po_blink {
    float T, last, opening, manual, weight;
    uint32_t phase, key, draws;
} po_blink;

typedef struct po_limbs {
    vec4 landmarks[PO_LANDMARKS]; /* x, y, z, visibility as the tracker gives them */
    versor root;
    versor world[PO_BONES];
    versor local[PO_BONES];
    float r[PO_BONES];         /* its progress; -1 after an untrusted tick */
    vec3 side[CROWD_LIMB_COUNT]; /* stable: the side in the torso's frame (zero: none yet) */
} po_limbs;

/* One Euro state of the used landmarks' coordinates (rigs with smoothing only) */
typedef struct po_filter {
    float x[PO_USED][3], dx[PO_USED][3], raw[PO_USED][3]; /* filtered, derivative, last raw */
    uint32_t ready;                                       /* has a first sample */
} po_filter;

struct per_object_rig {
    uint32_t param_count;
    po_param *params;

    bool has_look, has_harm, has_blink, has_limbs;
    uint32_t look_blend, look_count;
    float look_damping, look_max_speed;
    po_look_entry *look;
    uint32_t harm_blend, harm_count;
    po_harm_entry *harm;
    uint32_t blink_blend, blink_count;
    uint32_t *blink_param;
    float blink_mean, blink_max_deviation, blink_timescale;
    bool flip_y;
    float sign[CROWD_LIMB_COUNT], visibility_threshold, hold_half_life, reacquire_half_life;
    bool stable;
    float bend_sin_min, bend_sin_range, arm_image_sin;
    CGLM_ALIGN(16) versor rest_world[PO_BONES], rest_local[PO_BONES];
    bool smoothing;
    float min_cutoff, beta, d_cutoff;
    CGLM_ALIGN(16) versor fix[PO_BONES];

    /* the record: [limbs][filter][blink][look][harmonic weight, T[H], NR[H]][base[P], out[P]] */
    size_t off_limbs, off_filter, off_blink, off_look, off_harm, off_values, stride;
};

struct per_object_crowd {
    const per_object_rig *rig;
    uint32_t count;
    unsigned char *records; /* count * rig->stride bytes, 64-byte aligned */
};

static const int po_bone_parent[PO_BONES] = {-1, 0, 1, 1, 3, 4, 1, 6, 7, 0, 9, 10, 0, 12, 13};
static const int po_bone_deps[PO_BONES][4] = {
    {11, 12, 23, 24}, {11, 12, 23, 24}, {0, 7, 8, -1},    {11, 13, 15, -1}, {11, 13, 15, -1},
    {15, 17, 19, -1}, {12, 14, 16, -1}, {12, 14, 16, -1}, {16, 18, 20, -1}, {23, 25, 27, -1},
    {23, 25, 27, -1}, {27, 29, 31, -1}, {24, 26, 28, -1}, {24, 26, 28, -1}, {28, 30, 32, -1}};
/* the landmarks a bone reads: only these are converted */
static const int po_used[PO_USED] = {0, 7, 8, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32};

static int find_param(const crowd_rig_desc *d, const char *id) {
    for (uint32_t p = 0; p < d->parameter_count; p++)
        if (strcmp(d->parameters[p].id, id) == 0) return (int)p;
    return -1;
}

static uint32_t blend_mode(crowd_blend b, uint32_t dflt) {
    return b == CROWD_BLEND_OVERRIDE ? PO_OVERRIDE : b == CROWD_BLEND_ADDITIVE ? PO_ADDITIVE
                                                 : b == CROWD_BLEND_MULTIPLY   ? PO_MULTIPLY
                                                                               : dflt;
}

static size_t round16(size_t n) { return (n + 15) & ~(size_t)15; }

per_object_rig *per_object_rig_create(const crowd_rig_desc *d) {
    if (!d) return NULL;
    per_object_rig *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    r->param_count = d->parameter_count;
    r->params = calloc(d->parameter_count ? d->parameter_count : 1, sizeof *r->params);
    if (!r->params) goto error;
    for (uint32_t p = 0; p < d->parameter_count; p++) {
        const crowd_parameter_desc *pd = &d->parameters[p];
        r->params[p] = (po_param){pd->min, pd->max, pd->max - pd->min, pd->default_value, pd->repeat};
    }
    if (d->look) {
        const crowd_look_desc *l = d->look;
        r->has_look = true;
        r->look_blend = blend_mode(l->blend, PO_ADDITIVE);
        r->look_damping = l->damping;
        r->look_max_speed = l->max_speed;
        r->look_count = l->parameter_count;
        r->look = calloc(l->parameter_count ? l->parameter_count : 1, sizeof *r->look);
        if (!r->look) goto error;
        for (uint32_t k = 0; k < l->parameter_count; k++) {
            int p = find_param(d, l->parameters[k].id);
            if (p < 0) goto error;
            r->look[k] = (po_look_entry){(uint32_t)p, (uint32_t)l->parameters[k].axis, l->parameters[k].factor};
        }
    }
    if (d->harmonic) {
        const crowd_harmonic_desc *h = d->harmonic;
        r->has_harm = true;
        r->harm_blend = blend_mode(h->blend, PO_ADDITIVE);
        r->harm_count = h->parameter_count;
        r->harm = calloc(h->parameter_count ? h->parameter_count : 1, sizeof *r->harm);
        if (!r->harm) goto error;
        for (uint32_t k = 0; k < h->parameter_count; k++) {
            const crowd_harmonic_parameter_desc *e = &h->parameters[k];
            int p = find_param(d, e->id);
            if (p < 0) goto error;
            float ts = h->channel_count ? h->channel_timescales[e->channel] : 1.0f;
            uint32_t dir = e->direction == CROWD_DIRECTION_LEFT ? PO_LEFT : e->direction == CROWD_DIRECTION_RIGHT ? PO_RIGHT : PO_CENTRIC;
            r->harm[k] = (po_harm_entry){(uint32_t)p, dir, e->origin, e->range, e->duration, ts};
        }
    }
    if (d->blink) {
        const crowd_blink_desc *b = d->blink;
        if (b->model != CROWD_BLINK_SINE) goto error;
        r->has_blink = true;
        r->blink_blend = blend_mode(b->blend, PO_MULTIPLY);
        r->blink_count = b->parameter_count;
        r->blink_mean = b->mean;
        r->blink_max_deviation = b->max_deviation;
        r->blink_timescale = b->timescale;
        r->blink_param = calloc(b->parameter_count ? b->parameter_count : 1, sizeof *r->blink_param);
        if (!r->blink_param) goto error;
        for (uint32_t k = 0; k < b->parameter_count; k++) {
            int p = find_param(d, b->parameters[k]);
            if (p < 0) goto error;
            r->blink_param[k] = (uint32_t)p;
        }
    }
    if (d->limbs) {
        const crowd_limbs_desc *l = d->limbs;
        if (l->fallback == CROWD_FALLBACK_PREVIOUS || l->axis_fix == CROWD_AXIS_FIX_CALIBRATED) goto error;
        r->smoothing = l->smoothing;
        r->min_cutoff = l->min_cutoff, r->beta = l->beta, r->d_cutoff = l->d_cutoff;
        r->has_limbs = true;
        r->flip_y = l->frame == CROWD_FRAME_MEDIAPIPE_WORLD;
        memcpy(r->sign, l->fallback_sign, sizeof r->sign);
        r->visibility_threshold = l->visibility_threshold;
        r->hold_half_life = l->hold_half_life;
        r->reacquire_half_life = l->reacquire_half_life;
        r->stable = l->fallback == CROWD_FALLBACK_STABLE;
        r->bend_sin_min = (float)sin(l->bend_min * (GLM_PI / 180.0));
        r->bend_sin_range = (float)sin(l->bend_full * (GLM_PI / 180.0)) - r->bend_sin_min;
        r->arm_image_sin = (float)sin(l->arm_image_bend * (GLM_PI / 180.0));
        for (int b = 0; b < PO_BONES; b++) {
            bool limb_bone = b == 3 || b == 4 || b == 6 || b == 7 || b == 9 || b == 10 || b == 12 || b == 13;
            glm_quat_identity(r->fix[b]);
            if (l->axis_fix == CROWD_AXIS_FIX_Y_ALONG_BONE && limb_bone) glm_quat_init(r->fix[b], 0.70710677f, 0, 0, 0.70710677f);
            if (l->axis_fix == CROWD_AXIS_FIX_CUSTOM) {
                const crowd_quat *q = &l->custom_fix[b];
                glm_quat_init(r->fix[b], q->x, q->y, q->z, q->w);
            }
        }
        rest_pose(r);
    }
    size_t off = 0;
    if (r->has_limbs) r->off_limbs = off, off += sizeof(po_limbs);
    if (r->smoothing) r->off_filter = off, off += round16(sizeof(po_filter));
    if (r->has_blink) r->off_blink = off, off += sizeof(po_blink);
    if (r->has_look) r->off_look = off, off += sizeof(po_look);
    if (r->has_harm) r->off_harm = off, off += sizeof(float) * (1 + 2 * (size_t)r->harm_count);
    r->off_values = off, off += sizeof(float) * 2 * (size_t)r->param_count;
    r->stride = round16(off ? off : 16);
    return r;
error:
    per_object_rig_destroy(r);
    return NULL;
}

void per_object_rig_destroy(per_object_rig *r) {
    if (!r) return;
    free(r->params);
    free(r->look);
    free(r->harm);
    free(r->blink_param);
    free(r);
}

size_t per_object_record_bytes(const per_object_rig *r) { return r->stride; }
uint32_t per_object_parameter_count(const per_object_rig *r) { return r->param_count; }

/* ------------------------------------------------------------------------------------------
 * Avatars
 * ---------------------------------------------------------------------------------------- */
static inline unsigned char *record(const per_object_crowd *c, uint32_t a) { return c->records + (size_t)a * c->rig->stride; }

per_object_crowd *per_object_crowd_create(const per_object_rig *r, uint32_t count, uint64_t seed, uint64_t first_id,
                                          crowd_harmonic_phase phase) {
    per_object_crowd *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->rig = r;
    c->count = count;
    size_t bytes = (size_t)count * r->stride;
    c->records = aligned_alloc(64, (bytes + 63) & ~(size_t)63);
    if (!c->records) {
        free(c);
        return NULL;
    }
    memset(c->records, 0, bytes);
    for (uint32_t a = 0; a < count; a++) {
        unsigned char *rec = record(c, a);
        float *base = (float *)(void *)(rec + r->off_values), *out = base + r->param_count;
        for (uint32_t p = 0; p < r->param_count; p++) base[p] = out[p] = r->params[p].default_value;
        uint32_t key = crowdi_instance_key(seed, first_id + a), draws = 0;
        if (r->has_blink) { /* the first idle wait is drawn (CROWD_BLINK_START_RANDOM) */
            po_blink *b = (po_blink *)(void *)(rec + r->off_blink);
            float u = crowdi_draw(key, draws++), dev = r->blink_max_deviation;
            *b = (po_blink){.T = (r->blink_mean + u * (2.0f * dev)) - dev, .last = 1.0f, .opening = 1.0f,
                            .manual = -1.0f, .weight = 1.0f, .phase = 0, .key = key};
        }
        if (r->has_harm) {
            float *h = (float *)(void *)(rec + r->off_harm), *T = h + 1, *NR = T + r->harm_count;
            h[0] = 1.0f;
            for (uint32_t k = 0; k < r->harm_count; k++) {
                T[k] = phase == CROWD_HARMONIC_PHASE_RANDOM ? crowdi_draw(key, draws++) * r->harm[k].duration : 0.0f;
                NR[k] = r->harm[k].range;
            }
        }
        if (r->has_blink) ((po_blink *)(void *)(rec + r->off_blink))->draws = draws;
        if (r->has_look) {
            po_look *l = (po_look *)(void *)(rec + r->off_look);
            l->damping = r->look_damping;
            l->weight = 1.0f;
        }
        if (r->has_limbs) {
            po_limbs *l = (po_limbs *)(void *)(rec + r->off_limbs);
            glm_quat_identity(l->root);
            for (int b = 0; b < PO_BONES; b++) {
                glm_quat_copy((float *)r->rest_world[b], l->world[b]);
                glm_quat_copy((float *)r->rest_local[b], l->local[b]);
                l->r[b] = 1.0f;
            }
            for (int k = 0; k < CROWD_LIMB_COUNT; k++) glm_vec3_zero(l->side[k]);
        }
    }
    return c;
}

void per_object_crowd_destroy(per_object_crowd *c) {
    if (!c) return;
    free(c->records);
    free(c);
}

uint32_t per_object_crowd_count(const per_object_crowd *c) { return c->count; }

void per_object_set_look(per_object_crowd *c, uint32_t a, const float target[3], int active) {
    po_look *l = (po_look *)(void *)(record(c, a) + c->rig->off_look);
    glm_vec3_copy((float *)target, l->target);
    l->active = active ? 1.0f : 0.0f;
}

void per_object_set_pose(per_object_crowd *c, uint32_t a, const float landmarks[4 * CROWD_LANDMARK_COUNT]) {
    po_limbs *l = (po_limbs *)(void *)(record(c, a) + c->rig->off_limbs);
    memcpy(l->landmarks, landmarks, sizeof l->landmarks);
}

const float *per_object_outputs(const per_object_crowd *c, uint32_t a) {
    return (const float *)(const void *)(record(c, a) + c->rig->off_values) + c->rig->param_count;
}

void per_object_bone_world(const per_object_crowd *c, uint32_t a, uint32_t bone, float q[4]) {
    const po_limbs *l = (const po_limbs *)(const void *)(record(c, a) + c->rig->off_limbs);
    memcpy(q, l->world[bone], 4 * sizeof(float));
}

/* ------------------------------------------------------------------------------------------
 * The update (SPEC §1-§5), one avatar at a time
 * ---------------------------------------------------------------------------------------- */
static inline float clamp_param(float x, const po_param *p) {
    if (p->repeat) {
        if (x > p->max) x = p->min + fmodf(x - p->max, p->size);
        if (x < p->min) x = p->max - fmodf(p->min - x, p->size);
        return x != x ? p->min : x;
    }
    return x < p->min ? p->min : (x > p->max ? p->max : x);
}

static inline float blend(float x, float v, float w, uint32_t mode, const po_param *p) {
    if (mode == PO_OVERRIDE)
        x = x * (1.0f - w) + v * w;
    else if (mode == PO_ADDITIVE)
        x = x + v * w;
    else
        x = x * (1.0f + (v - 1.0f) * w);
    return clamp_param(x, p);
}

/* Unity's Vector3.SmoothDamp (SPEC §2) */
static inline void smooth_damp(vec3 cur, vec3 target, vec3 vel, float smooth_time, float max_speed, float dt) {
    float st = 0.0001f > smooth_time ? 0.0001f : smooth_time; /* Mathf.Max */
    float omega = 2.0f / st;
    float x = omega * dt;
    float e = 1.0f / (((1.0f + x) + (0.48f * x) * x) + ((0.235f * x) * x) * x);
    vec3 ch, temp, out, a, b;
    glm_vec3_sub(cur, target, ch);
    float maxC = max_speed * st;
    float sum = glm_vec3_norm2(ch);
    if (sum > maxC * maxC) {
        float mag = sqrtf(sum);
        glm_vec3_divs(ch, mag, ch);
        glm_vec3_scale(ch, maxC, ch);
    }
    glm_vec3_sub(cur, ch, out); /* tgt */
    glm_vec3_scale(ch, omega, temp);
    glm_vec3_add(vel, temp, temp);
    glm_vec3_scale(temp, dt, temp);
    glm_vec3_scale(temp, omega, a);
    glm_vec3_sub(vel, a, vel);
    glm_vec3_scale(vel, e, vel);
    glm_vec3_add(ch, temp, a);
    glm_vec3_scale(a, e, a);
    glm_vec3_add(out, a, out);
    glm_vec3_sub(target, cur, a);
    glm_vec3_sub(out, target, b);
    if (glm_vec3_dot(a, b) > 0.0f) {
        glm_vec3_copy(target, out);
        glm_vec3_zero(vel);
    }
    glm_vec3_copy(out, cur);
}

static inline void update_look(const per_object_rig *restrict r, po_look *restrict l, float *restrict out, float dt) {
    vec3 goal = {0.0f, 0.0f, 0.0f}, d;
    if (l->active > 0.0f) glm_vec3_sub(l->target, l->center, goal);
    glm_vec3_sub(l->pos, goal, d);
    if (glm_vec3_norm2(d) >= 1e-5f * 1e-5f) smooth_damp(l->pos, goal, l->vel, l->damping, r->look_max_speed, dt);
    for (uint32_t k = 0; k < r->look_count; k++) {
        const po_look_entry *e = &r->look[k];
        out[e->param] = blend(out[e->param], l->pos[e->axis] * e->factor, l->weight, r->look_blend, &r->params[e->param]);
    }
}

/* Cubism's HarmonicMotion with its clamps (SPEC §3) */
static inline void update_harmonic(const per_object_rig *restrict r, float *restrict h, float *restrict out, float dt) {
    const float w = h[0];
    float *T = h + 1, *NR = T + r->harm_count;
    for (uint32_t k = 0; k < r->harm_count; k++) {
        const po_harm_entry *e = &r->harm[k];
        const po_param *p = &r->params[e->param];
        const float min = p->min, max = p->max, VR = p->size, D = e->duration;
        float t = T[k] + dt * e->timescale;
        while (t > D) t = t - D;
        T[k] = t;
        float origin = min + e->origin * VR, range = NR[k] * VR;
        if (e->direction == PO_LEFT) {
            if (origin - range >= min) {
                range = range / 2;
                origin = origin - range;
            } else {
                range = (origin - min) / 2;
                origin = min + range;
                NR[k] = (range * 2) / VR;
            }
        } else if (e->direction == PO_RIGHT) {
            if (origin + range <= max) {
                range = range / 2;
                origin = origin + range;
            } else {
                range = (max - origin) / 2;
                origin = max - range;
                NR[k] = (range * 2) / VR;
            }
        }
        if (origin - range < min) {
            range = origin - min;
            NR[k] = range / VR;
        } else if (origin + range > max) {
            range = max - origin;
            NR[k] = range / VR;
        }
        float value = origin + range * sinf((t * 6.2831855f) / D);
        out[e->param] = blend(out[e->param], value, w, r->harm_blend, p);
    }
}

/* Cubism's sine eye blink with random waits (SPEC §4) */
static inline void update_blink(const per_object_rig *restrict r, po_blink *restrict b, float *restrict out, float dt) {
    if (b->manual >= 0.0f) {
        b->opening = b->manual;
    } else if (b->phase == 0 && (b->T = b->T - dt) >= 0.0f) {
        /* idling: eye_opening unchanged */
    } else {
        if (b->phase == 0) {
            b->T = -1.5707964f;
            b->last = 1.0f;
            b->phase = 1;
        }
        b->T = b->T + dt * r->blink_timescale;
        float value = fabsf(sinf(b->T));
        if (b->phase == 1 && value > b->last) {
            b->phase = 2;
        } else if (b->phase == 2 && value < b->last) {
            value = 1.0f;
            b->phase = 0;
            float u = crowdi_draw(b->key, b->draws++), dev = r->blink_max_deviation;
            b->T = (r->blink_mean + u * (2.0f * dev)) - dev;
        }
        b->opening = value;
        b->last = value;
    }
    for (uint32_t k = 0; k < r->blink_count; k++) {
        uint32_t p = r->blink_param[k];
        out[p] = blend(out[p], b->opening, b->weight, r->blink_blend, &r->params[p]);
    }
}

/* ---- limbs (SPEC §5) with cglm ---- */
/* v/|v|, or zero when |v| <= 1e-5 */
static inline void normalized(vec3 v, vec3 dest) {
    float len = glm_vec3_norm(v);
    if (len > 1e-5f)
        glm_vec3_divs(v, len, dest);
    else
        glm_vec3_zero(dest);
}

/* Unity's Quaternion.LookRotation(forward, up): the rotation whose matrix columns are
 * x = normalize(cross(up, z)), y = cross(z, x), z = normalize(forward), through cglm. */
static inline void look_rotation(vec3 forward, vec3 up, versor dest) {
    float flen = glm_vec3_norm(forward);
    if (flen < 1e-5f) {
        glm_quat_identity(dest);
        return;
    }
    mat3 m;
    glm_vec3_divs(forward, flen, m[2]);
    glm_vec3_cross(up, m[2], m[0]);
    float xlen = glm_vec3_norm(m[0]);
    if (xlen < 1e-5f) { /* up parallel to forward: the shortest arc from +z */
        if (1.0f + m[2][2] < 1e-6f)
            glm_quat_init(dest, 1.0f, 0.0f, 0.0f, 0.0f);
        else
            glm_quat_from_vecs(GLM_ZUP, m[2], dest);
        return;
    }
    glm_vec3_divs(m[0], xlen, m[0]);
    glm_vec3_cross(m[2], m[0], m[1]);
    glm_mat3_quat(m, dest);
}

/* unit length, w >= 0 */
static inline void canonical(versor q) {
    glm_quat_normalize(q);
    if (q[3] < 0.0f) glm_vec4_negate(q);
}

/* SPEC 5.1's stable side axis: the rest hinge carried along the limb, the last side turned
 * with the torso T (columns), the bend plane weighted by how much the limb bends; the state
 * kept only where the limb is trusted */
static void stable_side(const per_object_rig *r, bool leg, const vec3 d, const vec3 ld, mat3 T, vec3 kept, bool trusted,
                        vec3 side) {
    vec3 down, h, k, ref, p, bend, t;
    glm_vec3_negate_to(T[1], down);
    if (leg)
        glm_vec3_copy(T[0], h);
    else
        glm_vec3_negate_to(T[0], h);
    float c = glm_vec3_dot(down, (float *)d);
    glm_vec3_cross(down, (float *)d, k);
    bool ok = 1.0f + c >= 1e-6f;
    if (ok) {
        vec3 kxh;
        glm_vec3_scale(h, c, ref);
        glm_vec3_cross(k, h, kxh);
        glm_vec3_add(ref, kxh, ref);
        glm_vec3_muladds(k, glm_vec3_dot(k, h) / (1.0f + c), ref);
        ok = glm_vec3_norm(ref) >= 1e-3f;
    }
    if (ok) {
        glm_vec3_normalize(ref);
    } else {
        vec3 alt;
        if (fabsf(d[2]) < 0.9f)
            glm_vec3_cross((float *)d, GLM_ZUP, alt);
        else
            glm_vec3_cross((float *)d, GLM_XUP, alt);
        normalized(alt, ref);
    }
    if (glm_vec3_norm2(kept) > 0.0f)
        glm_mat3_mulv(T, kept, p);
    else
        glm_vec3_copy(ref, p);
    vec3 along;
    glm_vec3_scale((float *)d, glm_vec3_dot(p, (float *)d), along);
    glm_vec3_sub(p, along, p);
    if (glm_vec3_norm(p) < 1e-3f)
        glm_vec3_copy(ref, p);
    else
        glm_vec3_normalize(p);
    glm_vec3_cross((float *)d, (float *)ld, bend);
    float b = glm_vec3_norm(bend), u = 0.0f;
    bool backward = leg && glm_vec3_dot(bend, ref) < 0.0f;
    glm_vec3_copy(leg || 1.0f + c >= 0.25f ? ref : p, t);
    bool own_sign = !leg && fabsf(bend[2]) >= r->arm_image_sin; /* an arm bent in the image plane */
    if (!own_sign && glm_vec3_dot(bend, t) < 0.0f) glm_vec3_negate(bend);
    if (!backward) u = glm_clamp((b - r->bend_sin_min) / r->bend_sin_range, 0.0f, 1.0f);
    if (u > 0.0f) {
        glm_vec3_scale(bend, u / b, side);
        glm_vec3_muladds(p, 1.0f - u, side);
        normalized(side, side);
    } else {
        glm_vec3_copy(p, side);
    }
    if (!trusted) return;
    mat3 Tt;
    glm_mat3_transpose_to(T, Tt);
    glm_mat3_mulv(Tt, side, kept);
}

/* kept: the limb's stable side state, NULL for the root fallback */
static inline void limb(const per_object_rig *r, const vec3 *lm, int a, int b, int c, const vec3 root_right, float sign,
                        bool leg, mat3 T, vec3 kept, bool trusted, versor upper, versor lower) {
    vec3 upper_dir, lower_dir, side, up, d;
    glm_vec3_sub((float *)lm[b], (float *)lm[a], d);
    normalized(d, upper_dir);
    glm_vec3_sub((float *)lm[c], (float *)lm[b], d);
    normalized(d, lower_dir);
    if (kept) {
        stable_side(r, leg, upper_dir, lower_dir, T, kept, trusted, side);
    } else {
        glm_vec3_cross(upper_dir, lower_dir, side);
        /* the root's right on the subject's side (against T's x column: negated) */
        if (glm_vec3_dot((float *)root_right, T[0]) < 0.0f) sign = -sign;
        if (glm_vec3_norm2(side) < 1e-4f) glm_vec3_scale((float *)root_right, sign, side);
    }
    glm_vec3_cross(upper_dir, side, up);
    look_rotation(upper_dir, up, upper);
    glm_vec3_cross(lower_dir, side, up);
    look_rotation(lower_dir, up, lower);
}

static inline void hand(const vec3 *lm, int wrist, int index, int pinky, versor q) {
    vec3 mid, dir, side, up;
    glm_vec3_center((float *)lm[index], (float *)lm[pinky], mid);
    glm_vec3_sub(mid, (float *)lm[wrist], mid);
    normalized(mid, dir);
    glm_vec3_sub((float *)lm[pinky], (float *)lm[index], side);
    glm_vec3_cross(dir, side, up);
    look_rotation(dir, up, q);
}

static inline void foot(const vec3 *lm, int ankle, int heel, int toe, versor q) {
    vec3 fwd, up;
    glm_vec3_sub((float *)lm[toe], (float *)lm[heel], fwd);
    glm_vec3_sub((float *)lm[ankle], (float *)lm[heel], up);
    look_rotation(fwd, up, q);
}

/* per tick constants of the One Euro filter, as MediaPipe's OneEuroFilter derives them */
typedef struct po_euro {
    float dt, alpha_d, frequency, two_pi_dt;
} po_euro;

/* One Euro on one coordinate (MediaPipe's OneEuroFilter: the derivative from the last raw
 * value; the first sample passes; dt = 0 keeps the filtered value) */
static inline float one_euro(const per_object_rig *r, const po_euro *e, bool first, float x, float *xhat, float *dxhat,
                             float *raw) {
    if (e->dt <= 0.0f) {
        if (first) *xhat = *raw = x;
        return *xhat;
    }
    float xf = x, edx = 0.0f;
    if (!first) {
        float dx = fminf(1e30f, fmaxf(-1e30f, (x - *raw) * e->frequency));
        edx = e->alpha_d * dx + (1.0f - e->alpha_d) * *dxhat;
        float c = fminf(e->two_pi_dt * (r->min_cutoff + r->beta * fabsf(edx)), 1e30f);
        float a = c / (c + 1.0f);
        xf = a * x + (1.0f - a) * *xhat;
    }
    *xhat = xf, *dxhat = edx, *raw = x;
    return xf;
}

/* The plain bases of SPEC 5 (stable side state in `side`, or NULL for the root fallback;
 * `trusted`: per limb, whether it stores its side state). */
static void solve_bases(const per_object_rig *r, vec3 *lm, const float *root, vec3 *side, const bool trusted[4],
                        versor basis[PO_BONES]) {
    vec3 right, hip_mid, shoulder_mid, up, sd, fwd, v;
    glm_quat_rotatev((float *)root, GLM_XUP, right);
    glm_vec3_center(lm[23], lm[24], hip_mid);
    glm_vec3_center(lm[11], lm[12], shoulder_mid);
    glm_vec3_sub(shoulder_mid, hip_mid, up);
    glm_vec3_sub(lm[24], lm[23], sd);
    glm_vec3_cross(sd, up, fwd);
    look_rotation(fwd, up, basis[0]);
    glm_vec3_sub(lm[12], lm[11], sd);
    glm_vec3_cross(sd, up, fwd);
    look_rotation(fwd, up, basis[1]);
    mat3 hips_T, chest_T; /* the torso rotations the stable sides hang from */
    glm_quat_mat3(basis[0], hips_T);
    glm_quat_mat3(basis[1], chest_T);
    glm_vec3_sub(lm[8], lm[7], sd);
    glm_vec3_center(lm[7], lm[8], v);
    glm_vec3_sub(lm[0], v, fwd);
    glm_vec3_cross(fwd, sd, up);
    look_rotation(fwd, up, basis[2]);
    limb(r, (const vec3 *)lm, 11, 13, 15, right, r->sign[0], false, chest_T, side ? side[0] : NULL, trusted[0], basis[3], basis[4]);
    hand((const vec3 *)lm, 15, 19, 17, basis[5]);
    limb(r, (const vec3 *)lm, 12, 14, 16, right, r->sign[1], false, chest_T, side ? side[1] : NULL, trusted[1], basis[6], basis[7]);
    hand((const vec3 *)lm, 16, 20, 18, basis[8]);
    limb(r, (const vec3 *)lm, 23, 25, 27, right, r->sign[2], true, hips_T, side ? side[2] : NULL, trusted[2], basis[9], basis[10]);
    foot((const vec3 *)lm, 27, 29, 31, basis[11]);
    limb(r, (const vec3 *)lm, 24, 26, 28, right, r->sign[3], true, hips_T, side ? side[3] : NULL, trusted[3], basis[12], basis[13]);
    foot((const vec3 *)lm, 28, 30, 32, basis[14]);
}

/* nlerp(a, b, t) on the near hemisphere, w >= 0 */
static void nlerp(const float *a, const float *b, float t, versor dest) {
    CGLM_ALIGN(16) versor bb;
    glm_vec4_copy((float *)b, bb);
    if (glm_quat_dot((float *)a, bb) < 0.0f) glm_vec4_negate(bb);
    glm_vec4_lerp((float *)a, bb, t, dest);
    canonical(dest);
}

/* The rest rotations: the canonical rest pose solved with the rig's fix (root fallback: the
 * rest limbs are bent). */
static void rest_pose(per_object_rig *r) {
    float rest[4 * PO_LANDMARKS];
    vec3 lm[PO_LANDMARKS];
    crowd_rest_landmarks(CROWD_FRAME_ENGINE, rest);
    for (int k = 0; k < PO_LANDMARKS; k++) glm_vec3_copy(rest + 4 * k, lm[k]);
    CGLM_ALIGN(16) versor basis[PO_BONES], root = GLM_QUAT_IDENTITY_INIT, inv;
    solve_bases(r, lm, root, NULL, (const bool[4]){true, true, true, true}, basis);
    for (int b = 0; b < PO_BONES; b++) {
        glm_quat_mul(basis[b], r->fix[b], r->rest_world[b]);
        canonical(r->rest_world[b]);
        glm_quat_conjugate(po_bone_parent[b] < 0 ? root : r->rest_world[po_bone_parent[b]], inv);
        glm_quat_mul(inv, r->rest_world[b], r->rest_local[b]);
        canonical(r->rest_local[b]);
    }
}

static inline void update_limbs(const per_object_rig *restrict r, po_limbs *restrict L, po_filter *restrict F,
                                const po_euro *e, float step, float k_in, float k_out) {
    vec3 lm[PO_LANDMARKS];
    for (int u = 0; u < PO_USED; u++) {
        const float *p = L->landmarks[po_used[u]];
        glm_vec3_copy((float *)p, lm[po_used[u]]);
        if (r->flip_y) lm[po_used[u]][1] = -p[1];
        if (F)
            for (int c = 0; c < 3; c++)
                lm[po_used[u]][c] = one_euro(r, e, !F->ready, lm[po_used[u]][c], &F->x[u][c], &F->dx[u][c], &F->raw[u][c]);
    }
    if (F) F->ready = 1;
    const bool track = r->visibility_threshold > 0.0f;
    bool limb_trusted[4];
    for (int l = 0; l < 4; l++) { /* the limb's upper bone: its three joints */
        static const int upper[4] = {3, 6, 9, 12};
        limb_trusted[l] = true;
        for (int k = 0; track && k < 4 && po_bone_deps[upper[l]][k] >= 0; k++)
            limb_trusted[l] = limb_trusted[l] && L->landmarks[po_bone_deps[upper[l]][k]][3] >= r->visibility_threshold;
    }
    CGLM_ALIGN(16) versor basis[PO_BONES];
    solve_bases(r, lm, L->root, r->stable ? L->side : NULL, limb_trusted, basis);

    for (int b = 0; b < PO_BONES; b++) {
        float *parent = po_bone_parent[b] < 0 ? L->root : L->world[po_bone_parent[b]];
        CGLM_ALIGN(16) versor w, inv, local;
        glm_quat_mul(basis[b], (float *)r->fix[b], w);
        canonical(w);
        glm_quat_conjugate(parent, inv);
        glm_quat_mul(inv, w, local);
        canonical(local);
        if (track) {
            bool trusted = true;
            for (int k = 0; k < 4 && po_bone_deps[b][k] >= 0; k++)
                trusted = trusted && L->landmarks[po_bone_deps[b][k]][3] >= r->visibility_threshold;
            if (trusted) {
                L->r[b] = L->r[b] < 0.0f ? 1.0f - k_in : 1.0f - (1.0f - L->r[b]) * k_in;
                if (L->r[b] >= 1.0f - 0x1p-10f) {
                    L->r[b] = 1.0f;
                } else { /* from the previous output, at a rate growing as r nears 1 */
                    float a = 1.0f - exp2f(-fminf(step / (1.0f - L->r[b]), 64.0f));
                    nlerp(L->local[b], local, a, local);
                    glm_quat_mul(parent, local, w);
                    canonical(w);
                }
            } else { /* the shown pose eases toward rest */
                nlerp(r->rest_local[b], L->local[b], k_out, local);
                glm_quat_mul(parent, local, w);
                canonical(w);
                L->r[b] = -1.0f;
            }
        }
        glm_vec4_copy(w, L->world[b]);
        glm_vec4_copy(local, L->local[b]);
    }
}

void per_object_tick(per_object_crowd *c, float dt, uint32_t first, uint32_t count) {
    const per_object_rig *restrict r = c->rig;
    const uint32_t P = r->param_count;
    const float step = r->has_limbs ? dt / r->reacquire_half_life : 0.0f;
    const float k_in = r->has_limbs ? exp2f(-step) : 0.0f;
    const float k_out = r->has_limbs ? exp2f(-(dt / r->hold_half_life)) : 0.0f;
    po_euro euro = {.dt = dt};
    if (r->smoothing && dt > 0.0f) {
        euro.alpha_d = 1.0f / (1.0f + (1.0f / (6.2831855f * r->d_cutoff)) / dt);
        euro.frequency = fminf(1.0f / dt, 1e30f);
        euro.two_pi_dt = 6.2831855f * dt;
    }
    for (uint32_t a = first; a < first + count; a++) {
        unsigned char *rec = record(c, a);
        const float *restrict base = (const float *)(void *)(rec + r->off_values);
        float *restrict out = (float *)(void *)(rec + r->off_values) + P;
        for (uint32_t p = 0; p < P; p++) out[p] = base[p];
        if (r->has_blink) update_blink(r, (po_blink *)(void *)(rec + r->off_blink), out, dt);
        if (r->has_harm) update_harmonic(r, (float *)(void *)(rec + r->off_harm), out, dt);
        if (r->has_look) update_look(r, (po_look *)(void *)(rec + r->off_look), out, dt);
        if (r->has_limbs)
            update_limbs(r, (po_limbs *)(void *)(rec + r->off_limbs),
                         r->smoothing ? (po_filter *)(void *)(rec + r->off_filter) : NULL, &euro, step, k_in, k_out);
    }
}

/* ------------------------------------------------------------------------------------------
 * STREAM
 * ---------------------------------------------------------------------------------------- */
int stream_buffers_create(stream_buffers *s, size_t n) {
    size_t bytes = (n * sizeof(float) + 63) & ~(size_t)63;
    *s = (stream_buffers){aligned_alloc(64, bytes), aligned_alloc(64, bytes), aligned_alloc(64, bytes), n};
    if (!s->a || !s->b || !s->c) {
        stream_buffers_destroy(s);
        return -1;
    }
    for (size_t i = 0; i < n; i++) s->a[i] = 0.0f, s->b[i] = 1.0f, s->c[i] = 2.0f;
    return 0;
}

void stream_buffers_destroy(stream_buffers *s) {
    free(s->a);
    free(s->b);
    free(s->c);
    *s = (stream_buffers){0};
}

void stream_triad(const stream_buffers *s, float q, size_t first, size_t count) {
    float *restrict a = s->a + first;
    const float *restrict b = s->b + first, *restrict c = s->c + first;
    for (size_t i = 0; i < count; i++) a[i] = b[i] + q * c[i];
}

void stream_copy(const stream_buffers *s, size_t first, size_t count) {
    float *restrict a = s->a + first;
    const float *restrict b = s->b + first;
    for (size_t i = 0; i < count; i++) a[i] = b[i];
}
