/* The double-precision per-object Cubism physics (physics_reference.h): CubismPhysics.evaluate,
 * interpolate and updateParticles (Cubism Web Framework 5-r.4) operation by operation. */
#include "physics_reference.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define AIR_RESISTANCE 5.0
#define PI 3.141592653589793 /* Math.PI */
#define MOVEMENT_THRESHOLD 0.001
#define MAX_DELTA_TIME 5.0

typedef struct ref_particle {
    double x, y, vx, vy, gx, gy; /* position, velocity, last gravity */
} ref_particle;

struct physics_ref {
    crowd_physics_desc d;
    uint32_t parameter_count;
    int32_t *input_param, *output_param;
    float *minimum, *maximum;
    ref_particle *particles;
    double *current, *previous; /* per output */
    float *caches, *input_caches; /* Float32Array in the framework */
    int input_caches_ready, stepped;
    double remain;
    double gravity[2], wind[2];
};

static int32_t find(uint32_t n, const char *const *ids, const char *id) {
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(ids[i], id) == 0) return (int32_t)i;
    return -1;
}

void physics_ref_destroy(physics_ref *p) {
    if (!p) return;
    free(p->input_param);
    free(p->output_param);
    free(p->minimum);
    free(p->maximum);
    free(p->particles);
    free(p->current);
    free(p->previous);
    free(p->caches);
    free(p->input_caches);
    free(p);
}

physics_ref *physics_ref_create(const crowd_physics_desc *desc, uint32_t parameter_count, const char *const *ids,
                                const float *minimum, const float *maximum) {
    physics_ref *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->d = *desc;
    p->parameter_count = parameter_count;
    p->input_param = calloc(desc->input_count + 1, sizeof *p->input_param);
    p->output_param = calloc(desc->output_count + 1, sizeof *p->output_param);
    p->minimum = calloc(parameter_count + 1, sizeof *p->minimum);
    p->maximum = calloc(parameter_count + 1, sizeof *p->maximum);
    p->particles = calloc(desc->particle_count + 1, sizeof *p->particles);
    p->current = calloc(desc->output_count + 1, sizeof *p->current);
    p->previous = calloc(desc->output_count + 1, sizeof *p->previous);
    p->caches = calloc(parameter_count + 1, sizeof *p->caches);
    p->input_caches = calloc(parameter_count + 1, sizeof *p->input_caches);
    if (!p->input_param || !p->output_param || !p->minimum || !p->maximum || !p->particles || !p->current ||
        !p->previous || !p->caches || !p->input_caches) {
        physics_ref_destroy(p);
        return NULL;
    }
    memcpy(p->minimum, minimum, parameter_count * sizeof *minimum);
    memcpy(p->maximum, maximum, parameter_count * sizeof *maximum);
    for (uint32_t i = 0; i < desc->input_count; i++)
        if ((p->input_param[i] = find(parameter_count, ids, desc->inputs[i].parameter)) < 0) goto fail;
    for (uint32_t i = 0; i < desc->output_count; i++)
        if ((p->output_param[i] = find(parameter_count, ids, desc->outputs[i].parameter)) < 0) goto fail;
    /* initialize(): the chain hangs straight down from (0, 0) by the radii, last gravity (0, 1). */
    for (uint32_t s = 0; s < desc->subrig_count; s++) {
        const crowd_physics_subrig *sub = &desc->subrigs[s];
        ref_particle *strand = &p->particles[sub->particle_first];
        double y = 0;
        for (uint32_t i = 0; i < sub->particle_count; i++) {
            if (i > 0) y += desc->particles[sub->particle_first + i].radius;
            strand[i] = (ref_particle){.x = 0, .y = i > 0 ? y : desc->particles[sub->particle_first].position[1],
                                       .gx = 0, .gy = 1};
            if (i == 0) strand[i].x = desc->particles[sub->particle_first].position[0];
        }
    }
    physics_ref_set_forces(p, 0, -1, 0, 0);
    return p;
fail:
    physics_ref_destroy(p);
    return NULL;
}

