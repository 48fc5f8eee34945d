/* crowd_io.h sections 6 to 8: Live2D files as crowd.h's descs, WAV lip sync levels, hand tracks.
 * Each object owns copies of what the readers (live2d/, media/wav.c, pose/hand_track.c) filled,
 * laid out as the public descs point to them. */
#include <stdlib.h>
#include <string.h>

#include "crowd_io.h"
#include "cubism_files.h"
#include "diag.h"
#include "hand_track.h"
#include "model3.h"
#include "physics3.h"
#include "wav.h"

/* ---- Live2D ---- */
typedef struct live2d_clip {
    cubism_motion data;
    crowd_motion_curve *curves;
    crowd_motion_point *points;
    double *events;
    char *file; /* as the model3 names it (or the motion3's path) */
} live2d_clip;

struct crowd_io_live2d {
    char *path;
    cubism_model3 m3; /* zero unless read from a model3 */
    uint32_t clip_count, clip_capacity; /* capacity: clip_data's entries (one may be half read) */
    live2d_clip *clip_data;
    crowd_motion_clip *clips;
    uint32_t *group_first; /* [motion_group_count + 1] */
    uint32_t *idle;
    uint32_t idle_count;
    crowd_motion_desc motion;
    uint32_t expression_count, expression_capacity;
    cubism_expression *expression_data;
    crowd_expression_parameter_desc **expression_entries;
    crowd_expression_item_desc *items;
    crowd_expression_desc expression;
    cubism_pose pose_data;
    crowd_pose_group_desc *groups;
    crowd_pose_part_desc *parts;
    crowd_pose_desc pose;
    physics3 physics;
    crowd_lipsync_desc lipsync;
    bool has_motion, has_expression, has_pose, has_physics, has_lipsync;
};

