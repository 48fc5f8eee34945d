#include "cubism_files.h"

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"
#include "files.h"
#include "json_type.h"

/* ---- shared helpers: every message is "<file>: <JSON path>: <what>" ---- */

static int bad(const char *file, const char *fmt, ...) TOOL_PRINTF(2, 3);
static int bad(const char *file, const char *fmt, ...) {
    char line[1536];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    return tool_error(TOOL_BAD_INPUT, "%s: %s", file, line);
}

static json_t *load_root(const char *name, const char *text, size_t size, int *st) {
    json_error_t err;
    json_t *root = json_loadb(text, size, JSON_REJECT_DUPLICATES, &err);
    if (!root) {
        *st = err.line < 0 ? tool_error(TOOL_BAD_INPUT, "%s: %s", name, err.text)
                           : tool_error(TOOL_BAD_INPUT, "%s:%d:%d: %s", name, err.line, err.column, err.text);
        return NULL;
    }
    if (!json_is_object(root)) {
        *st = bad(name, "(root): is %s, want an object", tool_json_type_name(root));
        json_decref(root);
        return NULL;
    }
    *st = TOOL_OK;
    return root;
}

/* A finite number at `path` (absent: *out = dflt when optional). */
static int get_number(const char *file, const char *path, json_t *v, bool optional, double dflt, double *out) {
    if (!v) {
        if (optional) {
            *out = dflt;
            return TOOL_OK;
        }
        return bad(file, "%s: missing, want a number", path);
    }
    if (!json_is_number(v)) return bad(file, "%s: is %s, want a number", path, tool_json_type_name(v));
    double x = json_number_value(v);
    if (!isfinite(x)) return bad(file, "%s: %g is not finite", path, x);
    *out = x;
    return TOOL_OK;
}

static int get_bool(const char *file, const char *path, json_t *v, bool *out) {
    if (!v) return TOOL_OK; /* keeps the default */
    if (!json_is_boolean(v)) return bad(file, "%s: is %s, want true or false", path, tool_json_type_name(v));
    *out = json_is_true(v);
    return TOOL_OK;
}

/* A count field of Meta that must equal what the file holds (the framework's consistency check). */
static int check_count(const char *file, const char *path, json_t *v, bool optional, size_t actual) {
    if (!v && optional) return TOOL_OK;
    if (!v) return bad(file, "%s: missing, want the count (%zu)", path, actual);
    if (!json_is_integer(v)) return bad(file, "%s: is %s, want an integer", path, tool_json_type_name(v));
    json_int_t n = json_integer_value(v);
    if (n < 0 || (size_t)n != actual)
        return bad(file, "%s: %lld, but the file holds %zu", path, (long long)n, actual);
    return TOOL_OK;
}

/* A non-empty string of at most CUBISM_MAX_ID_BYTES, copied into *out. */
static int get_id(const char *file, const char *path, json_t *v, char **out) {
    if (!v) return bad(file, "%s: missing, want a non-empty string", path);
    if (!json_is_string(v)) return bad(file, "%s: is %s, want a string", path, tool_json_type_name(v));
    size_t n = json_string_length(v);
    if (n == 0) return bad(file, "%s: is empty, want an id", path);
    if (n > CUBISM_MAX_ID_BYTES) return bad(file, "%s: is %zu bytes long, at most %u", path, n, CUBISM_MAX_ID_BYTES);
    if (memchr(json_string_value(v), 0, n)) return bad(file, "%s: contains a NUL character", path);
    *out = tool_strdup(json_string_value(v));
    return *out ? TOOL_OK : TOOL_FAILED;
}

static int get_array(const char *file, const char *path, json_t *v, bool optional, size_t max, size_t *count) {
    *count = 0;
    if (!v && optional) return TOOL_OK;
    if (!v) return bad(file, "%s: missing, want an array", path);
    if (!json_is_array(v)) return bad(file, "%s: is %s, want an array", path, tool_json_type_name(v));
    *count = json_array_size(v);
    if (*count > max) return bad(file, "%s: %zu entries, at most %zu", path, *count, max);
    return TOOL_OK;
}

static int read_text(const char *path, const char *what, char **text, size_t *size) {
    return tool_read_file(path, what, text, size);
}

/* ---- motion3 ---- */