void physics_ref_set_forces(physics_ref *p, double gravity_x, double gravity_y, double wind_x, double wind_y) {
    p->gravity[0] = gravity_x;
    p->gravity[1] = gravity_y;
    p->wind[0] = wind_x;
    p->wind[1] = wind_y;
}

double physics_ref_remain(const physics_ref *p) { return p->remain; }

/* CubismMath.directionToRadian */
static double direction_to_radian(double fx, double fy, double tx, double ty) {
    double r = atan2(ty, tx) - atan2(fy, fx);
    while (r < -PI) r += PI * 2.0;
    while (r > PI) r -= PI * 2.0;
    return r;
}

static void normalize(double *x, double *y) {
    double len = sqrt(*x * *x + *y * *y);
    *x = *x / len;
    *y = *y / len;
}

/* normalizeParameterValue */
static double normalize_parameter(double value, double pmin, double pmax, const crowd_physics_range *n, int inverted) {
    double result = 0.0;
    double max_value = pmax > pmin ? pmax : pmin;
    if (max_value < value) value = max_value;
    double min_value = pmax > pmin ? pmin : pmax;
    if (min_value > value) value = min_value;
    double min_norm = n->minimum > n->maximum ? n->maximum : n->minimum;
    double max_norm = n->minimum > n->maximum ? n->minimum : n->maximum;
    double middle_norm = n->default_value;
    double middle = min_value + fabs(max_value - min_value) / 2.0;
    double v = value - middle;
    if (v > 0) {
        double nl = max_norm - middle_norm, pl = max_value - middle;
        if (pl != 0.0) result = v * (nl / pl) + middle_norm;
    } else if (v < 0) {
        double nl = min_norm - middle_norm, pl = min_value - middle;
        if (pl != 0.0) result = v * (nl / pl) + middle_norm;
    } else {
        result = middle_norm;
    }
    return inverted ? result : result * -1.0;
}

/* updateOutputParameterValue on one Float32Array element. */
static void apply_output(float *target, double pmin, double pmax, double translation, const crowd_physics_output *o) {
    /* the framework reads Scale only into the angle scale: X and Y outputs scale by 0 */
    double scale = o->type == CROWD_PHYSICS_ANGLE ? o->scale : 0.0;
    double value = translation * scale;
    if (value < pmin) value = pmin;
    else if (value > pmax) value = pmax;
    double weight = o->weight / 100.0;
    if (weight >= 1.0) *target = (float)value;
    else *target = (float)((double)*target * (1.0 - weight) + value * weight);
}

static void update_particles(ref_particle *strand, const crowd_physics_particle *parts, uint32_t count, double tx,
                             double ty, double total_angle, const double wind[2], double threshold, double dt) {
    strand[0].x = tx;
    strand[0].y = ty;
    double total_radian = total_angle / 180.0 * PI;
    double gx = sin(total_radian), gy = cos(total_radian);
    normalize(&gx, &gy);
    for (uint32_t i = 1; i < count; i++) {
        ref_particle *s = &strand[i], *prev = &strand[i - 1];
        double fx = gx * parts[i].acceleration + wind[0], fy = gy * parts[i].acceleration + wind[1];
        double lx = s->x, ly = s->y;
        double delay = parts[i].delay * dt * 30.0;
        double dx = s->x - prev->x, dy = s->y - prev->y;
        double radian = direction_to_radian(s->gx, s->gy, gx, gy) / AIR_RESISTANCE;
        dx = cos(radian) * dx - dy * sin(radian);
        dy = sin(radian) * dx + dy * cos(radian);
        s->x = prev->x + dx;
        s->y = prev->y + dy;
        double vx = s->vx * delay, vy = s->vy * delay;
        double fdx = fx * delay * delay, fdy = fy * delay * delay;
        s->x = s->x + vx + fdx;
        s->y = s->y + vy + fdy;
        double nx = s->x - prev->x, ny = s->y - prev->y;
        normalize(&nx, &ny);
        s->x = prev->x + nx * parts[i].radius;
        s->y = prev->y + ny * parts[i].radius;
        if (fabs(s->x) < threshold) s->x = 0.0;
        if (delay != 0.0) {
            s->vx = (s->x - lx) / delay * parts[i].mobility;
            s->vy = (s->y - ly) / delay * parts[i].mobility;
        }
        s->gx = gx;
        s->gy = gy;
    }
}

