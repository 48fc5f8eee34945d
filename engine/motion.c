/* The motion controller (crowd.h section 15): a rig's motion library, flattened for the
 * stage cvk_motion (kernels/motion.h), each instance's playback columns, starting and
 * reserving motions, the events of the last tick, and the library in snapshots. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "internal.h"
#include "kernels/motion.h"
#include "serial.h"
#include "settings.h"

/* Its own public enums' names, name and parse functions (names.h). */
CROWDI_ENUM_NAMES_DEFINE(motion_priority, crowd_motion_priority, CROWD_MOTION_PRIORITY_COUNT, "none", "idle", "normal", "force")

/* The motion controller's part of a rig: its view first, then what the view's arrays are
 * carved from and what a snapshot needs to give the desc back. */
typedef struct motion_part {
    crowdi_motion_view view;
    void *block;              /* every array below and the view's, one allocation */
    uint32_t segment_total, point_total, event_total;
    double *clip_fps;
    uint32_t *clip_segment_base, *clip_point_base, *clip_segment_count, *clip_point_count;
    uint8_t *curve_target;
    char **curve_id;          /* each its own allocation */
    uint32_t curve_total;
    char **pseudo_id;         /* borrowed from curve_id */
    uint32_t *eye_blink_param, *lip_sync_param; /* rig parameters */
    float **saved_cols, **pseudo_cols; /* pseudo_cols: saved_cols' tail, after saved_count */
    double *piece_end, *piece_poly; /* the view's pieces and grids, their own allocations */
    uint32_t *grid;
    void *blocked;            /* the view's clip lists (fixed_*, part_*, moving) and saved ranges, one allocation */
} motion_part;

#define MOTION(r) CROWDI_PART(r, MOTION, motion_part)

/* The settings, in snapshot order (the view keeps them). */
static const crowdi_setting motion_settings_table[] = {
    CROWDI_BOOL_SETTING(crowd_motion_desc, crowdi_motion_view, loop_idle, loop_idle, 0,
                        "an idle clip the tick starts loops (else it plays once and the next is drawn)"),
};
#define MOTION_SETTINGS (uint32_t)(sizeof motion_settings_table / sizeof motion_settings_table[0])

crowd_motion_desc crowd_motion_defaults(void) {
    crowd_motion_desc d = {.clips = NULL};
    crowdi_settings_defaults(motion_settings_table, MOTION_SETTINGS, &d);
    return d;
}

crowd_motion_start_desc crowd_motion_start_defaults(uint32_t clip) {
    return (crowd_motion_start_desc){.clip = clip, .priority = CROWD_MOTION_PRIORITY_NORMAL, .loop = false,
                                     .loop_fade_in = true, .fade_in = -1.0, .fade_out = -1.0, .offset = 0.0};
}

static bool motion_present(const crowd_rig_desc *d) { return d->motion != NULL; }

static bool finite_d(double x) { return x - x == 0.0; }

/* ---- validation ---- */
#define MCHECK(cond, code, ...) CROWDI_RIG_CHECK(cond, code, "desc->motion->" __VA_ARGS__)

static crowd_result check_clip(crowd_engine *engine, const crowd_motion_clip *c, uint32_t k) {
    MCHECK(finite_d(c->duration) && finite_d(c->fps) && finite_d(c->fade_in) && finite_d(c->fade_out),
           CROWD_ERR_NOT_FINITE, "clips[%u]: duration, fps, fade_in or fade_out is not finite", k);
    MCHECK(c->duration > 0 && c->duration <= CROWD_MAX_MOTION_SECONDS, CROWD_ERR_RANGE,
           "clips[%u].duration (%g) must be in (0, 1e6] s", k, c->duration);
    MCHECK(c->fps > 0 && c->fps <= CROWD_MAX_MOTION_SECONDS, CROWD_ERR_RANGE, "clips[%u].fps (%g) must be in (0, 1e6]", k,
           c->fps);
    MCHECK(c->fade_in >= 0 && c->fade_in <= CROWD_MAX_MOTION_SECONDS, CROWD_ERR_RANGE,
           "clips[%u].fade_in (%g) must be in [0, 1e6] s", k, c->fade_in);
    MCHECK(c->fade_out >= 0 && c->fade_out <= CROWD_MAX_MOTION_SECONDS, CROWD_ERR_RANGE,
           "clips[%u].fade_out (%g) must be in [0, 1e6] s", k, c->fade_out);
    MCHECK(c->curve_count <= CROWD_MAX_MOTION_CURVES, CROWD_ERR_CAPACITY, "clips[%u].curve_count (%u) exceeds %u", k,
           c->curve_count, CROWD_MAX_MOTION_CURVES);
    MCHECK(c->segment_count <= CROWD_MAX_MOTION_SEGMENTS, CROWD_ERR_CAPACITY, "clips[%u].segment_count (%u) exceeds %u",
           k, c->segment_count, CROWD_MAX_MOTION_SEGMENTS);
    MCHECK(c->point_count <= CROWD_MAX_MOTION_POINTS, CROWD_ERR_CAPACITY, "clips[%u].point_count (%u) exceeds %u", k,
           c->point_count, CROWD_MAX_MOTION_POINTS);
    MCHECK(c->event_count <= CROWD_MAX_MOTION_EVENTS, CROWD_ERR_CAPACITY, "clips[%u].event_count (%u) exceeds %u", k,
           c->event_count, CROWD_MAX_MOTION_EVENTS);
    MCHECK(c->curve_count == 0 || c->curves, CROWD_ERR_NULL, "clips[%u].curves is NULL", k);
    MCHECK(c->segment_count == 0 || (c->segment_types && c->segment_points), CROWD_ERR_NULL,
           "clips[%u].segment_types or segment_points is NULL", k);
    MCHECK(c->point_count == 0 || c->points, CROWD_ERR_NULL, "clips[%u].points is NULL", k);
    MCHECK(c->event_count == 0 || c->event_times, CROWD_ERR_NULL, "clips[%u].event_times is NULL", k);
    for (uint32_t p = 0; p < c->point_count; p++) {
        MCHECK(finite_d(c->points[p].time) && finite_d(c->points[p].value), CROWD_ERR_NOT_FINITE,
               "clips[%u].points[%u] is not finite", k, p);
        MCHECK(fabs(c->points[p].time) <= CROWD_MAX_MOTION_SECONDS && fabs(c->points[p].value) <= 1e15,
               CROWD_ERR_RANGE, "clips[%u].points[%u] (%g, %g): time must be within +-1e6 s, value within +-1e15", k,
               p, c->points[p].time, c->points[p].value);
    }
    for (uint32_t s = 0; s < c->segment_count; s++) {
        uint32_t type = c->segment_types[s];
        MCHECK(type < CROWD_MOTION_SEGMENT_COUNT, CROWD_ERR_BAD_ENUM, "clips[%u].segment_types[%u] (%u) is not a segment type",
               k, s, type);
        uint32_t last = type == CROWD_MOTION_SEGMENT_BEZIER ? 3u : 1u;
        MCHECK(c->segment_points[s] < c->point_count && last < c->point_count - c->segment_points[s], CROWD_ERR_RANGE,
               "clips[%u].segment_points[%u] (%u): the segment's points go beyond point_count (%u)", k, s,
               c->segment_points[s], c->point_count);
        const crowd_motion_point *p = &c->points[c->segment_points[s]];
        MCHECK(p[last].time >= p[0].time, CROWD_ERR_RANGE, "clips[%u].segment %u ends (%g) before it starts (%g)", k, s,
               p[last].time, p[0].time);
    }
    for (uint32_t e = 0; e < c->event_count; e++)
        MCHECK(finite_d(c->event_times[e]) && fabs(c->event_times[e]) <= CROWD_MAX_MOTION_SECONDS, CROWD_ERR_RANGE,
               "clips[%u].event_times[%u] must be finite and within +-1e6 s", k, e);
    uint32_t order = 0;
    for (uint32_t j = 0; j < c->curve_count; j++) {
        const crowd_motion_curve *cv = &c->curves[j];
        MCHECK(cv->id != NULL, CROWD_ERR_NULL, "clips[%u].curves[%u].id is NULL", k, j);
        MCHECK(cv->id[0] != 0, CROWD_ERR_RANGE, "clips[%u].curves[%u].id is empty", k, j);
        MCHECK((unsigned)cv->target < CROWD_MOTION_TARGET_COUNT, CROWD_ERR_BAD_ENUM,
               "clips[%u].curves[%u].target (%d) is not a crowd_motion_target", k, j, (int)cv->target);
        MCHECK((unsigned)cv->target >= order, CROWD_ERR_RANGE,
               "clips[%u].curves[%u].target: curves must come in target order model, parameter, part opacity", k, j);
        order = (unsigned)cv->target;
        MCHECK(finite_d(cv->fade_in) && finite_d(cv->fade_out), CROWD_ERR_NOT_FINITE,
               "clips[%u].curves[%u]: fade_in or fade_out is not finite", k, j);
        MCHECK(cv->fade_in <= CROWD_MAX_MOTION_SECONDS && cv->fade_out <= CROWD_MAX_MOTION_SECONDS, CROWD_ERR_RANGE,
               "clips[%u].curves[%u]: fade_in (%g) and fade_out (%g) must be at most 1e6 s", k, j, cv->fade_in,
               cv->fade_out);
        MCHECK(cv->segment_count >= 1 && cv->first_segment < c->segment_count &&
                   cv->segment_count <= c->segment_count - cv->first_segment,
               CROWD_ERR_RANGE, "clips[%u].curves[%u]: segments [%u, %u + %u) must be within the clip's %u, at least one", k,
               j, cv->first_segment, cv->first_segment, cv->segment_count, c->segment_count);
        /* ends that never decrease: the stage's binary search finds the framework's segment */
        for (uint32_t s = cv->first_segment + 1; s < cv->first_segment + cv->segment_count; s++) {
            uint32_t prev_last = c->segment_points[s - 1] + (c->segment_types[s - 1] == CROWD_MOTION_SEGMENT_BEZIER ? 3u : 1u);
            uint32_t last = c->segment_points[s] + (c->segment_types[s] == CROWD_MOTION_SEGMENT_BEZIER ? 3u : 1u);
            MCHECK(c->points[last].time >= c->points[prev_last].time, CROWD_ERR_RANGE,
                   "clips[%u].curves[%u]: segment %u ends (%g) before the one before it (%g)", k, j, s,
                   c->points[last].time, c->points[prev_last].time);
        }
    }
    return CROWD_OK;
}

