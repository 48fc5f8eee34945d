/* The per-object Cubism reference (bench/cubism_reference.c), fed by the file readers
 * (io/live2d/cubism_files.c), against the golden traces of the real Cubism Web Framework in
 * ../shared/data/cubism: every motion, expression and pose case, frame by frame.
 *
 * Tolerances (the framework computes in doubles and stores parameters and part opacities as
 * float32, as the reference does): a parameter within 1e-5 of its range (max - min), a part
 * opacity, the model opacity and a not-exist (pseudo) parameter within 1e-5; the manager's
 * "updated" and "finished" flags exactly; events at the same frames with the same values, in
 * order; the motion queue after each update (which entries, start, fade-in start and end times,
 * fade weights within 1e-9, finished flags), and the expression manager's entries likewise. The worst error of each case is printed. Then each sample model's own model3.json:
 * every motion of every group plays to its end with finite values, every expression and the
 * pose play.
 *
 * argv[1]: the folder of the traces (its README says how they were made). Exits 77 (skipped)
 * when it is absent. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>

#include "cubism_files.h"
#include "cubism_reference.h"

static const char *g_root;
static int g_failures;

#define CHECK(cond, ...)                                                                                              \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                                                       \
            fprintf(stderr, __VA_ARGS__);                                                                              \
            fprintf(stderr, "\n");                                                                                     \
            g_failures++;                                                                                              \
            goto done;                                                                                                 \
        }                                                                                                              \
    } while (0)

static void input_path(char *out, size_t size, const char *relative) {
    snprintf(out, size, "%s/inputs/%s", g_root, relative);
}

/* The model a case describes: its parameters (ids, ranges, defaults) and parts. */
typedef struct setup {
    uint32_t parameter_count, part_count;
    const char **ids, **part_ids;
    float *minimum, *maximum, *defaults;
    cubism_ref_model *model;
} setup;

static bool setup_model(setup *s, json_t *c) {
    json_t *params = json_object_get(c, "parameters"), *parts = json_object_get(c, "parts");
    s->parameter_count = (uint32_t)json_array_size(params);
    s->part_count = (uint32_t)json_array_size(parts);
    size_t n = s->parameter_count + 1, np = s->part_count + 1;
    s->ids = calloc(n, sizeof *s->ids);
    s->minimum = calloc(n, sizeof(float));
    s->maximum = calloc(n, sizeof(float));
    s->defaults = calloc(n, sizeof(float));
    s->part_ids = calloc(np, sizeof *s->part_ids);
    if (!s->ids || !s->minimum || !s->maximum || !s->defaults || !s->part_ids) return false;
    for (uint32_t i = 0; i < s->parameter_count; i++) {
        json_t *p = json_array_get(params, i);
        s->ids[i] = json_string_value(json_object_get(p, "id"));
        s->minimum[i] = (float)json_number_value(json_object_get(p, "min"));
        s->maximum[i] = (float)json_number_value(json_object_get(p, "max"));
        s->defaults[i] = (float)json_number_value(json_object_get(p, "default"));
    }
    for (uint32_t i = 0; i < s->part_count; i++) s->part_ids[i] = json_string_value(json_array_get(parts, i));
    s->model = cubism_ref_model_create(s->parameter_count, s->ids, s->minimum, s->maximum, s->defaults, s->part_count,
                                       s->part_ids);
    return s->model != NULL;
}

static void setup_free(setup *s) {
    cubism_ref_model_destroy(s->model);
    free(s->ids);
    free(s->part_ids);
    free(s->minimum);
    free(s->maximum);
    free(s->defaults);
}

/* The worst error of a case, by kind of column. */
typedef struct worst {
    double parameter; /* in units of the parameter's range */
    double part, other;
    char parameter_where[160], part_where[160], other_where[160];
    long flag_mismatches;
} worst;

static void note(double err, double *w, char *where, const char *column, long frame) {
    if (err > *w || isnan(err)) {
        *w = isnan(err) ? INFINITY : err;
        snprintf(where, 160, "%s @%ld", column, frame);
    }
}

