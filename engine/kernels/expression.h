/* The expression controller's kernel side (crowd.h section 14, engine/expression.c): its view
 * of the rig and, in the stage part (kernels/stages.h), the stage cvk_expression: the Cubism
 * R5 expression manager's queue, fades and (overwrite + add) * multiply, per instance. */
#ifndef CROWDI_EXPRESSION_H
#define CROWDI_EXPRESSION_H

#include <stdint.h>

#include "kernel_table.h"

#define CROWDI_EXPRESSION_SLOTS 4 /* crowd.h's CROWD_EXPRESSION_SLOTS */
/* Columns: the weight, then per queue slot s its expression (-1 empty), age and fade
 * (crowd.h's CROWD_FIELD_EXPRESSION_SLOT components) at CROWDI_EXPRESSION_SLOT(s) + 0, 1, 2. */
enum { CROWDI_EXPRESSION_WEIGHT = 0, CROWDI_EXPRESSION_NCOLS = 1 + 3 * CROWDI_EXPRESSION_SLOTS };
#define CROWDI_EXPRESSION_SLOT(s) (1 + 3 * (s))
/* Fade sentinels of a slot's fade column. */
#define CROWDI_EXPRESSION_NO_FADE (-1.0f)
#define CROWDI_EXPRESSION_FADE_REQUESTED (-2.0f)

/* The library as a table: `used` distinct parameters (param[u], in the order the desc first
 * names them) and a row per expression (and a spare neutral one) of 4 floats per
 * parameter: add (0 if not Add), multiply (1 if not Multiply), overwrite value and overwrite
 * flag (1 or 0). Fades per row, resolved against the desc's. */
typedef struct crowdi_expression_view {
    uint32_t count, used;
    const uint32_t *param; /* [used] */
    const float *fade_in, *fade_out; /* [count] (and the spare) */
    const float *table;    /* [(count + 1) * used * 4] */
    float *col[CROWDI_EXPRESSION_NCOLS];
    float value[CROWDI_EXPRESSION_NCOLS]; /* a column's value while it is uniform (col NULL) */
} crowdi_expression_view;

/* Its fields (crowd.h's crowd_field), as engine/fields.h's rows: X(FIELD, name, ctl, width,
 * indices, rule, writable); its module's field_column hook gives their columns. */
#define CROWDI_EXPRESSION_FIELDS(X, ctl)                                                                 \
    X(EXPRESSION_WEIGHT, "expression_weight", ctl, 1, CROWDI_INDEX_NONE, CROWDI_RULE_WEIGHT, true)       \
    X(EXPRESSION_SLOT, "expression_slot", ctl, 3, CROWDI_INDEX_ENTRY, CROWDI_RULE_OWN, true)

/* ---- the stage: in the kernel source only (kernels/stages.h defines CROWDI_STAGES) ---- */
#ifdef CROWDI_STAGES

#include "common.h"

/* Cubism's getEasingSine: 0 at or below 0, 1 at or above 1 (exactly: the queue compares the
 * newest weight with 1). */
static inline cv_f cvk_ease_sine(cv_f x) {
    const cv_f zero = cv_zero(), one = cv_set1(1.0f), half = cv_set1(0.5f);
    cv_f e = cv_sub(half, cv_mul(half, cv_cos(cv_mul(x, cv_set1(3.14159265f)))));
    return cv_select(cv_le(x, zero), zero, cv_select(cv_ge(x, one), one, e));
}

/* The distinct library rows the filled lanes of one slot play (at most CV_W; usually one: a
 * crowd starts its expressions in bulk), each with the mask of its lanes. Per parameter the
 * stage then broadcasts each row's values into its lanes: no per-lane loads, and the same
 * selects on every width. */
typedef struct cvk_expression_rows {
    uint32_t count;
    uint32_t row[CV_W];
    cv_m lanes[CV_W];
} cvk_expression_rows;