static crowd_result motion_validate(crowd_engine *engine, const crowd_rig_desc *desc, const crowdi_ids *ids) {
    const crowd_motion_desc *m = desc->motion;
    MCHECK(m->clip_count <= CROWD_MAX_MOTIONS, CROWD_ERR_CAPACITY, "clip_count (%u) exceeds %u", m->clip_count,
           CROWD_MAX_MOTIONS);
    MCHECK(m->eye_blink_count <= CROWDI_MOTION_EFFECT_IDS && m->lip_sync_count <= CROWDI_MOTION_EFFECT_IDS,
           CROWD_ERR_CAPACITY, "eye_blink_count (%u) and lip_sync_count (%u) must be at most 64", m->eye_blink_count,
           m->lip_sync_count);
    MCHECK(m->idle_count <= CROWD_MAX_MOTIONS, CROWD_ERR_CAPACITY, "idle_count (%u) exceeds %u", m->idle_count,
           CROWD_MAX_MOTIONS);
    if (!ids) return CROWD_OK;
    crowd_result settings = crowdi_settings_check(engine, CROWDI_CTL_MOTION, motion_settings_table, MOTION_SETTINGS, m);
    if (settings != CROWD_OK) return settings;
    MCHECK(m->clip_count == 0 || m->clips, CROWD_ERR_NULL, "clips is NULL");
    MCHECK(m->eye_blink_count == 0 || m->eye_blink_ids, CROWD_ERR_NULL, "eye_blink_ids is NULL");
    MCHECK(m->lip_sync_count == 0 || m->lip_sync_ids, CROWD_ERR_NULL, "lip_sync_ids is NULL");
    MCHECK(m->idle_count == 0 || m->idle_clips, CROWD_ERR_NULL, "idle_clips is NULL");
    crowd_result res;
    for (uint32_t k = 0; k < m->eye_blink_count; k++)
        if ((res = crowdi_rig_param_id(engine, ids, "desc->motion->eye_blink_ids[%u]", k, m->eye_blink_ids[k], NULL)) != CROWD_OK)
            return res;
    for (uint32_t k = 0; k < m->lip_sync_count; k++)
        if ((res = crowdi_rig_param_id(engine, ids, "desc->motion->lip_sync_ids[%u]", k, m->lip_sync_ids[k], NULL)) != CROWD_OK)
            return res;
    for (uint32_t k = 0; k < m->idle_count; k++)
        MCHECK(m->idle_clips[k] < m->clip_count, CROWD_ERR_RANGE, "idle_clips[%u] (%u) is not a clip (clip_count %u)", k,
               m->idle_clips[k], m->clip_count);
    uint64_t curves = 0, segments = 0, points = 0, events = 0;
    for (uint32_t k = 0; k < m->clip_count; k++) {
        if ((res = check_clip(engine, &m->clips[k], k)) != CROWD_OK) return res;
        curves += m->clips[k].curve_count, segments += m->clips[k].segment_count;
        points += m->clips[k].point_count, events += m->clips[k].event_count;
    }
    MCHECK(curves < (1u << 30) && segments < (1u << 30) && points < (1u << 30) && events < (1u << 30),
           CROWD_ERR_CAPACITY, "clips: the library holds more than 2^30 curves, segments, points or events");
    return CROWD_OK;
}

/* ---- building the part ---- */
static int find_str(char *const *list, uint32_t n, const char *id) {
    for (uint32_t k = 0; k < n; k++)
        if (strcmp(list[k], id) == 0) return (int)k;
    return -1;
}

static char *copy_str(crowd_engine *engine, const char *s) {
    size_t n = strlen(s) + 1;
    char *c = crowdi_alloc(engine, n);
    if (c) memcpy(c, s, n);
    return c;
}

#define ALIGN8(n) (((n) + 7u) & ~(size_t)7u)

/* The next array of a block laid out by a list of sizes, each 8-byte aligned. */
static void *carve(uint8_t *block, size_t *at, size_t size) {
    void *p = block + *at;
    *at += ALIGN8(size);
    return p;
}

/* A curve whose every point (control points too) holds one value v evaluates to v at any time
 * on every path of the stage: each segment kind gives v or v + (v - v) * t = v for a finite
 * t, except that the lerps turn -0 into +0, so a -0 curve is left to the full evaluation. */
static void curve_constant(const crowd_motion_clip *src, const crowd_motion_curve *sc, crowdi_motion_curve *dc) {
    dc->constant = 0, dc->value = 0.0;
    uint32_t s0 = sc->first_segment, s1 = sc->first_segment + sc->segment_count;
    double v = src->points[src->segment_points[s0]].value;
    if (v == 0.0 && signbit(v)) return;
    for (uint32_t s = s0; s < s1; s++) {
        uint32_t first = src->segment_points[s];
        uint32_t last = first + (src->segment_types[s] == CROWD_MOTION_SEGMENT_BEZIER ? 3u : 1u);
        for (uint32_t p = first; p <= last; p++)
            if (src->points[p].value != v) return;
    }
    dc->constant = 1, dc->value = v;
}

/* ---- the pieces (crowdi_motion_view): each varying curve's segments as polynomials in the
 * time since a piece's start ---- */

/* How close a piece of an unrestricted bezier keeps to the solved value: 1e-7 of the larger
 * of 1 and the segment's largest |value| (float32 holds the result to 6e-8 of it). */
#define CROWDI_MOTION_FIT 1e-7
/* A piece is not cut below this many seconds (a root that jumps, where the bezier's times turn
 * back, is then met within one such piece); a segment shorter holds its first value. */
#define CROWDI_MOTION_MIN_PIECE 1e-9
#define CROWDI_MOTION_MIN_SEGMENT 1e-9

typedef struct piece_sink {
    double *end, *poly; /* NULL: count only */
    uint32_t count;
} piece_sink;

static void piece_put(piece_sink *o, double start, double end, double a0, double a1, double a2, double a3) {
    if (o->end) {
        o->end[o->count] = end;
        double *k = o->poly + (size_t)o->count * 5u;
        k[0] = start, k[1] = a0, k[2] = a1, k[3] = a2, k[4] = a3;
    }
    o->count++;
}

static double poly_at(const double *a, double u) { return a[0] + u * (a[1] + u * (a[2] + u * a[3])); }

/* The cubic through the solved values at 0, 1/4, 3/4 and 1 of [x0, x1] (the Chebyshev-Lobatto
 * points: both ends exact, so the pieces join), in u = time - x0, if within `tol` of the solved
 * value at 16 points between; else both halves, down to CROWDI_MOTION_MIN_PIECE. */
