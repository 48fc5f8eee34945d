/* The progress line on standard error: frames done, rate and time left. Shown only when
 * standard error is a terminal, not --quiet, and the run has taken more than a second;
 * redrawn at most ten times a second and erased at the end. */
#ifndef CROWD_TOOLS_PROGRESS_H
#define CROWD_TOOLS_PROGRESS_H

#include <stdbool.h>
#include <stdint.h>

typedef struct progress {
    bool enabled, shown;
    double start, last;
    uint32_t total;
    uint64_t per_frame; /* instance-updates per frame */
} progress;

void progress_start(progress *p, bool quiet, uint32_t total_frames, uint64_t instances);
void progress_update(progress *p, uint32_t frames_done);
void progress_end(progress *p);

#endif
