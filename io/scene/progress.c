#include "progress.h"

#include <stdio.h>
#include <unistd.h>

#include "ticker.h"

void progress_start(progress *p, bool quiet, uint32_t total_frames, uint64_t instances) {
    p->enabled = !quiet && isatty(STDERR_FILENO);
    p->shown = false;
    p->start = p->last = tool_now();
    p->total = total_frames;
    p->per_frame = instances;
}

void progress_update(progress *p, uint32_t done) {
    if (!p->enabled || done == 0) return;
    double now = tool_now(), elapsed = now - p->start;
    if (elapsed < 1.0 || (p->shown && now - p->last < 0.1)) return;
    p->last = now;
    p->shown = true;
    double rate = (double)p->per_frame * done / elapsed;
    double left = elapsed / done * (p->total - done);
    fprintf(stderr, "\rcrowd: frame %u/%u  %.3g instance-updates/s  %.1f s left\033[K", done, p->total, rate, left);
    fflush(stderr);
}

void progress_end(progress *p) {
    if (p->shown) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
    }
    p->shown = false;
}
