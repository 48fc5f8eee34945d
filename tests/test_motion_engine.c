/* The engine's motion controller (crowd.h section 15) on the SIMD target under test:
 *  - golden: every motion case of the real Cubism Web Framework's traces in
 *    ../shared/data/cubism/motion played through the engine (17 identical instances: a block
 *    of the target's width and a tail row, which must agree bit for bit): each parameter within
 *    1e-5 of its range per frame, pseudo-parameters and the model opacity within 1e-5, the
 *    "updated" and "finished" flags and the events at the same frames. The worst error of each
 *    case is printed.
 *  - determinism: 2000 instances of 4 clips at random offsets, speeds, weights and loops,
 *    restarted at random (cross-fades) with irregular dt: the same bytes on this target as on
 *    scalar, with 3 threads, and ticked in random ranges.
 *  - snapshot: saved mid-cross-fade and loaded into a second engine, both continue bit for bit.
 *  - bad input: bad library fields refused with the field named and no rig made; bad starts
 *    change nothing.
 * Skipped (77) when the traces are absent. */
#include <dirent.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>

#include "cubism_files.h"
#include "cubism_reference.h"
#include "internal.h"
#include "kernels/motion.h"
#include "test_support.h"

static char g_root[1024];

/* ---- a motion3 file as a crowd_motion_clip ---- */
typedef struct clip_data {
    cubism_motion data;
    crowd_motion_curve *curves;
    crowd_motion_point *points;
    double *events;
    crowd_motion_clip clip;
} clip_data;

/* c->data as the engine's clip, the fades replaced when >= 0 */
static bool clip_convert(clip_data *c, double fade_in, double fade_out) {
    const cubism_motion *d = &c->data;
    c->curves = calloc(d->curve_count + 1, sizeof *c->curves);
    c->points = calloc(d->point_count + 1, sizeof *c->points);
    c->events = calloc(d->event_count + 1, sizeof *c->events);
    if (!c->curves || !c->points || !c->events) return false;
    for (uint32_t k = 0; k < d->curve_count; k++)
        c->curves[k] = (crowd_motion_curve){d->curves[k].id, (crowd_motion_target)d->curves[k].target,
                                            d->curves[k].fade_in, d->curves[k].fade_out, d->curves[k].first_segment,
                                            d->curves[k].segment_count};
    for (uint32_t k = 0; k < d->point_count; k++) c->points[k] = (crowd_motion_point){d->points[k].time, d->points[k].value};
    for (uint32_t k = 0; k < d->event_count; k++) c->events[k] = d->events[k].time;
    c->clip = (crowd_motion_clip){d->duration, d->fps, d->beziers_restricted,
                                  fade_in >= 0 ? fade_in : d->fade_in, fade_out >= 0 ? fade_out : d->fade_out,
                                  d->curve_count, d->segment_count, d->point_count, d->event_count,
                                  c->curves, d->segment_types, d->segment_points, c->points, c->events};
    return true;
}

static bool clip_load(clip_data *c, const char *relative, double fade_in, double fade_out) {
    char path[2048];
    snprintf(path, sizeof path, "%s/inputs/%s", g_root, relative);
    memset(c, 0, sizeof *c);
    return cubism_motion_read(path, &c->data) == 0 && clip_convert(c, fade_in, fade_out);
}

/* what clip_convert made; clip_free also frees the data clip_load read */
static void clip_release(clip_data *c) {
    free(c->curves);
    free(c->points);
    free(c->events);
}

static void clip_free(clip_data *c) {
    clip_release(c);
    cubism_motion_free(&c->data);
}

/* ---- the golden cases ---- */
typedef struct golden_worst {
    double parameter, pseudo, opacity;
    char parameter_where[160];
    long flags, events_off, rows_differ;
} golden_worst;

static bool ids_contain(json_t *params, const char *id) {
    size_t k;
    json_t *p;
    json_array_foreach(params, k, p) if (strcmp(json_string_value(json_object_get(p, "id")), id) == 0) return true;
    return false;
}

