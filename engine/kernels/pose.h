/* The pose controller's kernel side (crowd.h section 14, engine/pose.c): its view of the rig
 * and, in the stage part (kernels/stages.h), the stage cvk_pose: Cubism's CubismPose per
 * instance (first-tick reset, the visible part's fade-in, the others' back-opacity cap,
 * links).
 *
 * For the motion controller (order 100, before this stage): a PartOpacity curve of part id X
 * writes the PARAMETER column of pose part crowdi_pose_part_find(rig, X) (engine/pose.c),
 * through this view's param[] (the same rows, the same tick). */
#ifndef CROWDI_POSE_H
#define CROWDI_POSE_H

#include <stdint.h>

#include "kernel_table.h"

/* Columns: the reset flag, then per pose part k its pseudo-parameter and its opacity
 * (CROWDI_POSE_PARAMETER(k), CROWDI_POSE_OPACITY(k)). Pose parts: every group's parts in
 * order, then the links (crowd.h's numbering). */
enum { CROWDI_POSE_RESET = 0 };
#define CROWDI_POSE_PARAMETER(k) (1 + 2 * (k))
#define CROWDI_POSE_OPACITY(k) (2 + 2 * (k))
#define CROWDI_POSE_NCOLS(parts) (1 + 2 * (parts))

typedef struct crowdi_pose_view {
    float fade_in;
    uint32_t group_count, part_count, link_count; /* part_count: the groups' parts */
    const uint32_t *group_first; /* [group_count + 1] */
    const uint32_t *link_part;   /* [link_count] the group part each link copies */
    float *reset;
    float **param, **opacity;    /* [part_count + link_count] */
} crowdi_pose_view;

/* Its fields (crowd.h's crowd_field), as engine/fields.h's rows: X(FIELD, name, ctl, width,
 * indices, rule, writable); its module's field_column hook gives their columns. */
#define CROWDI_POSE_FIELDS(X, ctl)                                                            \
    X(PART_PARAMETER, "part_parameter", ctl, 1, CROWDI_INDEX_ENTRY, CROWDI_RULE_FINITE, true) \
    X(PART_OPACITY, "part_opacity", ctl, 1, CROWDI_INDEX_ENTRY, CROWDI_RULE_FINITE, true)     \
    X(POSE_RESET, "pose_reset", ctl, 1, CROWDI_INDEX_NONE, CROWDI_RULE_SWITCH, true)

/* ---- the stage: in the kernel source only (kernels/stages.h defines CROWDI_STAGES) ---- */
#ifdef CROWDI_STAGES

#include "common.h"

static inline void cvk_pose(const crowdi_rig_view *v, float dt, size_t i0, size_t i1) {
    const crowdi_pose_view *p = v->controller[CROWDI_CTL_POSE];
    if (!p) return;
    const cv_f zero = cv_zero(), one = cv_set1(1.0f), half = cv_set1(0.5f);
    const cv_f step = cv_set1(dt / p->fade_in), threshold = cv_set1(0.001f), back = cv_set1(0.15f);
    for (size_t i = i0; i < i1; i += CV_W) {
        /* CubismPose.reset on an instance's first update */
        cv_m reset = cv_gt(cv_loadu(p->reset + i), zero);
        if (cv_any(reset)) {
            for (uint32_t g = 0; g < p->group_count; g++)
                for (uint32_t k = p->group_first[g]; k < p->group_first[g + 1]; k++) {
                    cv_f shown = k == p->group_first[g] ? one : zero;
                    cv_storeu(p->param[k] + i, cv_select(reset, shown, cv_loadu(p->param[k] + i)));
                    cv_storeu(p->opacity[k] + i, cv_select(reset, shown, cv_loadu(p->opacity[k] + i)));
                }
            for (uint32_t l = 0; l < p->link_count; l++) {
                float *col = p->param[p->part_count + l];
                cv_storeu(col + i, cv_select(reset, one, cv_loadu(col + i)));
            }
            cv_storeu(p->reset + i, cv_select(reset, zero, cv_loadu(p->reset + i)));
        }
        for (uint32_t g = 0; g < p->group_count; g++) {
            const uint32_t first = p->group_first[g], end = p->group_first[g + 1];
            /* the visible part: the first whose pseudo-parameter is above 0.001 */
            cv_m found = cv_mfalse();
            cv_f visible = cv_set1(-1.0f), opacity_new = one;
            for (uint32_t k = first; k < end; k++) {
                cv_m hit = cv_mandnot(cv_gt(cv_loadu(p->param[k] + i), threshold), found);
                cv_f o = cv_add(cv_loadu(p->opacity[k] + i), step);
                o = cv_select(cv_gt(o, one), one, o);
                opacity_new = cv_select(hit, o, opacity_new);
                visible = cv_select(hit, cv_set1((float)k), visible);
                found = cv_mor(found, hit);
            }
            /* none: the framework's fallback, index 0 of the whole list (group 0's first) */
            visible = cv_select(found, visible, zero);
            opacity_new = cv_select(found, opacity_new, one);
            /* the others' cap: the piecewise-linear curve, then the back opacity <= 0.15 */
            cv_f rest = cv_sub(one, opacity_new);
            cv_f low = cv_add(cv_div(cv_mul(opacity_new, cv_sub(half, one)), half), one);
            cv_f high = cv_div(cv_mul(rest, half), cv_sub(one, half));
            cv_f a1 = cv_select(cv_lt(opacity_new, half), low, high);
            cv_m capped = cv_gt(cv_mul(cv_sub(one, a1), rest), back);
            /* rest > 0.15 wherever capped: the max only keeps the other lanes finite */
            a1 = cv_select(capped, cv_sub(one, cv_div(back, cv_max(rest, back))), a1);
            for (uint32_t k = first; k < end; k++) {
                cv_f o = cv_loadu(p->opacity[k] + i);
                o = cv_select(cv_gt(o, a1), a1, o);
                cv_storeu(p->opacity[k] + i, cv_select(cv_eq(visible, cv_set1((float)k)), opacity_new, o));
            }
        }
        for (uint32_t l = 0; l < p->link_count; l++)
            cv_storeu(p->opacity[p->part_count + l] + i, cv_loadu(p->opacity[p->link_part[l]] + i));
    }
}

#endif /* CROWDI_STAGES */
#endif
