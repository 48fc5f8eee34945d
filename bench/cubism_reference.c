#include "cubism_reference.h"

#include <float.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- the model ---- */

struct cubism_ref_model {
    uint32_t parameter_count, part_count;
    const char *const *ids;
    const char *const *part_ids;
    float *minimum, *maximum, *values, *saved, *part_opacities;
    /* not-exist slots: ids (borrowed from whoever asked first) and double values */
    uint32_t pseudo_count, pseudo_capacity;
    const char **pseudo_ids;
    double *pseudo_values;
    uint32_t pseudo_part_count, pseudo_part_capacity;
    const char **pseudo_part_ids;
    double *pseudo_part_opacities;
    double model_opacity;
};

cubism_ref_model *cubism_ref_model_create(uint32_t parameter_count, const char *const *ids, const float *minimum,
                                          const float *maximum, const float *defaults, uint32_t part_count,
                                          const char *const *part_ids) {
    cubism_ref_model *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    size_t n = parameter_count ? parameter_count : 1;
    m->parameter_count = parameter_count;
    m->part_count = part_count;
    m->ids = ids;
    m->part_ids = part_ids;
    m->minimum = malloc(n * sizeof(float));
    m->maximum = malloc(n * sizeof(float));
    m->values = malloc(n * sizeof(float));
    m->saved = malloc(n * sizeof(float));
    m->part_opacities = malloc((part_count ? part_count : 1) * sizeof(float));
    m->model_opacity = 1.0;
    if (!m->minimum || !m->maximum || !m->values || !m->saved || !m->part_opacities) {
        cubism_ref_model_destroy(m);
        return NULL;
    }
    for (uint32_t i = 0; i < parameter_count; i++) {
        m->minimum[i] = minimum[i];
        m->maximum[i] = maximum[i];
        m->values[i] = m->saved[i] = defaults[i];
    }
    for (uint32_t i = 0; i < part_count; i++) m->part_opacities[i] = 1.0f;
    return m;
}

void cubism_ref_model_destroy(cubism_ref_model *m) {
    if (!m) return;
    free(m->minimum);
    free(m->maximum);
    free(m->values);
    free(m->saved);
    free(m->part_opacities);
    for (uint32_t i = 0; i < m->pseudo_count; i++) free((void *)(uintptr_t)m->pseudo_ids[i]);
    free(m->pseudo_ids);
    free(m->pseudo_values);
    for (uint32_t i = 0; i < m->pseudo_part_count; i++) free((void *)(uintptr_t)m->pseudo_part_ids[i]);
    free(m->pseudo_part_ids);
    free(m->pseudo_part_opacities);
    free(m);
}

/* A not-exist id outlives the motion or pose file that named it first: the model keeps a copy. */
static const char *copy_id(const char *id) {
    size_t n = strlen(id) + 1;
    char *c = malloc(n);
    if (c) memcpy(c, id, n);
    return c;
}

static bool grow(const char ***ids, double **values, uint32_t *capacity) {
    uint32_t cap = *capacity ? 2 * *capacity : 16;
    const char **i = realloc((void *)*ids, cap * sizeof *i);
    if (!i) return false;
    *ids = i;
    double *v = realloc(*values, cap * sizeof *v);
    if (!v) return false;
    *values = v;
    *capacity = cap;
    return true;
}

int32_t cubism_ref_find_parameter(const cubism_ref_model *m, const char *id) {
    for (uint32_t i = 0; i < m->parameter_count; i++)
        if (strcmp(m->ids[i], id) == 0) return (int32_t)i;
    for (uint32_t i = 0; i < m->pseudo_count; i++)
        if (strcmp(m->pseudo_ids[i], id) == 0) return (int32_t)(m->parameter_count + i);
    return -1;
}

int32_t cubism_ref_parameter_index(cubism_ref_model *m, const char *id) {
    int32_t found = cubism_ref_find_parameter(m, id);
    if (found >= 0) return found;
    if (m->pseudo_count == m->pseudo_capacity && !grow(&m->pseudo_ids, &m->pseudo_values, &m->pseudo_capacity))
        return -1;
    if (!(m->pseudo_ids[m->pseudo_count] = copy_id(id))) return -1;
    m->pseudo_values[m->pseudo_count] = 0.0;
    return (int32_t)(m->parameter_count + m->pseudo_count++);
}

bool cubism_ref_parameter_is_pseudo(const cubism_ref_model *m, int32_t index) {
    return (uint32_t)index >= m->parameter_count;
}

double cubism_ref_get(const cubism_ref_model *m, int32_t index) {
    if ((uint32_t)index >= m->parameter_count) return m->pseudo_values[(uint32_t)index - m->parameter_count];
    return m->values[index];
}