/* Compares one frame's row against the reference's state; column 0 is the frame number. */
static void compare_row(const setup *s, json_t *columns, json_t *row, long frame, worst *w, double updated,
                        double finished) {
    size_t n = json_array_size(columns);
    for (size_t k = 1; k < n; k++) {
        const char *col = json_string_value(json_array_get(columns, k));
        json_t *cell = json_array_get(row, k);
        double want = json_number_value(cell);
        const char *colon = strchr(col, ':');
        const char *id = colon ? colon + 1 : col;
        if (strncmp(col, "param:", 6) == 0) {
            int32_t i = cubism_ref_find_parameter(s->model, id);
            double got = i >= 0 ? cubism_ref_get(s->model, i) : NAN;
            double span = i >= 0 && i < (int32_t)s->parameter_count ? s->maximum[i] - s->minimum[i] : 1.0;
            note(fabs(got - want) / span, &w->parameter, w->parameter_where, col, frame);
        } else if (strncmp(col, "part:", 5) == 0 || strncmp(col, "partOpacity:", 12) == 0) {
            int32_t i = cubism_ref_part_index(s->model, id);
            note(fabs(cubism_ref_part_opacity(s->model, i) - want), &w->part, w->part_where, col, frame);
        } else if (strncmp(col, "notExistParam:", 14) == 0 || strncmp(col, "pseudoParam:", 12) == 0) {
            int32_t i = cubism_ref_find_parameter(s->model, id);
            if (json_is_null(cell)) continue; /* not created yet in the framework */
            double got = i >= 0 ? cubism_ref_get(s->model, i) : NAN;
            note(fabs(got - want), &w->other, w->other_where, col, frame);
        } else if (strcmp(col, "modelOpacity") == 0) {
            note(fabs(cubism_ref_model_opacity(s->model) - want), &w->other, w->other_where, col, frame);
        } else if (strcmp(col, "motionUpdated") == 0) {
            w->flag_mismatches += updated != want;
        } else if (strcmp(col, "managerIsFinished") == 0) {
            w->flag_mismatches += finished != want;
        }
    }
}

static bool within(const worst *w) {
    return w->parameter <= 1e-5 && w->part <= 1e-5 && w->other <= 1e-5 && w->flag_mismatches == 0;
}

static void report(const char *name, const worst *w, long event_mismatches, long events) {
    printf("%-58s param %.3g (%s)  part %.3g (%s)  other %.3g (%s)  flags %ld  events %ld/%ld off\n", name,
           w->parameter, w->parameter_where[0] ? w->parameter_where : "-", w->part,
           w->part_where[0] ? w->part_where : "-", w->other, w->other_where[0] ? w->other_where : "-",
           w->flag_mismatches, event_mismatches, events);
}

/* ---- motions ---- */

typedef struct fired {
    long frame;
    const cubism_motion *motion;
    uint32_t event;
} fired;

typedef struct event_log {
    long frame;
    uint32_t count;
    fired list[4096];
} event_log;

static void on_event(void *user, const cubism_ref_motion *motion, uint32_t event, double user_time) {
    (void)user_time;
    event_log *log = user;
    (void)motion;
    if (log->count < sizeof log->list / sizeof log->list[0]) log->list[log->count++] = (fired){log->frame, NULL, event};
}

typedef struct loaded_motion {
    cubism_motion data;
    cubism_ref_motion *motion;
} loaded_motion;

/* A case's motionA/motionB (or baseMotion): its file, the model3 entry's fades, loop flag. */
static bool load_motion(loaded_motion *lm, json_t *desc, const cubism_model3 *m3, setup *s, const char *group_key,
                        const char *index_key) {
    char path[1024];
    input_path(path, sizeof path, json_string_value(json_object_get(desc, "file")));
    if (cubism_motion_read(path, &lm->data) != 0) return false;
    double fade_in = -1, fade_out = -1;
    json_t *group = json_object_get(desc, group_key);
    if (json_is_string(group)) {
        size_t index = (size_t)json_integer_value(json_object_get(desc, index_key));
        for (uint32_t g = 0; g < m3->motion_group_count; g++)
            if (strcmp(m3->motion_groups[g].name, json_string_value(group)) == 0 && index < m3->motion_groups[g].motion_count) {
                fade_in = m3->motion_groups[g].motions[index].fade_in;
                fade_out = m3->motion_groups[g].motions[index].fade_out;
            }
    }
    lm->motion = cubism_ref_motion_create(&lm->data, s->model, fade_in, fade_out, (const char *const *)m3->eye_blink_ids,
                                          m3->eye_blink_count, (const char *const *)m3->lip_sync_ids, m3->lip_sync_count);
    if (!lm->motion) return false;
    cubism_ref_motion_set_loop(lm->motion, json_is_true(json_object_get(desc, "loop")));
    return true;
}