static void run_case(const char *file, double *overall) {
    char path[2048];
    snprintf(path, sizeof path, "%s/motion/%s", g_root, file);
    json_t *c = json_load_file(path, 0, NULL);
    if (!c) FAILF("%s: cannot read", path);
    json_t *params = json_object_get(c, "parameters"), *frames = json_object_get(c, "frames");
    json_t *columns = json_object_get(c, "columns"), *dts = json_object_get(c, "dt");
    json_t *desc_a = json_object_get(c, "motionA"), *desc_b = json_object_get(c, "motionB");
    json_t *cross = json_object_get(c, "crossfade"), *events = json_object_get(c, "events");
    const uint32_t P = (uint32_t)json_array_size(params);
    crowd_parameter_desc *pd = calloc(P, sizeof *pd);
    for (uint32_t i = 0; i < P; i++) {
        json_t *p = json_array_get(params, i);
        pd[i] = crowd_parameter_defaults(json_string_value(json_object_get(p, "id")));
        pd[i].min = (float)json_number_value(json_object_get(p, "min"));
        pd[i].max = (float)json_number_value(json_object_get(p, "max"));
        pd[i].default_value = (float)json_number_value(json_object_get(p, "default"));
    }
    clip_data clips[2];
    uint32_t clip_count = json_is_object(desc_b) ? 2 : 1;
    json_t *descs[2] = {desc_a, desc_b};
    crowd_motion_clip cc[2];
    for (uint32_t k = 0; k < clip_count; k++) {
        if (!clip_load(&clips[k], json_string_value(json_object_get(descs[k], "file")),
                       json_number_value(json_object_get(descs[k], "effectiveFadeInSeconds")),
                       json_number_value(json_object_get(descs[k], "effectiveFadeOutSeconds"))))
            FAILF("%s: motion %u", file, k);
        cc[k] = clips[k].clip;
    }
    /* the model3's EyeBlink and LipSync ids that are parameters of the model */
    const char *eye[64], *lip[64];
    uint32_t ne = 0, nl = 0;
    size_t k;
    json_t *id;
    json_array_foreach(json_object_get(c, "eyeBlinkIds"), k, id) if (ids_contain(params, json_string_value(id)) && ne < 64)
        eye[ne++] = json_string_value(id);
    json_array_foreach(json_object_get(c, "lipSyncIds"), k, id) if (ids_contain(params, json_string_value(id)) && nl < 64)
        lip[nl++] = json_string_value(id);
    crowd_motion_desc md = crowd_motion_defaults();
    md.clips = cc, md.clip_count = clip_count;
    md.eye_blink_ids = eye, md.eye_blink_count = ne, md.lip_sync_ids = lip, md.lip_sync_count = nl;
    crowd_rig_desc rd = crowd_rig_defaults();
    rd.name = file, rd.parameters = pd, rd.parameter_count = P, rd.motion = &md;
    crowd_engine *e = crowd_test_engine(1);
    crowd_rig rig;
    OK(e, crowd_rig_create(e, &rd, &rig));
    enum { N = 17 };
    crowd_instance h[N];
    crowd_add_desc add = crowd_add_defaults(rig, N);
    OK(e, crowd_instances_add(e, &add, h));
    crowd_motion_start_desc sa = crowd_motion_start_defaults(0);
    sa.priority = CROWD_MOTION_PRIORITY_FORCE; /* the traces call startMotionPriority directly */
    sa.loop = json_is_true(json_object_get(desc_a, "loop"));
    OK(e, crowd_motion_start(e, h, N, &sa, NULL));
    long cross_frame = json_is_object(cross) ? (long)json_integer_value(json_object_get(cross, "startBeforeFrame")) : -1;
    /* column lookups, once */
    const size_t ncol = json_array_size(columns);
    int *kind = calloc(ncol, sizeof *kind); /* 1 param, 2 pseudo, 3 opacity, 4 updated, 5 finished */
    uint32_t *index = calloc(ncol, sizeof *index);
    for (size_t col = 1; col < ncol; col++) {
        const char *name = json_string_value(json_array_get(columns, col));
        const char *colon = strchr(name, ':');
        if (strncmp(name, "param:", 6) == 0) {
            kind[col] = 1;
            OK(e, crowd_rig_parameter_index(e, rig, colon + 1, &index[col]));
        } else if (strncmp(name, "notExistParam:", 14) == 0) {
            kind[col] = crowd_rig_motion_pseudo_index(e, rig, colon + 1, &index[col]) == CROWD_OK ? 2 : 0;
        } else if (strcmp(name, "modelOpacity") == 0) {
            kind[col] = 3;
        } else if (strcmp(name, "motionUpdated") == 0) {
            kind[col] = 4;
        } else if (strcmp(name, "managerIsFinished") == 0) {
            kind[col] = 5;
        }
    }
    golden_worst w = {0};
    size_t next_event = 0;
    crowd_motion_event fired[64];
    float *outs = calloc((size_t)P * N, sizeof *outs);
    for (size_t f = 0; f < json_array_size(frames); f++) {
        if ((long)f == cross_frame) {
            crowd_motion_start_desc sb = crowd_motion_start_defaults(1);
            sb.priority = CROWD_MOTION_PRIORITY_FORCE;
            sb.loop = json_is_true(json_object_get(desc_b, "loop"));
            OK(e, crowd_motion_start(e, h, N, &sb, NULL));
        }
        OK(e, crowd_tick_exact(e, json_number_value(json_array_get(dts, f))));
        for (uint32_t i = 0; i < N; i++) OK(e, crowd_get_outputs(e, h[i], outs + (size_t)i * P, P));
        for (uint32_t i = 1; i < N; i++) w.rows_differ += memcmp(outs, outs + (size_t)i * P, sizeof(float) * P) != 0;
        crowd_motion_status st;
        OK(e, crowd_motion_status_get(e, h[0], &st));
        json_t *row = json_array_get(frames, f);
        for (size_t col = 1; col < ncol; col++) {
            json_t *cell = json_array_get(row, col);
            if (json_is_null(cell)) continue;
            double want = json_number_value(cell), got = 0;
            if (json_is_true(cell)) want = 1;
            float value;
            switch (kind[col]) {
            case 1: {
                got = outs[index[col]];
                double err = fabs(got - want) / ((double)pd[index[col]].max - pd[index[col]].min);
                if (err > w.parameter || isnan(err)) {
                    w.parameter = isnan(err) ? INFINITY : err;
                    snprintf(w.parameter_where, sizeof w.parameter_where, "%s @%zu: %.9g vs %.9g",
                             json_string_value(json_array_get(columns, col)), f, got, want);
                }
                break;
            }
            case 2:
                OK(e, crowd_get(e, h[0], CROWD_FIELD_MOTION_PSEUDO, index[col], &value));
                w.pseudo = fmax(w.pseudo, fabs(value - want));
                break;
            case 3:
                OK(e, crowd_get(e, h[0], CROWD_FIELD_MOTION_OPACITY, 0, &value));
                w.opacity = fmax(w.opacity, fabs(value - want));
                break;
            case 4:
                OK(e, crowd_get(e, h[0], CROWD_FIELD_MOTION_UPDATED, 0, &value));
                w.flags += value != (float)want;
                break;
            case 5: w.flags += (st.playing == 0) != (want != 0); break;
            default: break;
            }
        }
        uint32_t n = 0;
        uint64_t lost = 0;
        OK(e, crowd_motion_events(e, fired, 64, &n, &lost));
        if (lost) FAILF("%s: frame %zu lost %llu events", file, f, (unsigned long long)lost);
        for (uint32_t q = 0; q < n; q++) {
            if (fired[q].instance.id != h[0].id) continue;
            json_t *ev = json_array_get(events, next_event++);
            const char *value = json_string_value(json_object_get(ev, "value"));
            if (!ev || (size_t)json_integer_value(json_object_get(ev, "frame")) != f || fired[q].clip != 0 ||
                strcmp(clips[0].data.events[fired[q].event].value, value) != 0 ||
                fabs(fired[q].time - json_number_value(json_object_get(ev, "userTime"))) > 1e-9)
                w.events_off++;
        }
    }
    w.events_off += labs((long)json_array_size(events) - (long)next_event);
    printf("%-52s param %.3g (%s)  pseudo %.3g  opacity %.3g  flags %ld  events %zu, %ld off\n", file, w.parameter,
           w.parameter_where[0] ? w.parameter_where : "-", w.pseudo, w.opacity, w.flags, json_array_size(events),
           w.events_off);
    *overall = fmax(*overall, w.parameter);
    bool ok = w.parameter <= 1e-5 && w.pseudo <= 1e-5 && w.opacity <= 1e-5 && w.flags == 0 && w.events_off == 0 &&
              w.rows_differ == 0;
    free(outs);
    free(kind);
    free(index);
    crowd_engine_destroy(e);
    for (uint32_t q = 0; q < clip_count; q++) clip_free(&clips[q]);
    free(pd);
    json_decref(c);
    if (!ok) FAILF("%s: outside the tolerance (the line above; rows differing %ld)", file, w.rows_differ);
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void test_golden(void **state) {
    (void)state;
    char dir[2048];
    snprintf(dir, sizeof dir, "%s/motion", g_root);
    char *names[256];
    size_t n = 0;
    DIR *d = opendir(dir);
    if (!d) FAILF("cannot list %s", dir);
    struct dirent *ent;
    while (n < 256 && (ent = readdir(d)))
        if (strstr(ent->d_name, ".json")) names[n++] = strdup(ent->d_name);
    closedir(d);
    qsort(names, n, sizeof names[0], by_name);
    if (n < 40) FAILF("only %zu motion cases in %s", n, dir);
    double overall = 0;
    for (size_t k = 0; k < n; k++) {
        run_case(names[k], &overall);
        free(names[k]);
    }
    printf("motion golden on %s: %zu cases, worst parameter error %.3g of its range\n", crowd_simd_name(crowd_test_simd),
           n, overall);
}

/* ---- a crowd: the idle and gesture clips of two sample models, one rig ---- */
#define CROWD_CLIPS 4
static const char *const crowd_files[CROWD_CLIPS] = {
    "Haru/motions/haru_g_idle.motion3.json", "Haru/motions/haru_g_m09.motion3.json",
    "Hiyori/motions/Hiyori_m01.motion3.json", "Synthetic/motions/synthetic_segments.motion3.json"};

typedef struct crowd_world {
    clip_data clips[CROWD_CLIPS];
    crowd_motion_clip cc[CROWD_CLIPS];
    crowd_parameter_desc *params;
    char **ids;
    uint32_t P;
    crowd_motion_desc md;
    crowd_rig_desc rd;
} crowd_world;

static void world_init(crowd_world *w) {
    memset(w, 0, sizeof *w);
    for (int k = 0; k < CROWD_CLIPS; k++) {
        if (!clip_load(&w->clips[k], crowd_files[k], 0.5, 0.5)) FAILF("cannot read %s", crowd_files[k]);
        w->cc[k] = w->clips[k].clip;
    }
    /* every parameter curve's id a parameter, -10..10, but the first two part ids: pseudo */
    w->ids = calloc(4096, sizeof *w->ids);
    w->params = calloc(4096, sizeof *w->params);
    for (int k = 0; k < CROWD_CLIPS; k++)
        for (uint32_t j = 0; j < w->clips[k].data.curve_count; j++) {
            const cubism_curve *cv = &w->clips[k].data.curves[j];
            if (cv->target != CUBISM_TARGET_PARAMETER) continue;
            bool seen = false;
            for (uint32_t q = 0; q < w->P && !seen; q++) seen = strcmp(w->ids[q], cv->id) == 0;
            if (seen || w->P == 4096) continue;
            w->ids[w->P] = cv->id;
            w->params[w->P] = crowd_parameter_defaults(cv->id);
            w->params[w->P].min = -10, w->params[w->P].max = 10;
            w->P++;
        }
    static const char *eye[] = {"ParamEyeLOpen", "ParamEyeROpen"}, *lip[] = {"ParamMouthOpenY"};
    static const uint32_t idle[] = {0, 2};
    w->md = crowd_motion_defaults();
    w->md.clips = w->cc, w->md.clip_count = CROWD_CLIPS;
    w->md.eye_blink_ids = eye, w->md.eye_blink_count = 2, w->md.lip_sync_ids = lip, w->md.lip_sync_count = 1;
    w->md.idle_clips = idle, w->md.idle_count = 2;
    w->rd = crowd_rig_defaults();
    w->rd.name = "crowd", w->rd.parameters = w->params, w->rd.parameter_count = w->P, w->rd.motion = &w->md;
}

static void world_free(crowd_world *w) {
    for (int k = 0; k < CROWD_CLIPS; k++) clip_free(&w->clips[k]);
    free(w->ids);
    free(w->params);
}

static uint32_t lcg(uint64_t *s) {
    *s = *s * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(*s >> 33);
}
static double unit(uint64_t *s) { return lcg(s) / 2147483648.0; }

enum { CROWD_N = 2000 };

static crowd_engine *crowd_make(crowd_world *w, crowd_simd simd, uint32_t threads, crowd_rig *rig, crowd_instance *h) {
    crowd_engine_desc ed = crowd_engine_defaults();
    ed.seed = 99, ed.simd = simd, ed.threads = threads;
    crowd_engine *e = NULL;
    OK(NULL, crowd_engine_create(&ed, &e));
    OK(e, crowd_rig_create(e, &w->rd, rig));
    crowd_add_desc add = crowd_add_defaults(*rig, CROWD_N);
    OK(e, crowd_instances_add(e, &add, h));
    uint64_t s = 7;
    for (uint32_t i = 0; i < CROWD_N; i++) {
        float speed = (float)(0.25 + 2.0 * unit(&s)), weight = (float)unit(&s);
        OK(e, crowd_set(e, h[i], CROWD_FIELD_MOTION_SPEED, 0, &speed));
        OK(e, crowd_set(e, h[i], CROWD_FIELD_MOTION_WEIGHT, 0, &weight));
        crowd_motion_start_desc sd = crowd_motion_start_defaults(lcg(&s) % CROWD_CLIPS);
        sd.loop = lcg(&s) % 2, sd.offset = 10.0 * unit(&s);
        if (i % 5 == 0) continue; /* these start from the idle group */
        OK(e, crowd_motion_start(e, &h[i], 1, &sd, NULL));
    }
    return e;
}

/* frame f's input: some instances get a new motion (normal priority: the reserve rule decides) */
static void crowd_frame(crowd_engine *e, const crowd_instance *h, uint32_t f) {
    uint64_t s = 1000 + f;
    for (uint32_t q = 0; q < 40; q++) {
        crowd_motion_start_desc sd = crowd_motion_start_defaults(lcg(&s) % CROWD_CLIPS);
        sd.priority = (crowd_motion_priority)(1 + lcg(&s) % 3);
        sd.loop = lcg(&s) % 2;
        sd.fade_in = unit(&s), sd.fade_out = unit(&s);
        OK(e, crowd_motion_start(e, &h[lcg(&s) % CROWD_N], 1, &sd, NULL));
    }
}
static double crowd_dt(uint32_t f) { return f % 7 == 3 ? 0.05 : f % 11 == 0 ? 0.0 : 1.0 / 60; }

/* Every column of every rig (the whole per-instance state: outputs, playback, saved values),
 * as bytes; handles are left out (they carry each engine's own tag). */
static uint64_t state_hash(crowd_engine *e) {
    uint64_t hsh = 0xcbf29ce484222325ull;
    for (uint32_t k = 0; k < e->rig_count; k++) {
        const crowdi_rig *r = e->rigs[k];
        for (uint32_t c = 0; c < r->column_count; c++) {
            const uint8_t *b = (const uint8_t *)r->columns[c];
            for (size_t q = 0; q < (size_t)r->count * 4; q++) hsh = (hsh ^ b[q]) * 0x100000001b3ull;
        }
    }
    return hsh;
}

static void test_determinism(void **state) {
    (void)state;
    crowd_world w;
    world_init(&w);
    enum { ENGINES = 5 };
    crowd_rig rig[ENGINES];
    crowd_instance *h[ENGINES];
    crowd_engine *e[ENGINES];
    const crowd_simd simd[ENGINES] = {crowd_test_simd, CROWD_SIMD_SCALAR, crowd_test_simd, crowd_test_simd, crowd_test_simd};
    const uint32_t threads[ENGINES] = {1, 1, 3, 1, 1};
    for (int k = 0; k < ENGINES; k++) {
        h[k] = calloc(CROWD_N, sizeof *h[k]);
        e[k] = crowd_make(&w, simd[k], threads[k], &rig[k], h[k]);
    }
    /* engine 4 blends every row on its own: the block blends of the others (crowdi_motion_clip.
     * blocked) must give the same bits */
    uint32_t blocked = 0, clips = 0;
    for (uint32_t k = 0; k < e[4]->rig_count; k++) {
        crowdi_motion_view *mv = (crowdi_motion_view *)e[4]->rigs[k]->controller[CROWDI_CTL_MOTION];
        if (!mv) continue;
        if (!mv->block_columns) FAILF("rig %u: no block blends (%u saved columns)", k, mv->saved_count);
        for (uint32_t c = 0; c < mv->clip_count; c++) blocked += mv->clips[c].blocked, clips++;
        mv->block_columns = 0;
    }
    if (blocked == 0 || blocked == clips) FAILF("%u of %u clips blocked: both kinds are wanted here", blocked, clips);
    uint64_t split = 5;
    uint64_t events[ENGINES] = {0};
    crowd_motion_event buf[256];
    for (uint32_t f = 0; f < 240; f++) {
        for (int k = 0; k < ENGINES; k++) {
            crowd_frame(e[k], h[k], f);
            if (k == 3) { /* random ranges, not on block boundaries */
                uint32_t at = 0;
                while (at < CROWD_N) {
                    uint32_t n = 1 + lcg(&split) % 700;
                    if (n > CROWD_N - at) n = CROWD_N - at;
                    OK(e[k], crowd_tick_range_exact(e[k], crowd_dt(f), rig[k], at, n));
                    at += n;
                }
            } else {
                OK(e[k], crowd_tick_exact(e[k], crowd_dt(f)));
            }
            uint32_t n = 0;
            uint64_t lost = 0;
            OK(e[k], crowd_motion_events(e[k], buf, 256, &n, &lost));
            for (uint32_t q = 0; q < n; q++) {
                uint32_t row;
                OK(e[k], crowd_instance_info(e[k], buf[q].instance, NULL, NULL, &row));
                events[k] = events[k] * 31 + row * 7 + buf[q].clip * 3 + buf[q].event;
            }
            events[k] += lost;
        }
    }
    uint64_t hash0 = state_hash(e[0]);
    for (int k = 1; k < ENGINES; k++) {
        uint64_t hk = state_hash(e[k]);
        if (hk != hash0 || events[k] != events[0])
            FAILF("engine %d (%s, %u threads%s) differs from %s: state %016llx vs %016llx, events %llx vs %llx", k,
                  crowd_simd_name(simd[k]), threads[k], k == 3 ? ", ranges" : k == 4 ? ", rows one by one" : "",
                  crowd_simd_name(simd[0]),
                  (unsigned long long)hk, (unsigned long long)hash0, (unsigned long long)events[k],
                  (unsigned long long)events[0]);
    }
    /* the outputs move and stay within their ranges */
    float *col;
    uint32_t rows;
    OK(e[0], crowd_rig_column(e[0], rig[0], CROWD_FIELD_OUTPUT, 0, 0, &col, &rows));
    uint32_t distinct = 0;
    for (uint32_t i = 1; i < rows; i++) distinct += col[i] != col[0];
    if (distinct < rows / 2) FAILF("only %u of %u instances differ in parameter 0", distinct, rows);
    printf("determinism: %u instances, 240 ticks: %s = scalar = 3 threads = ranges = rows one by one (%u of %u clips "
           "blended in blocks; events hash %016llx)\n",
           CROWD_N, crowd_simd_name(crowd_test_simd), blocked, clips, (unsigned long long)events[0]);
    for (int k = 0; k < ENGINES; k++) {
        crowd_engine_destroy(e[k]);
        free(h[k]);
    }
    world_free(&w);
}

static void test_snapshot_mid_fade(void **state) {
    (void)state;
    crowd_world w;
    world_init(&w);
    crowd_rig rig;
    crowd_instance *h = calloc(CROWD_N, sizeof *h);
    crowd_engine *a = crowd_make(&w, crowd_test_simd, 1, &rig, h);
    for (uint32_t f = 0; f < 60; f++) {
        crowd_frame(a, h, f);
        OK(a, crowd_tick_exact(a, crowd_dt(f)));
    }
    /* everyone cross-fades into clip 1 with a 1 s fade: mid-fade after 0.3 s */
    crowd_motion_start_desc sd = crowd_motion_start_defaults(1);
    sd.priority = CROWD_MOTION_PRIORITY_FORCE, sd.fade_in = 1.0;
    OK(a, crowd_motion_start(a, h, CROWD_N, &sd, NULL));
    for (uint32_t f = 0; f < 18; f++) OK(a, crowd_tick_exact(a, 1.0 / 60));
    crowd_motion_status st;
    OK(a, crowd_motion_status_get(a, h[1], &st));
    if (st.playing != 2) FAILF("instance 1 plays %u entries mid-fade, expected 2", st.playing);
    size_t n = 0;
    OK(a, crowd_snapshot_size(a, &n));
    void *bytes = malloc(n);
    OK(a, crowd_snapshot_save(a, bytes, n, &n));
    crowd_engine *b = crowd_test_engine(5);
    OK(b, crowd_snapshot_load(b, bytes, n));
    free(bytes);
    for (uint32_t f = 0; f < 90; f++) {
        crowd_frame(a, h, 500 + f);
        crowd_frame(b, h, 500 + f);
        OK(a, crowd_tick_exact(a, crowd_dt(f)));
        OK(b, crowd_tick_exact(b, crowd_dt(f)));
    }
    if (state_hash(a) != state_hash(b)) FAILF("the loaded engine diverged from the saving one");
    crowd_engine_destroy(a);
    crowd_engine_destroy(b);
    free(h);
    world_free(&w);
}

/* ---- bad input ---- */
static void expect_refused(crowd_engine *e, const crowd_rig_desc *rd, crowd_result code, const char *field) {
    crowd_rig rig;
    crowd_result r = crowd_rig_create(e, rd, &rig);
    if (r != code) FAILF("bad %s: %s, expected %s (%s)", field, rname(r), rname(code), crowd_last_error(e));
    if (!strstr(crowd_last_error(e), field)) FAILF("the message \"%s\" does not name %s", crowd_last_error(e), field);
}

static void test_bad_input(void **state) {
    (void)state;
    crowd_world w;
    world_init(&w);
    crowd_engine *e = crowd_test_engine(3);
    crowd_motion_clip bad[CROWD_CLIPS];
    crowd_motion_desc md;
    crowd_rig_desc rd = w.rd;
    rd.motion = &md;
#define RESET() (memcpy(bad, w.cc, sizeof bad), md = w.md, md.clips = bad)
    RESET(), bad[1].duration = 0;
    expect_refused(e, &rd, CROWD_ERR_RANGE, "clips[1].duration");
    RESET(), bad[2].fps = NAN;
    expect_refused(e, &rd, CROWD_ERR_NOT_FINITE, "clips[2]");
    RESET(), bad[0].fade_out = -2;
    expect_refused(e, &rd, CROWD_ERR_RANGE, "clips[0].fade_out");
    uint8_t types[4096];
    memcpy(types, w.cc[0].segment_types, w.cc[0].segment_count);
    RESET(), types[3] = 9, bad[0].segment_types = types;
    expect_refused(e, &rd, CROWD_ERR_BAD_ENUM, "clips[0].segment_types[3]");
    uint32_t spts[4096];
    memcpy(spts, w.cc[0].segment_points, sizeof(uint32_t) * w.cc[0].segment_count);
    RESET(), spts[5] = w.cc[0].point_count, bad[0].segment_points = spts;
    expect_refused(e, &rd, CROWD_ERR_RANGE, "clips[0].segment_points[5]");
    crowd_motion_curve curves[512];
    memcpy(curves, w.cc[1].curves, sizeof(crowd_motion_curve) * w.cc[1].curve_count);
    RESET(), curves[0].target = CROWD_MOTION_TARGET_PART_OPACITY, bad[1].curves = curves;
    expect_refused(e, &rd, CROWD_ERR_RANGE, "clips[1].curves[1].target");
    memcpy(curves, w.cc[1].curves, sizeof(crowd_motion_curve) * w.cc[1].curve_count);
    RESET(), curves[4].segment_count = 0, bad[1].curves = curves;
    expect_refused(e, &rd, CROWD_ERR_RANGE, "clips[1].curves[4]");
    memcpy(curves, w.cc[1].curves, sizeof(crowd_motion_curve) * w.cc[1].curve_count);
    RESET(), curves[2].id = NULL, bad[1].curves = curves;
    expect_refused(e, &rd, CROWD_ERR_NULL, "clips[1].curves[2].id");
    crowd_motion_point pts[8192];
    memcpy(pts, w.cc[2].points, sizeof(crowd_motion_point) * w.cc[2].point_count);
    RESET(), pts[7].value = INFINITY, bad[2].points = pts;
    expect_refused(e, &rd, CROWD_ERR_NOT_FINITE, "clips[2].points[7]");
    static const char *nobody[] = {"NoSuchParameter"};
    static const uint32_t idle_bad[] = {0, 9};
    RESET(), md.eye_blink_ids = nobody, md.eye_blink_count = 1;
    expect_refused(e, &rd, CROWD_ERR_UNKNOWN_ID, "eye_blink_ids[0]");
    RESET(), md.idle_clips = idle_bad;
    expect_refused(e, &rd, CROWD_ERR_RANGE, "idle_clips[1]");
    RESET(), md.clips = NULL;
    expect_refused(e, &rd, CROWD_ERR_NULL, "clips");
    if (crowd_rig_parameter_count(e, (crowd_rig){1}) != 0) FAILF("a refused desc made a rig");
    /* starts: bad fields change nothing */
    crowd_rig rig;
    OK(e, crowd_rig_create(e, &w.rd, &rig));
    crowd_instance h[2];
    crowd_add_desc add = crowd_add_defaults(rig, 2);
    OK(e, crowd_instances_add(e, &add, h));
    crowd_motion_start_desc sd = crowd_motion_start_defaults(1);
    OK(e, crowd_motion_start(e, h, 1, &sd, NULL));
    crowd_motion_status before, after;
    OK(e, crowd_motion_status_get(e, h[0], &before));
    const struct {
        crowd_motion_start_desc d;
        crowd_result code;
        const char *field;
    } starts[] = {
        {{.clip = CROWD_CLIPS, .priority = CROWD_MOTION_PRIORITY_FORCE, .fade_in = -1, .fade_out = -1}, CROWD_ERR_RANGE, "desc->clip"},
        {{.clip = 0, .priority = CROWD_MOTION_PRIORITY_NONE, .fade_in = -1, .fade_out = -1}, CROWD_ERR_BAD_ENUM, "desc->priority"},
        {{.clip = 0, .priority = CROWD_MOTION_PRIORITY_FORCE, .fade_in = NAN, .fade_out = -1}, CROWD_ERR_NOT_FINITE, "desc->fade_in"},
        {{.clip = 0, .priority = CROWD_MOTION_PRIORITY_FORCE, .fade_in = -1, .fade_out = -1, .offset = -1}, CROWD_ERR_RANGE, "desc->offset"},
    };
    for (size_t k = 0; k < sizeof starts / sizeof starts[0]; k++) {
        crowd_result r = crowd_motion_start(e, h, 2, &starts[k].d, NULL);
        if (r != starts[k].code || !strstr(crowd_last_error(e), starts[k].field))
            FAILF("start %zu: %s (%s), expected %s naming %s", k, rname(r), crowd_last_error(e), rname(starts[k].code),
                  starts[k].field);
        OK(e, crowd_motion_status_get(e, h[0], &after));
        if (memcmp(&before, &after, sizeof before) != 0) FAILF("start %zu changed the instance", k);
    }
    /* the reserve rule: a normal start over a normal one is refused, force plays */
    bool started = true;
    OK(e, crowd_motion_start(e, h, 1, &sd, &started));
    if (started) FAILF("a normal start over a normal motion played");
    sd.priority = CROWD_MOTION_PRIORITY_FORCE;
    OK(e, crowd_motion_start(e, h, 1, &sd, &started));
    if (!started) FAILF("a forced start did not play");
    crowd_engine_destroy(e);
    world_free(&w);
}

/* Auto-blink does not run on an instance a motion updated this tick (the Cubism samples'
 * order): there the motion's eye values come out as without blink; an instance with nothing
 * playing blinks. */
static void test_blink_defers(void **state) {
    (void)state;
    crowd_world w;
    world_init(&w);
    w.md.idle_count = 0;
    static const char *eyes[] = {"ParamEyeLOpen"};
    crowd_blink_desc blink = crowd_blink_defaults();
    blink.parameters = eyes, blink.parameter_count = 1;
    crowd_rig_desc with = w.rd;
    with.blink = &blink;
    crowd_engine *e = crowd_test_engine(11);
    crowd_rig rigs[2];
    OK(e, crowd_rig_create(e, &w.rd, &rigs[0]));
    OK(e, crowd_rig_create(e, &with, &rigs[1]));
    crowd_instance plain[17], blinking[17];
    crowd_add_desc add = crowd_add_defaults(rigs[0], 17);
    add.blink_start = CROWD_BLINK_START_CUBISM;
    OK(e, crowd_instances_add(e, &add, plain));
    add.rig = rigs[1];
    OK(e, crowd_instances_add(e, &add, blinking));
    crowd_motion_start_desc sd = crowd_motion_start_defaults(0); /* haru_g_idle: animates the eyes */
    sd.loop = true;
    OK(e, crowd_motion_start(e, plain, 16, &sd, NULL));
    OK(e, crowd_motion_start(e, blinking, 16, &sd, NULL)); /* row 16 plays nothing */
    uint32_t eye;
    OK(e, crowd_rig_parameter_index(e, rigs[1], "ParamEyeLOpen", &eye));
    float lowest = 1;
    for (int f = 0; f < 120; f++) {
        OK(e, crowd_tick_exact(e, 1.0 / 60));
        for (int i = 0; i < 17; i++) {
            float a, b, updated;
            OK(e, crowd_get(e, plain[i], CROWD_FIELD_OUTPUT, eye, &a));
            OK(e, crowd_get(e, blinking[i], CROWD_FIELD_OUTPUT, eye, &b));
            OK(e, crowd_get(e, blinking[i], CROWD_FIELD_MOTION_UPDATED, 0, &updated));
            if ((updated == 1) != (i < 16)) FAILF("frame %d row %d: motion_updated %g", f, i, updated);
            if (i < 16 && fbits(a) != fbits(b)) FAILF("frame %d row %d: blink ran under a motion (%.9g vs %.9g)", f, i, b, a);
            if (i == 16) lowest = b < lowest ? b : lowest;
        }
    }
    if (!(lowest < 0.5f)) FAILF("the instance without a motion never blinked (lowest eye %g)", lowest);
    crowd_engine_destroy(e);
    world_free(&w);
}

/* A motion's PartOpacity curve drives the pose (crowd.h sections 14, 15): Haru's idle holds
 * Part01ArmRA001 at 1 and Part01ArmRB001 at 0. With the pose's group listing RB first (the part
 * a reset shows), only the motion's values can bring RA up: the pose must read them, bit for bit
 * what the same motion writes in a rig without a pose. */
static void test_motion_drives_pose(void **state) {
    (void)state;
    crowd_world w;
    world_init(&w);
    w.md.idle_count = 0;
    static const crowd_pose_part_desc arm_parts[] = {{"Part01ArmRB001", NULL, 0}, {"Part01ArmRA001", NULL, 0}};
    static const crowd_pose_group_desc arm_group = {arm_parts, 2};
    crowd_pose_desc pose = crowd_pose_defaults();
    pose.groups = &arm_group, pose.group_count = 1;
    crowd_rig_desc with = w.rd;
    with.pose = &pose;
    crowd_engine *e = crowd_test_engine(11);
    crowd_rig rigs[2];
    OK(e, crowd_rig_create(e, &w.rd, &rigs[0]));
    OK(e, crowd_rig_create(e, &with, &rigs[1]));
    crowd_instance plain[17], posed[17];
    crowd_add_desc add = crowd_add_defaults(rigs[0], 17);
    OK(e, crowd_instances_add(e, &add, plain));
    add.rig = rigs[1];
    OK(e, crowd_instances_add(e, &add, posed));
    crowd_motion_start_desc sd = crowd_motion_start_defaults(0); /* haru_g_idle */
    sd.loop = true;
    OK(e, crowd_motion_start(e, plain, 17, &sd, NULL));
    OK(e, crowd_motion_start(e, posed, 17, &sd, NULL));
    uint32_t ra, rb;
    OK(e, crowd_rig_motion_pseudo_index(e, rigs[0], "Part01ArmRA001", &ra));
    OK(e, crowd_rig_motion_pseudo_index(e, rigs[0], "Part01ArmRB001", &rb));
    for (int f = 0; f < 60; f++) {
        OK(e, crowd_tick_exact(e, 1.0 / 60));
        if (f == 0) continue; /* the pose's first update resets its parameters, as the framework's */
        for (int i = 0; i < 17; i++) {
            float want_a, want_b, got_a, got_b;
            OK(e, crowd_get(e, plain[i], CROWD_FIELD_MOTION_PSEUDO, ra, &want_a));
            OK(e, crowd_get(e, plain[i], CROWD_FIELD_MOTION_PSEUDO, rb, &want_b));
            OK(e, crowd_get(e, posed[i], CROWD_FIELD_PART_PARAMETER, 1, &got_a));
            OK(e, crowd_get(e, posed[i], CROWD_FIELD_PART_PARAMETER, 0, &got_b));
            if (fbits(got_a) != fbits(want_a) || fbits(got_b) != fbits(want_b))
                FAILF("frame %d row %d: the pose reads RA %.9g RB %.9g, the motion wrote %.9g %.9g", f, i, got_a, got_b,
                      want_a, want_b);
        }
    }
    for (int i = 0; i < 17; i++) {
        float a, b;
        OK(e, crowd_get(e, posed[i], CROWD_FIELD_PART_OPACITY, 1, &a));
        OK(e, crowd_get(e, posed[i], CROWD_FIELD_PART_OPACITY, 0, &b));
        if (a != 1.0f || !(b < 0.2f)) FAILF("row %d: after 1 s the motion's part shows at %g, the other at %g", i, a, b);
    }
    crowd_engine_destroy(e);
    world_free(&w);
}

/* ---- random curves: the stage's pieces against the framework's own evaluation ----
 * The stage plays each curve as pieces of cubics (kernels/motion.h); an unrestricted bezier
 * is fitted to the framework's root solving. Random clips of every segment kind, the beziers'
 * handles anywhere in time (crossing ones too, where the solved root jumps), tiny segments,
 * played by the engine and by the per-object reference (bench/cubism_reference.c: the
 * framework's Cardano step for step, trigonometry and all) from the same dt stream: every
 * value within 1e-6 of the range per frame, on the target under test. */
enum { RC_CURVES = 12, RC_SEGMENTS = 40 };

static void random_clip(uint64_t *seed, bool restricted, cubism_motion *d, cubism_curve *curves, char ids[][16],
                        uint8_t *types, uint32_t *points_of, cubism_point *points) {
    memset(d, 0, sizeof *d);
    uint32_t s = 0, p = 0;
    for (uint32_t c = 0; c < RC_CURVES; c++) {
        snprintf(ids[c], 16, "P%u", c);
        curves[c] = (cubism_curve){ids[c], CUBISM_TARGET_PARAMETER, -1.0, -1.0, s, RC_SEGMENTS};
        double t = 0.0;
        points[p++] = (cubism_point){t, 20.0 * unit(seed) - 10.0};
        for (uint32_t k = 0; k < RC_SEGMENTS; k++, s++) {
            /* mostly a few frames long; one in eight a nanosecond, to be held */
            const double w = k % 8 == 5 ? 1e-9 : 0.02 + 0.3 * unit(seed);
            const uint32_t kind = c == 0 ? lcg(seed) % 4u : c < 3 ? CUBISM_SEGMENT_LINEAR + 2u * (k % 2) : CUBISM_SEGMENT_BEZIER;
            types[s] = (uint8_t)kind, points_of[s] = p - 1;
            if (kind == CUBISM_SEGMENT_BEZIER) {
                /* the handles' times: usually inside, a quarter of curves anywhere in [-0.3, 1.3] */
                const double spread = c % 4 == 3 ? 1.6 : 1.0, lo = c % 4 == 3 ? -0.3 : 0.0;
                points[p++] = (cubism_point){t + w * (lo + spread * unit(seed)), 20.0 * unit(seed) - 10.0};
                points[p++] = (cubism_point){t + w * (lo + spread * unit(seed)), 20.0 * unit(seed) - 10.0};
            }
            t += w;
            points[p++] = (cubism_point){t, 20.0 * unit(seed) - 10.0};
        }
        if (t > d->duration) d->duration = t;
    }
    d->fps = 30.0, d->beziers_restricted = restricted, d->fade_in = 0.0, d->fade_out = 0.0;
    d->curve_count = RC_CURVES, d->segment_count = s, d->point_count = p;
    d->curves = curves, d->segment_types = types, d->segment_points = points_of, d->points = points;
}

static void test_random_curves(void **state) {
    (void)state;
    static cubism_curve curves[RC_CURVES];
    static char ids[RC_CURVES][16];
    static uint8_t types[RC_CURVES * RC_SEGMENTS];
    static uint32_t points_of[RC_CURVES * RC_SEGMENTS];
    static cubism_point points[RC_CURVES * (3 * RC_SEGMENTS + 1)];
    uint64_t seed = 20261203;
    double worst = 0.0;
    for (int round = 0; round < 8; round++) {
        const bool restricted = round % 4 == 3, loop = round % 2 == 1;
        clip_data cd = {0};
        random_clip(&seed, restricted, &cd.data, curves, ids, types, points_of, points);
        if (!clip_convert(&cd, 0.0, 0.0)) FAILF("round %d: out of memory", round);
        const cubism_motion *d = &cd.data;
        const char *id_list[RC_CURVES];
        float lo[RC_CURVES], hi[RC_CURVES], def[RC_CURVES];
        crowd_parameter_desc pd[RC_CURVES];
        for (uint32_t c = 0; c < RC_CURVES; c++) {
            id_list[c] = ids[c], lo[c] = -12.0f, hi[c] = 12.0f, def[c] = 0.0f;
            pd[c] = crowd_parameter_defaults(ids[c]);
            pd[c].min = lo[c], pd[c].max = hi[c], pd[c].default_value = def[c];
        }
        crowd_motion_desc md = crowd_motion_defaults();
        md.clips = &cd.clip, md.clip_count = 1;
        crowd_rig_desc rd = crowd_rig_defaults();
        rd.name = "random", rd.parameters = pd, rd.parameter_count = RC_CURVES, rd.motion = &md;
        crowd_engine *e = crowd_test_engine(1);
        crowd_rig rig;
        OK(e, crowd_rig_create(e, &rd, &rig));
        crowd_instance h;
        crowd_add_desc add = crowd_add_defaults(rig, 1);
        OK(e, crowd_instances_add(e, &add, &h));
        crowd_motion_start_desc sd = crowd_motion_start_defaults(0);
        sd.priority = CROWD_MOTION_PRIORITY_FORCE, sd.loop = loop;
        OK(e, crowd_motion_start(e, &h, 1, &sd, NULL));
        cubism_ref_model *model = cubism_ref_model_create(RC_CURVES, id_list, lo, hi, def, 0, NULL);
        cubism_ref_motion *motion = cubism_ref_motion_create(d, model, 0.0, 0.0, NULL, 0, NULL, 0);
        if (!model || !motion) FAILF("round %d: the reference is out of memory", round);
        cubism_ref_motion_set_loop(motion, loop);
        cubism_ref_motion_manager ref;
        cubism_ref_motion_manager_init(&ref);
        cubism_ref_start_motion(&ref, motion, 3);
        int32_t index[RC_CURVES];
        for (uint32_t c = 0; c < RC_CURVES; c++) index[c] = cubism_ref_parameter_index(model, ids[c]);
        /* irregular steps, some a few microseconds, over more than two passes of the clip */
        const uint32_t frames = (uint32_t)(2.2 * d->duration * 90.0);
        for (uint32_t f = 0; f < frames; f++) {
            const double dt = f % 13 == 7 ? 3e-6 : (0.5 + unit(&seed)) / 60.0;
            OK(e, crowd_tick_exact(e, dt));
            cubism_ref_load_parameters(model);
            cubism_ref_update_motion(&ref, model, dt);
            cubism_ref_save_parameters(model);
            float got[RC_CURVES];
            OK(e, crowd_get_outputs(e, h, got, RC_CURVES));
            for (uint32_t c = 0; c < RC_CURVES; c++) {
                const double err = fabs((double)got[c] - cubism_ref_get(model, index[c])) / (hi[c] - lo[c]);
                if (!(err <= 1e-6))
                    FAILF("round %d (%s, %s) frame %u %s: engine %.9g, reference %.9g", round,
                          restricted ? "restricted" : "unrestricted", loop ? "loop" : "once", f, ids[c], got[c],
                          cubism_ref_get(model, index[c]));
                worst = fmax(worst, err);
            }
        }
        cubism_ref_motion_destroy(motion);
        clip_release(&cd);
        cubism_ref_model_destroy(model);
        crowd_engine_destroy(e);
    }
    printf("random curves on %s: worst %.3g of the range against the per-object reference\n",
           crowd_simd_name(crowd_test_simd), worst);
}

int main(int argc, char **argv) {
    crowd_test_target(argc, argv);
    const char *root = crowd_test_data("cubism/README.md");
    if (!root) return 77;
    snprintf(g_root, sizeof g_root, "%s", root);
    char *slash = strrchr(g_root, '/');
    if (slash) *slash = 0;
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_golden),
        cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_snapshot_mid_fade),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_blink_defers),
        cmocka_unit_test(test_motion_drives_pose),
        cmocka_unit_test(test_random_curves),
    };
    return CROWD_TEST_GROUP("motion_engine", tests);
}
