/* Cubism physics (crowd.h section 12), order 800 after look: the controller's hooks — the
 * physics3 rig checked field by field, rounded to float once into the kernel's constants
 * (kernels/physics.h, the same rounding as the per-object float physics in bench/), the
 * per-instance pendulum columns and their start values, the gust phase drawn per instance,
 * snapshots of the rig as given. The stage is kernels/physics.h's cvk_physics. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "internal.h"
#include "serial.h"
#include "settings.h"

#include "kernels/physics.h"

/* physics' part of a rig: its view, the rig as given (parameters as indices, for snapshots)
 * and the kernel's constants */
typedef struct physics_part {
    crowdi_physics_view view;
    float fps, gravity_x, gravity_y, wind_x, wind_y, strength, gust, gust_period; /* settings */
    uint32_t subrig_count, input_count, output_count, particle_count;
    crowd_physics_subrig *subrigs;
    crowd_physics_input *inputs;   /* parameter: NULL (the index is in input_param) */
    crowd_physics_output *outputs; /* parameter: NULL (output_param) */
    crowd_physics_particle *particles;
    uint32_t *input_param, *output_param;
    crowdi_physics_subrig_k *k_subrigs;
    crowdi_physics_input_k *k_inputs;
    crowdi_physics_output_k *k_outputs;
    crowdi_physics_particle_k *k_particles;
    uint32_t *slot_param;
    uint32_t columns;
} physics_part;
#define PHYSICS(r) CROWDI_PART(r, PHYSICS, physics_part)
_Static_assert(CROWDI_PHYSICS_MAX_SLOTS == CROWD_PHYSICS_MAX_INPUT_PARAMETERS, "the stage's input slots");
_Static_assert(CROWDI_PHYSICS_MAX_PARTICLES == CROWD_PHYSICS_MAX_PARTICLES, "the stage's angles per sub-rig");

/* The settings, in snapshot order; the rig (sub-rigs, inputs, outputs, particles) follows them
 * in the snapshot. */
static const crowdi_setting physics_settings_table[] = {
    CROWDI_FLOAT_SETTING(crowd_physics_desc, physics_part, fps, fps, 0, 0, false, CROWD_PHYSICS_MAX_FPS, false, "Hz",
                         "Meta.Fps: fixed steps of 1/fps with interpolation; 0 one step per tick"),
    CROWDI_FLOAT_SETTING(crowd_physics_desc, physics_part, gravity_x, gravity_x, 0, -CROWD_PHYSICS_MAX_NUMBER, false,
                         CROWD_PHYSICS_MAX_NUMBER, false, "", "Options.gravity x: a first segment's angle is from -gravity"),
    CROWDI_FLOAT_SETTING(crowd_physics_desc, physics_part, gravity_y, gravity_y, -1, -CROWD_PHYSICS_MAX_NUMBER, false,
                         CROWD_PHYSICS_MAX_NUMBER, false, "", "Options.gravity y"),
    CROWDI_FLOAT_SETTING(crowd_physics_desc, physics_part, wind_x, wind_x, 0, -CROWD_PHYSICS_MAX_NUMBER, false,
                         CROWD_PHYSICS_MAX_NUMBER, false, "", "Options.wind x: a force on every particle"),
    CROWDI_FLOAT_SETTING(crowd_physics_desc, physics_part, wind_y, wind_y, 0, -CROWD_PHYSICS_MAX_NUMBER, false,
                         CROWD_PHYSICS_MAX_NUMBER, false, "", "Options.wind y"),
    CROWDI_FLOAT_SETTING(crowd_physics_desc, physics_part, strength, strength, 1, 0, false, 100, false, "",
                         "every output times this and the instance's physics_strength"),
    CROWDI_FLOAT_SETTING(crowd_physics_desc, physics_part, gust, wind_gust, 0, 0, false, 1, false, "",
                         "each instance's wind varies by this fraction with its own phase"),
    CROWDI_FLOAT_SETTING(crowd_physics_desc, physics_part, gust_period, gust_period, 4, 0, true, 3600, false, "s",
                         "the period of the gust"),
};
#define PHYSICS_SETTINGS (uint32_t)(sizeof physics_settings_table / sizeof physics_settings_table[0])

crowd_physics_desc crowd_physics_defaults(void) {
    crowd_physics_desc d = {0};
    crowdi_settings_defaults(physics_settings_table, PHYSICS_SETTINGS, &d);
    return d;
}

static bool physics_present(const crowd_rig_desc *d) { return d->physics != NULL; }