void cubism_ref_set(cubism_ref_model *m, int32_t index, double value, double weight) {
    if ((uint32_t)index >= m->parameter_count) {
        double *slot = &m->pseudo_values[(uint32_t)index - m->parameter_count];
        *slot = weight == 1 ? value : *slot * (1 - weight) + value * weight;
        return;
    }
    /* Clamped before the blend, as the framework does (repeat off). */
    if (value < m->minimum[index]) value = m->minimum[index];
    else if (value > m->maximum[index]) value = m->maximum[index];
    m->values[index] = (float)(weight == 1 ? value : m->values[index] * (1 - weight) + value * weight);
}

void cubism_ref_add(cubism_ref_model *m, int32_t index, double value, double weight) {
    cubism_ref_set(m, index, cubism_ref_get(m, index) + value * weight, 1.0);
}

void cubism_ref_multiply(cubism_ref_model *m, int32_t index, double value, double weight) {
    cubism_ref_set(m, index, cubism_ref_get(m, index) * (1.0 + (value - 1.0) * weight), 1.0);
}

void cubism_ref_load_parameters(cubism_ref_model *m) {
    memcpy(m->values, m->saved, m->parameter_count * sizeof(float));
}

void cubism_ref_save_parameters(cubism_ref_model *m) {
    memcpy(m->saved, m->values, m->parameter_count * sizeof(float));
}

int32_t cubism_ref_part_index(cubism_ref_model *m, const char *id) {
    for (uint32_t i = 0; i < m->part_count; i++)
        if (strcmp(m->part_ids[i], id) == 0) return (int32_t)i;
    for (uint32_t i = 0; i < m->pseudo_part_count; i++)
        if (strcmp(m->pseudo_part_ids[i], id) == 0) return (int32_t)(m->part_count + i);
    if (m->pseudo_part_count == m->pseudo_part_capacity &&
        !grow(&m->pseudo_part_ids, &m->pseudo_part_opacities, &m->pseudo_part_capacity))
        return -1;
    if (!(m->pseudo_part_ids[m->pseudo_part_count] = copy_id(id))) return -1;
    m->pseudo_part_opacities[m->pseudo_part_count] = 0.0;
    return (int32_t)(m->part_count + m->pseudo_part_count++);
}

double cubism_ref_part_opacity(const cubism_ref_model *m, int32_t index) {
    if ((uint32_t)index >= m->part_count) return m->pseudo_part_opacities[(uint32_t)index - m->part_count];
    return m->part_opacities[index];
}

void cubism_ref_set_part_opacity(cubism_ref_model *m, int32_t index, double opacity) {
    if ((uint32_t)index >= m->part_count) m->pseudo_part_opacities[(uint32_t)index - m->part_count] = opacity;
    else m->part_opacities[index] = (float)opacity;
}

double cubism_ref_model_opacity(const cubism_ref_model *m) {
    return m->model_opacity;
}

size_t cubism_ref_model_bytes(const cubism_ref_model *m) {
    return sizeof *m + (size_t)m->parameter_count * 4 * sizeof(float) + (size_t)m->part_count * sizeof(float) +
           (size_t)m->pseudo_capacity * (sizeof(char *) + sizeof(double)) +
           (size_t)m->pseudo_part_capacity * (sizeof(char *) + sizeof(double));
}

/* ---- CubismMath ---- */

#define CUBISM_PI 3.14159265358979323846 /* Math.PI */

static double ease_sine(double x) {
    if (x < 0.0) return 0.0;
    if (x > 1.0) return 1.0;
    return 0.5 - 0.5 * cos(x * CUBISM_PI);
}

static double range(double v, double lo, double hi) {
    return v < lo ? lo : v > hi ? hi : v;
}

/* CubismMath.cbrt: exp(log(x)/3) and one Newton step, sign kept. */
static double cubism_cbrt(double x) {
    if (x == 0) return x;
    double cx = x < 0 ? -x : x, r;
    if (isinf(cx)) {
        r = INFINITY;
    } else {
        r = exp(log(cx) / 3);
        r = (cx / (r * r) + 2 * r) / 3;
    }
    return x < 0 ? -r : r;
}

static double quadratic(double a, double b, double c) {
    const double eps = 0.00001;
    if (fabs(a) < eps) {
        if (fabs(b) < eps) return -c;
        return -c / b;
    }
    return -(b + sqrt(b * b - 4.0 * a * c)) / (2.0 * a);
}

/* CubismMath.cardanoAlgorithmForBezier, step for step (sqrt(a) of a negative a is NaN, which
 * fails the first test: negative a takes the cubic path, as in the framework). */
