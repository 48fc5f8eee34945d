/* The float32 per-object Cubism physics (physics_reference.h): engine/kernels/physics.h at one
 * lane (cv.h's scalar target), so its numbers are the SIMD kernel's. Compiled with
 * -ffp-contract=off like the kernels (bench/CMakeLists.txt). */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "physics_reference.h"

#include "cv.h"
#include "cv_math.h"
#include "kernels/physics.h"

_Static_assert(CV_W == 1, "the per-object float physics is the kernel at one lane");

typedef struct f32_output {
    uint32_t param, vertex, type;
    int reflect;
    float scale, weight;
} f32_output;

struct physics_f32 {
    crowd_physics_desc d;
    uint32_t parameter_count;
    crowdi_physics_input_k *inputs;
    uint32_t *input_param;
    f32_output *outputs;
    crowdi_physics_particle_k *parts;
    float *threshold; /* per sub-rig */
    float *minimum, *maximum;
    /* state */
    float *px, *py, *vx, *vy, *gravity_angle, *current, *previous, *caches, *input_caches;
    int input_caches_ready, stepped;
    float remain;
    float gravity[2], wind[2];
    float fps;
};

static int32_t find(uint32_t n, const char *const *ids, const char *id) {
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(ids[i], id) == 0) return (int32_t)i;
    return -1;
}

size_t physics_f32_state_bytes(const crowd_physics_desc *d) {
    /* distinct parameters read as inputs */
    uint32_t distinct = 0;
    for (uint32_t i = 0; i < d->input_count; i++) {
        uint32_t k = 0;
        while (k < i && strcmp(d->inputs[k].parameter, d->inputs[i].parameter) != 0) k++;
        distinct += k == i;
    }
    size_t floats = 4u * (size_t)(d->particle_count - d->subrig_count) + 3u * d->subrig_count + 2u * (size_t)d->output_count +
                    (d->fps > 0 ? distinct : 0) + 2u;
    return floats * sizeof(float);
}

void physics_f32_destroy(physics_f32 *p) {
    if (!p) return;
    free(p->inputs);
    free(p->input_param);
    free(p->outputs);
    free(p->parts);
    free(p->threshold);
    free(p->minimum);
    free(p->maximum);
    free(p->px);
    free(p->py);
    free(p->vx);
    free(p->vy);
    free(p->gravity_angle);
    free(p->current);
    free(p->previous);
    free(p->caches);
    free(p->input_caches);
    free(p);
}

/* The input's constants, computed in double from the parameter's float range and rounded once. */
static crowdi_physics_input_k input_constants(const crowd_physics_input *in, const crowd_physics_range *n, double pmin,
                                              double pmax) {
    double lo = pmax > pmin ? pmin : pmax, hi = pmax > pmin ? pmax : pmin;
    double nlo = n->minimum > n->maximum ? n->maximum : n->minimum, nhi = n->minimum > n->maximum ? n->minimum : n->maximum;
    double middle = lo + fabs(hi - lo) / 2.0, mid_norm = n->default_value;
    crowdi_physics_input_k k = {.pmin = (float)lo, .pmax = (float)hi, .middle = (float)middle,
                                .zero_offset = (float)mid_norm, .type = (uint32_t)in->type};
    if (hi - middle != 0.0) {
        k.pos_scale = (float)((nhi - mid_norm) / (hi - middle));
        k.pos_offset = (float)mid_norm;
    }
    if (lo - middle != 0.0) {
        k.neg_scale = (float)((nlo - mid_norm) / (lo - middle));
        k.neg_offset = (float)mid_norm;
    }
    k.weight = (float)(in->weight / 100.0) * (in->reflect ? 1.0f : -1.0f);
    return k;
}