static void fit_bezier(const crowdi_motion_view *v, uint32_t s, double x0, double x1, double tol, piece_sink *o) {
    static const double node[4] = {0.0, 0.25, 0.75, 1.0};
    const double w = x1 - x0;
    double y[4];
    for (int k = 0; k < 4; k++) y[k] = cvk_md_segment(v, 0, s, k == 3 ? x1 : x0 + w * node[k]);
    /* Newton's divided differences on the nodes, in t = u / w, then the monomial form in u */
    double d1 = (y[1] - y[0]) / 0.25, d12 = (y[2] - y[1]) / 0.5, d23 = (y[3] - y[2]) / 0.25;
    double d2 = (d12 - d1) / 0.75, d23b = (d23 - d12) / 0.75;
    double d3 = (d23b - d2) / 1.0;
    /* p(t) = y0 + d1 t + d2 t (t - 1/4) + d3 t (t - 1/4)(t - 3/4) */
    double c1 = d1 - 0.25 * d2 + 0.1875 * d3, c2 = d2 - d3, c3 = d3;
    double a[4] = {y[0], c1 / w, c2 / (w * w), c3 / (w * w * w)};
    double worst = 0.0;
    for (int j = 0; j < 16 && worst <= tol; j++) {
        double u = w * ((double)j + 0.5) / 16.0;
        double e = fabs(poly_at(a, u) - cvk_md_segment(v, 0, s, x0 + u));
        if (!(e <= worst)) worst = e == e ? e : INFINITY;
    }
    if (worst <= tol || w <= 2.0 * CROWDI_MOTION_MIN_PIECE) {
        piece_put(o, x0, x1, a[0], a[1], a[2], a[3]);
        return;
    }
    double mid = x0 + 0.5 * w;
    fit_bezier(v, s, x0, mid, tol, o);
    fit_bezier(v, s, mid, x1, tol, o);
}

/* A segment as pieces: the framework's formula in u = time - start. */
static void segment_pieces(const crowdi_motion_view *v, uint32_t restricted, uint32_t s, piece_sink *o) {
    const uint32_t p = v->segment_point[s];
    const double *pt = v->point_time + p, *pv = v->point_value + p;
    const uint32_t type = v->segment_type[s];
    const double x0 = pt[0], x1 = pt[type == CROWD_MOTION_SEGMENT_BEZIER ? 3 : 1];
    const double w = x1 - x0;
    switch (type) {
    case CROWD_MOTION_SEGMENT_LINEAR:
        if (w < CROWDI_MOTION_MIN_SEGMENT) piece_put(o, x0, x1, pv[0], 0.0, 0.0, 0.0);
        else piece_put(o, x0, x1, pv[0], (pv[1] - pv[0]) / w, 0.0, 0.0);
        return;
    case CROWD_MOTION_SEGMENT_BEZIER:
        if (w < CROWDI_MOTION_MIN_SEGMENT) {
            piece_put(o, x0, x1, pv[0], 0.0, 0.0, 0.0);
        } else if (restricted) { /* de Casteljau's cubic in t = u / w */
            double c1 = 3.0 * (pv[1] - pv[0]), c2 = 3.0 * (pv[0] - 2.0 * pv[1] + pv[2]);
            double c3 = pv[3] - pv[0] + 3.0 * (pv[1] - pv[2]);
            piece_put(o, x0, x1, pv[0], c1 / w, c2 / (w * w), c3 / (w * w * w));
        } else {
            double scale = 1.0;
            for (int k = 0; k < 4; k++) scale = fabs(pv[k]) > scale ? fabs(pv[k]) : scale;
            fit_bezier(v, s, x0, x1, CROWDI_MOTION_FIT * scale, o);
        }
        return;
    case CROWD_MOTION_SEGMENT_STEPPED: piece_put(o, x0, x1, pv[0], 0.0, 0.0, 0.0); return;
    default: piece_put(o, x0, x1, pv[1], 0.0, 0.0, 0.0); return; /* inverse stepped */
    }
}

static void clip_pieces(crowdi_motion_view *v, const crowdi_motion_clip *c, crowdi_motion_curve *cvs, piece_sink *o) {
    for (uint32_t j = c->first_curve; j < c->curve_end; j++) {
        crowdi_motion_curve *cv = &cvs[j];
        if (cv->constant) continue;
        cv->first_piece = o->count;
        for (uint32_t s = cv->first_segment; s < cv->first_segment + cv->segment_count; s++)
            segment_pieces(v, c->restricted, s, o);
        cv->piece_count = o->count - cv->first_piece;
        /* the walk's stop after the last piece: an end no time passes (NaN compares false) */
        piece_put(o, o->end ? o->end[o->count - 1] : 0.0, (double)NAN, 0.0, 0.0, 0.0, 0.0);
    }
}

/* The pieces, then each clip's grid (crowdi_motion_clip): 120 rows a second, fewer when that
 * would pass 16 entries per piece (plus 4096). */
static crowd_result build_pieces(crowd_engine *engine, motion_part *part, crowdi_motion_clip *clips,
                                 crowdi_motion_curve *cvs) {
    crowdi_motion_view *v = &part->view;
    piece_sink count = {NULL, NULL, 0};
    uint64_t entries = 0;
    for (uint32_t k = 0; k < v->clip_count; k++) {
        crowdi_motion_clip *c = &clips[k];
        const uint32_t before = count.count;
        clip_pieces(v, c, cvs, &count);
        c->varying_count = 0;
        for (uint32_t j = c->first_curve; j < c->curve_end; j++)
            if (!cvs[j].constant) cvs[j].varying = c->varying_count++;
        double rows = ceil(c->loop_duration * 120.0) + 2.0;
        const double budget = c->varying_count ? (16.0 * (count.count - before) + 4096.0) / c->varying_count : 2.0;
        if (rows > budget) rows = budget;
        if (rows < 2.0) rows = 2.0;
        c->grid_rows = (uint32_t)rows;
        c->grid_scale = (double)(c->grid_rows - 1) / c->loop_duration;
        c->grid_first = (uint32_t)entries; /* the library's limits keep this far below 2^32 */
        entries += (uint64_t)c->grid_rows * c->varying_count;
    }
    MCHECK(entries < UINT32_MAX && count.count < UINT32_MAX / 5u, CROWD_ERR_CAPACITY,
           "clips: the curves' %u pieces and %llu grid entries pass 2^32", count.count, (unsigned long long)entries);
    part->piece_end = crowdi_alloc(engine, sizeof(double) * (count.count ? count.count : 1));
    part->piece_poly = crowdi_alloc(engine, sizeof(double) * 5u * (count.count ? count.count : 1));
    part->grid = crowdi_alloc(engine, sizeof(uint32_t) * (entries ? entries : 1));
    if (!part->piece_end || !part->piece_poly || !part->grid) return CROWD_ERR_OUT_OF_MEMORY;
    piece_sink out = {part->piece_end, part->piece_poly, 0};
    for (uint32_t k = 0; k < v->clip_count; k++) {
        const crowdi_motion_clip *c = &clips[k];
        clip_pieces(v, c, cvs, &out);
        for (uint32_t j = c->first_curve; j < c->curve_end; j++) {
            const crowdi_motion_curve *cv = &cvs[j];
            if (cv->constant) continue;
            /* row b: the first piece ending after (b - 1/2) / scale, which the walk reaches as b grows */
            uint32_t at = 0;
            for (uint32_t b = 0; b < c->grid_rows; b++) {
                const double t = ((double)b - 0.5) / c->grid_scale;
                while (at < cv->piece_count && !(part->piece_end[cv->first_piece + at] > t)) at++;
                part->grid[c->grid_first + (size_t)b * c->varying_count + cv->varying] = cv->first_piece + at;
            }
        }
    }
    v->piece_end = part->piece_end, v->piece_poly = part->piece_poly, v->grid = part->grid;
    return CROWD_OK;
}

/* Which clips the stage blends a block of rows at a time (crowdi_motion_clip.blocked) and
 * their parameter curves' lists, each clip's PartOpacity lists, and the saved columns' ranges. */
static crowd_result build_blocked(crowd_engine *engine, const crowdi_rig *r, motion_part *part,
                                  crowdi_motion_clip *clips, const crowdi_motion_curve *cvs) {
    crowdi_motion_view *v = &part->view;
    const uint32_t saved = v->saved_count, columns = saved + v->pseudo_count;
    uint32_t fixed = 0, moving = 0, part_fixed = 0;
    for (uint32_t k = 0; k < v->clip_count; k++)
        for (uint32_t j = clips[k].model_end; j < clips[k].curve_end; j++) {
            if (!cvs[j].constant) moving++;
            else if (j < clips[k].parameter_end) fixed++;
            else part_fixed++;
        }
    /* one block: sizes in the order they are carved */
    const size_t sizes[] = {sizeof(double) * fixed,          sizeof(double) * saved,         sizeof(double) * saved,
                            sizeof(crowdi_motion_moving) * moving, sizeof(uint32_t) * fixed, sizeof(uint32_t) * part_fixed,
                            sizeof(float) * part_fixed,      sizeof(uint32_t) * columns};
    size_t total = 0;
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) total += ALIGN8(sizes[k]);
    uint8_t *b = crowdi_alloc(engine, total ? total : 8);
    if (!b) return CROWD_ERR_OUT_OF_MEMORY;
    part->blocked = b;
    size_t at = 0, n = 0;