/* ---- validation ---- */
#define PHYS_CHECK(cond, code, ...) CROWDI_RIG_CHECK(cond, code, "desc->physics" __VA_ARGS__)
#define MAXN CROWD_PHYSICS_MAX_NUMBER

static bool number_ok(double x) { return isfinite(x) && fabs(x) <= MAXN; }

/* A number of the rig: finite (CROWD_ERR_NOT_FINITE) and within +-1e6 and [lo, hi] (RANGE). */
static crowd_result check_number(crowd_engine *engine, const char *what, uint32_t k, const char *field, double x,
                                 double lo, double hi, bool lo_open) {
    CROWDI_CHECK(engine, isfinite(x), CROWD_ERR_NOT_FINITE, "crowd_rig_create: desc->physics->%s[%u].%s is not finite",
                 what, k, field);
    CROWDI_CHECK(engine, number_ok(x) && (lo_open ? x > lo : x >= lo) && x <= hi, CROWD_ERR_RANGE,
                 "crowd_rig_create: desc->physics->%s[%u].%s (%g) must be in %s%g, %g]", what, k, field, x,
                 lo_open ? "(" : "[", lo < -MAXN ? -MAXN : lo, hi > MAXN ? MAXN : hi);
    return CROWD_OK;
}

static crowd_result check_range(crowd_engine *engine, uint32_t s, const char *name, const crowd_physics_range *n) {
    char field[64];
    crowd_result res;
    snprintf(field, sizeof field, "%s.minimum", name);
    if ((res = check_number(engine, "subrigs", s, field, n->minimum, -HUGE_VAL, HUGE_VAL, false)) != CROWD_OK) return res;
    snprintf(field, sizeof field, "%s.default_value", name);
    if ((res = check_number(engine, "subrigs", s, field, n->default_value, -HUGE_VAL, HUGE_VAL, false)) != CROWD_OK)
        return res;
    snprintf(field, sizeof field, "%s.maximum", name);
    if ((res = check_number(engine, "subrigs", s, field, n->maximum, n->minimum, HUGE_VAL, false)) != CROWD_OK) return res;
    return CROWD_OK;
}

