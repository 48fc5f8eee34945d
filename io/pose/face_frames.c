/* Stepping through a face track (no JSON here: the WebAssembly build plays tracks without
 * the reader). */
#include <math.h>

#include "face_track.h"

uint32_t face_track_row_at(const face_track *t, double tau, bool loop) {
    const double first = t->frames[0].t_s, last = t->frames[t->count - 1].t_s;
    if (loop && t->count > 1) {
        double period = (last - first) + (last - t->frames[t->count - 2].t_s);
        if (period > 0) tau = fmod(tau, period);
    }
    /* the last frame with t_s - first <= tau */
    uint32_t lo = 0, hi = t->count - 1;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo + 1) / 2;
        if (t->frames[mid].t_s - first <= tau) lo = mid;
        else hi = mid - 1;
    }
    return lo;
}
