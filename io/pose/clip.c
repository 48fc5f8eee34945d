#include "clip.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"

void clip_column_name(uint32_t column, char *buf, size_t size) {
    static const char *const parts[4] = {"x", "y", "z", "vis"};
    if (column == 0) snprintf(buf, size, "frame");
    else if (column == 1) snprintf(buf, size, "t_s");
    else snprintf(buf, size, "lm%u_%s", (column - 2) / 4, parts[(column - 2) % 4]);
}

int clip_alloc(pose_clip *clip, const char *name, uint32_t row_count) {
    memset(clip, 0, sizeof *clip);
    clip->path = tool_strdup(name);
    clip->t_s = tool_calloc(row_count, sizeof *clip->t_s);
    clip->landmarks = tool_calloc((size_t)row_count * CLIP_FLOATS, sizeof *clip->landmarks);
    clip->line = tool_calloc(row_count, sizeof *clip->line);
    if (!clip->path || !clip->t_s || !clip->landmarks || !clip->line) {
        clip_free(clip);
        return TOOL_FAILED;
    }
    clip->row_count = row_count;
    clip->capacity = row_count;
    return TOOL_OK;
}

const char *clip_row_where(const pose_clip *clip, uint32_t k, char *buf, size_t size) {
    uint32_t line = k < clip->row_count ? clip->line[k] : 0;
    if (line || clip->document == CLIP_DOC_NONE) snprintf(buf, size, "%s:%u", clip->path, line);
    else if (clip->document == CLIP_DOC_ARRAY) snprintf(buf, size, "%s: [%u]", clip->path, k);
    else if (clip->document == CLIP_DOC_FRAMES) snprintf(buf, size, "%s: frames[%u]", clip->path, k);
    else snprintf(buf, size, "%s", clip->path);
    return buf;
}

int clip_push(pose_clip *clip, double t_s, const float *landmarks, uint32_t line) {
    if (clip->row_count == clip->capacity) {
        if (clip->capacity >= (1u << 31)) return tool_error(TOOL_FAILED, "%s: more than 2^31 frames", clip->path);
        uint32_t cap = clip->capacity ? clip->capacity * 2 : 256;
        double *t = tool_realloc(clip->t_s, cap, sizeof *t);
        if (t) clip->t_s = t;
        float *lm = t ? tool_realloc(clip->landmarks, (size_t)cap * CLIP_FLOATS, sizeof *lm) : NULL;
        if (lm) clip->landmarks = lm;
        uint32_t *ln = lm ? tool_realloc(clip->line, cap, sizeof *ln) : NULL;
        if (!ln) return TOOL_FAILED;
        clip->line = ln;
        clip->capacity = cap;
    }
    uint32_t k = clip->row_count++;
    clip->t_s[k] = t_s;
    clip->line[k] = line;
    float *row = &clip->landmarks[(size_t)k * CLIP_FLOATS];
    if (landmarks) memcpy(row, landmarks, CLIP_FLOATS * sizeof *row);
    else clip_no_detection(clip, k);
    return TOOL_OK;
}

void clip_no_detection(pose_clip *clip, uint32_t k) {
    float *row = &clip->landmarks[(size_t)k * CLIP_FLOATS];
    if (k == clip->rest_rows) { /* nothing seen yet: the rest pose, filled in by clip_landmarks */
        clip->rest_rows++;
        memset(row, 0, CLIP_FLOATS * sizeof *row);
        return;
    }
    memcpy(row, row - CLIP_FLOATS, CLIP_FLOATS * sizeof *row);
    for (uint32_t j = 3; j < CLIP_FLOATS; j += 4) row[j] = 0.0f;
}

const float *clip_landmarks(const pose_clip *clip, uint32_t row, crowd_pose_frame frame) {
    static float rest[CROWD_FRAME_COUNT][CLIP_FLOATS];
    static bool made[CROWD_FRAME_COUNT];
    if (row >= clip->rest_rows) return &clip->landmarks[(size_t)row * CLIP_FLOATS];
    if ((unsigned)frame >= CROWD_FRAME_COUNT) frame = CROWD_FRAME_MEDIAPIPE_WORLD;
    if (!made[frame]) { /* the tools are single-threaded */
        crowd_rest_landmarks(frame, rest[frame]);
        for (uint32_t j = 3; j < CLIP_FLOATS; j += 4) rest[frame][j] = 0.0f;
        made[frame] = true;
    }
    return rest[frame];
}

void clip_free(pose_clip *clip) {
    if (!clip) return;
    free(clip->path);
    free(clip->t_s);
    free(clip->landmarks);
    free(clip->line);
    memset(clip, 0, sizeof *clip);
}

bool clip_frame_warning(const pose_clip *clip, crowd_pose_frame frame, const char *setting) {
    static const int needed[] = {7, 8, 23, 24};
    uint32_t counted = 0, below = 0;
    for (uint32_t r = clip->rest_rows; r < clip->row_count; r++) {
        const float *lm = &clip->landmarks[(size_t)r * CLIP_FLOATS];
        bool seen = true;
        for (size_t k = 0; k < sizeof needed / sizeof *needed; k++) seen = seen && lm[needed[k] * 4 + 3] >= 0.5f;
        if (!seen) continue;
        double head = 0.5 * ((double)lm[7 * 4 + 1] + lm[8 * 4 + 1]), hips = 0.5 * ((double)lm[23 * 4 + 1] + lm[24 * 4 + 1]);
        bool y_up = frame == CROWD_FRAME_ENGINE;
        counted++;
        if (y_up ? head < hips : head > hips) below++;
    }
    if (!counted || below * 2 <= counted) return false;
    bool engine = frame == CROWD_FRAME_ENGINE;
    tool_error(TOOL_OK,
               "warning: %s: the head is below the hips on %u of the %u frames where both are seen, read in the %s "
               "frame (y %s): if the clip's y axis points %s, use %s %s",
               clip->path, below, counted, engine ? "engine" : "mediapipe_world", engine ? "up" : "down",
               engine ? "down" : "up", setting, engine ? "mediapipe_world" : "engine");
    return true;
}

double clip_period(const pose_clip *clip) {
    uint32_t n = clip->row_count;
    if (n < 2) return 0.0;
    double span = clip->t_s[n - 1] - clip->t_s[0], last = clip->t_s[n - 1] - clip->t_s[n - 2];
    return span + last;
}

uint32_t clip_row_at(const pose_clip *clip, double tau, bool loop) {
    uint32_t n = clip->row_count;
    if (loop) {
        double period = clip_period(clip);
        if (period > 0) {
            tau = fmod(tau, period);
            if (tau < 0) tau += period;
        }
    }
    double t = clip->t_s[0] + tau;
    /* the last row with t_s <= t (binary search; rows are non-decreasing) */
    uint32_t lo = 0, hi = n; /* invariant: t_s[lo] <= t or lo == 0; answer in [lo, hi) */
    while (hi - lo > 1) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (clip->t_s[mid] <= t) lo = mid;
        else hi = mid;
    }
    return lo;
}