static crowd_result physics_validate(crowd_engine *engine, const crowd_rig_desc *desc, const crowdi_ids *ids) {
    const crowd_physics_desc *d = desc->physics;
    crowd_result res;
    PHYS_CHECK(d->subrig_count <= CROWD_PHYSICS_MAX_SUBRIGS, CROWD_ERR_CAPACITY, "->subrig_count (%u) exceeds %u",
               d->subrig_count, CROWD_PHYSICS_MAX_SUBRIGS);
    PHYS_CHECK(d->input_count <= CROWD_PHYSICS_MAX_SUBRIGS * CROWD_PHYSICS_MAX_INPUTS, CROWD_ERR_CAPACITY,
               "->input_count (%u) exceeds %u", d->input_count, CROWD_PHYSICS_MAX_SUBRIGS * CROWD_PHYSICS_MAX_INPUTS);
    PHYS_CHECK(d->output_count <= CROWD_PHYSICS_MAX_SUBRIGS * CROWD_PHYSICS_MAX_OUTPUTS, CROWD_ERR_CAPACITY,
               "->output_count (%u) exceeds %u", d->output_count, CROWD_PHYSICS_MAX_SUBRIGS * CROWD_PHYSICS_MAX_OUTPUTS);
    PHYS_CHECK(d->particle_count <= CROWD_PHYSICS_MAX_SUBRIGS * CROWD_PHYSICS_MAX_PARTICLES, CROWD_ERR_CAPACITY,
               "->particle_count (%u) exceeds %u", d->particle_count,
               CROWD_PHYSICS_MAX_SUBRIGS * CROWD_PHYSICS_MAX_PARTICLES);
    if (!ids) return CROWD_OK;
    PHYS_CHECK(d->subrig_count == 0 || d->subrigs, CROWD_ERR_NULL, "->subrigs is NULL with subrig_count %u", d->subrig_count);
    PHYS_CHECK(d->input_count == 0 || d->inputs, CROWD_ERR_NULL, "->inputs is NULL with input_count %u", d->input_count);
    PHYS_CHECK(d->output_count == 0 || d->outputs, CROWD_ERR_NULL, "->outputs is NULL with output_count %u", d->output_count);
    PHYS_CHECK(d->particle_count == 0 || d->particles, CROWD_ERR_NULL, "->particles is NULL with particle_count %u",
               d->particle_count);
    if ((res = crowdi_settings_check(engine, CROWDI_CTL_PHYSICS, physics_settings_table, PHYSICS_SETTINGS, d)) != CROWD_OK)
        return res;
    uint32_t in_next = 0, out_next = 0, part_next = 0;
    for (uint32_t s = 0; s < d->subrig_count; s++) {
        const crowd_physics_subrig *sub = &d->subrigs[s];
        PHYS_CHECK(sub->input_first == in_next, CROWD_ERR_RANGE,
                   "->subrigs[%u].input_first (%u) must be %u (the sub-rigs take the inputs in order)", s, sub->input_first,
                   in_next);
        PHYS_CHECK(sub->output_first == out_next, CROWD_ERR_RANGE,
                   "->subrigs[%u].output_first (%u) must be %u (the sub-rigs take the outputs in order)", s,
                   sub->output_first, out_next);
        PHYS_CHECK(sub->particle_first == part_next, CROWD_ERR_RANGE,
                   "->subrigs[%u].particle_first (%u) must be %u (the sub-rigs take the particles in order)", s,
                   sub->particle_first, part_next);
        PHYS_CHECK(sub->input_count <= CROWD_PHYSICS_MAX_INPUTS && sub->input_count <= d->input_count - in_next,
                   CROWD_ERR_RANGE, "->subrigs[%u].input_count (%u) exceeds %u or the inputs left (%u)", s,
                   sub->input_count, CROWD_PHYSICS_MAX_INPUTS, d->input_count - in_next);
        PHYS_CHECK(sub->output_count <= CROWD_PHYSICS_MAX_OUTPUTS && sub->output_count <= d->output_count - out_next,
                   CROWD_ERR_RANGE, "->subrigs[%u].output_count (%u) exceeds %u or the outputs left (%u)", s,
                   sub->output_count, CROWD_PHYSICS_MAX_OUTPUTS, d->output_count - out_next);
        PHYS_CHECK(sub->particle_count >= 1 && sub->particle_count <= CROWD_PHYSICS_MAX_PARTICLES &&
                       sub->particle_count <= d->particle_count - part_next,
                   CROWD_ERR_RANGE, "->subrigs[%u].particle_count (%u) must be in [1, %u] and at most the particles left (%u)",
                   s, sub->particle_count, CROWD_PHYSICS_MAX_PARTICLES, d->particle_count - part_next);
        if ((res = check_range(engine, s, "position", &sub->position)) != CROWD_OK) return res;
        if ((res = check_range(engine, s, "angle", &sub->angle)) != CROWD_OK) return res;
        for (uint32_t k = sub->output_first; k < sub->output_first + sub->output_count; k++)
            PHYS_CHECK(d->outputs[k].vertex >= 1 && d->outputs[k].vertex < sub->particle_count, CROWD_ERR_RANGE,
                       "->outputs[%u].vertex (%u) must be in [1, %u] (sub-rig %u's particles after its first)", k,
                       d->outputs[k].vertex, sub->particle_count - 1, s);
        for (uint32_t k = sub->particle_first + 1; k < sub->particle_first + sub->particle_count; k++)
            if ((res = check_number(engine, "particles", k, "radius", d->particles[k].radius, 0, HUGE_VAL, true)) != CROWD_OK)
                return res;
        in_next += sub->input_count, out_next += sub->output_count, part_next += sub->particle_count;
    }
    PHYS_CHECK(in_next == d->input_count && out_next == d->output_count && part_next == d->particle_count,
               CROWD_ERR_RANGE, " counts (%u inputs, %u outputs, %u particles) are not the sub-rigs' (%u, %u, %u)",
               d->input_count, d->output_count, d->particle_count, in_next, out_next, part_next);
    for (uint32_t k = 0; k < d->input_count; k++) {
        const crowd_physics_input *in = &d->inputs[k];
        if ((res = crowdi_rig_param_id(engine, ids, "desc->physics->inputs[%u].parameter", k, in->parameter, NULL)) != CROWD_OK)
            return res;
        if ((res = check_number(engine, "inputs", k, "weight", in->weight, 0, 100, false)) != CROWD_OK) return res;
        PHYS_CHECK((unsigned)in->type < CROWD_PHYSICS_TYPE_COUNT, CROWD_ERR_BAD_ENUM,
                   "->inputs[%u].type (%d) is not x, y or angle", k, (int)in->type);
        PHYS_CHECK(in->reflect == 0 || in->reflect == 1, CROWD_ERR_RANGE, "->inputs[%u].reflect (%d) must be 0 or 1", k,
                   in->reflect);
    }
    for (uint32_t k = 0; k < d->output_count; k++) {
        const crowd_physics_output *o = &d->outputs[k];
        if ((res = crowdi_rig_param_id(engine, ids, "desc->physics->outputs[%u].parameter", k, o->parameter, NULL)) != CROWD_OK)
            return res;
        if ((res = check_number(engine, "outputs", k, "scale", o->scale, -HUGE_VAL, HUGE_VAL, false)) != CROWD_OK) return res;
        if ((res = check_number(engine, "outputs", k, "weight", o->weight, 0, 100, false)) != CROWD_OK) return res;
        PHYS_CHECK((unsigned)o->type < CROWD_PHYSICS_TYPE_COUNT, CROWD_ERR_BAD_ENUM,
                   "->outputs[%u].type (%d) is not x, y or angle", k, (int)o->type);
        PHYS_CHECK(o->reflect == 0 || o->reflect == 1, CROWD_ERR_RANGE, "->outputs[%u].reflect (%d) must be 0 or 1", k,
                   o->reflect);
    }
    for (uint32_t k = 0; k < d->particle_count; k++) {
        const crowd_physics_particle *p = &d->particles[k];
        if ((res = check_number(engine, "particles", k, "mobility", p->mobility, 0, HUGE_VAL, false)) != CROWD_OK ||
            (res = check_number(engine, "particles", k, "delay", p->delay, 0, HUGE_VAL, false)) != CROWD_OK ||
            (res = check_number(engine, "particles", k, "acceleration", p->acceleration, -HUGE_VAL, HUGE_VAL, false)) !=
                CROWD_OK ||
            (res = check_number(engine, "particles", k, "radius", p->radius, -HUGE_VAL, HUGE_VAL, false)) != CROWD_OK ||
            (res = check_number(engine, "particles", k, "position[0]", p->position[0], -HUGE_VAL, HUGE_VAL, false)) !=
                CROWD_OK ||
            (res = check_number(engine, "particles", k, "position[1]", p->position[1], -HUGE_VAL, HUGE_VAL, false)) !=
                CROWD_OK)
            return res;
    }
    /* the distinct parameters the inputs read: each is one input slot of the stage */
    uint32_t distinct = 0;
    for (uint32_t k = 0; k < d->input_count; k++) {
        uint32_t j = 0;
        while (j < k && crowdi_ids_find(ids, d->inputs[j].parameter) != crowdi_ids_find(ids, d->inputs[k].parameter)) j++;
        distinct += j == k;
        PHYS_CHECK(distinct <= CROWD_PHYSICS_MAX_INPUT_PARAMETERS, CROWD_ERR_CAPACITY,
                   "->inputs[%u].parameter (\"%s\") is a distinct input parameter beyond %u", k, d->inputs[k].parameter,
                   CROWD_PHYSICS_MAX_INPUT_PARAMETERS);
    }
    return CROWD_OK;
}