static double cardano(double a, double b, double c, double d) {
    if (sqrt(a) < 0.00001) return range(quadratic(b, c, d), 0.0, 1.0);
    double ba = b / a, ca = c / a, da = d / a;
    double p = (3.0 * ca - ba * ba) / 3.0, p3 = p / 3.0;
    double q = (2.0 * ba * ba * ba - 9.0 * ba * ca + 27.0 * da) / 27.0, q2 = q / 2.0;
    double discriminant = q2 * q2 + p3 * p3 * p3;
    const double center = 0.5, threshold = center + 0.01;
    if (discriminant < 0.0) {
        double mp3 = -p / 3.0, mp33 = mp3 * mp3 * mp3, r = sqrt(mp33);
        double phi = acos(range(-q / (2.0 * r), -1.0, 1.0));
        double t1 = 2.0 * cubism_cbrt(r);
        double root1 = t1 * cos(phi / 3.0) - ba / 3.0;
        if (fabs(root1 - center) < threshold) return range(root1, 0.0, 1.0);
        double root2 = t1 * cos((phi + 2.0 * CUBISM_PI) / 3.0) - ba / 3.0;
        if (fabs(root2 - center) < threshold) return range(root2, 0.0, 1.0);
        return range(t1 * cos((phi + 4.0 * CUBISM_PI) / 3.0) - ba / 3.0, 0.0, 1.0);
    }
    if (discriminant == 0.0) {
        double u1 = q2 < 0.0 ? cubism_cbrt(-q2) : -cubism_cbrt(q2);
        double root1 = 2.0 * u1 - ba / 3.0;
        if (fabs(root1 - center) < threshold) return range(root1, 0.0, 1.0);
        return range(-u1 - ba / 3.0, 0.0, 1.0);
    }
    double sd = sqrt(discriminant);
    return range(cubism_cbrt(sd - q2) - cubism_cbrt(sd + q2) - ba / 3.0, 0.0, 1.0);
}

/* ---- CubismMotion: curve evaluation ---- */

static double lerp(double a, double b, double t) {
    return a + (b - a) * t;
}

static double bezier_at(const cubism_point *p, double t) {
    double v01 = lerp(p[0].value, p[1].value, t), v12 = lerp(p[1].value, p[2].value, t);
    double v23 = lerp(p[2].value, p[3].value, t);
    return lerp(lerp(v01, v12, t), lerp(v12, v23, t), t);
}

static double evaluate_segment(const cubism_motion *d, uint32_t s, double time) {
    const cubism_point *p = &d->points[d->segment_points[s]];
    switch (d->segment_types[s]) {
    case CUBISM_SEGMENT_LINEAR: {
        double t = (time - p[0].time) / (p[1].time - p[0].time);
        if (t < 0.0) t = 0.0;
        return p[0].value + (p[1].value - p[0].value) * t;
    }
    case CUBISM_SEGMENT_BEZIER: {
        if (d->beziers_restricted) {
            double t = (time - p[0].time) / (p[3].time - p[0].time);
            if (t < 0.0) t = 0.0;
            return bezier_at(p, t);
        }
        double x1 = p[0].time, x2 = p[3].time, cx1 = p[1].time, cx2 = p[2].time;
        double a = x2 - 3.0 * cx2 + 3.0 * cx1 - x1, b = 3.0 * cx2 - 6.0 * cx1 + 3.0 * x1;
        double c = 3.0 * cx1 - 3.0 * x1, dd = x1 - time;
        return bezier_at(p, cardano(a, b, c, dd));
    }
    case CUBISM_SEGMENT_STEPPED: return p[0].value;
    default: return p[1].value; /* inverse stepped */
    }
}

/* evaluateCurve: the first segment ending after `time`; past the last one, the last value, or
 * when looping (correction) the line from the last point back to the first at loop_end. */
static double evaluate_curve(const cubism_motion *d, uint32_t c, double time, bool correction, double loop_end) {
    const cubism_curve *cv = &d->curves[c];
    uint32_t end = cv->first_segment + cv->segment_count, last_point = 0;
    for (uint32_t s = cv->first_segment; s < end; s++) {
        last_point = d->segment_points[s] + (d->segment_types[s] == CUBISM_SEGMENT_BEZIER ? 3 : 1);
        if (d->points[last_point].time > time) return evaluate_segment(d, s, time);
    }
    if (correction && time < loop_end) {
        const cubism_point *last = &d->points[last_point];
        double first_value = d->points[d->segment_points[cv->first_segment]].value;
        switch (d->segment_types[end - 1]) {
        case CUBISM_SEGMENT_STEPPED: return last->value;
        case CUBISM_SEGMENT_INVERSE_STEPPED: return first_value;
        default: {
            double t = (time - last->time) / (loop_end - last->time);
            if (t < 0.0) t = 0.0;
            return last->value + (first_value - last->value) * t;
        }
        }
    }
    return d->points[last_point].value;
}

/* ---- CubismMotion ---- */

enum { MODEL_CURVE_OTHER, MODEL_CURVE_EYE_BLINK, MODEL_CURVE_LIP_SYNC, MODEL_CURVE_OPACITY };
#define MAX_EFFECT_IDS 64 /* the framework's flag bits */

