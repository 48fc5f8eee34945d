/* The expression controller (crowd.h section 14): a rig's library of Live2D expressions
 * (exp3), stored once as a table the stage cvk_expression (kernels/expression.h) reads, and
 * per instance a queue of CROWD_EXPRESSION_SLOTS playing expressions. */
#include <math.h>
#include <string.h>

#include "internal.h"
#include "kernels/expression.h"
#include "serial.h"
#include "settings.h"

/* Its own public enums' names, name and parse functions (names.h). */
CROWDI_ENUM_NAMES_DEFINE(expression_blend, crowd_expression_blend, CROWD_EXPRESSION_BLEND_COUNT, "add", "multiply", "overwrite")

_Static_assert(CROWDI_EXPRESSION_SLOTS == CROWD_EXPRESSION_SLOTS, "one queue size");

#define EXPRESSION_MAX_TABLE (1u << 22) /* expression_count * distinct parameters (crowd.h) */

enum { KIND_NONE = 0 }; /* else 1 + crowd_expression_blend */

/* the expression controller's part of a rig */
typedef struct expression_part {
    crowdi_expression_view view;
    float fade_in, fade_out; /* the desc's (for items with negative fades) */
    uint8_t *kind;           /* [(count + 1) * used]: what each expression does to each parameter */
} expression_part;
#define EXPRESSION(r) CROWDI_PART(r, EXPRESSION, expression_part)

static const crowdi_setting expression_settings_table[] = {
    CROWDI_FLOAT_SETTING(crowd_expression_desc, expression_part, fade_in, fade_in, 1.0, 0, false, CROWDI_MAX_SECONDS,
                         false, "s", "fade-in of the expressions whose own is negative (exp3 without FadeInTime)"),
    CROWDI_FLOAT_SETTING(crowd_expression_desc, expression_part, fade_out, fade_out, 1.0, 0, false, CROWDI_MAX_SECONDS,
                         false, "s", "fade-out of the expressions whose own is negative (exp3 without FadeOutTime)"),
};
#define EXPRESSION_SETTINGS (uint32_t)(sizeof expression_settings_table / sizeof expression_settings_table[0])

crowd_expression_desc crowd_expression_defaults(void) {
    crowd_expression_desc d = {0};
    crowdi_settings_defaults(expression_settings_table, EXPRESSION_SETTINGS, &d);
    return d;
}

static bool expression_present(const crowd_rig_desc *d) { return d->expression != NULL; }

/* The distinct rig parameters the library names, in the order first named: slot[p] = u, and
 * their count. slot has the rig's parameter count entries. */
static uint32_t expression_used(const crowd_expression_desc *x, const crowdi_ids *ids, int32_t *slot, uint32_t P,
                                uint32_t *param) {
    for (uint32_t p = 0; p < P; p++) slot[p] = -1;
    uint32_t used = 0;
    for (uint32_t e = 0; e < x->expression_count; e++)
        for (uint32_t k = 0; k < x->expressions[e].parameter_count; k++) {
            int p = crowdi_ids_find(ids, x->expressions[e].parameters[k].id);
            if (p < 0 || slot[p] >= 0) continue;
            if (param) param[used] = (uint32_t)p;
            slot[p] = (int32_t)used++;
        }
    return used;
}