/* ---- build ---- */
/* An input's constants, computed in double from the parameter's float range and rounded once
 * (as bench/physics_reference_f32.c). */
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

static void *alloc_n(crowd_engine *engine, size_t n, size_t size) {
    void *p = crowdi_alloc(engine, (n ? n : 1) * size);
    if (p) memset(p, 0, (n ? n : 1) * size);
    return p;
}

static crowd_result physics_build(crowd_engine *engine, const crowd_rig_desc *desc, const crowdi_ids *ids, crowdi_rig *r) {
    const crowd_physics_desc *d = desc->physics;
    physics_part *f = PHYSICS(r);
    f->fps = d->fps, f->gravity_x = d->gravity_x, f->gravity_y = d->gravity_y, f->wind_x = d->wind_x;
    f->wind_y = d->wind_y, f->strength = d->strength, f->gust = d->wind_gust, f->gust_period = d->gust_period;
    f->subrig_count = d->subrig_count, f->input_count = d->input_count, f->output_count = d->output_count;
    f->particle_count = d->particle_count;
    f->subrigs = alloc_n(engine, d->subrig_count, sizeof *f->subrigs);
    f->inputs = alloc_n(engine, d->input_count, sizeof *f->inputs);
    f->outputs = alloc_n(engine, d->output_count, sizeof *f->outputs);
    f->particles = alloc_n(engine, d->particle_count, sizeof *f->particles);
    f->input_param = alloc_n(engine, d->input_count, sizeof *f->input_param);
    f->output_param = alloc_n(engine, d->output_count, sizeof *f->output_param);
    f->k_subrigs = alloc_n(engine, d->subrig_count, sizeof *f->k_subrigs);
    f->k_inputs = alloc_n(engine, d->input_count, sizeof *f->k_inputs);
    f->k_outputs = alloc_n(engine, d->output_count, sizeof *f->k_outputs);
    f->k_particles = alloc_n(engine, d->particle_count, sizeof *f->k_particles);
    f->slot_param = alloc_n(engine, CROWD_PHYSICS_MAX_INPUT_PARAMETERS, sizeof *f->slot_param);
    if (!f->subrigs || !f->inputs || !f->outputs || !f->particles || !f->input_param || !f->output_param ||
        !f->k_subrigs || !f->k_inputs || !f->k_outputs || !f->k_particles || !f->slot_param)
        return CROWD_ERR_OUT_OF_MEMORY;
    if (d->subrig_count) memcpy(f->subrigs, d->subrigs, d->subrig_count * sizeof *f->subrigs);
    if (d->particle_count) memcpy(f->particles, d->particles, d->particle_count * sizeof *f->particles);
    crowdi_physics_view *v = &f->view;
    uint32_t slots = 0;
    for (uint32_t k = 0; k < d->input_count; k++) {
        f->inputs[k] = d->inputs[k];
        f->inputs[k].parameter = NULL;
        uint32_t p = f->input_param[k] = (uint32_t)crowdi_ids_find(ids, d->inputs[k].parameter);
        uint32_t s = 0;
        while (s < slots && f->slot_param[s] != p) s++;
        if (s == slots) f->slot_param[slots++] = p;
    }
    uint32_t col = CROWDI_PHYSICS_COL_STATE;
    for (uint32_t s = 0; s < d->subrig_count; s++) {
        const crowd_physics_subrig *sub = &d->subrigs[s];
        f->k_subrigs[s] = (crowdi_physics_subrig_k){sub->input_first, sub->input_count, sub->output_first, sub->output_count,
                                                    sub->particle_first, sub->particle_count, col,
                                                    CROWDI_PHYSICS_MOVEMENT_THRESHOLD * (float)sub->position.maximum};
        col += 3 + 4 * (sub->particle_count - 1);
        for (uint32_t k = sub->input_first; k < sub->input_first + sub->input_count; k++) {
            const uint32_t p = f->input_param[k];
            f->k_inputs[k] = input_constants(&d->inputs[k], d->inputs[k].type == CROWD_PHYSICS_ANGLE ? &sub->angle : &sub->position,
                                             r->params[p].min, r->params[p].max);
            uint32_t slot = 0;
            while (f->slot_param[slot] != p) slot++;
            f->k_inputs[k].slot = slot;
        }
    }
    for (uint32_t k = 0; k < d->output_count; k++) {
        const crowd_physics_output *o = &d->outputs[k];
        f->outputs[k] = *o;
        f->outputs[k].parameter = NULL;
        const uint32_t p = f->output_param[k] = (uint32_t)crowdi_ids_find(ids, o->parameter);
        uint32_t slot = 0;
        while (slot < slots && f->slot_param[slot] != p) slot++;
        /* the framework reads Scale only into the angle scale: X and Y outputs scale by 0 */
        f->k_outputs[k] = (crowdi_physics_output_k){
            .param = p, .vertex = o->vertex, .type = (uint32_t)o->type, .reflect = (uint32_t)o->reflect,
            .slot = slot < slots ? slot + 1 : 0, .col = col,
            .scale = o->type == CROWD_PHYSICS_ANGLE ? (float)o->scale : 0.0f, .weight = (float)(o->weight / 100.0),
            .pmin = r->params[p].min, .pmax = r->params[p].max};
        col += d->fps > 0.0f ? 2 : 1; /* without fps only the last result: the stage writes it at once */
    }
    for (uint32_t k = 0; k < d->particle_count; k++) {
        const crowd_physics_particle *src = &d->particles[k];
        f->k_particles[k] = (crowdi_physics_particle_k){(float)src->mobility, (float)src->delay, (float)src->acceleration,
                                                        (float)src->radius};
    }
    v->icache_col = col;
    if (d->fps > 0.0f) col += slots;
    f->columns = col;
    v->subrig_count = d->subrig_count, v->slot_count = slots, v->output_count = d->output_count;
    v->subrigs = f->k_subrigs, v->inputs = f->k_inputs, v->outputs = f->k_outputs, v->particles = f->k_particles;
    v->slot_param = f->slot_param;
    v->fps = d->fps;
    v->step = d->fps > 0.0f ? 1.0f / d->fps : 0.0f;
    v->gravity_x = d->gravity_x, v->gravity_y = d->gravity_y, v->wind_x = d->wind_x, v->wind_y = d->wind_y;
    v->strength = d->strength, v->gust = d->wind_gust, v->gust_period = d->gust_period;
    return CROWD_OK;
}