void cubism_motion_free(cubism_motion *m) {
    if (!m) return;
    for (uint32_t c = 0; m->curves && c < m->curve_count; c++) free(m->curves[c].id);
    for (uint32_t e = 0; m->events && e < m->event_count; e++) free(m->events[e].value);
    free(m->curves);
    free(m->segment_types);
    free(m->segment_points);
    free(m->points);
    free(m->events);
    memset(m, 0, sizeof *m);
}

/* Points and segments one Segments array holds, as the framework walks it; a bad array is an
 * error naming the index. */
static int count_segments(const char *file, size_t c, json_t *segs, size_t *n_segments, size_t *n_points) {
    size_t n = json_array_size(segs);
    char path[64];
    snprintf(path, sizeof path, "Curves[%zu].Segments", c);
    if (n < 2) return bad(file, "%s: %zu numbers, want a first point (time, value) and at least one segment", path, n);
    for (size_t i = 0; i < n; i++) {
        json_t *v = json_array_get(segs, i);
        if (!json_is_number(v)) return bad(file, "%s[%zu]: is %s, want a number", path, i, tool_json_type_name(v));
        if (!isfinite(json_number_value(v))) return bad(file, "%s[%zu]: not finite", path, i);
    }
    size_t pos = 2, segments = 0, points = 1;
    double last_time = json_number_value(json_array_get(segs, 0));
    if (n == 2) return bad(file, "%s: only a first point, want at least one segment", path);
    while (pos < n) {
        double type = json_number_value(json_array_get(segs, pos));
        size_t count = type == CUBISM_SEGMENT_BEZIER ? 3 : 1;
        if (type != CUBISM_SEGMENT_LINEAR && type != CUBISM_SEGMENT_BEZIER && type != CUBISM_SEGMENT_STEPPED &&
            type != CUBISM_SEGMENT_INVERSE_STEPPED)
            return bad(file, "%s[%zu]: segment type %g, want 0 (linear), 1 (bezier), 2 (stepped) or 3 (inverse stepped)",
                       path, pos, type);
        if (n - pos - 1 < 2 * count)
            return bad(file, "%s[%zu]: a segment of type %g needs %zu numbers after it, the array has %zu", path, pos,
                       type, 2 * count, n - pos - 1);
        double end_time = json_number_value(json_array_get(segs, pos + 2 * count - 1));
        if (end_time < last_time)
            return bad(file, "%s[%zu]: time %.17g comes before the previous point at %.17g", path,
                       pos + 2 * count - 1, end_time, last_time);
        last_time = end_time;
        pos += 1 + 2 * count;
        points += count;
        segments++;
    }
    *n_segments += segments;
    *n_points += points;
    return TOOL_OK;
}

static const char *const target_names[] = {"Model", "Parameter", "PartOpacity"};