struct cubism_ref_motion {
    const cubism_motion *data;
    double fade_in, fade_out, weight;
    bool loop, loop_fade_in, previous_loop_state;
    double model_opacity;
    /* per curve: a Model curve's kind, or a parameter/part curve's model index, and (parameter
     * curves) the position of its id in the eye-blink / lip-sync lists or -1 */
    int32_t *curve_index;
    int8_t *eye_blink_slot, *lip_sync_slot;
    uint32_t eye_blink_count, lip_sync_count;
    int32_t eye_blink_index[MAX_EFFECT_IDS], lip_sync_index[MAX_EFFECT_IDS];
};

cubism_ref_motion *cubism_ref_motion_create(const cubism_motion *data, cubism_ref_model *model, double fade_in,
                                            double fade_out, const char *const *eye_blink_ids,
                                            uint32_t eye_blink_count, const char *const *lip_sync_ids,
                                            uint32_t lip_sync_count) {
    cubism_ref_motion *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    size_t n = data->curve_count ? data->curve_count : 1;
    m->curve_index = malloc(n * sizeof *m->curve_index);
    m->eye_blink_slot = malloc(n);
    m->lip_sync_slot = malloc(n);
    if (!m->curve_index || !m->eye_blink_slot || !m->lip_sync_slot) {
        cubism_ref_motion_destroy(m);
        return NULL;
    }
    m->data = data;
    m->fade_in = fade_in >= 0 ? fade_in : data->fade_in;
    m->fade_out = fade_out >= 0 ? fade_out : data->fade_out;
    m->weight = 1.0;
    m->loop_fade_in = true;
    m->model_opacity = 1.0;
    m->eye_blink_count = eye_blink_count < MAX_EFFECT_IDS ? eye_blink_count : MAX_EFFECT_IDS;
    m->lip_sync_count = lip_sync_count < MAX_EFFECT_IDS ? lip_sync_count : MAX_EFFECT_IDS;
    for (uint32_t i = 0; i < m->eye_blink_count; i++) m->eye_blink_index[i] = cubism_ref_parameter_index(model, eye_blink_ids[i]);
    for (uint32_t i = 0; i < m->lip_sync_count; i++) m->lip_sync_index[i] = cubism_ref_parameter_index(model, lip_sync_ids[i]);
    for (uint32_t c = 0; c < data->curve_count; c++) {
        const cubism_curve *cv = &data->curves[c];
        m->eye_blink_slot[c] = m->lip_sync_slot[c] = -1;
        if (cv->target == CUBISM_TARGET_MODEL) {
            m->curve_index[c] = strcmp(cv->id, "EyeBlink") == 0   ? MODEL_CURVE_EYE_BLINK
                                : strcmp(cv->id, "LipSync") == 0  ? MODEL_CURVE_LIP_SYNC
                                : strcmp(cv->id, "Opacity") == 0 ? MODEL_CURVE_OPACITY
                                                                  : MODEL_CURVE_OTHER;
            continue;
        }
        m->curve_index[c] = cubism_ref_parameter_index(model, cv->id);
        if (m->curve_index[c] < 0) {
            cubism_ref_motion_destroy(m);
            return NULL;
        }
        if (cv->target != CUBISM_TARGET_PARAMETER) continue;
        for (uint32_t i = 0; i < m->eye_blink_count && m->eye_blink_slot[c] < 0; i++)
            if (strcmp(eye_blink_ids[i], cv->id) == 0) m->eye_blink_slot[c] = (int8_t)i;
        for (uint32_t i = 0; i < m->lip_sync_count && m->lip_sync_slot[c] < 0; i++)
            if (strcmp(lip_sync_ids[i], cv->id) == 0) m->lip_sync_slot[c] = (int8_t)i;
    }
    return m;
}

void cubism_ref_motion_destroy(cubism_ref_motion *m) {
    if (!m) return;
    free(m->curve_index);
    free(m->eye_blink_slot);
    free(m->lip_sync_slot);
    free(m);
}

size_t cubism_ref_motion_bytes(const cubism_ref_motion *m) {
    return sizeof *m + (size_t)m->data->curve_count * (sizeof(int32_t) + 2);
}

void cubism_ref_motion_set_loop(cubism_ref_motion *m, bool loop) { m->loop = loop; }
void cubism_ref_motion_set_loop_fade_in(cubism_ref_motion *m, bool loop_fade_in) { m->loop_fade_in = loop_fade_in; }
void cubism_ref_motion_set_weight(cubism_ref_motion *m, double weight) { m->weight = weight; }
double cubism_ref_motion_fade_in(const cubism_ref_motion *m) { return m->fade_in; }
double cubism_ref_motion_fade_out(const cubism_ref_motion *m) { return m->fade_out; }

/* ACubismMotion.adjustEndTime: getDuration() is -1 while looping. */
static void adjust_end_time(const cubism_ref_motion *m, cubism_ref_queue_entry *e) {
    double duration = m->loop ? -1.0 : m->data->duration;
    e->end_time = duration <= 0.0 ? -1.0 : e->start_time + duration;
}