static double output_value(const crowd_physics_output *o, const ref_particle *strand, const double gravity[2]) {
    uint32_t v = o->vertex;
    double tx = strand[v].x - strand[v - 1].x, ty = strand[v].y - strand[v - 1].y, r;
    if (o->type == CROWD_PHYSICS_ANGLE) {
        double px, py;
        if (v >= 2) {
            px = strand[v - 1].x - strand[v - 2].x;
            py = strand[v - 1].y - strand[v - 2].y;
        } else {
            px = gravity[0] * -1.0;
            py = gravity[1] * -1.0;
        }
        r = direction_to_radian(px, py, tx, ty);
    } else {
        r = o->type == CROWD_PHYSICS_X ? tx : ty;
    }
    return o->reflect ? r * -1.0 : r;
}

void physics_ref_evaluate(physics_ref *p, float *values, double dt) {
    const crowd_physics_desc *d = &p->d;
    if (0.0 >= dt) return;
    p->remain += dt;
    if (p->remain > MAX_DELTA_TIME) p->remain = 0.0;
    if (!p->input_caches_ready) {
        for (uint32_t j = 0; j < p->parameter_count; j++) p->input_caches[j] = values[j];
        p->input_caches_ready = 1;
    }
    double step = d->fps > 0.0 ? 1.0 / d->fps : dt;
    while (p->remain >= step) {
        memcpy(p->previous, p->current, d->output_count * sizeof *p->current);
        double w = step / p->remain;
        for (uint32_t j = 0; j < p->parameter_count; j++) {
            p->caches[j] = (float)((double)p->input_caches[j] * (1.0 - w) + (double)values[j] * w);
            p->input_caches[j] = p->caches[j];
        }
        for (uint32_t s = 0; s < d->subrig_count; s++) {
            const crowd_physics_subrig *sub = &d->subrigs[s];
            double angle = 0, tx = 0, ty = 0;
            for (uint32_t i = 0; i < sub->input_count; i++) {
                const crowd_physics_input *in = &d->inputs[sub->input_first + i];
                int32_t j = p->input_param[sub->input_first + i];
                double weight = in->weight / 100.0;
                const crowd_physics_range *n = in->type == CROWD_PHYSICS_ANGLE ? &sub->angle : &sub->position;
                double v = normalize_parameter(p->caches[j], p->minimum[j], p->maximum[j], n, in->reflect) * weight;
                if (in->type == CROWD_PHYSICS_X) tx += v;
                else if (in->type == CROWD_PHYSICS_Y) ty += v;
                else angle += v;
            }
            double rad = -angle / 180.0 * PI;
            tx = tx * cos(rad) - ty * sin(rad);
            ty = tx * sin(rad) + ty * cos(rad);
            ref_particle *strand = &p->particles[sub->particle_first];
            update_particles(strand, &d->particles[sub->particle_first], sub->particle_count, tx, ty, angle, p->wind,
                             MOVEMENT_THRESHOLD * sub->position.maximum, step);
            for (uint32_t i = 0; i < sub->output_count; i++) {
                uint32_t k = sub->output_first + i;
                double out = output_value(&d->outputs[k], strand, p->gravity);
                p->current[k] = out;
                int32_t j = p->output_param[k];
                apply_output(&p->caches[j], p->minimum[j], p->maximum[j], out, &d->outputs[k]);
            }
        }
        p->remain -= step;
        p->stepped = 1;
    }
    /* interpolate(): the framework skips outputs whose parameter it has not looked up yet,
     * which it does in the first step */
    if (!p->stepped) return;
    double alpha = p->remain / step;
    for (uint32_t k = 0; k < d->output_count; k++) {
        int32_t j = p->output_param[k];
        apply_output(&values[j], p->minimum[j], p->maximum[j], p->previous[k] * (1 - alpha) + p->current[k] * alpha,
                     &d->outputs[k]);
    }
}