static void physics_free(crowd_engine *engine, crowdi_rig *r) {
    physics_part *f = PHYSICS(r);
    crowdi_free(engine, f->subrigs);
    crowdi_free(engine, f->inputs);
    crowdi_free(engine, f->outputs);
    crowdi_free(engine, f->particles);
    crowdi_free(engine, f->input_param);
    crowdi_free(engine, f->output_param);
    crowdi_free(engine, f->k_subrigs);
    crowdi_free(engine, f->k_inputs);
    crowdi_free(engine, f->k_outputs);
    crowdi_free(engine, f->k_particles);
    crowdi_free(engine, f->slot_param);
}

/* ---- storage ---- */
static uint32_t physics_layout(crowdi_rig *r, uint32_t first) {
    (void)first;
    return PHYSICS(r)->columns;
}

/* multipliers 1; every chain hanging straight down from (0, 0) by its radii, at rest, under the
 * gravity angle of (0, 1) (the framework's initialize()); everything else 0 */
static void physics_init_bits(const crowdi_rig *r, uint32_t *bits) {
    const physics_part *f = PHYSICS(r);
    const uint32_t first = r->col[CROWDI_CTL_PHYSICS];
    bits[first + CROWDI_PHYSICS_COL_STRENGTH] = crowdi_bits(1.0f);
    bits[first + CROWDI_PHYSICS_COL_WIND] = crowdi_bits(1.0f);
    for (uint32_t s = 0; s < f->subrig_count; s++) {
        const crowdi_physics_subrig_k *sub = &f->k_subrigs[s];
        bits[first + sub->col + 2] = crowdi_bits(CROWDI_PHYSICS_START_ANGLE);
        for (uint32_t k = 1; k < sub->particle_count; k++)
            bits[first + sub->col + 3 + 4 * (k - 1) + 1] = crowdi_bits(f->k_particles[sub->particle_first + k].radius);
    }
}