static void setup_entry(cubism_ref_queue_entry *e, double now, bool motion, const cubism_ref_motion *m) {
    if (e->started) return;
    e->started = true;
    e->start_time = now; /* offset 0 */
    e->fade_in_start_time = now;
    if (e->end_time < 0.0) {
        if (motion) adjust_end_time(m, e);
        else e->end_time = -1.0; /* an expression's duration is -1 */
    }
}

/* ACubismMotion.updateFadeWeight (a fade of exactly 0 gives 1 here; doUpdateParameters tests <= 0). */
static double fade_weight(double weight, double fade_in, double fade_out, cubism_ref_queue_entry *e, double now) {
    double fin = fade_in == 0.0 ? 1.0 : ease_sine((now - e->fade_in_start_time) / fade_in);
    double fout = fade_out == 0.0 || e->end_time < 0.0 ? 1.0 : ease_sine((e->end_time - now) / fade_out);
    double w = weight * fin * fout;
    e->state_weight = w;
    return w;
}

/* CubismMotion.doUpdateParameters (MotionBehavior_V2). */
static void motion_do_update(cubism_ref_motion *m, cubism_ref_model *model, double now, double weight,
                             cubism_ref_queue_entry *e) {
    const cubism_motion *d = m->data;
    if (m->previous_loop_state != m->loop) {
        adjust_end_time(m, e);
        m->previous_loop_state = m->loop;
    }
    double offset = now - e->start_time;
    if (offset < 0.0) offset = 0.0;
    double eye_blink = DBL_MAX, lip_sync = DBL_MAX;
    uint64_t eye_blink_flags = 0, lip_sync_flags = 0;
    double tmp_fade_in = m->fade_in <= 0.0 ? 1.0 : ease_sine((now - e->fade_in_start_time) / m->fade_in);
    double tmp_fade_out = m->fade_out <= 0.0 || e->end_time < 0.0 ? 1.0 : ease_sine((e->end_time - now) / m->fade_out);
    double time = offset, duration = d->duration;
    bool correction = m->loop;
    if (m->loop) {
        duration += 1.0 / d->fps;
        while (time > duration) time -= duration;
    }
    uint32_t c = 0;
    for (; c < d->curve_count && d->curves[c].target == CUBISM_TARGET_MODEL; c++) {
        double value = evaluate_curve(d, c, time, correction, duration);
        switch (m->curve_index[c]) {
        case MODEL_CURVE_EYE_BLINK: eye_blink = value; break;
        case MODEL_CURVE_LIP_SYNC: lip_sync = value; break;
        case MODEL_CURVE_OPACITY:
            m->model_opacity = value;
            model->model_opacity = value;
            break;
        default: break;
        }
    }
    for (; c < d->curve_count && d->curves[c].target == CUBISM_TARGET_PARAMETER; c++) {
        const cubism_curve *cv = &d->curves[c];
        int32_t index = m->curve_index[c];
        double source = cubism_ref_get(model, index);
        double value = evaluate_curve(d, c, time, correction, duration);
        if (eye_blink != DBL_MAX && m->eye_blink_slot[c] >= 0) {
            value *= eye_blink;
            eye_blink_flags |= 1ull << m->eye_blink_slot[c];
        }
        if (lip_sync != DBL_MAX && m->lip_sync_slot[c] >= 0) {
            value += lip_sync;
            lip_sync_flags |= 1ull << m->lip_sync_slot[c];
        }
        double v;
        if (cv->fade_in < 0.0 && cv->fade_out < 0.0) {
            v = source + (value - source) * weight;
        } else {
            double fin = cv->fade_in < 0.0    ? tmp_fade_in
                         : cv->fade_in == 0.0 ? 1.0
                                              : ease_sine((now - e->fade_in_start_time) / cv->fade_in);
            double fout = cv->fade_out < 0.0                           ? tmp_fade_out
                          : cv->fade_out == 0.0 || e->end_time < 0.0 ? 1.0
                                                                       : ease_sine((e->end_time - now) / cv->fade_out);
            v = source + (value - source) * (m->weight * fin * fout);
        }
        cubism_ref_set(model, index, v, 1.0);
    }
    if (eye_blink != DBL_MAX) {
        for (uint32_t i = 0; i < m->eye_blink_count; i++) {
            if ((eye_blink_flags >> i) & 1) continue;
            double source = cubism_ref_get(model, m->eye_blink_index[i]);
            cubism_ref_set(model, m->eye_blink_index[i], source + (eye_blink - source) * weight, 1.0);
        }
    }
    if (lip_sync != DBL_MAX) {
        for (uint32_t i = 0; i < m->lip_sync_count; i++) {
            if ((lip_sync_flags >> i) & 1) continue;
            double source = cubism_ref_get(model, m->lip_sync_index[i]);
            cubism_ref_set(model, m->lip_sync_index[i], source + (lip_sync - source) * weight, 1.0);
        }
    }
    /* PartOpacity curves write the pose's pseudo-parameter, unfaded. */
    for (; c < d->curve_count && d->curves[c].target == CUBISM_TARGET_PART_OPACITY; c++)
        cubism_ref_set(model, m->curve_index[c], evaluate_curve(d, c, time, correction, duration), 1.0);
    if (offset >= duration) {
        if (m->loop) {
            e->start_time = now - time;
            if (m->loop_fade_in) e->fade_in_start_time = now - time;
        } else {
            e->finished = true;
        }
    }
}

