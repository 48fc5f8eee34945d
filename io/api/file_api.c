/* crowd_io.h: what reads or writes files: scenes, pose clips, traces and run snapshots. */
#include <stdlib.h>
#include <string.h>

#include "objects.h"
#include "resume.h"
#include "simulate.h"

crowd_io_status crowd_io_scene_load(const char *path, crowd_io_scene **out) {
    if (!path) return crowd_io_default_crowd(out);
    *out = NULL;
    crowd_io_scene *s = calloc(1, sizeof *s);
    if (!s) return tool_error(TOOL_FAILED, "out of memory");
    int st = scene_load(path, &s->scene);
    /* the scene keeps the path it was given, and the caller's string may not outlive this call */
    if (st == TOOL_OK) {
        const char *own = scene_strdup(&s->scene, path);
        if (own) s->scene.path = own;
        else st = TOOL_FAILED;
    }
    if (st != TOOL_OK) {
        crowd_io_scene_free(s);
        return st;
    }
    *out = s;
    return CROWD_IO_OK;
}

crowd_io_status crowd_io_world_save(const crowd_io_world *w, uint32_t frame, const char *path) {
    return resume_save(&w->world, frame, path);
}

crowd_io_status crowd_io_world_resume(crowd_io_world *w, const char *path, uint32_t *out_frame) {
    return resume_load(&w->world, path, out_frame);
}

crowd_io_status crowd_io_trace_open(crowd_io_trace_kind kind, const char *path, crowd_io_trace **out) {
    *out = NULL;
    crowd_io_trace *t = calloc(1, sizeof *t);
    if (!t) return tool_error(TOOL_FAILED, "out of memory");
    int st = trace_open(&t->trace, path, kind == CROWD_IO_TRACE_BONES ? TRACE_BONE_HEADER : TRACE_PARAMETER_HEADER);
    if (st != TOOL_OK) {
        trace_abort(&t->trace);
        free(t);
        return st;
    }
    *out = t;
    return CROWD_IO_OK;
}

crowd_io_status crowd_io_trace_close(crowd_io_trace *t, int keep) {
    if (!t) return CROWD_IO_OK;
    int st = keep ? trace_finish(&t->trace) : TOOL_OK;
    trace_abort(&t->trace);
    free(t);
    return st;
}

void crowd_io_world_write_traces(const crowd_io_world *w, uint32_t k, crowd_io_trace *parameters,
                                 crowd_io_trace *bones) {
    simulate_write_traces(&w->world, parameters ? &parameters->trace : NULL, bones ? &bones->trace : NULL, k);
}

crowd_io_status crowd_io_clip_load(const char *path, crowd_io_clip **out) {
    *out = NULL;
    crowd_io_clip *c = calloc(1, sizeof *c);
    if (!c) return tool_error(TOOL_FAILED, "out of memory");
    int st = clip_load(path, &c->clip);
    if (st != TOOL_OK) {
        free(c);
        return st;
    }
    *out = c;
    return CROWD_IO_OK;
}

void crowd_io_clip_free(crowd_io_clip *c) {
    if (!c) return;
    clip_free(&c->clip);
    free(c);
}

const char *crowd_io_clip_path(const crowd_io_clip *c) { return c->clip.path; }
uint32_t crowd_io_clip_rows(const crowd_io_clip *c) { return c->clip.row_count; }
const double *crowd_io_clip_times(const crowd_io_clip *c) { return c->clip.t_s; }
const float *crowd_io_clip_landmarks(const crowd_io_clip *c) { return c->clip.landmarks; }
const uint32_t *crowd_io_clip_lines(const crowd_io_clip *c) { return c->clip.line; }