static void run_motion_case(const char *name, json_t *c) {
    setup s = {0};
    cubism_model3 m3 = {0};
    loaded_motion a = {0}, b = {0};
    event_log *log = calloc(1, sizeof *log);
    worst w = {0};
    long event_mismatches = 0, queue_mismatches = 0;
    double queue_error = 0;
    char path[1024];
    json_t *desc_a = json_object_get(c, "motionA"), *desc_b = json_object_get(c, "motionB");
    json_t *cross = json_object_get(c, "crossfade"), *frames = json_object_get(c, "frames");
    json_t *dts = json_object_get(c, "dt"), *columns = json_object_get(c, "columns"), *events = json_object_get(c, "events");
    CHECK(log && setup_model(&s, c), "%s: model", name);
    input_path(path, sizeof path, json_string_value(json_array_get(json_object_get(c, "sources"), 0)));
    CHECK(cubism_model3_read(path, &m3) == 0, "%s: %s", name, path);
    CHECK(load_motion(&a, desc_a, &m3, &s, "modelGroup", "modelIndex"), "%s: motionA", name);
    /* the fades the case states (model3's over the motion's own) come out of the readers */
    CHECK(cubism_ref_motion_fade_in(a.motion) == json_number_value(json_object_get(desc_a, "effectiveFadeInSeconds")) &&
              cubism_ref_motion_fade_out(a.motion) == json_number_value(json_object_get(desc_a, "effectiveFadeOutSeconds")),
          "%s: effective fades of motionA", name);
    if (json_is_object(desc_b)) CHECK(load_motion(&b, desc_b, &m3, &s, "modelGroup", "modelIndex"), "%s: motionB", name);
    cubism_ref_save_parameters(s.model);
    cubism_ref_motion_manager mm;
    cubism_ref_motion_manager_init(&mm);
    mm.on_event = on_event;
    mm.event_user = log;
    CHECK(cubism_ref_start_motion(&mm, a.motion, (int)json_integer_value(json_object_get(c, "priority"))) >= 0,
          "%s: start", name);
    long cross_frame = json_is_object(cross) ? (long)json_integer_value(json_object_get(cross, "startBeforeFrame")) : -1;
    for (size_t f = 0; f < json_array_size(frames); f++) {
        if ((long)f == cross_frame)
            CHECK(cubism_ref_start_motion(&mm, b.motion, (int)json_integer_value(json_object_get(cross, "priority"))) >= 0,
                  "%s: start B", name);
        log->frame = (long)f;
        cubism_ref_load_parameters(s.model);
        bool updated = cubism_ref_update_motion(&mm, s.model, json_number_value(json_array_get(dts, f)));
        cubism_ref_save_parameters(s.model);
        compare_row(&s, columns, json_array_get(frames, f), (long)f, &w, updated, cubism_ref_motions_finished(&mm));
        /* the queue after the update: the same entries with the same times and fade weights */
        json_t *queue = json_array_get(json_array_get(json_object_get(c, "queueState"), f), 1);
        if (json_array_size(queue) != mm.count) {
            queue_mismatches++;
            continue;
        }
        for (uint32_t k = 0; k < mm.count; k++) {
            json_t *q = json_array_get(queue, k);
            const cubism_ref_queue_entry *e = &mm.entries[k];
            const char *which = json_string_value(json_object_get(q, "motion"));
            double err = fmax(fmax(fabs(e->start_time - json_number_value(json_object_get(q, "startTime"))),
                                   fabs(e->fade_in_start_time - json_number_value(json_object_get(q, "fadeInStartTime")))),
                              fmax(fabs(e->end_time - json_number_value(json_object_get(q, "endTime"))),
                                   fabs(e->state_weight - json_number_value(json_object_get(q, "fadeWeight")))));
            queue_error = fmax(queue_error, err);
            queue_mismatches += (e->motion == a.motion) != (strcmp(which, "A") == 0) ||
                                e->finished != json_is_true(json_object_get(q, "finished")) || !(err <= 1e-9);
        }
    }
    /* events: same count, and each at the same frame with the same value */
    size_t n_events = json_array_size(events);
    event_mismatches = labs((long)n_events - (long)log->count);
    for (size_t k = 0; k < n_events && k < log->count; k++) {
        json_t *e = json_array_get(events, k);
        const cubism_motion *d = &a.data; /* only single-motion cases have events */
        bool same = json_integer_value(json_object_get(e, "frame")) == log->list[k].frame &&
                    strcmp(json_string_value(json_object_get(e, "value")), d->events[log->list[k].event].value) == 0;
        event_mismatches += !same;
    }
    report(name, &w, event_mismatches, (long)n_events);
    printf("%-58s queue: %ld frames off, worst time/weight error %.3g\n", "", queue_mismatches, queue_error);
    CHECK(within(&w) && event_mismatches == 0 && queue_mismatches == 0, "%s: outside the tolerance (see the line above)",
          name);
done:
    cubism_ref_motion_destroy(a.motion);
    cubism_ref_motion_destroy(b.motion);
    cubism_motion_free(&a.data);
    cubism_motion_free(&b.data);
    cubism_model3_free(&m3);
    setup_free(&s);
    free(log);
}