static inline void cvk_expression_distinct(cvk_expression_rows *d, cv_f e, cv_m filled) {
    uint32_t lane_row[CV_W], on[CV_W];
    cv_istoreu(lane_row, cv_f2i_trunc(cv_select(filled, e, cv_zero())));
    cv_istoreu(on, cv_iselect(filled, cv_iset1(1), cv_iset1(0)));
    d->count = 0;
    for (int l = 0; l < CV_W; l++) {
        if (!on[l]) continue;
        uint32_t k = 0;
        while (k < d->count && d->row[k] != lane_row[l]) k++;
        if (k == d->count) d->row[d->count++] = lane_row[l];
    }
    const cv_i rows = cv_f2i_trunc(cv_select(filled, e, cv_set1(-1.0f)));
    for (uint32_t k = 0; k < d->count; k++) d->lanes[k] = cv_ieq(rows, cv_iset1(d->row[k]));
}

static inline void cvk_expression(const crowdi_rig_view *v, float dt, size_t i0, size_t i1) {
    const crowdi_expression_view *x = v->controller[CROWDI_CTL_EXPRESSION];
    if (!x) return;
    float *const *c = x->col;
    const cv_f zero = cv_zero(), one = cv_set1(1.0f), vdt = cv_set1(dt), library = cv_set1((float)x->count);
    const uint32_t U = x->used;
    for (size_t i = i0; i < i1; i += CV_W) {
        cv_m filled[CROWDI_EXPRESSION_SLOTS];
        cv_f w[CROWDI_EXPRESSION_SLOTS];
        cvk_expression_rows rows[CROWDI_EXPRESSION_SLOTS];
        cv_f total = zero, filled_count = zero;
        cv_f newest_w = zero, newest_e = cv_set1(-1.0f), newest_age = cv_set1(-1.0f), newest_fade = cv_set1(-1.0f);
        for (int s = 0; s < CROWDI_EXPRESSION_SLOTS; s++) {
            float *ce = c[CROWDI_EXPRESSION_SLOT(s)], *ca = c[CROWDI_EXPRESSION_SLOT(s) + 1];
            float *cf = c[CROWDI_EXPRESSION_SLOT(s) + 2];
            cv_f e = cv_loadu(ce + i), age = cv_loadu(ca + i), fade = cv_loadu(cf + i);
            cv_m on = cv_mand(cv_ge(e, zero), cv_lt(e, library)); /* a library index (the field rule) */
            cvk_expression_distinct(&rows[s], e, on);
            cv_f fi = zero, fo = zero;
            for (uint32_t k = 0; k < rows[s].count; k++) {
                fi = cv_select(rows[s].lanes[k], cv_set1(x->fade_in[rows[s].row[k]]), fi);
                fo = cv_select(rows[s].lanes[k], cv_set1(x->fade_out[rows[s].row[k]]), fo);
            }
            cv_f new_age = cv_select(cv_lt(age, zero), zero, cv_add(age, vdt));
            cv_f fin = cv_select(cv_eq(fi, zero), one, cvk_ease_sine(cv_div(new_age, cv_select(cv_eq(fi, zero), one, fi))));
            cv_m fading = cv_ge(fade, zero);
            cv_f new_fade = cv_select(fading, cv_max(cv_sub(fade, vdt), zero), fade);
            cv_f fout = cv_select(cv_mor(cv_eq(fo, zero), cv_mnot(fading)), one,
                                  cvk_ease_sine(cv_div(new_fade, cv_select(cv_eq(fo, zero), one, fo))));
            cv_f ws = cv_mul(fin, fout);
            new_fade = cv_select(cv_eq(fade, cv_set1(CROWDI_EXPRESSION_FADE_REQUESTED)), fo, new_fade);
            total = cv_select(on, cv_add(total, fin), total);
            filled_count = cv_select(on, cv_add(filled_count, one), filled_count);
            filled[s] = on;
            w[s] = ws;
            age = cv_select(on, new_age, age);
            fade = cv_select(on, new_fade, fade);
            newest_w = cv_select(on, ws, newest_w);
            newest_e = cv_select(on, e, newest_e);
            newest_age = cv_select(on, age, newest_age);
            newest_fade = cv_select(on, fade, newest_fade);
            cv_storeu(ca + i, age);
            cv_storeu(cf + i, fade);
        }
        cv_m any = cv_gt(filled_count, zero);
        if (cv_any(any)) {
            cv_f weight = cvk_col(c[CROWDI_EXPRESSION_WEIGHT], x->value[CROWDI_EXPRESSION_WEIGHT], i);
            cv_f W = cv_mul(cv_min(total, one), weight); /* min(total, 1): total > 1 ? 1 : total */
            cv_m full = cv_eq(W, one);
            for (uint32_t u = 0; u < U; u++) {
                const uint32_t p = x->param[u];
                const crowdi_param prm = v->params[p];
                float *out = v->out[p];
                cv_f cur = cv_loadu(out + i);
                cv_f add = zero, mul = one, over = cur;
                cv_m seen = cv_mfalse();
                for (int s = 0; s < CROWDI_EXPRESSION_SLOTS; s++) {
                    if (rows[s].count == 0) continue; /* a whole block without this slot: nothing to blend */
                    cv_f a = zero, m = one, o = cur;
                    for (uint32_t k = 0; k < rows[s].count; k++) {
                        const float *t = &x->table[4 * ((size_t)rows[s].row[k] * U + u)];
                        const cv_m lanes = rows[s].lanes[k];
                        a = cv_select(lanes, cv_set1(t[0]), a);
                        m = cv_select(lanes, cv_set1(t[1]), m);
                        o = cv_select(t[3] > 0 ? lanes : cv_mfalse(), cv_set1(t[2]), o); /* Overwrite, else c */
                    }
                    cv_m first = cv_mandnot(filled[s], seen), later = cv_mand(filled[s], seen);
                    cv_f ws = w[s], rest = cv_sub(one, ws);
                    add = cv_select(first, a, cv_select(later, cv_add(cv_mul(add, rest), cv_mul(a, ws)), add));
                    mul = cv_select(first, m, cv_select(later, cv_add(cv_mul(mul, rest), cv_mul(m, ws)), mul));
                    over = cv_select(first, o, cv_select(later, cv_add(cv_mul(cur, rest), cv_mul(o, ws)), over));
                    seen = cv_mor(seen, filled[s]);
                }
                cv_f t = cv_mul(cv_add(over, add), mul);
                t = prm.repeat ? cvk_wrap(t, &prm) : cvk_clamp(t, &prm);
                cv_f blended = cv_select(full, t, cv_add(cur, cv_mul(cv_sub(t, cur), W)));
                cv_storeu(out + i, cv_select(any, blended, cur));
            }
        }
        /* the older entries go once the newest has faded in */
        cv_m drop = cv_mand(cv_gt(filled_count, one), cv_ge(newest_w, one));
        if (cv_any(drop)) {
            for (int s = 0; s < CROWDI_EXPRESSION_SLOTS; s++) {
                float *ce = c[CROWDI_EXPRESSION_SLOT(s)], *ca = c[CROWDI_EXPRESSION_SLOT(s) + 1];
                float *cf = c[CROWDI_EXPRESSION_SLOT(s) + 2];
                cv_f e = s == 0 ? newest_e : cv_set1(-1.0f), age = s == 0 ? newest_age : cv_set1(-1.0f);
                cv_f fade = s == 0 ? newest_fade : cv_set1(CROWDI_EXPRESSION_NO_FADE);
                cv_storeu(ce + i, cv_select(drop, e, cv_loadu(ce + i)));
                cv_storeu(ca + i, cv_select(drop, age, cv_loadu(ca + i)));
                cv_storeu(cf + i, cv_select(drop, fade, cv_loadu(cf + i)));
            }
        }
    }
}

#endif /* CROWDI_STAGES */
#endif