physics_f32 *physics_f32_create(const crowd_physics_desc *d, uint32_t parameter_count, const char *const *ids,
                                const float *minimum, const float *maximum) {
    physics_f32 *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->d = *d;
    p->parameter_count = parameter_count;
    size_t np = d->particle_count + 1, no = d->output_count + 1, ni = d->input_count + 1, nm = parameter_count + 1;
    p->inputs = calloc(ni, sizeof *p->inputs);
    p->input_param = calloc(ni, sizeof *p->input_param);
    p->outputs = calloc(no, sizeof *p->outputs);
    p->parts = calloc(np, sizeof *p->parts);
    p->threshold = calloc(d->subrig_count + 1, sizeof *p->threshold);
    p->minimum = calloc(nm, sizeof *p->minimum);
    p->maximum = calloc(nm, sizeof *p->maximum);
    p->px = calloc(np, sizeof(float));
    p->py = calloc(np, sizeof(float));
    p->vx = calloc(np, sizeof(float));
    p->vy = calloc(np, sizeof(float));
    p->gravity_angle = calloc(d->subrig_count + 1, sizeof(float));
    p->current = calloc(no, sizeof(float));
    p->previous = calloc(no, sizeof(float));
    p->caches = calloc(nm, sizeof(float));
    p->input_caches = calloc(nm, sizeof(float));
    if (!p->inputs || !p->input_param || !p->outputs || !p->parts || !p->threshold || !p->minimum || !p->maximum ||
        !p->px || !p->py || !p->vx || !p->vy || !p->gravity_angle || !p->current || !p->previous || !p->caches ||
        !p->input_caches)
        goto fail;
    memcpy(p->minimum, minimum, parameter_count * sizeof *minimum);
    memcpy(p->maximum, maximum, parameter_count * sizeof *maximum);
    p->fps = (float)d->fps;
    for (uint32_t s = 0; s < d->subrig_count; s++) {
        const crowd_physics_subrig *sub = &d->subrigs[s];
        p->threshold[s] = CROWDI_PHYSICS_MOVEMENT_THRESHOLD * (float)sub->position.maximum;
        for (uint32_t i = sub->input_first; i < sub->input_first + sub->input_count; i++) {
            int32_t j = find(parameter_count, ids, d->inputs[i].parameter);
            if (j < 0) goto fail;
            p->input_param[i] = (uint32_t)j;
            p->inputs[i] = input_constants(&d->inputs[i], d->inputs[i].type == CROWD_PHYSICS_ANGLE ? &sub->angle : &sub->position,
                                           minimum[j], maximum[j]);
        }
        for (uint32_t i = sub->output_first; i < sub->output_first + sub->output_count; i++) {
            const crowd_physics_output *o = &d->outputs[i];
            int32_t j = find(parameter_count, ids, o->parameter);
            if (j < 0) goto fail;
            /* the framework reads Scale only into the angle scale: X and Y outputs scale by 0 */
            p->outputs[i] = (f32_output){.param = (uint32_t)j, .vertex = o->vertex, .type = (uint32_t)o->type,
                                         .reflect = o->reflect,
                                         .scale = o->type == CROWD_PHYSICS_ANGLE ? (float)o->scale : 0.0f,
                                         .weight = (float)(o->weight / 100.0)};
        }
        /* initialize(): straight down by the radii from (0, 0); last gravity (0, 1). The chain is
         * kept as particle 0's position and each particle's offset from its parent. */
        for (uint32_t i = 0; i < sub->particle_count; i++) {
            const crowd_physics_particle *src = &d->particles[sub->particle_first + i];
            p->parts[sub->particle_first + i] = (crowdi_physics_particle_k){
                (float)src->mobility, (float)src->delay, (float)src->acceleration, (float)src->radius};
            p->py[sub->particle_first + i] = i > 0 ? (float)src->radius : 0.0f;
        }
        p->gravity_angle[s] = cv_atan2(1.0f, 0.0f);
    }
    physics_f32_set_forces(p, 0, -1, 0, 0);
    return p;
fail:
    physics_f32_destroy(p);
    return NULL;
}

void physics_f32_set_forces(physics_f32 *p, float gravity_x, float gravity_y, float wind_x, float wind_y) {
    p->gravity[0] = gravity_x;
    p->gravity[1] = gravity_y;
    p->wind[0] = wind_x;
    p->wind[1] = wind_y;
}

float physics_f32_remain(const physics_f32 *p) { return p->remain; }

void physics_f32_evaluate(physics_f32 *p, float *values, float dt) {
    const crowd_physics_desc *d = &p->d;
    if (!(dt > 0.0f)) return;
    p->remain += dt;
    if (p->remain > CROWDI_PHYSICS_MAX_REMAIN) p->remain = 0.0f;
    if (!p->input_caches_ready) {
        memcpy(p->input_caches, values, p->parameter_count * sizeof *values);
        p->input_caches_ready = 1;
    }
    float step = p->fps > 0.0f ? 1.0f / p->fps : dt;
    while (p->remain >= step) {
        memcpy(p->previous, p->current, d->output_count * sizeof *p->current);
        float w = step / p->remain;
        for (uint32_t j = 0; j < p->parameter_count; j++) {
            p->caches[j] = p->input_caches[j] * (1.0f - w) + values[j] * w;
            p->input_caches[j] = p->caches[j];
        }
        for (uint32_t s = 0; s < d->subrig_count; s++) {
            const crowd_physics_subrig *sub = &d->subrigs[s];
            cv_f tx = 0, ty = 0, angle = 0;
            for (uint32_t i = sub->input_first; i < sub->input_first + sub->input_count; i++) {
                cv_f v = cvk_physics_input(&p->inputs[i], p->caches[p->input_param[i]]);
                if (p->inputs[i].type == CROWD_PHYSICS_X) tx = cv_add(tx, v);
                else if (p->inputs[i].type == CROWD_PHYSICS_Y) ty = cv_add(ty, v);
                else angle = cv_add(angle, v);
            }
            cvk_physics_rotate_translation(&tx, &ty, angle);
            uint32_t f = sub->particle_first;
            cvk_physics_swing(tx, ty, angle, &p->gravity_angle[s], &p->px[f], &p->py[f], &p->vx[f], &p->vy[f],
                              &p->parts[f], sub->particle_count, step, p->wind[0], p->wind[1], p->threshold[s]);
            for (uint32_t k = sub->output_first; k < sub->output_first + sub->output_count; k++) {
                const f32_output *o = &p->outputs[k];
                p->current[k] = cvk_physics_output(o->type, o->reflect, &p->px[f], &p->py[f], o->vertex, p->gravity[0],
                                                   p->gravity[1]);
                p->caches[o->param] = cvk_physics_apply(p->caches[o->param], p->current[k], o->scale,
                                                        p->minimum[o->param], p->maximum[o->param], o->weight);
            }
        }
        p->remain -= step;
        p->stepped = 1;
    }
    if (!p->stepped) return;
    float alpha = p->remain / step;
    for (uint32_t k = 0; k < d->output_count; k++) {
        const f32_output *o = &p->outputs[k];
        float blended = p->previous[k] * (1.0f - alpha) + p->current[k] * alpha;
        values[o->param] =
            cvk_physics_apply(values[o->param], blended, o->scale, p->minimum[o->param], p->maximum[o->param], o->weight);
    }
}