/* ---- expressions ---- */

static void run_expression_case(const char *name, json_t *c) {
    setup s = {0};
    cubism_model3 m3 = {0};
    loaded_motion base = {0};
    enum { MAX_EXPR = 8 };
    cubism_expression data[MAX_EXPR] = {{0}};
    cubism_ref_expression expr[MAX_EXPR] = {{0}};
    long start_frame[MAX_EXPR];
    cubism_ref_expression_manager em;
    cubism_ref_expression_manager_init(&em);
    worst w = {0};
    long queue_mismatches = 0;
    double queue_error = 0;
    char path[1024];
    json_t *list = json_object_get(c, "expressions"), *frames = json_object_get(c, "frames");
    json_t *dts = json_object_get(c, "dt"), *columns = json_object_get(c, "columns");
    json_t *base_motion = json_object_get(c, "baseMotion");
    size_t n_expr = json_array_size(list);
    CHECK(n_expr <= MAX_EXPR && setup_model(&s, c), "%s: model", name);
    input_path(path, sizeof path, json_string_value(json_array_get(json_object_get(c, "sources"), 0)));
    CHECK(cubism_model3_read(path, &m3) == 0, "%s: %s", name, path);
    json_t *base_values = json_object_get(json_object_get(c, "baseState"), "valuesFloat32");
    for (uint32_t i = 0; i < s.parameter_count; i++)
        cubism_ref_set(s.model, (int32_t)i, json_number_value(json_array_get(base_values, i)), 1.0);
    cubism_ref_save_parameters(s.model);
    for (size_t k = 0; k < n_expr; k++) {
        json_t *e = json_array_get(list, k);
        input_path(path, sizeof path, json_string_value(json_object_get(e, "file")));
        CHECK(cubism_expression_read(path, &data[k]) == 0, "%s: %s", name, path);
        CHECK(data[k].fade_in == json_number_value(json_object_get(e, "fadeIn")) &&
                  data[k].fade_out == json_number_value(json_object_get(e, "fadeOut")),
              "%s: fades of %s", name, path);
        CHECK(cubism_ref_expression_init(&expr[k], &data[k], s.model), "%s: bind", name);
        start_frame[k] = (long)json_integer_value(json_object_get(e, "startBeforeFrame"));
    }
    cubism_ref_motion_manager mm;
    cubism_ref_motion_manager_init(&mm);
    if (json_is_object(base_motion)) {
        CHECK(load_motion(&base, base_motion, &m3, &s, "group", "index"), "%s: base motion", name);
        CHECK(cubism_ref_start_motion(&mm, base.motion, (int)json_integer_value(json_object_get(base_motion, "priority"))) >= 0,
              "%s: start", name);
    }
    for (size_t f = 0; f < json_array_size(frames); f++) {
        double dt = json_number_value(json_array_get(dts, f));
        for (size_t k = 0; k < n_expr; k++)
            if (start_frame[k] == (long)f) CHECK(cubism_ref_start_expression(&em, &expr[k]) >= 0, "%s: start", name);
        cubism_ref_load_parameters(s.model);
        if (base.motion) cubism_ref_update_motion(&mm, s.model, dt);
        cubism_ref_save_parameters(s.model);
        CHECK(cubism_ref_update_expressions(&em, s.model, dt), "%s: out of memory", name);
        compare_row(&s, columns, json_array_get(frames, f), (long)f, &w, 0, 0);
        /* the manager's entries after the update: fade weights, fade-in starts, ends */
        json_t *queue = json_array_get(json_array_get(json_object_get(c, "queueFadeWeights"), f), 1);
        if (json_array_size(queue) != em.count) {
            queue_mismatches++;
            continue;
        }
        for (uint32_t k = 0; k < em.count; k++) {
            json_t *q = json_array_get(queue, k);
            double err = fmax(fabs(em.fade_weights[k] - json_number_value(json_object_get(q, "fadeWeight"))),
                              fmax(fabs(em.entries[k].fade_in_start_time -
                                        json_number_value(json_object_get(q, "fadeInStartTime"))),
                                   fabs(em.entries[k].end_time - json_number_value(json_object_get(q, "endTime")))));
            queue_error = fmax(queue_error, err);
            queue_mismatches += !(err <= 1e-9);
        }
    }
    report(name, &w, 0, 0);
    printf("%-58s queue: %ld frames off, worst time/weight error %.3g\n", "", queue_mismatches, queue_error);
    CHECK(within(&w) && queue_mismatches == 0, "%s: outside the tolerance (see the line above)", name);
done:
    cubism_ref_expression_manager_fini(&em);
    for (size_t k = 0; k < MAX_EXPR; k++) {
        cubism_ref_expression_fini(&expr[k]);
        cubism_expression_free(&data[k]);
    }
    cubism_ref_motion_destroy(base.motion);
    cubism_motion_free(&base.data);
    cubism_model3_free(&m3);
    setup_free(&s);
}