static void physics_settings(const crowdi_rig *r, bool *uniform) {
    uniform[r->col[CROWDI_CTL_PHYSICS] + CROWDI_PHYSICS_COL_STRENGTH] = true;
    uniform[r->col[CROWDI_CTL_PHYSICS] + CROWDI_PHYSICS_COL_WIND] = true;
}

static void physics_point(crowdi_rig *r) {
    crowdi_physics_view *v = &PHYSICS(r)->view;
    const uint32_t first = r->col[CROWDI_CTL_PHYSICS];
    v->stride = r->capacity;
    v->cols = r->columns[first];
    v->strength_col = crowdi_tick_column(r, first + CROWDI_PHYSICS_COL_STRENGTH);
    v->strength_value = crowdi_start_value(r, first + CROWDI_PHYSICS_COL_STRENGTH);
    v->wind_col = crowdi_tick_column(r, first + CROWDI_PHYSICS_COL_WIND);
    v->wind_value = crowdi_start_value(r, first + CROWDI_PHYSICS_COL_WIND);
}

/* the gust phase, drawn after the other controllers' draws (tick order) */
static void physics_init_row(const crowd_engine *e, crowdi_rig *r, uint32_t row, const crowd_add_desc *d) {
    (void)e, (void)d;
    crowdi_ctl_column(r, CROWDI_CTL_PHYSICS, CROWDI_PHYSICS_COL_PHASE)[row] = crowdi_next_draw(r, row);
}

/* ---- snapshots ---- */
static void w_f64(crowdi_writer *w, double x) {
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    crowdi_w_u64(w, u);
}
static double r_f64(crowdi_reader *rd) {
    uint64_t u = crowdi_r_u64(rd);
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
}

static void w_range(crowdi_writer *w, const crowd_physics_range *n) {
    w_f64(w, n->minimum);
    w_f64(w, n->default_value);
    w_f64(w, n->maximum);
}
static void r_range(crowdi_reader *rd, crowd_physics_range *n) {
    n->minimum = r_f64(rd);
    n->default_value = r_f64(rd);
    n->maximum = r_f64(rd);
}

/* the bytes of a sub-rig, input, output and particle below (for the corrupt-count check) */
enum { SUBRIG_BYTES = 6 * 4 + 6 * 8, INPUT_BYTES = 4 + 8 + 4 + 4, OUTPUT_BYTES = 4 + 4 + 8 + 8 + 4 + 4, PARTICLE_BYTES = 6 * 8 };