static crowd_result expression_validate(crowd_engine *engine, const crowd_rig_desc *desc, const crowdi_ids *ids) {
    const crowd_expression_desc *x = desc->expression;
    CROWDI_RIG_CHECK(x->expression_count <= CROWD_MAX_ENTRIES, CROWD_ERR_CAPACITY,
                     "desc->expression->expression_count (%u) exceeds %u", x->expression_count, CROWD_MAX_ENTRIES);
    CROWDI_RIG_CHECK(x->expression_count == 0 || x->expressions, CROWD_ERR_NULL,
                     "desc->expression->expressions is NULL with expression_count %u", x->expression_count);
    for (uint32_t e = 0; e < x->expression_count; e++) {
        const crowd_expression_item_desc *it = &x->expressions[e];
        CROWDI_RIG_CHECK(it->parameter_count <= CROWD_MAX_ENTRIES, CROWD_ERR_CAPACITY,
                         "desc->expression->expressions[%u].parameter_count (%u) exceeds %u", e, it->parameter_count,
                         CROWD_MAX_ENTRIES);
        CROWDI_RIG_CHECK(it->parameter_count == 0 || it->parameters, CROWD_ERR_NULL,
                         "desc->expression->expressions[%u].parameters is NULL with parameter_count %u", e,
                         it->parameter_count);
    }
    if (!ids) return CROWD_OK;
    crowd_result res =
        crowdi_settings_check(engine, CROWDI_CTL_EXPRESSION, expression_settings_table, EXPRESSION_SETTINGS, x);
    if (res != CROWD_OK) return res;
    for (uint32_t e = 0; e < x->expression_count; e++) {
        const crowd_expression_item_desc *it = &x->expressions[e];
        CROWDI_RIG_CHECK(crowdi_finite(it->fade_in) && crowdi_finite(it->fade_out), CROWD_ERR_NOT_FINITE,
                         "desc->expression->expressions[%u]: fade_in (%g) or fade_out (%g) is not finite", e,
                         (double)it->fade_in, (double)it->fade_out);
        CROWDI_RIG_CHECK(it->fade_in <= CROWDI_MAX_SECONDS && it->fade_out <= CROWDI_MAX_SECONDS, CROWD_ERR_RANGE,
                         "desc->expression->expressions[%u]: fade_in (%g) and fade_out (%g) must be at most 1e6 s", e,
                         (double)it->fade_in, (double)it->fade_out);
        for (uint32_t k = 0; k < it->parameter_count; k++) {
            const crowd_expression_parameter_desc *pd = &it->parameters[k];
            CROWDI_RIG_CHECK(pd->id, CROWD_ERR_NULL, "desc->expression->expressions[%u].parameters[%u].id is NULL", e, k);
            CROWDI_RIG_CHECK(crowdi_finite(pd->value), CROWD_ERR_NOT_FINITE,
                             "desc->expression->expressions[%u].parameters[%u].value (\"%s\") is not finite", e, k, pd->id);
            CROWDI_RIG_CHECK(fabsf(pd->value) <= CROWDI_MAX_VALUE, CROWD_ERR_RANGE,
                             "desc->expression->expressions[%u].parameters[%u].value (%g, \"%s\") must be within +-1e18",
                             e, k, (double)pd->value, pd->id);
            CROWDI_RIG_CHECK((unsigned)pd->blend < CROWD_EXPRESSION_BLEND_COUNT, CROWD_ERR_BAD_ENUM,
                             "desc->expression->expressions[%u].parameters[%u].blend (%d, \"%s\") is not add, multiply "
                             "or overwrite", e, k, (int)pd->blend, pd->id);
        }
    }
    int32_t *slot = crowdi_alloc(engine, sizeof *slot * (desc->parameter_count ? desc->parameter_count : 1));
    CROWDI_RIG_CHECK(slot, CROWD_ERR_OUT_OF_MEMORY, "out of memory for desc->expression");
    uint32_t used = expression_used(x, ids, slot, desc->parameter_count, NULL);
    crowdi_free(engine, slot);
    CROWDI_RIG_CHECK((uint64_t)(x->expression_count + 1) * used <= EXPRESSION_MAX_TABLE, CROWD_ERR_CAPACITY,
                     "desc->expression: %u expressions over %u distinct parameters exceed the table's %u entries",
                     x->expression_count, used, EXPRESSION_MAX_TABLE);
    return CROWD_OK;
}