/* ---- pose ---- */

static void run_pose_case(const char *name, json_t *c) {
    setup s = {0};
    cubism_pose data = {0};
    cubism_ref_pose *pose = NULL;
    worst w = {0};
    char path[1024];
    json_t *schedule = json_object_get(c, "schedule"), *frames = json_object_get(c, "frames");
    json_t *dts = json_object_get(c, "dt"), *columns = json_object_get(c, "columns");
    CHECK(setup_model(&s, c), "%s: model", name);
    input_path(path, sizeof path, json_string_value(json_array_get(json_object_get(c, "sources"), 0)));
    CHECK(cubism_pose_read(path, &data) == 0, "%s: %s", name, path);
    CHECK(data.fade_in == json_number_value(json_object_get(c, "fadeTimeSeconds")), "%s: fade time", name);
    CHECK((pose = cubism_ref_pose_create(&data, s.model)) != NULL, "%s: bind", name);
    for (size_t f = 0; f < json_array_size(frames); f++) {
        cubism_ref_load_parameters(s.model);
        size_t k;
        json_t *step;
        json_array_foreach(schedule, k, step) {
            if (json_integer_value(json_object_get(step, "beforeUpdateOfFrame")) != (json_int_t)f) continue;
            const char *id;
            json_t *v;
            json_object_foreach(json_object_get(step, "setPseudoParameterValues"), id, v)
                cubism_ref_set(s.model, cubism_ref_parameter_index(s.model, id), json_number_value(v), 1.0);
        }
        cubism_ref_save_parameters(s.model);
        cubism_ref_pose_update(pose, s.model, json_number_value(json_array_get(dts, f)));
        compare_row(&s, columns, json_array_get(frames, f), (long)f, &w, 0, 0);
    }
    report(name, &w, 0, 0);
    CHECK(within(&w), "%s: outside the tolerance (see the line above)", name);
done:
    cubism_ref_pose_destroy(pose);
    cubism_pose_free(&data);
    setup_free(&s);
}


/* ---- each sample model's own model3.json: every motion, expression and the pose play ---- */

