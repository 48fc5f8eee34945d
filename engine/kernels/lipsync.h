/* Lip sync (crowd.h section 13, engine/lipsync.c), order 500 after face tracking: each
 * instance's mouth level added to the rig's LipSync parameters with the rig's weight, as the
 * Cubism framework's addParameterValueById(id, level, weight): P = C(P + level*weight). */
#ifndef CROWDI_LIPSYNC_H
#define CROWDI_LIPSYNC_H

#include <stdint.h>

#include "kernel_table.h"

typedef struct crowdi_lipsync_view {
    uint32_t count;
    const uint32_t *params; /* [count] */
    float weight;
    float *level;      /* the level column, NULL while uniform */
    float level_value; /* its value then */
} crowdi_lipsync_view;

/* Its fields (crowd.h's crowd_field), as engine/fields.h's rows: X(FIELD, name, ctl, width,
 * indices, rule, writable); its module's field_column hook gives their columns. */
#define CROWDI_LIPSYNC_FIELDS(X, ctl)                                                      \
    X(LIPSYNC_LEVEL, "lipsync_level", ctl, 1, CROWDI_INDEX_NONE, CROWDI_RULE_WEIGHT, true)

#ifdef CROWDI_STAGES
#include "common.h"

static inline void cvk_lipsync(const crowdi_rig_view *v, float dt, size_t i0, size_t i1) {
    (void)dt;
    const crowdi_lipsync_view *l = v->controller[CROWDI_CTL_LIPSYNC];
    if (!l) return;
    for (uint32_t k = 0; k < l->count; k++) {
        const crowdi_param p = v->params[l->params[k]];
        float *dst = v->out[l->params[k]];
        const cv_f w = cv_set1(l->weight);
        for (size_t i = i0; i < i1; i += CV_W)
            cvk_blend(dst, i, cvk_col(l->level, l->level_value, i), w, CROWDI_BLEND_ADDITIVE, &p);
    }
}

#endif /* CROWDI_STAGES */
#endif