static crowd_result expression_build(crowd_engine *engine, const crowd_rig_desc *desc, const crowdi_ids *ids,
                                     crowdi_rig *r) {
    const crowd_expression_desc *x = desc->expression;
    expression_part *part = EXPRESSION(r);
    crowdi_expression_view *v = &part->view;
    const uint32_t E = x->expression_count, P = desc->parameter_count;
    part->fade_in = x->fade_in;
    part->fade_out = x->fade_out;
    int32_t *slot = crowdi_alloc(engine, sizeof *slot * (P ? P : 1));
    if (!slot) return CROWD_ERR_OUT_OF_MEMORY;
    const uint32_t U = expression_used(x, ids, slot, P, NULL);
    uint32_t *param = crowdi_alloc(engine, sizeof *param * (U ? U : 1));
    float *fade_in = crowdi_alloc(engine, sizeof *fade_in * (E + 1));
    float *fade_out = crowdi_alloc(engine, sizeof *fade_out * (E + 1));
    float *table = crowdi_alloc(engine, sizeof *table * ((size_t)(E + 1) * U * 4 + 1));
    uint8_t *kind = crowdi_alloc(engine, (size_t)(E + 1) * U + 1);
    v->param = param, v->fade_in = fade_in, v->fade_out = fade_out, v->table = table, part->kind = kind;
    if (!param || !fade_in || !fade_out || !table || !kind) {
        crowdi_free(engine, slot);
        return CROWD_ERR_OUT_OF_MEMORY;
    }
    expression_used(x, ids, slot, P, param);
    v->count = E;
    v->used = U;
    memset(kind, KIND_NONE, (size_t)(E + 1) * U + 1);
    for (size_t k = 0; k < (size_t)(E + 1) * U; k++) {
        table[4 * k] = 0.0f, table[4 * k + 1] = 1.0f, table[4 * k + 2] = 0.0f, table[4 * k + 3] = 0.0f;
    }
    for (uint32_t e = 0; e <= E; e++) {
        const crowd_expression_item_desc *it = e < E ? &x->expressions[e] : NULL;
        fade_in[e] = it && it->fade_in >= 0 ? it->fade_in : x->fade_in;
        fade_out[e] = it && it->fade_out >= 0 ? it->fade_out : x->fade_out;
        for (uint32_t k = 0; it && k < it->parameter_count; k++) {
            const crowd_expression_parameter_desc *pd = &it->parameters[k];
            int p = crowdi_ids_find(ids, pd->id);
            if (p < 0) continue; /* not the rig's: the framework's not-exist map, read by nobody */
            size_t at = (size_t)e * U + (size_t)slot[p];
            if (kind[at] != KIND_NONE) continue; /* named twice: the first counts */
            kind[at] = (uint8_t)(1 + pd->blend);
            float *t = &table[4 * at];
            if (pd->blend == CROWD_EXPRESSION_ADD) t[0] = pd->value;
            else if (pd->blend == CROWD_EXPRESSION_MULTIPLY) t[1] = pd->value;
            else t[2] = pd->value, t[3] = 1.0f;
        }
    }
    crowdi_free(engine, slot);
    return CROWD_OK;
}

static void expression_free(crowd_engine *engine, crowdi_rig *r) {
    expression_part *part = EXPRESSION(r);
    crowdi_free(engine, (void *)part->view.param);
    crowdi_free(engine, (void *)part->view.fade_in);
    crowdi_free(engine, (void *)part->view.fade_out);
    crowdi_free(engine, (void *)part->view.table);
    crowdi_free(engine, part->kind);
}

static uint32_t expression_layout(crowdi_rig *r, uint32_t first) {
    (void)r, (void)first;
    return CROWDI_EXPRESSION_NCOLS;
}

static void expression_init_bits(const crowdi_rig *r, uint32_t *bits) {
    const uint32_t first = r->col[CROWDI_CTL_EXPRESSION];
    bits[first + CROWDI_EXPRESSION_WEIGHT] = crowdi_bits(1.0f);
    for (uint32_t s = 0; s < CROWDI_EXPRESSION_SLOTS; s++) {
        bits[first + CROWDI_EXPRESSION_SLOT(s)] = crowdi_bits(-1.0f);
        bits[first + CROWDI_EXPRESSION_SLOT(s) + 1] = crowdi_bits(-1.0f);
        bits[first + CROWDI_EXPRESSION_SLOT(s) + 2] = crowdi_bits(CROWDI_EXPRESSION_NO_FADE);
    }
}

static void expression_settings(const crowdi_rig *r, bool *uniform) {
    uniform[r->col[CROWDI_CTL_EXPRESSION] + CROWDI_EXPRESSION_WEIGHT] = true;
}

static void expression_point(crowdi_rig *r) {
    crowdi_expression_view *v = &EXPRESSION(r)->view;
    for (int c = 0; c < CROWDI_EXPRESSION_NCOLS; c++) {
        v->col[c] = crowdi_tick_column(r, r->col[CROWDI_CTL_EXPRESSION] + (uint32_t)c);
        v->value[c] = crowdi_start_value(r, r->col[CROWDI_CTL_EXPRESSION] + (uint32_t)c);
    }
}

/* Snapshot: the settings, then per expression its resolved fades and what it does to each
 * parameter it names (rig parameter index, blend, value), in table order. */