/* ---- CubismMotionManager / CubismMotionQueueManager ---- */

void cubism_ref_motion_manager_init(cubism_ref_motion_manager *m) {
    memset(m, 0, sizeof *m);
}

static void entry_init(cubism_ref_queue_entry *e) {
    memset(e, 0, sizeof *e);
    e->start_time = -1.0;
    e->end_time = -1.0;
}

/* CubismMotionQueueEntry.startFadeOut: the end moves to now + fade unless it is already earlier. */
static void start_fade_out(cubism_ref_queue_entry *e, double now) {
    double end = now + e->fade_out_seconds;
    e->fade_out_triggered = true;
    if (e->end_time < 0.0 || end < e->end_time) e->end_time = end;
}

int cubism_ref_start_motion(cubism_ref_motion_manager *m, cubism_ref_motion *motion, int priority) {
    if (m->count == CUBISM_REF_MAX_QUEUE) return -1;
    if (priority == m->reserve_priority) m->reserve_priority = 0;
    m->current_priority = priority;
    for (uint32_t i = 0; i < m->count; i++) {
        m->entries[i].fade_out_seconds = m->entries[i].motion->fade_out;
        m->entries[i].fade_out_triggered = true;
    }
    cubism_ref_queue_entry *e = &m->entries[m->count];
    entry_init(e);
    e->motion = motion;
    return (int)m->count++;
}

bool cubism_ref_reserve_motion(cubism_ref_motion_manager *m, int priority) {
    if (priority <= m->reserve_priority || priority <= m->current_priority) return false;
    m->reserve_priority = priority;
    return true;
}

bool cubism_ref_motions_finished(const cubism_ref_motion_manager *m) {
    for (uint32_t i = 0; i < m->count; i++)
        if (!m->entries[i].finished) return false;
    return true;
}

bool cubism_ref_update_motion(cubism_ref_motion_manager *m, cubism_ref_model *model, double dt) {
    m->user_time += dt;
    double now = m->user_time;
    bool updated = false;
    uint32_t kept = 0;
    for (uint32_t i = 0; i < m->count; i++) {
        cubism_ref_queue_entry *e = &m->entries[i];
        cubism_ref_motion *motion = e->motion;
        if (!e->finished) { /* ACubismMotion.updateParameters */
            setup_entry(e, now, true, motion);
            double w = fade_weight(motion->weight, motion->fade_in, motion->fade_out, e, now);
            motion_do_update(motion, model, now, w, e);
            if (e->end_time > 0 && e->end_time < now) e->finished = true;
        }
        updated = true;
        double before = e->last_event_check_time - e->start_time, after = now - e->start_time;
        for (uint32_t k = 0; k < motion->data->event_count; k++) {
            double t = motion->data->events[k].time;
            if (t > before && t <= after && m->on_event) m->on_event(m->event_user, motion, k, now);
        }
        e->last_event_check_time = now;
        if (e->finished) continue; /* removed */
        if (e->fade_out_triggered) start_fade_out(e, now);
        m->entries[kept++] = *e;
    }
    m->count = kept;
    if (cubism_ref_motions_finished(m)) m->current_priority = 0;
    return updated;
}

/* ---- expressions ---- */

bool cubism_ref_expression_init(cubism_ref_expression *e, const cubism_expression *data, cubism_ref_model *model) {
    e->data = data;
    e->index = malloc((data->parameter_count ? data->parameter_count : 1) * sizeof *e->index);
    if (!e->index) return false;
    for (uint32_t i = 0; i < data->parameter_count; i++)
        if ((e->index[i] = cubism_ref_parameter_index(model, data->parameters[i].id)) < 0) {
            free(e->index);
            e->index = NULL;
            return false;
        }
    return true;
}

void cubism_ref_expression_fini(cubism_ref_expression *e) {
    free(e->index);
    e->index = NULL;
}

void cubism_ref_expression_manager_init(cubism_ref_expression_manager *m) {
    memset(m, 0, sizeof *m);
}

void cubism_ref_expression_manager_fini(cubism_ref_expression_manager *m) {
    free(m->values);
    memset(m, 0, sizeof *m);
}