#define CARVE(type) ((type)carve(b, &at, sizes[n++]))
    double *fixed_value = CARVE(double *), *low = CARVE(double *), *high = CARVE(double *);
    crowdi_motion_moving *moving_rec = CARVE(crowdi_motion_moving *);
    uint32_t *fixed_column = CARVE(uint32_t *), *part_column = CARVE(uint32_t *);
    float *part_value = CARVE(float *);
    uint32_t *seen = CARVE(uint32_t *); /* a column's last writer in the clip being listed */
#undef CARVE
    for (uint32_t q = 0; q < saved; q++) {
        const crowdi_param *p = &r->params[v->saved_param[q]];
        low[q] = p->min, high[q] = p->max;
    }
    for (uint32_t q = 0; q < columns; q++) seen[q] = UINT32_MAX;
    fixed = moving = part_fixed = 0;
    for (uint32_t k = 0; k < v->clip_count; k++) {
        crowdi_motion_clip *c = &clips[k];
        /* blocked: plain blends of distinct saved columns, no EyeBlink or LipSync curve */
        bool blocked = true;
        for (uint32_t j = c->first_curve; j < c->model_end; j++)
            if (cvs[j].kind == CROWDI_MODEL_EYE_BLINK || cvs[j].kind == CROWDI_MODEL_LIP_SYNC) blocked = false;
        for (uint32_t j = c->model_end; blocked && j < c->parameter_end; j++) {
            const crowdi_motion_curve *cv = &cvs[j];
            blocked = part->curve_target[j] == CROWD_MOTION_TARGET_PARAMETER && cv->target < saved &&
                      cv->fade_in < 0.0 && cv->fade_out < 0.0 && seen[cv->target] != 2u * k;
            if (blocked) seen[cv->target] = 2u * k;
        }
        c->blocked = blocked;
        c->first_fixed = fixed, c->first_moving = moving;
        for (uint32_t j = c->model_end; blocked && j < c->parameter_end; j++) {
            const crowdi_motion_curve *cv = &cvs[j];
            if (cv->constant) fixed_column[fixed] = cv->target, fixed_value[fixed++] = cv->value;
            else moving_rec[moving++] = (crowdi_motion_moving){cv->varying, cv->target, cv->first_piece + cv->piece_count, j};
        }
        c->fixed_count = fixed - c->first_fixed, c->moving_count = moving - c->first_moving;
        /* the PartOpacity curves as lists when no two write the same column (their order is free then) */
        bool listed = true;
        for (uint32_t j = c->parameter_end; listed && j < c->curve_end; j++) {
            listed = seen[saved + cvs[j].target] != 2u * k + 1u;
            seen[saved + cvs[j].target] = 2u * k + 1u;
        }
        c->parts_listed = listed;
        c->first_part_fixed = part_fixed, c->first_part_moving = moving;
        for (uint32_t j = c->parameter_end; listed && j < c->curve_end; j++) {
            const crowdi_motion_curve *cv = &cvs[j];
            if (cv->constant) part_column[part_fixed] = cv->target, part_value[part_fixed++] = (float)cv->value;
            else moving_rec[moving++] = (crowdi_motion_moving){cv->varying, cv->target, cv->first_piece + cv->piece_count, j};
        }
        c->part_fixed_count = part_fixed - c->first_part_fixed, c->part_moving_count = moving - c->first_part_moving;
    }
    v->fixed_column = fixed_column, v->fixed_value = fixed_value, v->moving = moving_rec;
    v->part_column = part_column, v->part_value = part_value;
    v->saved_low = low, v->saved_high = high;
    v->block_columns = saved <= CROWDI_MOTION_BLOCK_COLUMNS ? saved : 0u;
    return CROWD_OK;
}

static crowd_result motion_build(crowd_engine *engine, const crowd_rig_desc *desc, const crowdi_ids *ids, crowdi_rig *r) {
    const crowd_motion_desc *m = desc->motion;
    motion_part *part = MOTION(r);
    crowdi_motion_view *v = &part->view;
    uint32_t C = m->clip_count, curves = 0, segments = 0, points = 0, events = 0, P = r->param_count;
    for (uint32_t k = 0; k < C; k++)
        curves += m->clips[k].curve_count, segments += m->clips[k].segment_count, points += m->clips[k].point_count,
            events += m->clips[k].event_count;
    uint32_t E = m->eye_blink_count, L = m->lip_sync_count, I = m->idle_count;
    /* one block: sizes in the order they are carved */
    size_t sizes[] = {
        sizeof(crowdi_motion_clip) * C, sizeof(crowdi_motion_curve) * curves,
        sizeof(double) * points,        sizeof(double) * points,              sizeof(double) * events,
        sizeof(double) * C,             sizeof(uint32_t) * segments,          sizeof(uint32_t) * I,
        sizeof(uint32_t) * E,           sizeof(uint32_t) * L,                 sizeof(uint32_t) * E,
        sizeof(uint32_t) * L,           sizeof(uint32_t) * (E + L + curves),  sizeof(int32_t) * P,
        sizeof(uint32_t) * C * 4,       sizeof(char *) * curves,              sizeof(char *) * curves,
        sizeof(float *) * (E + L + 2 * curves), segments,
        curves,                         sizeof(double) * CROWDI_CUBIC_N * segments,
    };
    size_t total = 0;
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) total += ALIGN8(sizes[k]);
    uint8_t *b = crowdi_alloc(engine, total ? total : 8);
    if (!b) return CROWD_ERR_OUT_OF_MEMORY;
    memset(b, 0, total ? total : 8);
    part->block = b;
    size_t at = 0, n = 0;
#define CARVE(type) ((type)carve(b, &at, sizes[n++]))
    crowdi_motion_clip *clips = CARVE(crowdi_motion_clip *);
    crowdi_motion_curve *cvs = CARVE(crowdi_motion_curve *);
    double *pt_time = CARVE(double *), *pt_value = CARVE(double *);
    double *ev_time = CARVE(double *);
    part->clip_fps = CARVE(double *);
    uint32_t *seg_point = CARVE(uint32_t *), *idle = CARVE(uint32_t *);
    uint32_t *eye = CARVE(uint32_t *), *lip = CARVE(uint32_t *);
    part->eye_blink_param = CARVE(uint32_t *);
    part->lip_sync_param = CARVE(uint32_t *);
    uint32_t *saved_param = CARVE(uint32_t *);
    int32_t *saved_of = CARVE(int32_t *);
    uint32_t *clip_meta = CARVE(uint32_t *);
    part->curve_id = CARVE(char **);
    part->pseudo_id = CARVE(char **);
    part->saved_cols = CARVE(float **);
    uint8_t *seg_type = CARVE(uint8_t *);
    part->curve_target = CARVE(uint8_t *);
    double *seg_cubic = CARVE(double *);