static void physics_write(crowdi_writer *w, const crowdi_rig *r) {
    const physics_part *f = PHYSICS(r);
    crowdi_settings_write(w, physics_settings_table, 0, PHYSICS_SETTINGS, f);
    crowdi_w_u32(w, f->subrig_count);
    crowdi_w_u32(w, f->input_count);
    crowdi_w_u32(w, f->output_count);
    crowdi_w_u32(w, f->particle_count);
    for (uint32_t s = 0; s < f->subrig_count; s++) {
        const crowd_physics_subrig *sub = &f->subrigs[s];
        crowdi_w_u32(w, sub->input_first);
        crowdi_w_u32(w, sub->input_count);
        crowdi_w_u32(w, sub->output_first);
        crowdi_w_u32(w, sub->output_count);
        crowdi_w_u32(w, sub->particle_first);
        crowdi_w_u32(w, sub->particle_count);
        w_range(w, &sub->position);
        w_range(w, &sub->angle);
    }
    for (uint32_t k = 0; k < f->input_count; k++) {
        crowdi_w_u32(w, f->input_param[k]);
        w_f64(w, f->inputs[k].weight);
        crowdi_w_u32(w, (uint32_t)f->inputs[k].type);
        crowdi_w_u32(w, (uint32_t)f->inputs[k].reflect);
    }
    for (uint32_t k = 0; k < f->output_count; k++) {
        crowdi_w_u32(w, f->output_param[k]);
        crowdi_w_u32(w, f->outputs[k].vertex);
        w_f64(w, f->outputs[k].scale);
        w_f64(w, f->outputs[k].weight);
        crowdi_w_u32(w, (uint32_t)f->outputs[k].type);
        crowdi_w_u32(w, (uint32_t)f->outputs[k].reflect);
    }
    for (uint32_t k = 0; k < f->particle_count; k++) {
        const crowd_physics_particle *p = &f->particles[k];
        w_f64(w, p->mobility);
        w_f64(w, p->delay);
        w_f64(w, p->acceleration);
        w_f64(w, p->radius);
        w_f64(w, p->position[0]);
        w_f64(w, p->position[1]);
    }
}

typedef struct {
    crowd_physics_desc desc;
    crowd_physics_subrig *subrigs;
    crowd_physics_input *inputs;
    crowd_physics_output *outputs;
    crowd_physics_particle *particles;
    max_align_t rest[]; /* the four arrays */
} physics_loaded;

static crowd_result physics_read(crowd_engine *e, crowd_engine *tmp, crowdi_reader *rd, const crowdi_loading *ld,
                                 crowd_rig_desc *desc, void **scratch) {
    crowd_physics_desc physics = {0};
    crowdi_settings_read(rd, physics_settings_table, 0, PHYSICS_SETTINGS, &physics);
    uint32_t ns = crowdi_r_u32(rd);
    uint32_t ni = crowdi_r_u32(rd);
    uint32_t no = crowdi_r_u32(rd);
    uint32_t np = crowdi_r_u32(rd);
    if (ld->version < 5 || rd->bad ||
        (size_t)ns * SUBRIG_BYTES + (size_t)ni * INPUT_BYTES + (size_t)no * OUTPUT_BYTES + (size_t)np * PARTICLE_BYTES >
            rd->n - rd->off)
        return crowdi_fail(e, CROWD_ERR_BAD_SNAPSHOT, "crowd_snapshot_load: rigs[%u].physics is corrupt", ld->rig);
    size_t bytes = sizeof(physics_loaded) + (size_t)ns * sizeof(crowd_physics_subrig) + (size_t)ni * sizeof(crowd_physics_input) +
                   (size_t)no * sizeof(crowd_physics_output) + (size_t)np * sizeof(crowd_physics_particle);
    physics_loaded *l = crowdi_alloc(tmp, bytes);
    if (!l)
        return crowdi_fail(e, CROWD_ERR_OUT_OF_MEMORY, "crowd_snapshot_load: out of memory for rigs[%u].physics", ld->rig);
    *scratch = l;
    /* the arrays after the header, each of a type whose alignment the one before keeps */
    l->particles = (crowd_physics_particle *)(void *)l->rest;
    l->subrigs = (crowd_physics_subrig *)(void *)(l->particles + np);
    l->outputs = (crowd_physics_output *)(void *)(l->subrigs + ns);
    l->inputs = (crowd_physics_input *)(void *)(l->outputs + no);
    for (uint32_t s = 0; s < ns; s++) {
        crowd_physics_subrig *sub = &l->subrigs[s];
        sub->input_first = crowdi_r_u32(rd);
        sub->input_count = crowdi_r_u32(rd);
        sub->output_first = crowdi_r_u32(rd);
        sub->output_count = crowdi_r_u32(rd);
        sub->particle_first = crowdi_r_u32(rd);
        sub->particle_count = crowdi_r_u32(rd);
        r_range(rd, &sub->position);
        r_range(rd, &sub->angle);
    }
    for (uint32_t k = 0; k < ni; k++) {
        crowd_physics_input *in = &l->inputs[k];
        in->parameter = crowdi_loading_id(ld, crowdi_r_u32(rd));
        in->weight = r_f64(rd);
        in->type = (crowd_physics_type)crowdi_r_u32(rd);
        in->reflect = (int)crowdi_r_u32(rd);
    }
    for (uint32_t k = 0; k < no; k++) {
        crowd_physics_output *o = &l->outputs[k];
        o->parameter = crowdi_loading_id(ld, crowdi_r_u32(rd));
        o->vertex = crowdi_r_u32(rd);
        o->scale = r_f64(rd);
        o->weight = r_f64(rd);
        o->type = (crowd_physics_type)crowdi_r_u32(rd);
        o->reflect = (int)crowdi_r_u32(rd);
    }
    for (uint32_t k = 0; k < np; k++) {
        crowd_physics_particle *p = &l->particles[k];
        p->mobility = r_f64(rd);
        p->delay = r_f64(rd);
        p->acceleration = r_f64(rd);
        p->radius = r_f64(rd);
        p->position[0] = r_f64(rd);
        p->position[1] = r_f64(rd);
    }
    l->desc = physics;
    l->desc.subrig_count = ns, l->desc.input_count = ni, l->desc.output_count = no, l->desc.particle_count = np;
    l->desc.subrigs = l->subrigs, l->desc.inputs = l->inputs, l->desc.outputs = l->outputs, l->desc.particles = l->particles;
    desc->physics = &l->desc;
    return CROWD_OK;
}