int cubism_motion_parse(const char *file, const char *text, size_t size, cubism_motion *out) {
    int st;
    json_t *root = load_root(file, text, size, &st);
    if (!root) return st;
    cubism_motion m = {0};
    json_t *meta = json_object_get(root, "Meta");
    json_t *curves = json_object_get(root, "Curves");
    json_t *user = json_object_get(root, "UserData");
    size_t n_curves = 0, n_events = 0, n_segments = 0, n_points = 0;
    if (!meta) {
        st = bad(file, "Meta: missing, want an object");
    } else if (!json_is_object(meta)) {
        st = bad(file, "Meta: is %s, want an object", tool_json_type_name(meta));
    }
    if (st == TOOL_OK) st = get_number(file, "Meta.Duration", json_object_get(meta, "Duration"), false, 0, &m.duration);
    if (st == TOOL_OK && !(m.duration > 0)) st = bad(file, "Meta.Duration: %.17g, want > 0", m.duration);
    if (st == TOOL_OK) st = get_number(file, "Meta.Fps", json_object_get(meta, "Fps"), false, 0, &m.fps);
    if (st == TOOL_OK && !(m.fps > 0)) st = bad(file, "Meta.Fps: %.17g, want > 0", m.fps);
    if (st == TOOL_OK) st = get_bool(file, "Meta.Loop", json_object_get(meta, "Loop"), &m.loop);
    if (st == TOOL_OK)
        st = get_bool(file, "Meta.AreBeziersRestricted", json_object_get(meta, "AreBeziersRestricted"),
                      &m.beziers_restricted);
    /* The framework's rule: a fade absent or < 0 is 1 s. */
    if (st == TOOL_OK) st = get_number(file, "Meta.FadeInTime", json_object_get(meta, "FadeInTime"), true, 1.0, &m.fade_in);
    if (st == TOOL_OK) st = get_number(file, "Meta.FadeOutTime", json_object_get(meta, "FadeOutTime"), true, 1.0, &m.fade_out);
    if (m.fade_in < 0) m.fade_in = 1.0;
    if (m.fade_out < 0) m.fade_out = 1.0;
    if (st == TOOL_OK) st = get_array(file, "Curves", curves, false, CUBISM_MAX_CURVES, &n_curves);
    if (st == TOOL_OK) st = get_array(file, "UserData", user, true, CUBISM_MAX_EVENTS, &n_events);
    /* Pass 1: shapes and counts, before anything is allocated. */
    int last_target = 0;
    for (size_t c = 0; st == TOOL_OK && c < n_curves; c++) {
        json_t *curve = json_array_get(curves, c);
        char path[64];
        if (!json_is_object(curve)) {
            st = bad(file, "Curves[%zu]: is %s, want an object", c, tool_json_type_name(curve));
            break;
        }
        json_t *target = json_object_get(curve, "Target");
        int t = -1;
        for (int k = 0; k < 3; k++)
            if (json_is_string(target) && strcmp(json_string_value(target), target_names[k]) == 0) t = k;
        if (t < 0) {
            st = json_is_string(target)
                     ? bad(file, "Curves[%zu].Target: \"%s\", want \"Model\", \"Parameter\" or \"PartOpacity\"", c,
                           json_string_value(target))
                     : bad(file, "Curves[%zu].Target: %s, want a string", c,
                           target ? tool_json_type_name(target) : "missing");
            break;
        }
        /* The framework plays Model curves, then Parameter, then PartOpacity, each loop stopping
         * at the first curve of another target: a curve out of that order would never play. */
        if (t < last_target) {
            st = bad(file, "Curves[%zu].Target: \"%s\" after a \"%s\" curve; curves must come Model, Parameter, PartOpacity",
                     c, target_names[t], target_names[last_target]);
            break;
        }
        last_target = t;
        json_t *id = json_object_get(curve, "Id");
        snprintf(path, sizeof path, "Curves[%zu].Id", c);
        char *tmp = NULL;
        st = get_id(file, path, id, &tmp);
        free(tmp);
        if (st != TOOL_OK) break;
        double fade;
        snprintf(path, sizeof path, "Curves[%zu].FadeInTime", c);
        if ((st = get_number(file, path, json_object_get(curve, "FadeInTime"), true, -1, &fade)) != TOOL_OK) break;
        snprintf(path, sizeof path, "Curves[%zu].FadeOutTime", c);
        if ((st = get_number(file, path, json_object_get(curve, "FadeOutTime"), true, -1, &fade)) != TOOL_OK) break;
        json_t *segs = json_object_get(curve, "Segments");
        snprintf(path, sizeof path, "Curves[%zu].Segments", c);
        size_t ignored;
        if ((st = get_array(file, path, segs, false, (size_t)CUBISM_MAX_POINTS * 7, &ignored)) != TOOL_OK) break;
        if ((st = count_segments(file, c, segs, &n_segments, &n_points)) != TOOL_OK) break;
        if (n_segments > CUBISM_MAX_SEGMENTS || n_points > CUBISM_MAX_POINTS) {
            st = bad(file, "%s: the motion holds more than %u segments or %u points", path, CUBISM_MAX_SEGMENTS,
                     CUBISM_MAX_POINTS);
            break;
        }
    }
    for (size_t e = 0; st == TOOL_OK && e < n_events; e++) {
        json_t *ev = json_array_get(user, e);
        char path[64];
        double time;
        if (!json_is_object(ev)) {
            st = bad(file, "UserData[%zu]: is %s, want an object", e, tool_json_type_name(ev));
            break;
        }
        snprintf(path, sizeof path, "UserData[%zu].Time", e);
        if ((st = get_number(file, path, json_object_get(ev, "Time"), false, 0, &time)) != TOOL_OK) break;
        json_t *value = json_object_get(ev, "Value");
        if (!json_is_string(value)) {
            st = bad(file, "UserData[%zu].Value: %s, want a string", e, value ? tool_json_type_name(value) : "missing");
            break;
        }
    }
    if (st == TOOL_OK) st = check_count(file, "Meta.CurveCount", json_object_get(meta, "CurveCount"), false, n_curves);
    if (st == TOOL_OK)
        st = check_count(file, "Meta.TotalSegmentCount", json_object_get(meta, "TotalSegmentCount"), false, n_segments);
    if (st == TOOL_OK)
        st = check_count(file, "Meta.TotalPointCount", json_object_get(meta, "TotalPointCount"), false, n_points);
    if (st == TOOL_OK)
        st = check_count(file, "Meta.UserDataCount", json_object_get(meta, "UserDataCount"), true, n_events);
    /* Pass 2: everything checked; copy. */
    if (st == TOOL_OK) {
        m.curve_count = (uint32_t)n_curves;
        m.segment_count = (uint32_t)n_segments;
        m.point_count = (uint32_t)n_points;
        m.event_count = (uint32_t)n_events;
        m.curves = tool_calloc(n_curves, sizeof *m.curves);
        m.segment_types = tool_calloc(n_segments, sizeof *m.segment_types);
        m.segment_points = tool_calloc(n_segments, sizeof *m.segment_points);
        m.points = tool_calloc(n_points, sizeof *m.points);
        m.events = tool_calloc(n_events, sizeof *m.events);
        if (!m.curves || !m.segment_types || !m.segment_points || !m.points || !m.events) st = TOOL_FAILED;
    }
    uint32_t seg = 0, pt = 0;
    for (size_t c = 0; st == TOOL_OK && c < n_curves; c++) {
        json_t *curve = json_array_get(curves, c), *segs = json_object_get(curve, "Segments");
        cubism_curve *cv = &m.curves[c];
        const char *target = json_string_value(json_object_get(curve, "Target"));
        for (uint8_t k = 0; k < 3; k++)
            if (strcmp(target, target_names[k]) == 0) cv->target = k;
        if (!(cv->id = tool_strdup(json_string_value(json_object_get(curve, "Id"))))) {
            st = TOOL_FAILED;
            break;
        }
        json_t *fin = json_object_get(curve, "FadeInTime"), *fout = json_object_get(curve, "FadeOutTime");
        cv->fade_in = fin ? json_number_value(fin) : -1.0;
        cv->fade_out = fout ? json_number_value(fout) : -1.0;
        cv->first_segment = seg;
        size_t n = json_array_size(segs), pos = 2;
        m.points[pt].time = json_number_value(json_array_get(segs, 0));
        m.points[pt].value = json_number_value(json_array_get(segs, 1));
        pt++;
        while (pos < n) {
            uint8_t type = (uint8_t)json_number_value(json_array_get(segs, pos));
            uint32_t count = type == CUBISM_SEGMENT_BEZIER ? 3 : 1;
            m.segment_types[seg] = type;
            m.segment_points[seg] = pt - 1; /* shares the previous segment's last point */
            for (uint32_t k = 0; k < count; k++) {
                m.points[pt].time = json_number_value(json_array_get(segs, pos + 1 + 2 * k));
                m.points[pt].value = json_number_value(json_array_get(segs, pos + 2 + 2 * k));
                pt++;
            }
            pos += 1 + 2 * count;
            seg++;
        }
        cv->segment_count = seg - cv->first_segment;
    }
    for (size_t e = 0; st == TOOL_OK && e < n_events; e++) {
        json_t *ev = json_array_get(user, e);
        m.events[e].time = json_number_value(json_object_get(ev, "Time"));
        if (!(m.events[e].value = tool_strdup(json_string_value(json_object_get(ev, "Value"))))) st = TOOL_FAILED;
    }
    json_decref(root);
    if (st != TOOL_OK) {
        cubism_motion_free(&m);
        return st;
    }
    *out = m;
    return TOOL_OK;
}