#undef CARVE
    part->clip_segment_base = clip_meta, part->clip_point_base = clip_meta + C;
    part->clip_segment_count = clip_meta + 2 * C, part->clip_point_count = clip_meta + 3 * C;
    part->segment_total = segments, part->point_total = points, part->event_total = events;
    part->curve_total = curves;
    for (uint32_t p = 0; p < P; p++) saved_of[p] = -1;
    uint32_t saved = 0, pseudo = 0;
    for (uint32_t k = 0; k < E; k++) {
        uint32_t p = (uint32_t)crowdi_ids_find(ids, m->eye_blink_ids[k]);
        part->eye_blink_param[k] = p;
        if (saved_of[p] < 0) saved_param[saved] = p, saved_of[p] = (int32_t)saved++;
        eye[k] = (uint32_t)saved_of[p];
    }
    for (uint32_t k = 0; k < L; k++) {
        uint32_t p = (uint32_t)crowdi_ids_find(ids, m->lip_sync_ids[k]);
        part->lip_sync_param[k] = p;
        if (saved_of[p] < 0) saved_param[saved] = p, saved_of[p] = (int32_t)saved++;
        lip[k] = (uint32_t)saved_of[p];
    }
    uint32_t c0 = 0, s0 = 0, p0 = 0, e0 = 0;
    for (uint32_t k = 0; k < C; k++) {
        const crowd_motion_clip *src = &m->clips[k];
        crowdi_motion_clip *dst = &clips[k];
        dst->duration = src->duration;
        dst->loop_duration = src->duration + 1.0 / src->fps;
        dst->fade_in = src->fade_in, dst->fade_out = src->fade_out;
        dst->restricted = src->beziers_restricted;
        dst->first_curve = c0, dst->first_event = e0, dst->event_count = src->event_count;
        part->clip_fps[k] = src->fps;
        part->clip_segment_base[k] = s0, part->clip_point_base[k] = p0;
        part->clip_segment_count[k] = src->segment_count, part->clip_point_count[k] = src->point_count;
        for (uint32_t p = 0; p < src->point_count; p++)
            pt_time[p0 + p] = src->points[p].time, pt_value[p0 + p] = src->points[p].value;
        for (uint32_t s = 0; s < src->segment_count; s++) {
            seg_type[s0 + s] = src->segment_types[s];
            seg_point[s0 + s] = p0 + src->segment_points[s];
            if (src->segment_types[s] == CROWD_MOTION_SEGMENT_BEZIER)
                cvk_md_cubic_setup(pt_time + seg_point[s0 + s], seg_cubic + (size_t)(s0 + s) * CROWDI_CUBIC_N);
        }
        for (uint32_t e = 0; e < src->event_count; e++) ev_time[e0 + e] = src->event_times[e];
        uint32_t model_end = c0, parameter_end = c0;
        for (uint32_t j = 0; j < src->curve_count; j++) {
            const crowd_motion_curve *sc = &src->curves[j];
            crowdi_motion_curve *dc = &cvs[c0 + j];
            if (!(part->curve_id[c0 + j] = copy_str(engine, sc->id))) return CROWD_ERR_OUT_OF_MEMORY;
            part->curve_target[c0 + j] = (uint8_t)sc->target;
            dc->fade_in = sc->fade_in, dc->fade_out = sc->fade_out;
            dc->first_segment = s0 + sc->first_segment, dc->segment_count = sc->segment_count;
            dc->eye_blink = dc->lip_sync = -1;
            curve_constant(src, sc, dc);
            if (sc->target == CROWD_MOTION_TARGET_MODEL) {
                dc->kind = strcmp(sc->id, "EyeBlink") == 0  ? CROWDI_MODEL_EYE_BLINK
                           : strcmp(sc->id, "LipSync") == 0 ? CROWDI_MODEL_LIP_SYNC
                           : strcmp(sc->id, "Opacity") == 0 ? CROWDI_MODEL_OPACITY
                                                            : CROWDI_MODEL_OTHER;
                model_end = parameter_end = c0 + j + 1;
                continue;
            }
            int p = sc->target == CROWD_MOTION_TARGET_PARAMETER ? crowdi_ids_find(ids, sc->id) : -1;
            if (p >= 0) {
                if (saved_of[p] < 0) saved_param[saved] = (uint32_t)p, saved_of[p] = (int32_t)saved++;
                dc->target = (uint32_t)saved_of[p];
                for (uint32_t q = 0; q < E && dc->eye_blink < 0; q++)
                    if (part->eye_blink_param[q] == (uint32_t)p) dc->eye_blink = (int32_t)q;
                for (uint32_t q = 0; q < L && dc->lip_sync < 0; q++)
                    if (part->lip_sync_param[q] == (uint32_t)p) dc->lip_sync = (int32_t)q;
            } else {
                int found = find_str(part->pseudo_id, pseudo, sc->id);
                if (found < 0) part->pseudo_id[pseudo] = part->curve_id[c0 + j], found = (int)pseudo++;
                dc->target = (uint32_t)found; /* + saved_count below, for parameter curves */
                dc->kind = sc->target == CROWD_MOTION_TARGET_PARAMETER ? 1u : 0u; /* marks "pseudo parameter" */
            }
            if (sc->target == CROWD_MOTION_TARGET_PARAMETER) parameter_end = c0 + j + 1;
        }
        dst->model_end = model_end, dst->parameter_end = parameter_end, dst->curve_end = c0 + src->curve_count;
        c0 += src->curve_count, s0 += src->segment_count, p0 += src->point_count, e0 += src->event_count;
    }
    /* pseudo targets of parameter curves come after the saved columns */
    for (uint32_t j = 0; j < curves; j++)
        if (part->curve_target[j] == CROWD_MOTION_TARGET_PARAMETER && cvs[j].kind == 1u) {
            cvs[j].target += saved;
            cvs[j].kind = 0;
        }
    for (uint32_t k = 0; k < I; k++) idle[k] = m->idle_clips[k];
    v->clip_count = C, v->idle_count = I;
    v->loop_idle = m->loop_idle;
    v->clips = clips, v->curves = cvs;
    v->segment_point = seg_point, v->segment_type = seg_type;
    v->point_time = pt_time, v->point_value = pt_value, v->event_time = ev_time;
    v->segment_cubic = seg_cubic;
    v->idle = idle;
    v->eye_blink_count = E, v->lip_sync_count = L, v->eye_blink = eye, v->lip_sync = lip;
    v->saved_count = saved, v->pseudo_count = pseudo, v->saved_param = saved_param;
    /* the pseudo columns follow the saved ones: a curve's target indexes both (v->saved) */
    part->pseudo_cols = part->saved_cols + saved;
    v->saved = part->saved_cols, v->pseudo = part->pseudo_cols;
    for (uint32_t j = 0; j < curves; j++) { /* the clamp of a parameter curve's saved column */
        crowdi_motion_curve *dc = &cvs[j];
        dc->low = -INFINITY, dc->high = INFINITY;
        if (part->curve_target[j] == CROWD_MOTION_TARGET_PARAMETER && dc->target < saved) {
            const uint32_t p = saved_param[dc->target];
            dc->low = r->params[p].min, dc->high = r->params[p].max;
        }
        dc->plain = dc->eye_blink < 0 && dc->lip_sync < 0 && dc->fade_in < 0.0 && dc->fade_out < 0.0;
    }
    crowd_result res = build_pieces(engine, part, clips, cvs);
    return res == CROWD_OK ? build_blocked(engine, r, part, clips, cvs) : res;
}

static void motion_free(crowd_engine *engine, crowdi_rig *r) {
    motion_part *part = MOTION(r);
    if (part->curve_id)
        for (uint32_t j = 0; j < part->curve_total; j++) crowdi_free(engine, part->curve_id[j]);
    crowdi_free(engine, part->block);
    crowdi_free(engine, part->piece_end);
    crowdi_free(engine, part->piece_poly);
    crowdi_free(engine, part->grid);
    crowdi_free(engine, part->blocked);
}

static uint32_t motion_layout(crowdi_rig *r, uint32_t first) {
    (void)first;
    return CROWDI_MOTION_NCOLS_FIXED + MOTION(r)->view.saved_count + MOTION(r)->view.pseudo_count;
}

static void motion_init_bits(const crowdi_rig *r, uint32_t *bits) {
    const uint32_t first = r->col[CROWDI_CTL_MOTION];
    const motion_part *part = MOTION(r);
    bits[first + CROWDI_MOTION_SPEED] = crowdi_bits(1.0f);
    bits[first + CROWDI_MOTION_WEIGHT] = crowdi_bits(1.0f);
    bits[first + CROWDI_MOTION_OPACITY] = crowdi_bits(1.0f);
    for (uint32_t k = 0; k < part->view.saved_count; k++)
        bits[first + CROWDI_MOTION_NCOLS_FIXED + k] = crowdi_bits(r->param_default[part->view.saved_param[k]]);
}

static void motion_point(crowdi_rig *r) {
    motion_part *part = MOTION(r);
    const uint32_t first = r->col[CROWDI_CTL_MOTION];
    for (uint32_t c = 0; c < CROWDI_MOTION_NCOLS_FIXED; c++) part->view.col[c] = r->columns[first + c];
    for (uint32_t k = 0; k < part->view.saved_count; k++)
        part->saved_cols[k] = r->columns[first + CROWDI_MOTION_NCOLS_FIXED + k];
    /* A pseudo-parameter named by a pose part is that part's pseudo-parameter (crowd.h section
     * 14): the motion writes the pose's input column itself, as the framework's PartOpacity
     * curves write the not-exist parameter its pose reads. The motion's own column stays unused. */
    const crowdi_controller *pose = r->has[CROWDI_CTL_POSE] ? crowdi_controllers[CROWDI_CTL_POSE] : NULL;
    for (uint32_t k = 0; k < part->view.pseudo_count; k++) {
        const int32_t at = pose ? crowdi_pose_part_find(r, part->pseudo_id[k]) : -1;
        part->pseudo_cols[k] = at >= 0 ? pose->field_column(r, CROWD_FIELD_PART_PARAMETER, (uint32_t)at, 0)
                                       : r->columns[first + CROWDI_MOTION_NCOLS_FIXED + part->view.saved_count + k];
    }
}