int cubism_ref_start_expression(cubism_ref_expression_manager *m, const cubism_ref_expression *x) {
    if (m->count == CUBISM_REF_MAX_QUEUE) return -1;
    for (uint32_t i = 0; i < m->count; i++) {
        m->entries[i].fade_out_seconds = m->expressions[i]->data->fade_out;
        m->entries[i].fade_out_triggered = true;
    }
    entry_init(&m->entries[m->count]);
    m->expressions[m->count] = x;
    m->fade_weights[m->count] = 0.0;
    return (int)m->count++;
}

/* CubismExpressionMotion.calculateExpressionParameters for entry `k` of weight w. */
static void expression_calculate(cubism_ref_expression_manager *m, cubism_ref_model *model, uint32_t k, double w) {
    const cubism_ref_expression *x = m->expressions[k];
    for (uint32_t i = 0; i < m->value_count; i++) {
        cubism_ref_expression_value *v = &m->values[i];
        double current = v->overwrite = cubism_ref_get(model, v->index);
        int32_t p = -1;
        for (uint32_t j = 0; j < x->data->parameter_count && p < 0; j++)
            if (x->index[j] == v->index) p = (int32_t)j;
        if (p < 0) { /* not this expression's: back toward the neutral values */
            if (k == 0) {
                v->add = 0.0;
                v->multiply = 1.0;
                v->overwrite = current;
            } else {
                v->add = v->add * (1.0 - w) + 0.0 * w;
                v->multiply = v->multiply * (1.0 - w) + 1.0 * w;
                v->overwrite = v->overwrite * (1.0 - w) + current * w;
            }
            continue;
        }
        double value = x->data->parameters[p].value, add = 0.0, mul = 1.0, over = current;
        switch (x->data->parameters[p].blend) {
        case CUBISM_BLEND_ADD: add = value; break;
        case CUBISM_BLEND_MULTIPLY: mul = value; break;
        default: over = value; break;
        }
        if (k == 0) {
            v->add = add;
            v->multiply = mul;
            v->overwrite = over;
        } else {
            v->add = v->add * (1.0 - w) + add * w;
            v->multiply = v->multiply * (1.0 - w) + mul * w;
            v->overwrite = v->overwrite * (1.0 - w) + over * w;
        }
    }
}

bool cubism_ref_update_expressions(cubism_ref_expression_manager *m, cubism_ref_model *model, double dt) {
    m->user_time += dt;
    double now = m->user_time, expression_weight = 0.0;
    for (uint32_t k = 0; k < m->count; k++) {
        const cubism_ref_expression *x = m->expressions[k];
        cubism_ref_queue_entry *e = &m->entries[k];
        /* every id the playing expressions touch, in the order first seen */
        for (uint32_t i = 0; i < x->data->parameter_count; i++) {
            bool seen = false;
            for (uint32_t j = 0; j < m->value_count && !seen; j++) seen = m->values[j].index == x->index[i];
            if (seen) continue;
            if (m->value_count == m->value_capacity) {
                uint32_t cap = m->value_capacity ? 2 * m->value_capacity : 32;
                cubism_ref_expression_value *grown = realloc(m->values, cap * sizeof *grown);
                if (!grown) return false;
                m->values = grown;
                m->value_capacity = cap;
            }
            m->values[m->value_count++] =
                (cubism_ref_expression_value){x->index[i], 0.0, 1.0, cubism_ref_get(model, x->index[i])};
        }
        setup_entry(e, now, false, NULL);
        m->fade_weights[k] = fade_weight(1.0, x->data->fade_in, x->data->fade_out, e, now);
        expression_calculate(m, model, k, m->fade_weights[k]);
        expression_weight += x->data->fade_in == 0.0 ? 1.0 : ease_sine((now - e->fade_in_start_time) / x->data->fade_in);
        if (e->fade_out_triggered) start_fade_out(e, now);
    }
    /* Once the newest has faded in, the older ones go. */
    if (m->count > 1 && m->fade_weights[m->count - 1] >= 1.0) {
        m->entries[0] = m->entries[m->count - 1];
        m->expressions[0] = m->expressions[m->count - 1];
        m->fade_weights[0] = m->fade_weights[m->count - 1];
        m->count = 1;
    }
    if (expression_weight > 1.0) expression_weight = 1.0;
    for (uint32_t i = 0; i < m->value_count; i++) {
        cubism_ref_expression_value *v = &m->values[i];
        cubism_ref_set(model, v->index, (v->overwrite + v->add) * v->multiply, expression_weight);
        v->add = 0.0;
        v->multiply = 1.0;
    }
    return true;
}

/* ---- CubismPose ---- */

struct cubism_ref_pose {
    const cubism_pose *data;
    bool reset_done;
    int32_t *part_index, *parameter_index, *link_part_index, *link_parameter_index;
};