int cubism_motion_read(const char *path, cubism_motion *out) {
    char *text;
    size_t size;
    int st = read_text(path, ".motion3.json", &text, &size);
    if (st != TOOL_OK) return st;
    st = cubism_motion_parse(path, text, size, out);
    free(text);
    return st;
}

/* ---- exp3 ---- */

void cubism_expression_free(cubism_expression *e) {
    if (!e) return;
    for (uint32_t i = 0; e->parameters && i < e->parameter_count; i++) free(e->parameters[i].id);
    free(e->parameters);
    memset(e, 0, sizeof *e);
}

static const char *const blend_names[] = {"Add", "Multiply", "Overwrite"};

int cubism_expression_parse(const char *file, const char *text, size_t size, cubism_expression *out) {
    int st;
    json_t *root = load_root(file, text, size, &st);
    if (!root) return st;
    cubism_expression e = {0};
    json_t *params = json_object_get(root, "Parameters");
    size_t n = 0;
    st = get_number(file, "FadeInTime", json_object_get(root, "FadeInTime"), true, 1.0, &e.fade_in);
    if (st == TOOL_OK && e.fade_in < 0) st = bad(file, "FadeInTime: %.17g, want >= 0", e.fade_in);
    if (st == TOOL_OK) st = get_number(file, "FadeOutTime", json_object_get(root, "FadeOutTime"), true, 1.0, &e.fade_out);
    if (st == TOOL_OK && e.fade_out < 0) st = bad(file, "FadeOutTime: %.17g, want >= 0", e.fade_out);
    if (st == TOOL_OK) st = get_array(file, "Parameters", params, false, CUBISM_MAX_EXPRESSION_PARAMETERS, &n);
    if (st == TOOL_OK) {
        e.parameters = tool_calloc(n, sizeof *e.parameters);
        if (!e.parameters) st = TOOL_FAILED;
    }
    for (size_t i = 0; st == TOOL_OK && i < n; i++) {
        json_t *p = json_array_get(params, i);
        char path[64];
        if (!json_is_object(p)) {
            st = bad(file, "Parameters[%zu]: is %s, want an object", i, tool_json_type_name(p));
            break;
        }
        cubism_expression_parameter *ep = &e.parameters[i];
        snprintf(path, sizeof path, "Parameters[%zu].Id", i);
        if ((st = get_id(file, path, json_object_get(p, "Id"), &ep->id)) != TOOL_OK) break;
        e.parameter_count = (uint32_t)(i + 1); /* so that a later error frees this id */
        snprintf(path, sizeof path, "Parameters[%zu].Value", i);
        if ((st = get_number(file, path, json_object_get(p, "Value"), false, 0, &ep->value)) != TOOL_OK) break;
        json_t *blend = json_object_get(p, "Blend");
        int b = blend ? -1 : CUBISM_BLEND_ADD;
        for (int k = 0; k < 3 && blend; k++)
            if (json_is_string(blend) && strcmp(json_string_value(blend), blend_names[k]) == 0) b = k;
        if (b < 0) {
            st = json_is_string(blend)
                     ? bad(file, "Parameters[%zu].Blend: \"%s\", want \"Add\", \"Multiply\" or \"Overwrite\"", i,
                           json_string_value(blend))
                     : bad(file, "Parameters[%zu].Blend: is %s, want a string", i, tool_json_type_name(blend));
            break;
        }
        ep->blend = (uint8_t)b;
    }
    json_decref(root);
    if (st != TOOL_OK) {
        cubism_expression_free(&e);
        return st;
    }
    e.parameter_count = (uint32_t)n;
    *out = e;
    return TOOL_OK;
}