static float *motion_field_column(const crowdi_rig *r, crowd_field f, uint32_t index, uint32_t comp) {
    (void)comp;
    const motion_part *part = MOTION(r);
    switch (f) {
    case CROWD_FIELD_MOTION_SPEED: return crowdi_ctl_column(r, CROWDI_CTL_MOTION, CROWDI_MOTION_SPEED);
    case CROWD_FIELD_MOTION_WEIGHT: return crowdi_ctl_column(r, CROWDI_CTL_MOTION, CROWDI_MOTION_WEIGHT);
    case CROWD_FIELD_MOTION_OPACITY: return crowdi_ctl_column(r, CROWDI_CTL_MOTION, CROWDI_MOTION_OPACITY);
    case CROWD_FIELD_MOTION_UPDATED: return crowdi_ctl_column(r, CROWDI_CTL_MOTION, CROWDI_MOTION_UPDATED);
    case CROWD_FIELD_MOTION_PSEUDO: { /* a pose part's column (motion_point), or its own */
        const int32_t at = r->has[CROWDI_CTL_POSE] ? crowdi_pose_part_find(r, part->pseudo_id[index]) : -1;
        return at >= 0 ? crowdi_controllers[CROWDI_CTL_POSE]->field_column(r, CROWD_FIELD_PART_PARAMETER, (uint32_t)at, 0)
                       : crowdi_ctl_column(r, CROWDI_CTL_MOTION, CROWDI_MOTION_NCOLS_FIXED + part->view.saved_count + index);
    }
    default: return NULL;
    }
}

static uint32_t motion_entry_count(const crowdi_rig *r) { return MOTION(r)->view.pseudo_count; }

/* ---- snapshots: the library as the desc gave it ---- */
static void w_f64(crowdi_writer *w, double d) {
    uint64_t u;
    memcpy(&u, &d, sizeof u);
    crowdi_w_u64(w, u);
}
static double r_f64(crowdi_reader *rd) {
    uint64_t u = crowdi_r_u64(rd);
    double d;
    memcpy(&d, &u, sizeof d);
    return d;
}

static void motion_write(crowdi_writer *w, const crowdi_rig *r) {
    const motion_part *part = MOTION(r);
    const crowdi_motion_view *v = &part->view;
    crowdi_settings_write(w, motion_settings_table, 0, MOTION_SETTINGS, v);
    uint32_t id_bytes = 0;
    for (uint32_t j = 0; j < part->curve_total; j++) id_bytes += (uint32_t)strlen(part->curve_id[j]);
    crowdi_w_u32(w, v->clip_count);
    crowdi_w_u32(w, part->curve_total);
    crowdi_w_u32(w, part->segment_total);
    crowdi_w_u32(w, part->point_total);
    crowdi_w_u32(w, part->event_total);
    crowdi_w_u32(w, id_bytes);
    crowdi_w_u32(w, v->eye_blink_count);
    crowdi_w_u32(w, v->lip_sync_count);
    crowdi_w_u32(w, v->idle_count);
    for (uint32_t k = 0; k < v->eye_blink_count; k++) crowdi_w_u32(w, part->eye_blink_param[k]);
    for (uint32_t k = 0; k < v->lip_sync_count; k++) crowdi_w_u32(w, part->lip_sync_param[k]);
    for (uint32_t k = 0; k < v->idle_count; k++) crowdi_w_u32(w, v->idle[k]);
    for (uint32_t k = 0; k < v->clip_count; k++) {
        const crowdi_motion_clip *c = &v->clips[k];
        w_f64(w, c->duration);
        w_f64(w, part->clip_fps[k]);
        w_f64(w, c->fade_in);
        w_f64(w, c->fade_out);
        crowdi_w_u32(w, c->restricted);
        crowdi_w_u32(w, c->curve_end - c->first_curve);
        crowdi_w_u32(w, part->clip_segment_count[k]);
        crowdi_w_u32(w, part->clip_point_count[k]);
        crowdi_w_u32(w, c->event_count);
        for (uint32_t j = c->first_curve; j < c->curve_end; j++) {
            const crowdi_motion_curve *cv = &v->curves[j];
            crowdi_w_str(w, part->curve_id[j]);
            crowdi_w_u32(w, part->curve_target[j]);
            w_f64(w, cv->fade_in);
            w_f64(w, cv->fade_out);
            crowdi_w_u32(w, cv->first_segment - part->clip_segment_base[k]);
            crowdi_w_u32(w, cv->segment_count);
        }
        for (uint32_t s = 0; s < part->clip_segment_count[k]; s++) {
            uint32_t g = part->clip_segment_base[k] + s;
            crowdi_w_u32(w, v->segment_type[g]);
            crowdi_w_u32(w, v->segment_point[g] - part->clip_point_base[k]);
        }
        for (uint32_t p = 0; p < part->clip_point_count[k]; p++) {
            w_f64(w, v->point_time[part->clip_point_base[k] + p]);
            w_f64(w, v->point_value[part->clip_point_base[k] + p]);
        }
        for (uint32_t e = 0; e < c->event_count; e++) w_f64(w, v->event_time[c->first_event + e]);
    }
}

static crowd_result motion_read(crowd_engine *e, crowd_engine *tmp, crowdi_reader *rd, const crowdi_loading *ld,
                                crowd_rig_desc *desc, void **scratch) {
    crowd_motion_desc settings = {0};
    crowdi_settings_read(rd, motion_settings_table, 0, MOTION_SETTINGS, &settings);
    uint32_t C = crowdi_r_u32(rd), curves = crowdi_r_u32(rd), segments = crowdi_r_u32(rd), points = crowdi_r_u32(rd);
    uint32_t events = crowdi_r_u32(rd), id_bytes = crowdi_r_u32(rd), E = crowdi_r_u32(rd), L = crowdi_r_u32(rd);
    uint32_t I = crowdi_r_u32(rd);
    size_t left = rd->n - rd->off;
    /* each counted item takes at least this many bytes of the blob: nothing is allocated for
     * counts the blob cannot hold */
    if (rd->bad || (uint64_t)C * 52 + (uint64_t)curves * 32 + (uint64_t)segments * 8 + (uint64_t)points * 16 +
                           (uint64_t)events * 8 + (uint64_t)id_bytes + ((uint64_t)E + L + I) * 4 >
                       left)
        return crowdi_fail(e, CROWD_ERR_BAD_SNAPSHOT, "crowd_snapshot_load: rigs[%u].motion is corrupt", ld->rig);
    size_t sizes[] = {sizeof(crowd_motion_desc),         sizeof(crowd_motion_clip) * C,
                      sizeof(crowd_motion_curve) * curves, sizeof(crowd_motion_point) * points,
                      sizeof(double) * events,           sizeof(uint32_t) * segments,
                      sizeof(uint32_t) * I,              sizeof(char *) * (E + L),
                      segments,                          (size_t)id_bytes + curves};
    size_t total = 0;
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) total += ALIGN8(sizes[k]);
    uint8_t *b = crowdi_alloc(tmp, total);
    if (!b) return crowdi_fail(e, CROWD_ERR_OUT_OF_MEMORY, "crowd_snapshot_load: out of memory for rigs[%u].motion", ld->rig);
    *scratch = b;
    size_t at = 0, n = 0;
#define CARVE(type) ((type)carve(b, &at, sizes[n++]))
    crowd_motion_desc *m = CARVE(crowd_motion_desc *);
    crowd_motion_clip *clips = CARVE(crowd_motion_clip *);
    crowd_motion_curve *cvs = CARVE(crowd_motion_curve *);
    crowd_motion_point *pts = CARVE(crowd_motion_point *);
    double *evs = CARVE(double *);
    uint32_t *seg_points = CARVE(uint32_t *), *idle = CARVE(uint32_t *);
    const char **effect_ids = CARVE(const char **);
    uint8_t *seg_types = CARVE(uint8_t *);
    char *strings = CARVE(char *);