static void run_sample_model(const char *model_name) {
    char path[1024], rel[512];
    cubism_model3 m3 = {0};
    json_t *cdi = NULL;
    setup s = {0};
    long motions = 0, expressions = 0;
    snprintf(rel, sizeof rel, "%s/%s.model3.json", model_name, model_name);
    input_path(path, sizeof path, rel);
    CHECK(cubism_model3_read(path, &m3) == 0, "%s", path);
    snprintf(rel, sizeof rel, "%s/%s.cdi3.json", model_name, model_name);
    input_path(path, sizeof path, rel);
    CHECK((cdi = json_load_file(path, 0, NULL)) != NULL, "%s", path);
    /* the model's ids (cdi3), every range -100..100: this checks playing, not values */
    json_t *params = json_object_get(cdi, "Parameters"), *parts = json_object_get(cdi, "Parts");
    s.parameter_count = (uint32_t)json_array_size(params);
    s.part_count = (uint32_t)json_array_size(parts);
    s.ids = calloc(s.parameter_count + 1, sizeof *s.ids);
    s.part_ids = calloc(s.part_count + 1, sizeof *s.part_ids);
    s.minimum = calloc(s.parameter_count + 1, sizeof(float));
    s.maximum = calloc(s.parameter_count + 1, sizeof(float));
    s.defaults = calloc(s.parameter_count + 1, sizeof(float));
    CHECK(s.ids && s.part_ids && s.minimum && s.maximum && s.defaults, "out of memory");
    for (uint32_t i = 0; i < s.parameter_count; i++) {
        s.ids[i] = json_string_value(json_object_get(json_array_get(params, i), "Id"));
        s.minimum[i] = -100.0f;
        s.maximum[i] = 100.0f;
    }
    for (uint32_t i = 0; i < s.part_count; i++) s.part_ids[i] = json_string_value(json_object_get(json_array_get(parts, i), "Id"));
    CHECK((s.model = cubism_ref_model_create(s.parameter_count, s.ids, s.minimum, s.maximum, s.defaults, s.part_count,
                                             s.part_ids)) != NULL, "model");
    for (uint32_t g = 0; g < m3.motion_group_count; g++) {
        for (uint32_t k = 0; k < m3.motion_groups[g].motion_count; k++) {
            const cubism_model3_motion *entry = &m3.motion_groups[g].motions[k];
            cubism_motion data = {0};
            snprintf(rel, sizeof rel, "%s/%s", model_name, entry->file);
            input_path(path, sizeof path, rel);
            CHECK(cubism_motion_read(path, &data) == 0, "%s", path);
            cubism_ref_motion *motion = cubism_ref_motion_create(&data, s.model, entry->fade_in, entry->fade_out,
                                                                 (const char *const *)m3.eye_blink_ids, m3.eye_blink_count,
                                                                 (const char *const *)m3.lip_sync_ids, m3.lip_sync_count);
            cubism_ref_motion_manager mm;
            cubism_ref_motion_manager_init(&mm);
            bool ok = motion && cubism_ref_start_motion(&mm, motion, 2) >= 0;
            long frames = 0, limit = (long)(data.duration * 60) + 3;
            while (ok && !cubism_ref_motions_finished(&mm) && frames++ < limit) {
                cubism_ref_load_parameters(s.model);
                cubism_ref_update_motion(&mm, s.model, 1.0 / 60);
                cubism_ref_save_parameters(s.model);
                for (uint32_t i = 0; i < s.parameter_count; i++) ok = ok && isfinite(cubism_ref_get(s.model, (int32_t)i));
            }
            ok = ok && cubism_ref_motions_finished(&mm);
            cubism_ref_motion_destroy(motion);
            cubism_motion_free(&data);
            CHECK(ok, "%s: does not play to its end in %ld frames with finite values", path, limit);
            motions++;
        }
    }
    {
        cubism_ref_expression_manager em;
        cubism_ref_expression_manager_init(&em);
        cubism_expression *data = calloc(m3.expression_count + 1, sizeof *data);
        cubism_ref_expression *expr = calloc(m3.expression_count + 1, sizeof *expr);
        bool ok = data && expr;
        for (uint32_t i = 0; ok && i < m3.expression_count; i++) {
            snprintf(rel, sizeof rel, "%s/%s", model_name, m3.expressions[i].file);
            input_path(path, sizeof path, rel);
            ok = cubism_expression_read(path, &data[i]) == 0 && cubism_ref_expression_init(&expr[i], &data[i], s.model) &&
                 cubism_ref_start_expression(&em, &expr[i]) >= 0;
            for (int f = 0; ok && f < 30; f++) {
                ok = cubism_ref_update_expressions(&em, s.model, 1.0 / 60);
                for (uint32_t p = 0; p < s.parameter_count; p++) ok = ok && isfinite(cubism_ref_get(s.model, (int32_t)p));
            }
            expressions += ok;
        }
        for (uint32_t i = 0; data && expr && i < m3.expression_count; i++) {
            cubism_ref_expression_fini(&expr[i]);
            cubism_expression_free(&data[i]);
        }
        free(data);
        free(expr);
        cubism_ref_expression_manager_fini(&em);
        CHECK(ok, "%s: an expression of %s does not play", model_name, path);
    }
    if (m3.pose) {
        cubism_pose data = {0};
        snprintf(rel, sizeof rel, "%s/%s", model_name, m3.pose);
        input_path(path, sizeof path, rel);
        CHECK(cubism_pose_read(path, &data) == 0, "%s", path);
        cubism_ref_pose *pose = cubism_ref_pose_create(&data, s.model);
        bool ok = pose != NULL;
        for (int f = 0; ok && f < 60; f++) cubism_ref_pose_update(pose, s.model, 1.0 / 60);
        for (uint32_t p = 0; ok && p < s.part_count; p++) {
            double o = cubism_ref_part_opacity(s.model, (int32_t)p);
            ok = o >= 0 && o <= 1;
        }
        cubism_ref_pose_destroy(pose);
        cubism_pose_free(&data);
        CHECK(ok, "%s: the pose does not play", path);
    }
    printf("%-58s %ld motions played to their end, %ld expressions, pose %s\n", model_name, motions, expressions,
           m3.pose ? "played" : "none");
done:
    json_decref(cdi);
    cubism_model3_free(&m3);
    setup_free(&s);
}