int cubism_expression_read(const char *path, cubism_expression *out) {
    char *text;
    size_t size;
    int st = read_text(path, ".exp3.json", &text, &size);
    if (st != TOOL_OK) return st;
    st = cubism_expression_parse(path, text, size, out);
    free(text);
    return st;
}

/* ---- pose3 ---- */

void cubism_pose_free(cubism_pose *p) {
    if (!p) return;
    for (uint32_t i = 0; p->part_ids && i < p->part_count; i++) free(p->part_ids[i]);
    for (uint32_t i = 0; p->link_ids && i < p->link_count; i++) free(p->link_ids[i]);
    free(p->part_ids);
    free(p->link_ids);
    free(p->group_first);
    free(p->link_first);
    memset(p, 0, sizeof *p);
}

int cubism_pose_parse(const char *file, const char *text, size_t size, cubism_pose *out) {
    int st;
    json_t *root = load_root(file, text, size, &st);
    if (!root) return st;
    cubism_pose p = {0};
    json_t *groups = json_object_get(root, "Groups");
    size_t n_groups = 0, n_parts = 0, n_links = 0;
    st = get_number(file, "FadeInTime", json_object_get(root, "FadeInTime"), true, 0.5, &p.fade_in);
    if (p.fade_in <= 0) p.fade_in = 0.5; /* the framework's rule */
    if (st == TOOL_OK) st = get_array(file, "Groups", groups, false, CUBISM_MAX_POSE_PARTS, &n_groups);
    for (size_t g = 0; st == TOOL_OK && g < n_groups; g++) {
        json_t *group = json_array_get(groups, g);
        char path[96];
        size_t n;
        snprintf(path, sizeof path, "Groups[%zu]", g);
        if ((st = get_array(file, path, group, false, CUBISM_MAX_POSE_PARTS, &n)) != TOOL_OK) break;
        if (n == 0) {
            st = bad(file, "%s: empty, want at least one part", path);
            break;
        }
        for (size_t k = 0; st == TOOL_OK && k < n; k++) {
            json_t *part = json_array_get(group, k);
            if (!json_is_object(part)) {
                st = bad(file, "Groups[%zu][%zu]: is %s, want an object", g, k, tool_json_type_name(part));
                break;
            }
            char *tmp = NULL;
            snprintf(path, sizeof path, "Groups[%zu][%zu].Id", g, k);
            st = get_id(file, path, json_object_get(part, "Id"), &tmp);
            free(tmp);
            tmp = NULL;
            if (st != TOOL_OK) break;
            json_t *link = json_object_get(part, "Link");
            size_t nl;
            snprintf(path, sizeof path, "Groups[%zu][%zu].Link", g, k);
            if ((st = get_array(file, path, link, true, CUBISM_MAX_POSE_PARTS, &nl)) != TOOL_OK) break;
            for (size_t l = 0; l < nl && st == TOOL_OK; l++) {
                snprintf(path, sizeof path, "Groups[%zu][%zu].Link[%zu]", g, k, l);
                st = get_id(file, path, json_array_get(link, l), &tmp);
                free(tmp);
                tmp = NULL;
            }
            n_parts++;
            n_links += nl;
        }
        if (st == TOOL_OK && (n_parts > CUBISM_MAX_POSE_PARTS || n_links > CUBISM_MAX_POSE_PARTS))
            st = bad(file, "Groups: more than %u parts or links", CUBISM_MAX_POSE_PARTS);
    }
    if (st == TOOL_OK) {
        p.group_first = tool_calloc(n_groups + 1, sizeof *p.group_first);
        p.part_ids = tool_calloc(n_parts, sizeof *p.part_ids);
        p.link_first = tool_calloc(n_parts + 1, sizeof *p.link_first);
        p.link_ids = tool_calloc(n_links, sizeof *p.link_ids);
        if (!p.group_first || !p.part_ids || !p.link_first || !p.link_ids) st = TOOL_FAILED;
        p.group_count = (uint32_t)n_groups;
    }
    for (size_t g = 0; st == TOOL_OK && g < n_groups; g++) {
        json_t *group = json_array_get(groups, g);
        p.group_first[g] = p.part_count;
        for (size_t k = 0; st == TOOL_OK && k < json_array_size(group); k++) {
            json_t *part = json_array_get(group, k), *link = json_object_get(part, "Link");
            p.link_first[p.part_count] = p.link_count;
            if (!(p.part_ids[p.part_count] = tool_strdup(json_string_value(json_object_get(part, "Id"))))) st = TOOL_FAILED;
            p.part_count++;
            for (size_t l = 0; st == TOOL_OK && l < json_array_size(link); l++)
                if (!(p.link_ids[p.link_count++] = tool_strdup(json_string_value(json_array_get(link, l)))))
                    st = TOOL_FAILED;
        }
    }
    if (st == TOOL_OK) {
        p.group_first[n_groups] = p.part_count;
        p.link_first[p.part_count] = p.link_count;
    }
    json_decref(root);
    if (st != TOOL_OK) {
        cubism_pose_free(&p);
        return st;
    }
    *out = p;
    return TOOL_OK;
}

