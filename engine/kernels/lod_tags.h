/* Level of detail's per-row bookkeeping (crowd.h section 8a, engine/lod.c), in the kernels so
 * that it runs at the target's width: at 20M rows a tick it was a scalar loop of about 20
 * instructions a row, more time than the updates it chose.
 *   cvk_lod_tags(interval, counter, elapsed, dt, tag, first, count)
 * For rows [first, first + count) (count a multiple of CV_W): the interval's mask k - 1 (a
 * value outside 1, 2, 4, 8 counts as the next one below, NaN as 1), the counter moved when
 * the interval is above 1, elapsed + dt, and on an update tick (counter & mask == 0) elapsed
 * back to 0 and the row's tag the bits of the sum (the dt it is ticked with); otherwise the
 * sum kept and the tag CROWDI_LOD_WAITS. tag[k] is row first + k's. */
#ifndef CROWDI_LOD_TAGS_H
#define CROWDI_LOD_TAGS_H

#include <stddef.h>
#include <stdint.h>

/* the tag of a row that is not updated this tick (a NaN's bits: never a dt) */
#define CROWDI_LOD_WAITS 0xffffffffu

#ifdef CROWDI_STAGES
#include "common.h"

static inline void cvk_lod_tags(const float *interval, uint32_t *counter, float *elapsed, float dt, uint32_t *tag,
                                uint32_t first, uint32_t count) {
    const cv_f two = cv_set1(2.0f), four = cv_set1(4.0f), eight = cv_set1(8.0f), vdt = cv_set1(dt);
    const cv_i zero = cv_iset1(0), waits = cv_iset1(CROWDI_LOD_WAITS);
    for (size_t k = 0; k < count; k += CV_W) {
        const size_t row = (size_t)first + k;
        const cv_f iv = cv_loadu(interval + row);
        const cv_m above1 = cv_ge(iv, two);
        const cv_i mask = cv_ior(cv_iselect(above1, cv_iset1(1), zero),
                                 cv_ior(cv_iselect(cv_ge(iv, four), cv_iset1(2), zero),
                                        cv_iselect(cv_ge(iv, eight), cv_iset1(4), zero)));
        /* the counter moves only at intervals above 1 (lod.c: a rig at interval 1 never reads it) */
        const cv_i n = cv_iadd(cv_iloadu(counter + row), cv_iselect(above1, cv_iset1(1), zero));
        cv_istoreu(counter + row, n);
        const cv_f sum = cv_add(cv_loadu(elapsed + row), vdt);
        const cv_m update = cv_ieq(cv_iand(n, mask), zero);
        cv_storeu(elapsed + row, cv_select(update, cv_zero(), sum));
        cv_istoreu(tag + k, cv_iselect(update, cv_as_i(sum), waits));
    }
}
#endif /* CROWDI_STAGES */
#endif