static char *dup_text(const char *s) {
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

/* file beside the model3 at `base` (as the framework resolves it) */
static char *beside(const char *base, const char *file) {
    const char *slash = strrchr(base, '/');
    size_t dir = (file[0] != '/' && slash) ? (size_t)(slash - base) + 1 : 0;
    char *full = malloc(dir + strlen(file) + 1);
    if (!full) return NULL;
    memcpy(full, base, dir);
    strcpy(full + dir, file);
    return full;
}

static int clip_read(live2d_clip *c, crowd_motion_clip *out, const char *path, double fade_in, double fade_out) {
    int st = cubism_motion_read(path, &c->data);
    if (st != TOOL_OK) return st;
    const cubism_motion *d = &c->data;
    c->curves = calloc(d->curve_count + 1, sizeof *c->curves);
    c->points = calloc(d->point_count + 1, sizeof *c->points);
    c->events = calloc(d->event_count + 1, sizeof *c->events);
    if (!c->curves || !c->points || !c->events) return tool_error(TOOL_FAILED, "out of memory");
    for (uint32_t k = 0; k < d->curve_count; k++)
        c->curves[k] = (crowd_motion_curve){d->curves[k].id, (crowd_motion_target)d->curves[k].target,
                                            d->curves[k].fade_in, d->curves[k].fade_out, d->curves[k].first_segment,
                                            d->curves[k].segment_count};
    for (uint32_t k = 0; k < d->point_count; k++) c->points[k] = (crowd_motion_point){d->points[k].time, d->points[k].value};
    for (uint32_t k = 0; k < d->event_count; k++) c->events[k] = d->events[k].time;
    /* the model3 entry's fades when set (>= 0), else the motion's own, as the framework's loadMotion */
    *out = (crowd_motion_clip){d->duration, d->fps, d->beziers_restricted, fade_in >= 0 ? fade_in : d->fade_in,
                               fade_out >= 0 ? fade_out : d->fade_out, d->curve_count, d->segment_count,
                               d->point_count, d->event_count, c->curves, d->segment_types, d->segment_points,
                               c->points, c->events};
    return TOOL_OK;
}

static int expressions_build(crowd_io_live2d *l) {
    l->expression_entries = calloc(l->expression_count + 1, sizeof *l->expression_entries);
    l->items = calloc(l->expression_count + 1, sizeof *l->items);
    if (!l->expression_entries || !l->items) return tool_error(TOOL_FAILED, "out of memory");
    for (uint32_t k = 0; k < l->expression_count; k++) {
        const cubism_expression *e = &l->expression_data[k];
        crowd_expression_parameter_desc *p = calloc(e->parameter_count + 1, sizeof *p);
        if (!p) return tool_error(TOOL_FAILED, "out of memory");
        l->expression_entries[k] = p;
        for (uint32_t j = 0; j < e->parameter_count; j++)
            p[j] = (crowd_expression_parameter_desc){e->parameters[j].id, (float)e->parameters[j].value,
                                                     (crowd_expression_blend)e->parameters[j].blend};
        l->items[k] = (crowd_expression_item_desc){p, e->parameter_count, (float)e->fade_in, (float)e->fade_out};
    }
    l->expression = crowd_expression_defaults();
    l->expression.expressions = l->items;
    l->expression.expression_count = l->expression_count;
    l->has_expression = true;
    return TOOL_OK;
}

static int pose_build(crowd_io_live2d *l) {
    const cubism_pose *d = &l->pose_data;
    l->groups = calloc(d->group_count + 1, sizeof *l->groups);
    l->parts = calloc(d->part_count + 1, sizeof *l->parts);
    if (!l->groups || !l->parts) return tool_error(TOOL_FAILED, "out of memory");
    for (uint32_t k = 0; k < d->part_count; k++)
        l->parts[k] = (crowd_pose_part_desc){d->part_ids[k], (const char *const *)&d->link_ids[d->link_first[k]],
                                             d->link_first[k + 1] - d->link_first[k]};
    for (uint32_t g = 0; g < d->group_count; g++)
        l->groups[g] = (crowd_pose_group_desc){l->parts + d->group_first[g], d->group_first[g + 1] - d->group_first[g]};
    l->pose = crowd_pose_defaults();
    l->pose.groups = l->groups;
    l->pose.group_count = d->group_count;
    l->pose.fade_in = (float)d->fade_in;
    l->has_pose = true;
    return TOOL_OK;
}

static crowd_io_live2d *live2d_new(const char *path) {
    crowd_io_live2d *l = calloc(1, sizeof *l);
    if (l && !(l->path = dup_text(path))) {
        free(l);
        l = NULL;
    }
    if (!l) tool_error(TOOL_FAILED, "out of memory");
    return l;
}

static crowd_io_status live2d_done(crowd_io_live2d *l, int st, crowd_io_live2d **out) {
    if (st != TOOL_OK) {
        crowd_io_live2d_free(l);
        return (crowd_io_status)st;
    }
    *out = l;
    return CROWD_IO_OK;
}

crowd_io_status crowd_io_model3_load(const char *path, crowd_io_live2d **out) {
    if (!out) return CROWD_IO_BAD_INPUT;
    *out = NULL;
    if (!path) return tool_error(TOOL_BAD_INPUT, "crowd_io_model3_load: no path");
    crowd_io_live2d *l = live2d_new(path);
    if (!l) return CROWD_IO_FAILED;
    int st = cubism_model3_read(path, &l->m3);
    const cubism_model3 *m = &l->m3;
    /* motions, group by group in file order: a group's clips are consecutive */
    uint32_t total = 0;
    for (uint32_t g = 0; st == TOOL_OK && g < m->motion_group_count; g++) total += m->motion_groups[g].motion_count;
    if (st == TOOL_OK && total > CROWD_MAX_MOTIONS)
        st = tool_error(TOOL_BAD_INPUT, "%s: FileReferences.Motions: %u motions, at most %u", path, total, CROWD_MAX_MOTIONS);
    if (st == TOOL_OK) {
        l->clip_data = calloc(total + 1, sizeof *l->clip_data);
        l->clip_capacity = l->clip_data ? total + 1 : 0;
        l->clips = calloc(total + 1, sizeof *l->clips);
        l->group_first = calloc(m->motion_group_count + 1, sizeof *l->group_first);
        l->idle = calloc(total + 1, sizeof *l->idle);
        if (!l->clip_data || !l->clips || !l->group_first || !l->idle) st = tool_error(TOOL_FAILED, "out of memory");
    }
    for (uint32_t g = 0; st == TOOL_OK && g < m->motion_group_count; g++) {
        const cubism_model3_motion_group *grp = &m->motion_groups[g];
        l->group_first[g] = l->clip_count;
        for (uint32_t k = 0; st == TOOL_OK && k < grp->motion_count; k++) {
            live2d_clip *c = &l->clip_data[l->clip_count];
            c->file = beside(path, grp->motions[k].file);
            if (!c->file) st = tool_error(TOOL_FAILED, "out of memory");
            else st = clip_read(c, &l->clips[l->clip_count], c->file, grp->motions[k].fade_in, grp->motions[k].fade_out);
            /* the sample app's idle group: "Idle" (LAppDefine.MotionGroupIdle) */
            if (st == TOOL_OK && strcmp(grp->name, "Idle") == 0) l->idle[l->idle_count++] = l->clip_count;
            if (st == TOOL_OK) l->clip_count++;
        }
    }
    if (st == TOOL_OK) {
        l->group_first[m->motion_group_count] = l->clip_count;
        l->motion = crowd_motion_defaults();
        l->motion.clips = l->clips;
        l->motion.clip_count = l->clip_count;
        l->motion.eye_blink_ids = (const char *const *)m->eye_blink_ids;
        l->motion.eye_blink_count = m->eye_blink_count;
        l->motion.lip_sync_ids = (const char *const *)m->lip_sync_ids;
        l->motion.lip_sync_count = m->lip_sync_count;
        l->motion.idle_clips = l->idle;
        l->motion.idle_count = l->idle_count;
        l->has_motion = l->clip_count > 0;
        l->lipsync = crowd_lipsync_defaults();
        l->lipsync.parameters = (const char *const *)m->lip_sync_ids;
        l->lipsync.parameter_count = m->lip_sync_count;
        l->has_lipsync = m->lip_sync_count > 0;
    }
    /* expressions, in file order */
    if (st == TOOL_OK && m->expression_count) {
        l->expression_data = calloc(m->expression_count, sizeof *l->expression_data);
        l->expression_capacity = l->expression_data ? m->expression_count : 0;
        if (!l->expression_data) st = tool_error(TOOL_FAILED, "out of memory");
        for (uint32_t k = 0; st == TOOL_OK && k < m->expression_count; k++) {
            char *file = beside(path, m->expressions[k].file);
            st = file ? cubism_expression_read(file, &l->expression_data[k]) : tool_error(TOOL_FAILED, "out of memory");
            free(file);
            if (st == TOOL_OK) l->expression_count++;
        }
        if (st == TOOL_OK) st = expressions_build(l);
    }
    if (st == TOOL_OK && m->pose) {
        char *file = beside(path, m->pose);
        st = file ? cubism_pose_read(file, &l->pose_data) : tool_error(TOOL_FAILED, "out of memory");
        free(file);
        if (st == TOOL_OK) st = pose_build(l);
    }
    if (st == TOOL_OK) {
        char *file = NULL;
        st = model3_file_reference(path, "Physics", &file);
        if (st == TOOL_OK && file) {
            st = physics3_read(file, &l->physics);
            l->has_physics = st == TOOL_OK;
        }
        free(file);
    }
    return live2d_done(l, st, out);
}

crowd_io_status crowd_io_motion3_load(const char *path, double fade_in, double fade_out, crowd_io_live2d **out) {
    if (!out) return CROWD_IO_BAD_INPUT;
    *out = NULL;
    if (!path) return tool_error(TOOL_BAD_INPUT, "crowd_io_motion3_load: no path");
    crowd_io_live2d *l = live2d_new(path);
    if (!l) return CROWD_IO_FAILED;
    int st = TOOL_OK;
    l->clip_data = calloc(1, sizeof *l->clip_data);
    l->clip_capacity = l->clip_data ? 1 : 0;
    l->clips = calloc(1, sizeof *l->clips);
    if (!l->clip_data || !l->clips || !(l->clip_data->file = dup_text(path))) st = tool_error(TOOL_FAILED, "out of memory");
    if (st == TOOL_OK) st = clip_read(l->clip_data, l->clips, path, fade_in, fade_out);
    if (st == TOOL_OK) {
        l->clip_count = 1;
        l->motion = crowd_motion_defaults();
        l->motion.clips = l->clips;
        l->motion.clip_count = 1;
        l->has_motion = true;
    }
    return live2d_done(l, st, out);
}

crowd_io_status crowd_io_exp3_load(const char *path, crowd_io_live2d **out) {
    if (!out) return CROWD_IO_BAD_INPUT;
    *out = NULL;
    if (!path) return tool_error(TOOL_BAD_INPUT, "crowd_io_exp3_load: no path");
    crowd_io_live2d *l = live2d_new(path);
    if (!l) return CROWD_IO_FAILED;
    int st = (l->expression_data = calloc(1, sizeof *l->expression_data)) ? TOOL_OK : tool_error(TOOL_FAILED, "out of memory");
    l->expression_capacity = l->expression_data ? 1 : 0;
    if (st == TOOL_OK) st = cubism_expression_read(path, l->expression_data);
    if (st == TOOL_OK) {
        l->expression_count = 1;
        st = expressions_build(l);
    }
    return live2d_done(l, st, out);
}

crowd_io_status crowd_io_pose3_load(const char *path, crowd_io_live2d **out) {
    if (!out) return CROWD_IO_BAD_INPUT;
    *out = NULL;
    if (!path) return tool_error(TOOL_BAD_INPUT, "crowd_io_pose3_load: no path");
    crowd_io_live2d *l = live2d_new(path);
    if (!l) return CROWD_IO_FAILED;
    int st = cubism_pose_read(path, &l->pose_data);
    if (st == TOOL_OK) st = pose_build(l);
    return live2d_done(l, st, out);
}

crowd_io_status crowd_io_physics3_load(const char *path, crowd_io_live2d **out) {
    if (!out) return CROWD_IO_BAD_INPUT;
    *out = NULL;
    if (!path) return tool_error(TOOL_BAD_INPUT, "crowd_io_physics3_load: no path");
    crowd_io_live2d *l = live2d_new(path);
    if (!l) return CROWD_IO_FAILED;
    int st = physics3_read(path, &l->physics);
    l->has_physics = st == TOOL_OK;
    return live2d_done(l, st, out);
}

void crowd_io_live2d_free(crowd_io_live2d *l) {
    if (!l) return;
    for (uint32_t k = 0; k < l->clip_capacity; k++) {
        live2d_clip *c = &l->clip_data[k];
        free(c->curves);
        free(c->points);
        free(c->events);
        free(c->file);
        cubism_motion_free(&c->data);
    }
    free(l->clip_data);
    free(l->clips);
    free(l->group_first);
    free(l->idle);
    for (uint32_t k = 0; l->expression_entries && k < l->expression_count; k++) free(l->expression_entries[k]);
    free(l->expression_entries);
    free(l->items);
    for (uint32_t k = 0; k < l->expression_capacity; k++) cubism_expression_free(&l->expression_data[k]);
    free(l->expression_data);
    free(l->groups);
    free(l->parts);
    cubism_pose_free(&l->pose_data);
    physics3_free(&l->physics);
    cubism_model3_free(&l->m3);
    free(l->path);
    free(l);
}

const char *crowd_io_live2d_path(const crowd_io_live2d *l) { return l ? l->path : NULL; }
const crowd_motion_desc *crowd_io_live2d_motion(const crowd_io_live2d *l) {
    return l && l->has_motion ? &l->motion : NULL;
}
const crowd_expression_desc *crowd_io_live2d_expression(const crowd_io_live2d *l) {
    return l && l->has_expression ? &l->expression : NULL;
}
const crowd_pose_desc *crowd_io_live2d_pose(const crowd_io_live2d *l) { return l && l->has_pose ? &l->pose : NULL; }
const crowd_physics_desc *crowd_io_live2d_physics(const crowd_io_live2d *l) {
    return l && l->has_physics ? &l->physics.desc : NULL;
}
const crowd_lipsync_desc *crowd_io_live2d_lipsync(const crowd_io_live2d *l) {
    return l && l->has_lipsync ? &l->lipsync : NULL;
}

uint32_t crowd_io_live2d_eye_blink_count(const crowd_io_live2d *l) { return l ? l->m3.eye_blink_count : 0; }
const char *crowd_io_live2d_eye_blink_id(const crowd_io_live2d *l, uint32_t index) {
    return l && index < l->m3.eye_blink_count ? l->m3.eye_blink_ids[index] : NULL;
}
uint32_t crowd_io_live2d_lip_sync_count(const crowd_io_live2d *l) { return l ? l->m3.lip_sync_count : 0; }
const char *crowd_io_live2d_lip_sync_id(const crowd_io_live2d *l, uint32_t index) {
    return l && index < l->m3.lip_sync_count ? l->m3.lip_sync_ids[index] : NULL;
}

uint32_t crowd_io_live2d_motion_group_count(const crowd_io_live2d *l) { return l ? l->m3.motion_group_count : 0; }
const char *crowd_io_live2d_motion_group(const crowd_io_live2d *l, uint32_t group, uint32_t *out_first,
                                         uint32_t *out_count) {
    if (!l || group >= l->m3.motion_group_count) return NULL;
    if (out_first) *out_first = l->group_first[group];
    if (out_count) *out_count = l->group_first[group + 1] - l->group_first[group];
    return l->m3.motion_groups[group].name;
}
const char *crowd_io_live2d_motion_file(const crowd_io_live2d *l, uint32_t clip) {
    return l && clip < l->clip_count ? l->clip_data[clip].file : NULL;
}
const char *crowd_io_live2d_motion_sound(const crowd_io_live2d *l, uint32_t clip) {
    if (!l || clip >= l->clip_count || !l->m3.motion_group_count) return NULL;
    for (uint32_t g = 0; g < l->m3.motion_group_count; g++)
        if (clip < l->group_first[g + 1]) return l->m3.motion_groups[g].motions[clip - l->group_first[g]].sound;
    return NULL;
}
const char *crowd_io_live2d_motion_event(const crowd_io_live2d *l, uint32_t clip, uint32_t event) {
    if (!l || clip >= l->clip_count || event >= l->clip_data[clip].data.event_count) return NULL;
    return l->clip_data[clip].data.events[event].value;
}
const char *crowd_io_live2d_expression_name(const crowd_io_live2d *l, uint32_t expression) {
    return l && expression < l->m3.expression_count ? l->m3.expressions[expression].name : NULL;
}

/* ---- WAV ---- */
struct crowd_io_wav {
    char *path;
    wav_audio audio;
};

crowd_io_status crowd_io_wav_load(const char *path, crowd_io_wav **out) {
    if (!out) return CROWD_IO_BAD_INPUT;
    *out = NULL;
    if (!path) return tool_error(TOOL_BAD_INPUT, "crowd_io_wav_load: no path");
    crowd_io_wav *w = calloc(1, sizeof *w);
    if (!w || !(w->path = dup_text(path))) {
        free(w);
        return tool_error(TOOL_FAILED, "out of memory");
    }
    int st = wav_read(path, &w->audio);
    if (st != TOOL_OK) {
        crowd_io_wav_free(w);
        return (crowd_io_status)st;
    }
    *out = w;
    return CROWD_IO_OK;
}
void crowd_io_wav_free(crowd_io_wav *w) {
    if (!w) return;
    wav_free(&w->audio);
    free(w->path);
    free(w);
}
const char *crowd_io_wav_path(const crowd_io_wav *w) { return w ? w->path : NULL; }
uint64_t crowd_io_wav_frames(const crowd_io_wav *w) { return w ? (uint64_t)w->audio.frames : 0; }
uint32_t crowd_io_wav_channels(const crowd_io_wav *w) { return w ? w->audio.channels : 0; }
uint32_t crowd_io_wav_rate(const crowd_io_wav *w) { return w ? w->audio.rate : 0; }
uint32_t crowd_io_wav_bits(const crowd_io_wav *w) { return w ? w->audio.bits : 0; }
const float *crowd_io_wav_samples(const crowd_io_wav *w) { return w ? w->audio.samples : NULL; }

crowd_io_status crowd_io_wav_levels(const crowd_io_wav *w, const double *dt, uint32_t count, float *out_levels) {
    if (!w || (count && (!dt || !out_levels))) return tool_error(TOOL_BAD_INPUT, "crowd_io_wav_levels: NULL argument");
    for (uint32_t k = 0; k < count; k++)
        if (!(dt[k] >= 0 && dt[k] <= 1e6)) /* also NaN */
            return tool_error(TOOL_BAD_INPUT, "%s: crowd_io_wav_levels: dt[%u] (%g) must be in [0, 1e6]", w->path, k, dt[k]);
    double t = 0;
    size_t offset = 0;
    for (uint32_t k = 0; k < count; k++) {
        float rms = 0;
        /* the handler: time moves only while samples remain; once they are used up the level is 0 */
        if (offset < w->audio.frames) {
            size_t before = offset;
            t += dt[k];
            size_t n = wav_block(&w->audio, t, &offset);
            rms = crowd_lipsync_rms(w->audio.samples + before * w->audio.channels, n, w->audio.channels);
        }
        out_levels[k] = rms;
    }
    return CROWD_IO_OK;
}

/* ---- hand tracks ---- */
struct crowd_io_hands {
    char *path;
    uint32_t count;
    double *times;
    float *landmarks;
    uint32_t *lines;
};

crowd_io_status crowd_io_hands_load(const char *path, bool mirrored, float aspect, crowd_io_hands **out) {
    if (!out) return CROWD_IO_BAD_INPUT;
    *out = NULL;
    if (!path) return tool_error(TOOL_BAD_INPUT, "crowd_io_hands_load: no path");
    if (!(aspect >= 0 && aspect <= 1e6)) return tool_error(TOOL_BAD_INPUT, "%s: aspect (%g) must be in [0, 1e6]", path, aspect);
    hand_track_options opt = {mirrored, aspect};
    hand_track t = {0};
    int st = hand_track_load(path, &opt, &t);
    if (st != TOOL_OK) return (crowd_io_status)st;
    crowd_io_hands *h = calloc(1, sizeof *h);
    if (h) {
        h->path = dup_text(path);
        h->times = calloc((size_t)t.count + 1, sizeof *h->times);
        h->landmarks = calloc((size_t)t.count * 2 * CROWD_HAND_FLOATS + 1, sizeof *h->landmarks);
        h->lines = calloc((size_t)t.count + 1, sizeof *h->lines);
    }
    if (!h || !h->path || !h->times || !h->landmarks || !h->lines) {
        crowd_io_hands_free(h);
        hand_track_free(&t);
        return tool_error(TOOL_FAILED, "out of memory");
    }
    for (uint32_t k = 0; k < t.count; k++) {
        h->times[k] = t.frames[k].t_s;
        memcpy(h->landmarks + (size_t)k * 2 * CROWD_HAND_FLOATS, t.frames[k].hands, sizeof t.frames[k].hands);
        h->lines[k] = t.frames[k].line;
    }
    h->count = t.count;
    hand_track_free(&t);
    *out = h;
    return CROWD_IO_OK;
}
void crowd_io_hands_free(crowd_io_hands *h) {
    if (!h) return;
    free(h->path);
    free(h->times);
    free(h->landmarks);
    free(h->lines);
    free(h);
}
const char *crowd_io_hands_path(const crowd_io_hands *h) { return h ? h->path : NULL; }
uint32_t crowd_io_hands_frames(const crowd_io_hands *h) { return h ? h->count : 0; }
const double *crowd_io_hands_times(const crowd_io_hands *h) { return h ? h->times : NULL; }
const float *crowd_io_hands_landmarks(const crowd_io_hands *h) { return h ? h->landmarks : NULL; }
const uint32_t *crowd_io_hands_lines(const crowd_io_hands *h) { return h ? h->lines : NULL; }