#undef CARVE
    *m = settings;
    for (uint32_t k = 0; k < E + L; k++) effect_ids[k] = crowdi_loading_id(ld, crowdi_r_u32(rd));
    for (uint32_t k = 0; k < I; k++) idle[k] = crowdi_r_u32(rd);
    size_t string_left = (size_t)id_bytes + curves;
    uint32_t c0 = 0, s0 = 0, p0 = 0, e0 = 0;
    for (uint32_t k = 0; k < C && !rd->bad; k++) {
        crowd_motion_clip *c = &clips[k];
        c->duration = r_f64(rd), c->fps = r_f64(rd), c->fade_in = r_f64(rd), c->fade_out = r_f64(rd);
        c->beziers_restricted = crowdi_r_u32(rd) != 0;
        c->curve_count = crowdi_r_u32(rd), c->segment_count = crowdi_r_u32(rd), c->point_count = crowdi_r_u32(rd);
        c->event_count = crowdi_r_u32(rd);
        if (c->curve_count > curves - c0 || c->segment_count > segments - s0 || c->point_count > points - p0 ||
            c->event_count > events - e0) {
            rd->bad = 1;
            break;
        }
        c->curves = cvs + c0, c->segment_types = seg_types + s0, c->segment_points = seg_points + s0;
        c->points = pts + p0, c->event_times = evs + e0;
        for (uint32_t j = 0; j < c->curve_count && !rd->bad; j++) {
            crowd_motion_curve *cv = &cvs[c0 + j];
            uint32_t len = crowdi_r_u32(rd);
            const uint8_t *s = crowdi_r_take(rd, len);
            if (!s || (size_t)len + 1 > string_left) {
                rd->bad = 1;
                break;
            }
            memcpy(strings, s, len);
            strings[len] = 0;
            cv->id = strings;
            strings += len + 1, string_left -= (size_t)len + 1;
            cv->target = (crowd_motion_target)crowdi_r_u32(rd);
            cv->fade_in = r_f64(rd), cv->fade_out = r_f64(rd);
            cv->first_segment = crowdi_r_u32(rd), cv->segment_count = crowdi_r_u32(rd);
        }
        for (uint32_t s = 0; s < c->segment_count; s++) {
            uint32_t t = crowdi_r_u32(rd);
            seg_types[s0 + s] = (uint8_t)(t < 256 ? t : 255);
            seg_points[s0 + s] = crowdi_r_u32(rd);
        }
        for (uint32_t p = 0; p < c->point_count; p++) pts[p0 + p].time = r_f64(rd), pts[p0 + p].value = r_f64(rd);
        for (uint32_t q = 0; q < c->event_count; q++) evs[e0 + q] = r_f64(rd);
        c0 += c->curve_count, s0 += c->segment_count, p0 += c->point_count, e0 += c->event_count;
    }
    if (rd->bad) return crowdi_fail(e, CROWD_ERR_BAD_SNAPSHOT, "crowd_snapshot_load: rigs[%u].motion is corrupt", ld->rig);
    m->clips = clips, m->clip_count = C;
    m->eye_blink_ids = effect_ids, m->eye_blink_count = E;
    m->lip_sync_ids = effect_ids + E, m->lip_sync_count = L;
    m->idle_clips = idle, m->idle_count = I;
    desc->motion = m;
    return CROWD_OK; /* crowd_rig_create checks the rest, as for any desc */
}

/* What no field rule covers: the queue, priorities and events a loaded row holds must be ones
 * the tick can meet. */
static crowd_result motion_check_rows(crowd_engine *e, const crowdi_rig *r, uint32_t k) {
    const motion_part *part = MOTION(r);
    float *const *c = part->view.col;
    for (uint32_t row = 0; row < r->count; row++) {
        bool ok = finite_d(cvk_md_get(c, CROWDI_MOTION_CLOCK, row));
        ok = ok && cvk_mu_get(c, CROWDI_MOTION_CURRENT, row) < CROWD_MOTION_PRIORITY_COUNT &&
             cvk_mu_get(c, CROWDI_MOTION_RESERVE, row) < CROWD_MOTION_PRIORITY_COUNT;
        uint32_t events = cvk_mu_get(c, CROWDI_MOTION_EVENT_COUNT, row);
        ok = ok && events <= CROWDI_MOTION_EVENTS;
        for (uint32_t q = 0; ok && q < events; q++) {
            uint32_t clip = cvk_mu_get(c, CROWDI_MOTION_EVENT + 2 * q, row);
            ok = clip < part->view.clip_count &&
                 cvk_mu_get(c, CROWDI_MOTION_EVENT + 2 * q + 1, row) < part->view.clips[clip].event_count;
        }
        bool empty_seen = false;
        for (uint32_t s = 0; ok && s < CROWDI_MOTION_QUEUE; s++) {
            uint32_t base = CROWDI_MOTION_SLOT + s * CROWDI_SLOT_NCOLS, clip = cvk_mu_get(c, base + CROWDI_SLOT_CLIP, row);
            ok = clip <= part->view.clip_count && !(clip && empty_seen) &&
                 cvk_mu_get(c, base + CROWDI_SLOT_FLAGS, row) < 32u;
            empty_seen = empty_seen || clip == 0;
            for (uint32_t d = CROWDI_SLOT_START; ok && d < CROWDI_SLOT_NCOLS; d += 2)
                ok = finite_d(cvk_md_get(c, base + d, row));
            ok = ok && cvk_md_get(c, base + CROWDI_SLOT_FADE_IN, row) >= 0 &&
                 cvk_md_get(c, base + CROWDI_SLOT_FADE_OUT, row) >= 0;
        }
        for (uint32_t q = 0; ok && q < part->view.saved_count; q++) ok = crowdi_finite(part->view.saved[q][row]);
        if (!ok)
            return crowdi_fail(e, CROWD_ERR_BAD_SNAPSHOT, "crowd_snapshot_load: rigs[%u]: motion state of row %u is corrupt",
                               k, row);
    }
    return CROWD_OK;
}

const crowdi_controller crowdi_controller_motion = {
    .name = "motion controller",
    .size = sizeof(motion_part),
    .present = motion_present,
    .validate = motion_validate,
    .build = motion_build,
    .free = motion_free,
    .layout = motion_layout,
    .init_bits = motion_init_bits,
    .point = motion_point,
    .write = motion_write,
    .read = motion_read,
    .check_rows = motion_check_rows,
    .field_column = motion_field_column,
    .entry_count = motion_entry_count,
    .entry_name = "motion pseudo-parameter",
    .setting_rows = motion_settings_table,
    .setting_count = MOTION_SETTINGS,
};

/* ---- playing ---- */
/* Every handle live, of a rig with motions. */
static crowd_result check_motion_handles(const crowd_engine *e, const char *fn, const crowd_instance *h, uint32_t count) {
    crowd_result res = crowdi_check_handles(e, fn, h, count);
    if (res != CROWD_OK) return res;
    for (uint32_t i = 0; i < count; i++) {
        const crowdi_rig *r = e->rigs[crowdi_slot_get(e, h[i])->rig];
        CROWDI_CHECK(e, r->has[CROWDI_CTL_MOTION], CROWD_ERR_NO_CONTROLLER, "%s: handles[%u]: rig \"%s\" has no motion controller",
                     fn, i, r->name ? r->name : "");
    }
    return CROWD_OK;
}

static crowd_result check_priority(const crowd_engine *e, const char *fn, const char *field, crowd_motion_priority p) {
    CROWDI_CHECK(e, p > CROWD_MOTION_PRIORITY_NONE && p < CROWD_MOTION_PRIORITY_COUNT, CROWD_ERR_BAD_ENUM,
                 "%s: %s (%d) must be idle, normal or force", fn, field, (int)p);
    return CROWD_OK;
}

/* CubismMotionManager.reserveMotion */
static bool reserve(float *const *c, uint32_t row, uint32_t priority) {
    if (priority <= cvk_mu_get(c, CROWDI_MOTION_RESERVE, row) || priority <= cvk_mu_get(c, CROWDI_MOTION_CURRENT, row))
        return false;
    cvk_mu_set(c, CROWDI_MOTION_RESERVE, row, priority);
    return true;
}