static void expression_write(crowdi_writer *w, const crowdi_rig *r) {
    const expression_part *part = EXPRESSION(r);
    const crowdi_expression_view *v = &part->view;
    crowdi_settings_write(w, expression_settings_table, 0, EXPRESSION_SETTINGS, part);
    crowdi_w_u32(w, v->count);
    for (uint32_t e = 0; e < v->count; e++) {
        crowdi_w_f32(w, v->fade_in[e]);
        crowdi_w_f32(w, v->fade_out[e]);
        uint32_t n = 0;
        for (uint32_t u = 0; u < v->used; u++) n += part->kind[(size_t)e * v->used + u] != KIND_NONE;
        crowdi_w_u32(w, n);
        for (uint32_t u = 0; u < v->used; u++) {
            const size_t at = (size_t)e * v->used + u;
            if (part->kind[at] == KIND_NONE) continue;
            const uint32_t blend = part->kind[at] - 1u;
            crowdi_w_u32(w, v->param[u]);
            crowdi_w_u32(w, blend);
            crowdi_w_f32(w, v->table[4 * at + (blend == CROWD_EXPRESSION_ADD ? 0 : blend == CROWD_EXPRESSION_MULTIPLY ? 1 : 2)]);
        }
    }
}

static crowd_result expression_read(crowd_engine *e, crowd_engine *tmp, crowdi_reader *rd, const crowdi_loading *ld,
                                    crowd_rig_desc *desc, void **scratch) {
    crowd_expression_desc x = {0};
    crowdi_settings_read(rd, expression_settings_table, 0, EXPRESSION_SETTINGS, &x);
    const uint32_t E = crowdi_r_u32(rd);
    /* a pass over a copy of the reader counts the entries for one block */
    crowdi_reader peek = *rd;
    size_t entries = 0;
    for (uint32_t k = 0; k < E && !peek.bad; k++) {
        crowdi_r_f32(&peek), crowdi_r_f32(&peek);
        uint32_t n = crowdi_r_u32(&peek);
        entries += n;
        crowdi_r_take(&peek, (size_t)n * 12);
    }
    if (rd->bad || peek.bad || E > CROWD_MAX_ENTRIES)
        return crowdi_fail(e, CROWD_ERR_BAD_SNAPSHOT, "crowd_snapshot_load: rigs[%u].expression is corrupt", ld->rig);
    size_t bytes = sizeof(crowd_expression_desc) + sizeof(crowd_expression_item_desc) * E +
                   sizeof(crowd_expression_parameter_desc) * entries + 1;
    uint8_t *block = crowdi_alloc(tmp, bytes);
    if (!block)
        return crowdi_fail(e, CROWD_ERR_OUT_OF_MEMORY, "crowd_snapshot_load: out of memory for rigs[%u].expression", ld->rig);
    *scratch = block;
    crowd_expression_desc *d = (crowd_expression_desc *)(void *)block;
    crowd_expression_item_desc *items = (crowd_expression_item_desc *)(void *)(d + 1);
    crowd_expression_parameter_desc *params = (crowd_expression_parameter_desc *)(void *)(items + E);
    *d = x;
    d->expressions = items;
    d->expression_count = E;
    for (uint32_t k = 0; k < E; k++) {
        items[k].fade_in = crowdi_r_f32(rd);
        items[k].fade_out = crowdi_r_f32(rd);
        items[k].parameter_count = crowdi_r_u32(rd);
        items[k].parameters = params;
        for (uint32_t j = 0; j < items[k].parameter_count; j++) {
            uint32_t p = crowdi_r_u32(rd), blend = crowdi_r_u32(rd);
            float value = crowdi_r_f32(rd);
            if (p >= ld->param_count || blend >= CROWD_EXPRESSION_BLEND_COUNT)
                return crowdi_fail(e, CROWD_ERR_BAD_SNAPSHOT,
                                   "crowd_snapshot_load: rigs[%u].expression.expressions[%u].parameters[%u] is corrupt",
                                   ld->rig, k, j);
            *params++ = (crowd_expression_parameter_desc){ld->ids[p], value, (crowd_expression_blend)blend};
        }
        /* a negative resolved fade never comes from a rig: the desc's would replace it */
        if (items[k].fade_in < 0 || items[k].fade_out < 0)
            return crowdi_fail(e, CROWD_ERR_BAD_SNAPSHOT, "crowd_snapshot_load: rigs[%u].expression.expressions[%u] "
                               "has a negative fade", ld->rig, k);
    }
    desc->expression = d;
    return CROWD_OK;
}

static float *expression_field_column(const crowdi_rig *r, crowd_field f, uint32_t index, uint32_t comp) {
    switch (f) {
    case CROWD_FIELD_EXPRESSION_WEIGHT: return crowdi_ctl_column(r, CROWDI_CTL_EXPRESSION, CROWDI_EXPRESSION_WEIGHT);
    case CROWD_FIELD_EXPRESSION_SLOT:
        return crowdi_ctl_column(r, CROWDI_CTL_EXPRESSION, CROWDI_EXPRESSION_SLOT(index) + comp);
    default: return NULL;
    }
}