int cubism_pose_read(const char *path, cubism_pose *out) {
    char *text;
    size_t size;
    int st = read_text(path, ".pose3.json", &text, &size);
    if (st != TOOL_OK) return st;
    st = cubism_pose_parse(path, text, size, out);
    free(text);
    return st;
}

/* ---- model3 ---- */

void cubism_model3_free(cubism_model3 *m) {
    if (!m) return;
    for (uint32_t g = 0; m->motion_groups && g < m->motion_group_count; g++) {
        cubism_model3_motion_group *mg = &m->motion_groups[g];
        for (uint32_t k = 0; mg->motions && k < mg->motion_count; k++) {
            free(mg->motions[k].file);
            free(mg->motions[k].sound);
        }
        free(mg->motions);
        free(mg->name);
    }
    free(m->motion_groups);
    for (uint32_t i = 0; m->expressions && i < m->expression_count; i++) {
        free(m->expressions[i].name);
        free(m->expressions[i].file);
    }
    free(m->expressions);
    free(m->pose);
    for (uint32_t i = 0; m->eye_blink_ids && i < m->eye_blink_count; i++) free(m->eye_blink_ids[i]);
    for (uint32_t i = 0; m->lip_sync_ids && i < m->lip_sync_count; i++) free(m->lip_sync_ids[i]);
    free(m->eye_blink_ids);
    free(m->lip_sync_ids);
    memset(m, 0, sizeof *m);
}