crowd_result crowd_motion_start(crowd_engine *e, const crowd_instance *h, uint32_t count, const crowd_motion_start_desc *d,
                                bool *out_started) {
    if (!e) return CROWD_ERR_NULL;
    const char *fn = "crowd_motion_start";
    CROWDI_CHECK(e, d, CROWD_ERR_NULL, "%s: desc is NULL", fn);
    crowd_result res = check_motion_handles(e, fn, h, count);
    if (res != CROWD_OK) return res;
    if ((res = check_priority(e, fn, "desc->priority", d->priority)) != CROWD_OK) return res;
    CROWDI_CHECK(e, finite_d(d->fade_in) && finite_d(d->fade_out) && finite_d(d->offset), CROWD_ERR_NOT_FINITE,
                 "%s: desc->fade_in, fade_out or offset is not finite", fn);
    CROWDI_CHECK(e, d->fade_in <= CROWD_MAX_MOTION_SECONDS && d->fade_out <= CROWD_MAX_MOTION_SECONDS, CROWD_ERR_RANGE,
                 "%s: desc->fade_in (%g) and fade_out (%g) must be at most 1e6 s", fn, d->fade_in, d->fade_out);
    CROWDI_CHECK(e, d->offset >= 0 && d->offset <= CROWD_MAX_MOTION_SECONDS, CROWD_ERR_RANGE,
                 "%s: desc->offset (%g) must be in [0, 1e6] s", fn, d->offset);
    for (uint32_t i = 0; i < count; i++) {
        const crowdi_rig *r = e->rigs[crowdi_slot_get(e, h[i])->rig];
        CROWDI_CHECK(e, d->clip < MOTION(r)->view.clip_count, CROWD_ERR_RANGE,
                     "%s: desc->clip (%u) is not a clip of rig \"%s\" (%u clips)", fn, d->clip, r->name ? r->name : "",
                     MOTION(r)->view.clip_count);
    }
    for (uint32_t i = 0; i < count; i++) {
        const crowdi_slot *s = crowdi_slot_get(e, h[i]);
        const crowdi_rig *r = e->rigs[s->rig];
        const crowdi_motion_view *v = &MOTION(r)->view;
        float *const *c = v->col;
        const uint32_t row = s->row, priority = (uint32_t)d->priority;
        bool go = priority == CROWD_MOTION_PRIORITY_FORCE ? (cvk_mu_set(c, CROWDI_MOTION_RESERVE, row, priority), true)
                                                          : reserve(c, row, priority);
        if (out_started) out_started[i] = go;
        if (!go) continue;
        /* startMotionPriority: the reserve is used up, the entries playing fade out */
        if (priority == cvk_mu_get(c, CROWDI_MOTION_RESERVE, row)) cvk_mu_set(c, CROWDI_MOTION_RESERVE, row, 0u);
        cvk_mu_set(c, CROWDI_MOTION_CURRENT, row, priority);
        cvk_md_entry q[CROWDI_MOTION_QUEUE];
        uint32_t n = 0;
        for (uint32_t k = 0; k < CROWDI_MOTION_QUEUE; k++) {
            cvk_md_load(c, row, k, &q[k]);
            if (q[k].clip) q[k].flags |= CROWDI_SLOT_FADING_OUT, n++;
        }
        if (n == CROWDI_MOTION_QUEUE) { /* full: the oldest goes */
            for (uint32_t k = 1; k < CROWDI_MOTION_QUEUE; k++) q[k - 1] = q[k];
            n--;
        }
        const crowdi_motion_clip *clip = &v->clips[d->clip];
        q[n] = (cvk_md_entry){d->clip + 1, (d->loop ? CROWDI_SLOT_LOOP : 0u) | (d->loop_fade_in ? CROWDI_SLOT_LOOP_FADE_IN : 0u),
                              d->offset, 0.0, -1.0, 0.0, d->fade_in < 0 ? clip->fade_in : d->fade_in,
                              d->fade_out < 0 ? clip->fade_out : d->fade_out};
        for (uint32_t k = 0; k <= n; k++) cvk_md_store(c, row, k, &q[k]);
    }
    return CROWD_OK;
}

crowd_result crowd_motion_reserve(crowd_engine *e, const crowd_instance *h, uint32_t count, crowd_motion_priority priority,
                                  bool *out_reserved) {
    if (!e) return CROWD_ERR_NULL;
    const char *fn = "crowd_motion_reserve";
    crowd_result res = check_motion_handles(e, fn, h, count);
    if (res != CROWD_OK) return res;
    if ((res = check_priority(e, fn, "priority", priority)) != CROWD_OK) return res;
    for (uint32_t i = 0; i < count; i++) {
        const crowdi_slot *s = crowdi_slot_get(e, h[i]);
        bool ok = reserve(MOTION(e->rigs[s->rig])->view.col, s->row, (uint32_t)priority);
        if (out_reserved) out_reserved[i] = ok;
    }
    return CROWD_OK;
}

crowd_result crowd_motion_status_get(const crowd_engine *e, crowd_instance instance, crowd_motion_status *out) {
    if (!e) return CROWD_ERR_NULL;
    const char *fn = "crowd_motion_status_get";
    CROWDI_CHECK(e, out, CROWD_ERR_NULL, "%s: out is NULL", fn);
    crowd_result res = check_motion_handles(e, fn, &instance, 1);
    if (res != CROWD_OK) return res;
    const crowdi_slot *s = crowdi_slot_get(e, instance);
    const crowdi_motion_view *v = &MOTION(e->rigs[s->rig])->view;
    float *const *c = v->col;
    crowd_motion_status st = {0, -1, 0.0, cvk_md_get(c, CROWDI_MOTION_CLOCK, s->row),
                              (crowd_motion_priority)cvk_mu_get(c, CROWDI_MOTION_CURRENT, s->row),
                              (crowd_motion_priority)cvk_mu_get(c, CROWDI_MOTION_RESERVE, s->row)};
    for (uint32_t k = 0; k < CROWDI_MOTION_QUEUE; k++) {
        cvk_md_entry q;
        cvk_md_load(c, s->row, k, &q);
        if (!q.clip) break;
        st.playing++;
        st.clip = (int32_t)q.clip - 1;
        st.time = 0.0;
        if (q.flags & CROWDI_SLOT_STARTED) {
            st.time = st.clock - q.start;
            if (q.flags & CROWDI_SLOT_LOOP)
                while (st.time > v->clips[q.clip - 1].loop_duration) st.time -= v->clips[q.clip - 1].loop_duration;
        }
    }
    *out = st;
    return CROWD_OK;
}

crowd_result crowd_rig_motion_pseudo_index(const crowd_engine *e, crowd_rig rig, const char *id, uint32_t *out_index) {
    if (!e) return CROWD_ERR_NULL;
    const char *fn = "crowd_rig_motion_pseudo_index";
    const crowdi_rig *r = crowdi_rig_get(e, rig);
    CROWDI_CHECK(e, r, CROWD_ERR_HANDLE, "%s: rig is not a rig of this engine", fn);
    CROWDI_CHECK(e, id && out_index, CROWD_ERR_NULL, "%s: id or out_index is NULL", fn);
    CROWDI_CHECK(e, r->has[CROWDI_CTL_MOTION], CROWD_ERR_NO_CONTROLLER, "%s: rig \"%s\" has no motion controller", fn,
                 r->name ? r->name : "");
    const motion_part *part = MOTION(r);
    int k = find_str(part->pseudo_id, part->view.pseudo_count, id);
    CROWDI_CHECK(e, k >= 0, CROWD_ERR_UNKNOWN_ID, "%s: no curve of rig \"%s\" writes a pseudo-parameter \"%s\"", fn,
                 r->name ? r->name : "", id);
    *out_index = (uint32_t)k;
    return CROWD_OK;
}

uint32_t crowd_rig_motion_pseudo_count(const crowd_engine *e, crowd_rig rig) {
    const crowdi_rig *r = crowdi_rig_get(e, rig);
    return r && r->has[CROWDI_CTL_MOTION] ? MOTION(r)->view.pseudo_count : 0;
}

crowd_result crowd_motion_events(const crowd_engine *e, crowd_motion_event *buffer, uint32_t capacity, uint32_t *out_count,
                                 uint64_t *out_lost) {
    if (!e) return CROWD_ERR_NULL;
    const char *fn = "crowd_motion_events";
    CROWDI_CHECK(e, out_count && (buffer || capacity == 0), CROWD_ERR_NULL, "%s: out_count or buffer is NULL", fn);
    uint32_t n = 0;
    uint64_t lost = 0;
    for (uint32_t k = 0; k < e->rig_count; k++) {
        const crowdi_rig *r = e->rigs[k];
        if (!r->has[CROWDI_CTL_MOTION]) continue;
        const crowdi_motion_view *v = &MOTION(r)->view;
        float *const *c = v->col;
        for (uint32_t row = 0; row < r->running; row++) {
            uint32_t events = cvk_mu_get(c, CROWDI_MOTION_EVENT_COUNT, row);
            lost += cvk_mu_get(c, CROWDI_MOTION_EVENT_LOST, row);
            for (uint32_t q = 0; q < events; q++) {
                if (n == capacity) {
                    lost++;
                    continue;
                }
                buffer[n++] = (crowd_motion_event){r->handles[row], cvk_mu_get(c, CROWDI_MOTION_EVENT + 2 * q, row),
                                                   cvk_mu_get(c, CROWDI_MOTION_EVENT + 2 * q + 1, row),
                                                   cvk_md_get(c, CROWDI_MOTION_CLOCK, row)};
            }
        }
    }
    *out_count = n;
    if (out_lost) *out_lost = lost;
    return CROWD_OK;
}