cubism_ref_pose *cubism_ref_pose_create(const cubism_pose *data, cubism_ref_model *model) {
    cubism_ref_pose *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    size_t parts = data->part_count ? data->part_count : 1, links = data->link_count ? data->link_count : 1;
    p->data = data;
    p->part_index = malloc(parts * sizeof(int32_t));
    p->parameter_index = malloc(parts * sizeof(int32_t));
    p->link_part_index = malloc(links * sizeof(int32_t));
    p->link_parameter_index = malloc(links * sizeof(int32_t));
    bool ok = p->part_index && p->parameter_index && p->link_part_index && p->link_parameter_index;
    for (uint32_t i = 0; ok && i < data->part_count; i++) {
        p->parameter_index[i] = cubism_ref_parameter_index(model, data->part_ids[i]);
        p->part_index[i] = cubism_ref_part_index(model, data->part_ids[i]);
        ok = p->parameter_index[i] >= 0 && p->part_index[i] >= 0;
    }
    for (uint32_t i = 0; ok && i < data->link_count; i++) {
        p->link_parameter_index[i] = cubism_ref_parameter_index(model, data->link_ids[i]);
        p->link_part_index[i] = cubism_ref_part_index(model, data->link_ids[i]);
        ok = p->link_parameter_index[i] >= 0 && p->link_part_index[i] >= 0;
    }
    if (!ok) {
        cubism_ref_pose_destroy(p);
        return NULL;
    }
    return p;
}

void cubism_ref_pose_destroy(cubism_ref_pose *p) {
    if (!p) return;
    free(p->part_index);
    free(p->parameter_index);
    free(p->link_part_index);
    free(p->link_parameter_index);
    free(p);
}

/* CubismPose.reset: PartData.initialize sets each part's (and link's) pseudo-parameter to 1;
 * then the first part of each group is shown, the others hidden. */
static void pose_reset(cubism_ref_pose *p, cubism_ref_model *model) {
    const cubism_pose *d = p->data;
    for (uint32_t g = 0; g < d->group_count; g++) {
        for (uint32_t j = d->group_first[g]; j < d->group_first[g + 1]; j++) {
            cubism_ref_set(model, p->parameter_index[j], 1.0, 1.0);
            double shown = j == d->group_first[g] ? 1.0 : 0.0;
            cubism_ref_set_part_opacity(model, p->part_index[j], shown);
            cubism_ref_set(model, p->parameter_index[j], shown, 1.0);
            for (uint32_t l = d->link_first[j]; l < d->link_first[j + 1]; l++)
                cubism_ref_set(model, p->link_parameter_index[l], 1.0, 1.0);
        }
    }
}

static void pose_fade(cubism_ref_pose *p, cubism_ref_model *model, double dt, uint32_t begin, uint32_t end) {
    const double phi = 0.5, back_opacity_threshold = 0.15;
    int64_t visible = -1;
    double new_opacity = 1.0;
    for (uint32_t i = begin; i < end; i++) {
        if (cubism_ref_get(model, p->parameter_index[i]) > 0.001) {
            if (visible >= 0) break;
            visible = i;
            new_opacity = cubism_ref_part_opacity(model, p->part_index[i]) + dt / p->data->fade_in;
            if (new_opacity > 1.0) new_opacity = 1.0;
        }
    }
    if (visible < 0) { /* the framework's fallback: index 0 of the whole list, not of the group */
        visible = 0;
        new_opacity = 1.0;
    }
    for (uint32_t i = begin; i < end; i++) {
        if (visible == i) {
            cubism_ref_set_part_opacity(model, p->part_index[i], new_opacity);
            continue;
        }
        double opacity = cubism_ref_part_opacity(model, p->part_index[i]), a1;
        if (new_opacity < phi) a1 = new_opacity * (phi - 1) / phi + 1.0;
        else a1 = (1 - new_opacity) * phi / (1.0 - phi);
        double back_opacity = (1.0 - a1) * (1.0 - new_opacity);
        if (back_opacity > back_opacity_threshold) a1 = 1.0 - back_opacity_threshold / (1.0 - new_opacity);
        if (opacity > a1) opacity = a1;
        cubism_ref_set_part_opacity(model, p->part_index[i], opacity);
    }
}

void cubism_ref_pose_update(cubism_ref_pose *p, cubism_ref_model *model, double dt) {
    const cubism_pose *d = p->data;
    if (!p->reset_done) {
        pose_reset(p, model);
        p->reset_done = true;
    }
    if (dt < 0.0) dt = 0.0;
    for (uint32_t g = 0; g < d->group_count; g++) pose_fade(p, model, dt, d->group_first[g], d->group_first[g + 1]);
    for (uint32_t j = 0; j < d->part_count; j++) {
        double opacity = cubism_ref_part_opacity(model, p->part_index[j]);
        for (uint32_t l = d->link_first[j]; l < d->link_first[j + 1]; l++)
            cubism_ref_set_part_opacity(model, p->link_part_index[l], opacity);
    }
}