/* Groups[g] named `name` with Target "Parameter" (the first such), into ids/count. */
static int model3_ids(const char *file, json_t *groups, const char *name, char ***ids, uint32_t *count) {
    size_t g;
    json_t *group;
    json_array_foreach(groups, g, group) {
        json_t *gname = json_object_get(group, "Name"), *target = json_object_get(group, "Target");
        if (strcmp(json_string_value(gname), name) != 0) continue;
        if (strcmp(json_string_value(target), "Parameter") != 0) continue;
        json_t *list = json_object_get(group, "Ids");
        size_t n = json_array_size(list);
        *ids = tool_calloc(n, sizeof **ids);
        if (!*ids) return TOOL_FAILED;
        for (size_t k = 0; k < n; k++) {
            char path[64];
            snprintf(path, sizeof path, "Groups[%zu].Ids[%zu]", g, k);
            int st = get_id(file, path, json_array_get(list, k), &(*ids)[k]);
            if (st != TOOL_OK) return st;
            *count = (uint32_t)(k + 1);
        }
        return TOOL_OK;
    }
    return TOOL_OK;
}

int cubism_model3_parse(const char *file, const char *text, size_t size, cubism_model3 *out) {
    int st;
    json_t *root = load_root(file, text, size, &st);
    if (!root) return st;
    cubism_model3 m = {0};
    json_t *refs = json_object_get(root, "FileReferences"), *groups = json_object_get(root, "Groups");
    json_t *motions = NULL, *expressions = NULL, *pose = NULL;
    if (refs && !json_is_object(refs)) st = bad(file, "FileReferences: is %s, want an object", tool_json_type_name(refs));
    if (refs && st == TOOL_OK) {
        motions = json_object_get(refs, "Motions");
        expressions = json_object_get(refs, "Expressions");
        pose = json_object_get(refs, "Pose");
    }
    if (st == TOOL_OK && motions && !json_is_object(motions))
        st = bad(file, "FileReferences.Motions: is %s, want an object of groups", tool_json_type_name(motions));
    if (st == TOOL_OK && pose && !json_is_string(pose))
        st = bad(file, "FileReferences.Pose: is %s, want a file name", tool_json_type_name(pose));
    size_t n_groups = motions ? json_object_size(motions) : 0, n_expr = 0, n_g = 0;
    if (st == TOOL_OK && n_groups > CUBISM_MAX_MODEL3_ENTRIES)
        st = bad(file, "FileReferences.Motions: %zu groups, at most %u", n_groups, CUBISM_MAX_MODEL3_ENTRIES);
    if (st == TOOL_OK)
        st = get_array(file, "FileReferences.Expressions", expressions, true, CUBISM_MAX_MODEL3_ENTRIES, &n_expr);
    if (st == TOOL_OK) st = get_array(file, "Groups", groups, true, CUBISM_MAX_MODEL3_ENTRIES, &n_g);
    /* Groups: shapes first (model3_ids then only reads). */
    for (size_t g = 0; st == TOOL_OK && g < n_g; g++) {
        json_t *group = json_array_get(groups, g);
        if (!json_is_object(group)) {
            st = bad(file, "Groups[%zu]: is %s, want an object", g, tool_json_type_name(group));
            break;
        }
        json_t *gname = json_object_get(group, "Name"), *target = json_object_get(group, "Target");
        if (!json_is_string(gname)) {
            st = bad(file, "Groups[%zu].Name: %s, want a string", g, gname ? tool_json_type_name(gname) : "missing");
            break;
        }
        if (!json_is_string(target)) {
            st = bad(file, "Groups[%zu].Target: %s, want a string", g, target ? tool_json_type_name(target) : "missing");
            break;
        }
        char path[64];
        size_t n;
        json_t *list = json_object_get(group, "Ids");
        snprintf(path, sizeof path, "Groups[%zu].Ids", g);
        st = get_array(file, path, list, false, CUBISM_MAX_MODEL3_ENTRIES, &n);
        for (size_t k = 0; k < n && st == TOOL_OK; k++) { /* every group's ids, not only the two read */
            char *tmp = NULL;
            snprintf(path, sizeof path, "Groups[%zu].Ids[%zu]", g, k);
            st = get_id(file, path, json_array_get(list, k), &tmp);
            free(tmp);
        }
    }
    if (st == TOOL_OK) {
        m.motion_groups = tool_calloc(n_groups, sizeof *m.motion_groups);
        m.expressions = tool_calloc(n_expr, sizeof *m.expressions);
        if (!m.motion_groups || !m.expressions) st = TOOL_FAILED;
    }
    const char *gname;
    json_t *list;
    if (st == TOOL_OK) json_object_foreach(motions, gname, list) {
        char path[CUBISM_MAX_ID_BYTES + 96];
        cubism_model3_motion_group *mg = &m.motion_groups[m.motion_group_count];
        size_t n;
        snprintf(path, sizeof path, "FileReferences.Motions.%s", gname);
        if ((st = get_array(file, path, list, false, CUBISM_MAX_MODEL3_ENTRIES, &n)) != TOOL_OK) break;
        if (!(mg->name = tool_strdup(gname)) || !(mg->motions = tool_calloc(n, sizeof *mg->motions))) {
            free(mg->name);
            mg->name = NULL;
            st = TOOL_FAILED;
            break;
        }
        m.motion_group_count++;
        for (size_t k = 0; k < n && st == TOOL_OK; k++) {
            json_t *e = json_array_get(list, k);
            cubism_model3_motion *mm = &mg->motions[k];
            if (!json_is_object(e)) {
                st = bad(file, "FileReferences.Motions.%s[%zu]: is %s, want an object", gname, k, tool_json_type_name(e));
                break;
            }
            mg->motion_count = (uint32_t)(k + 1);
            snprintf(path, sizeof path, "FileReferences.Motions.%s[%zu].File", gname, k);
            if ((st = get_id(file, path, json_object_get(e, "File"), &mm->file)) != TOOL_OK) break;
            snprintf(path, sizeof path, "FileReferences.Motions.%s[%zu].FadeInTime", gname, k);
            if ((st = get_number(file, path, json_object_get(e, "FadeInTime"), true, -1, &mm->fade_in)) != TOOL_OK) break;
            snprintf(path, sizeof path, "FileReferences.Motions.%s[%zu].FadeOutTime", gname, k);
            if ((st = get_number(file, path, json_object_get(e, "FadeOutTime"), true, -1, &mm->fade_out)) != TOOL_OK) break;
            json_t *sound = json_object_get(e, "Sound");
            snprintf(path, sizeof path, "FileReferences.Motions.%s[%zu].Sound", gname, k);
            if (sound && (st = get_id(file, path, sound, &mm->sound)) != TOOL_OK) break;
        }
        if (st != TOOL_OK) break;
    }
    for (size_t i = 0; st == TOOL_OK && i < n_expr; i++) {
        json_t *e = json_array_get(expressions, i);
        char path[64];
        if (!json_is_object(e)) {
            st = bad(file, "FileReferences.Expressions[%zu]: is %s, want an object", i, tool_json_type_name(e));
            break;
        }
        m.expression_count = (uint32_t)(i + 1);
        snprintf(path, sizeof path, "FileReferences.Expressions[%zu].Name", i);
        if ((st = get_id(file, path, json_object_get(e, "Name"), &m.expressions[i].name)) != TOOL_OK) break;
        snprintf(path, sizeof path, "FileReferences.Expressions[%zu].File", i);
        st = get_id(file, path, json_object_get(e, "File"), &m.expressions[i].file);
    }
    if (st == TOOL_OK && pose) st = get_id(file, "FileReferences.Pose", pose, &m.pose);
    if (st == TOOL_OK && groups) st = model3_ids(file, groups, "EyeBlink", &m.eye_blink_ids, &m.eye_blink_count);
    if (st == TOOL_OK && groups) st = model3_ids(file, groups, "LipSync", &m.lip_sync_ids, &m.lip_sync_count);
    json_decref(root);
    if (st != TOOL_OK) {
        cubism_model3_free(&m);
        return st;
    }
    *out = m;
    return TOOL_OK;
}

int cubism_model3_read(const char *path, cubism_model3 *out) {
    char *text;
    size_t size;
    int st = read_text(path, ".model3.json", &text, &size);
    if (st != TOOL_OK) return st;
    st = cubism_model3_parse(path, text, size, out);
    free(text);
    return st;
}