static uint32_t expression_entry_count(const crowdi_rig *r) {
    (void)r;
    return CROWDI_EXPRESSION_SLOTS;
}

/* expression_slot (its one CROWDI_RULE_OWN field): expression -1 or a library index; age -1 or
 * >= 0; fade -2, -1 or [0, 1e6] */
static bool expression_field_value(const crowdi_rig *r, crowd_field f, uint32_t index, uint32_t comp, float v,
                                   const char **want) {
    (void)f, (void)index;
    if (comp == 0) {
        *want = "-1 (empty) or an expression of the rig's library";
        return v == -1.0f || (v >= 0 && v < (float)EXPRESSION(r)->view.count && v == floorf(v));
    }
    if (comp == 1) {
        *want = "-1 (starts at the next tick) or an age >= 0";
        return v == -1.0f || v >= 0;
    }
    *want = "-1 (no fade-out), -2 (requested) or seconds left in [0, 1e6]";
    return v == -1.0f || v == -2.0f || (v >= 0 && v <= CROWDI_MAX_SECONDS);
}

crowd_result crowd_expressions_start(crowd_engine *e, const crowd_instance *h, uint32_t count, uint32_t expression) {
    if (!e) return CROWD_ERR_NULL;
    const char *fn = "crowd_expressions_start";
    crowd_result res = crowdi_check_handles(e, fn, h, count);
    if (res != CROWD_OK) return res;
    for (uint32_t i = 0; i < count; i++) {
        const crowdi_rig *r = e->rigs[crowdi_slot_get(e, h[i])->rig];
        CROWDI_CHECK(e, r->has[CROWDI_CTL_EXPRESSION], CROWD_ERR_NO_CONTROLLER,
                     "%s: handles[%u]: rig \"%s\" has no expression controller", fn, i, r->name);
        CROWDI_CHECK(e, expression < EXPRESSION(r)->view.count, CROWD_ERR_RANGE,
                     "%s: expression (%u) is not in rig \"%s\"'s library (%u expressions)", fn, expression, r->name,
                     EXPRESSION(r)->view.count);
    }
    for (uint32_t i = 0; i < count; i++) {
        const crowdi_slot *s = crowdi_slot_get(e, h[i]);
        const crowdi_rig *r = e->rigs[s->rig];
        float *col[CROWDI_EXPRESSION_SLOTS][3];
        for (uint32_t k = 0; k < CROWDI_EXPRESSION_SLOTS; k++)
            for (uint32_t c = 0; c < 3; c++) col[k][c] = crowdi_ctl_column(r, CROWDI_CTL_EXPRESSION, CROWDI_EXPRESSION_SLOT(k) + c);
        const uint32_t row = s->row;
        int last = -1; /* the newest filled slot */
        for (int k = 0; k < CROWDI_EXPRESSION_SLOTS; k++)
            if (col[k][0][row] >= 0) last = k;
        if (last == CROWDI_EXPRESSION_SLOTS - 1) { /* full: the oldest goes */
            for (int k = 0; k + 1 < CROWDI_EXPRESSION_SLOTS; k++)
                for (int c = 0; c < 3; c++) col[k][c][row] = col[k + 1][c][row];
            last--;
        }
        /* every playing expression fades out, from after the next tick's update */
        for (int k = 0; k <= last; k++)
            if (col[k][0][row] >= 0 && col[k][2][row] == CROWDI_EXPRESSION_NO_FADE)
                col[k][2][row] = CROWDI_EXPRESSION_FADE_REQUESTED;
        col[last + 1][0][row] = (float)expression;
        col[last + 1][1][row] = -1.0f;
        col[last + 1][2][row] = CROWDI_EXPRESSION_NO_FADE;
    }
    return CROWD_OK;
}

const crowdi_controller crowdi_controller_expression = {
    .name = "expression controller",
    .size = sizeof(expression_part),
    .present = expression_present,
    .validate = expression_validate,
    .build = expression_build,
    .free = expression_free,
    .layout = expression_layout,
    .init_bits = expression_init_bits,
    .settings = expression_settings,
    .point = expression_point,
    .write = expression_write,
    .read = expression_read,
    .field_column = expression_field_column,
    .entry_count = expression_entry_count,
    .entry_name = "expression queue slot",
    .field_value = expression_field_value,
    .setting_rows = expression_settings_table,
    .setting_count = EXPRESSION_SETTINGS,
};