/* the pendulum state no field rule covers: finite, and the stage 0, 1 or 2 */
static crowd_result physics_check_rows(crowd_engine *e, const crowdi_rig *r, uint32_t k) {
    const uint32_t first = r->col[CROWDI_CTL_PHYSICS];
    const float *stage = r->columns[first + CROWDI_PHYSICS_COL_STAGE];
    for (uint32_t row = 0; row < r->count; row++)
        if (!(stage[row] == 0.0f || stage[row] == 1.0f || stage[row] == 2.0f))
            return crowdi_fail(e, CROWD_ERR_BAD_SNAPSHOT, "crowd_snapshot_load: rigs[%u]: physics stage of row %u is %g",
                               k, row, (double)stage[row]);
    for (uint32_t c = first + CROWDI_PHYSICS_COL_STATE; c < first + PHYSICS(r)->columns; c++)
        for (uint32_t row = 0; row < r->count; row++)
            if (!crowdi_finite(r->columns[c][row]))
                return crowdi_fail(e, CROWD_ERR_BAD_SNAPSHOT,
                                   "crowd_snapshot_load: rigs[%u]: physics state column %u of row %u is not finite", k,
                                   c - first, row);
    return CROWD_OK;
}

static float *physics_field_column(const crowdi_rig *r, crowd_field f, uint32_t index, uint32_t comp) {
    (void)index, (void)comp;
    switch (f) {
    case CROWD_FIELD_PHYSICS_STRENGTH: return crowdi_ctl_column(r, CROWDI_CTL_PHYSICS, CROWDI_PHYSICS_COL_STRENGTH);
    case CROWD_FIELD_PHYSICS_WIND: return crowdi_ctl_column(r, CROWDI_CTL_PHYSICS, CROWDI_PHYSICS_COL_WIND);
    case CROWD_FIELD_PHYSICS_WIND_PHASE: return crowdi_ctl_column(r, CROWDI_CTL_PHYSICS, CROWDI_PHYSICS_COL_PHASE);
    case CROWD_FIELD_PHYSICS_REMAIN: return crowdi_ctl_column(r, CROWDI_CTL_PHYSICS, CROWDI_PHYSICS_COL_REMAIN);
    default: return NULL;
    }
}

const crowdi_controller crowdi_controller_physics = {
    .name = "physics",
    .size = sizeof(physics_part),
    .present = physics_present,
    .validate = physics_validate,
    .build = physics_build,
    .free = physics_free,
    .layout = physics_layout,
    .init_bits = physics_init_bits,
    .settings = physics_settings,
    .point = physics_point,
    .init_row = physics_init_row,
    .write = physics_write,
    .read = physics_read,
    .check_rows = physics_check_rows,
    .field_column = physics_field_column,
    .setting_rows = physics_settings_table,
    .setting_count = PHYSICS_SETTINGS,
};