/* ---- driver ---- */

static int by_name(const void *a, const void *b) {
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static void run_folder(const char *kind, void (*run)(const char *, json_t *), const char *only) {
    char dir[1024];
    snprintf(dir, sizeof dir, "%s/%s", g_root, kind);
    DIR *d = opendir(dir);
    if (!d) {
        fprintf(stderr, "FAIL: %s is missing\n", dir);
        g_failures++;
        return;
    }
    char *names[256];
    size_t n = 0;
    struct dirent *de;
    while ((de = readdir(d)) && n < 256)
        if (strstr(de->d_name, ".json") && (!only || strstr(de->d_name, only))) names[n++] = strdup(de->d_name);
    closedir(d);
    qsort(names, n, sizeof *names, by_name);
    for (size_t i = 0; i < n; i++) {
        char path[2048];
        snprintf(path, sizeof path, "%s/%s", dir, names[i]);
        json_error_t err;
        json_t *c = json_load_file(path, 0, &err);
        if (!c) {
            fprintf(stderr, "FAIL: %s: %s\n", path, err.text);
            g_failures++;
        } else {
            run(json_string_value(json_object_get(c, "case")), c);
            json_decref(c);
        }
        free(names[i]);
    }
}

int main(int argc, char **argv) {
    g_root = argc > 1 ? argv[1] : CROWD_SHARED_DATA "/cubism";
    const char *only = argc > 2 ? argv[2] : NULL; /* a substring of the case files to run */
    DIR *d = opendir(g_root);
    if (!d) {
        printf("skipped: the Cubism golden traces (%s) are absent\n", g_root);
        return 77;
    }
    closedir(d);
    run_folder("motion", run_motion_case, only);
    run_folder("expression", run_expression_case, only);
    run_folder("pose", run_pose_case, only);
    if (!only) {
        static const char *const models[] = {"Haru", "Hiyori", "Mao", "Mark", "Wanko"};
        for (size_t i = 0; i < sizeof models / sizeof models[0]; i++) run_sample_model(models[i]);
    }
    printf("%d failure(s)\n", g_failures);
    return g_failures ? 1 : 0;
}
