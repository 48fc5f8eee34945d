/* The engine's pose and expression controllers against the golden traces of the real Cubism
 * Web Framework in ../shared/data/cubism (expression/ and pose/), on every SIMD target this
 * build has: the files read by the tools' readers (tools/cubism_files.c) into the public descs
 * (crowd.h section 14), played through crowd_tick for 19 instances at once (every lane of
 * every width and a tail), each compared frame by frame with the trace: a parameter within
 * 1e-5 of its range (max - min), a part opacity and a pose pseudo-parameter within 1e-5. The
 * other instances must equal the first bit for bit. The worst error of each case is printed.
 *
 * The Mao case runs its expressions over a looping motion; the engine's motion controller is
 * another stage, so the motion's values come from the per-object reference player
 * (bench/cubism_reference.c, itself held to the motion traces by cubism_golden) as the
 * instances' base values each frame, the framework's loadParameters/saveParameters state.
 *
 * argv[1]: the folder of the traces. Exits 77 (skipped) when it is absent. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>

#include "crowd.h"
#include "cubism_files.h"
#include "cubism_reference.h"

#define INSTANCES 19

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

/* The case's parameters as a rig's, and the reference model of them (for base motions). */
typedef struct model {
    uint32_t count;
    crowd_parameter_desc *params;
    const char **ids;
    float *minimum, *maximum, *defaults;
} model;

static bool model_read(model *m, json_t *c) {
    json_t *params = json_object_get(c, "parameters");
    m->count = (uint32_t)json_array_size(params);
    m->params = calloc(m->count + 1, sizeof *m->params);
    m->ids = calloc(m->count + 1, sizeof *m->ids);
    m->minimum = calloc(m->count + 1, sizeof(float));
    m->maximum = calloc(m->count + 1, sizeof(float));
    m->defaults = calloc(m->count + 1, sizeof(float));
    if (!m->params || !m->ids || !m->minimum || !m->maximum || !m->defaults) return false;
    for (uint32_t i = 0; i < m->count; i++) {
        json_t *p = json_array_get(params, i);
        m->ids[i] = json_string_value(json_object_get(p, "id"));
        m->minimum[i] = (float)json_number_value(json_object_get(p, "min"));
        m->maximum[i] = (float)json_number_value(json_object_get(p, "max"));
        m->defaults[i] = (float)json_number_value(json_object_get(p, "default"));
        m->params[i] = crowd_parameter_defaults(m->ids[i]);
        m->params[i].min = m->minimum[i];
        m->params[i].max = m->maximum[i];
        m->params[i].default_value = m->defaults[i];
    }
    return true;
}

static void model_free(model *m) {
    free(m->params);
    free(m->ids);
    free(m->minimum);
    free(m->maximum);
    free(m->defaults);
}

static int32_t model_find(const model *m, const char *id) {
    for (uint32_t i = 0; i < m->count; i++)
        if (strcmp(m->ids[i], id) == 0) return (int32_t)i;
    return -1;
}

typedef struct worst {
    double err;
    char where[160];
    long lane_mismatches;
    uint64_t hash; /* FNV-1a of every value compared: the same on every target */
} worst;

static void hash_value(worst *w, float v) {
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    for (int b = 0; b < 4; b++) w->hash = (w->hash ^ ((u >> (8 * b)) & 0xffu)) * 0x100000001b3ull;
}

static void note(worst *w, double err, const char *column, long frame) {
    if (err > w->err || isnan(err)) {
        w->err = isnan(err) ? INFINITY : err;
        snprintf(w->where, sizeof w->where, "%s @%ld", column, frame);
    }
}

static crowd_engine *make_engine(crowd_simd simd) {
    crowd_engine_desc ed = crowd_engine_defaults();
    ed.simd = simd;
    ed.seed = 1;
    crowd_engine *e = NULL;
    return crowd_engine_create(&ed, &e) == CROWD_OK ? e : NULL;
}

/* ---- expressions ---- */

static uint64_t run_expression_case(const char *name, json_t *c, crowd_simd simd) {
    model m = {0};
    crowd_engine *e = NULL;
    cubism_model3 m3 = {0};
    enum { MAX_EXPR = 8 };
    cubism_expression data[MAX_EXPR] = {{0}};
    crowd_expression_item_desc items[MAX_EXPR] = {{0}};
    crowd_expression_parameter_desc *entries[MAX_EXPR] = {0};
    long start_frame[MAX_EXPR];
    cubism_ref_model *ref = NULL;
    cubism_motion motion_data = {0};
    cubism_ref_motion *motion = NULL;
    cubism_ref_motion_manager mm;
    cubism_ref_motion_manager_init(&mm);
    crowd_instance h[INSTANCES];
    int32_t *col_param = NULL;
    worst w = {0, "", 0, 0xcbf29ce484222325ull};
    char path[1024];
    json_t *list = json_object_get(c, "expressions"), *frames = json_object_get(c, "frames");
    json_t *dts = json_object_get(c, "dt"), *columns = json_object_get(c, "columns");
    json_t *base_motion = json_object_get(c, "baseMotion");
    const size_t n_expr = json_array_size(list);
    CHECK(n_expr <= MAX_EXPR && model_read(&m, c), "%s: model", name);
    input_path(path, sizeof path, json_string_value(json_array_get(json_object_get(c, "sources"), 0)));
    CHECK(cubism_model3_read(path, &m3) == 0, "%s: %s", name, path);
    for (size_t k = 0; k < n_expr; k++) {
        json_t *x = json_array_get(list, k);
        input_path(path, sizeof path, json_string_value(json_object_get(x, "file")));
        CHECK(cubism_expression_read(path, &data[k]) == 0, "%s: %s", name, path);
        CHECK((entries[k] = calloc(data[k].parameter_count + 1, sizeof *entries[k])) != NULL, "%s: memory", name);
        for (uint32_t j = 0; j < data[k].parameter_count; j++)
            entries[k][j] = (crowd_expression_parameter_desc){data[k].parameters[j].id, (float)data[k].parameters[j].value,
                                                              (crowd_expression_blend)data[k].parameters[j].blend};
        items[k] = (crowd_expression_item_desc){entries[k], data[k].parameter_count, (float)data[k].fade_in,
                                                (float)data[k].fade_out};
        start_frame[k] = (long)json_integer_value(json_object_get(x, "startBeforeFrame"));
    }
    crowd_expression_desc xd = crowd_expression_defaults();
    xd.expressions = items;
    xd.expression_count = (uint32_t)n_expr;
    crowd_rig_desc rd = crowd_rig_defaults();
    rd.name = name;
    rd.parameters = m.params;
    rd.parameter_count = m.count;
    rd.expression = &xd;
    crowd_rig rig;
    CHECK((e = make_engine(simd)) != NULL, "%s: engine", name);
    CHECK(crowd_rig_create(e, &rd, &rig) == CROWD_OK, "%s: rig: %s", name, crowd_last_error(e));
    crowd_add_desc ad = crowd_add_defaults(rig, INSTANCES);
    CHECK(crowd_instances_add(e, &ad, h) == CROWD_OK, "%s: add: %s", name, crowd_last_error(e));
    json_t *base_values = json_object_get(json_object_get(c, "baseState"), "valuesFloat32");
    float values[INSTANCES];
    for (uint32_t i = 0; i < m.count; i++) {
        for (int k = 0; k < INSTANCES; k++) values[k] = (float)json_number_value(json_array_get(base_values, i));
        CHECK(crowd_instances_set(e, CROWD_FIELD_BASE, i, h, INSTANCES, values) == CROWD_OK, "%s: base", name);
    }
    if (json_is_object(base_motion)) { /* the motion under the expressions, by the reference player */
        ref = cubism_ref_model_create(m.count, m.ids, m.minimum, m.maximum, m.defaults, 0, NULL);
        CHECK(ref, "%s: reference model", name);
        for (uint32_t i = 0; i < m.count; i++)
            cubism_ref_set(ref, (int32_t)i, json_number_value(json_array_get(base_values, i)), 1.0);
        cubism_ref_save_parameters(ref);
        input_path(path, sizeof path, json_string_value(json_object_get(base_motion, "file")));
        CHECK(cubism_motion_read(path, &motion_data) == 0, "%s: %s", name, path);
        double fade_in = -1, fade_out = -1;
        const char *group = json_string_value(json_object_get(base_motion, "group"));
        size_t index = (size_t)json_integer_value(json_object_get(base_motion, "index"));
        for (uint32_t g = 0; group && g < m3.motion_group_count; g++)
            if (strcmp(m3.motion_groups[g].name, group) == 0 && index < m3.motion_groups[g].motion_count) {
                fade_in = m3.motion_groups[g].motions[index].fade_in;
                fade_out = m3.motion_groups[g].motions[index].fade_out;
            }
        motion = cubism_ref_motion_create(&motion_data, ref, fade_in, fade_out, (const char *const *)m3.eye_blink_ids,
                                          m3.eye_blink_count, (const char *const *)m3.lip_sync_ids, m3.lip_sync_count);
        CHECK(motion, "%s: reference motion", name);
        cubism_ref_motion_set_loop(motion, json_is_true(json_object_get(base_motion, "loop")));
        CHECK(cubism_ref_start_motion(&mm, motion, (int)json_integer_value(json_object_get(base_motion, "priority"))) >= 0,
              "%s: start motion", name);
    }
    const size_t n_cols = json_array_size(columns);
    col_param = calloc(n_cols, sizeof *col_param);
    CHECK(col_param, "%s: memory", name);
    for (size_t k = 0; k < n_cols; k++) {
        const char *col = json_string_value(json_array_get(columns, k));
        col_param[k] = strncmp(col, "param:", 6) == 0 ? model_find(&m, col + 6) : -1;
    }
    long compared = 0;
    for (size_t f = 0; f < json_array_size(frames); f++) {
        const float dt = (float)json_number_value(json_array_get(dts, f));
        for (size_t k = 0; k < n_expr; k++)
            if (start_frame[k] == (long)f)
                CHECK(crowd_expressions_start(e, h, INSTANCES, (uint32_t)k) == CROWD_OK, "%s: start: %s", name,
                      crowd_last_error(e));
        if (motion) {
            cubism_ref_load_parameters(ref);
            cubism_ref_update_motion(&mm, ref, json_number_value(json_array_get(dts, f)));
            cubism_ref_save_parameters(ref);
            for (uint32_t i = 0; i < m.count; i++) {
                for (int k = 0; k < INSTANCES; k++) values[k] = (float)cubism_ref_get(ref, (int32_t)i);
                crowd_instances_set(e, CROWD_FIELD_BASE, i, h, INSTANCES, values);
            }
        }
        CHECK(crowd_tick(e, dt) == CROWD_OK, "%s: tick: %s", name, crowd_last_error(e));
        json_t *row = json_array_get(frames, f);
        for (size_t k = 0; k < n_cols; k++) {
            if (col_param[k] < 0) continue;
            const uint32_t i = (uint32_t)col_param[k];
            crowd_instances_get(e, CROWD_FIELD_OUTPUT, i, h, INSTANCES, values);
            const double want = json_number_value(json_array_get(row, k));
            note(&w, fabs(values[0] - want) / (m.maximum[i] - m.minimum[i]), json_string_value(json_array_get(columns, k)),
                 (long)f);
            hash_value(&w, values[0]);
            for (int q = 1; q < INSTANCES; q++) w.lane_mismatches += memcmp(&values[q], &values[0], sizeof(float)) != 0;
            compared++;
        }
    }
    printf("%-8s %-46s expression: worst %.3g of range (%s), %ld values, lanes off %ld\n", crowd_simd_name(simd), name,
           w.err, w.where[0] ? w.where : "-", compared, w.lane_mismatches);
    CHECK(compared > 0 && w.err <= 1e-5 && w.lane_mismatches == 0, "%s (%s): outside the tolerance (see above)", name,
          crowd_simd_name(simd));
done:
    free(col_param);
    crowd_engine_destroy(e);
    for (size_t k = 0; k < MAX_EXPR; k++) {
        free(entries[k]);
        cubism_expression_free(&data[k]);
    }
    cubism_ref_motion_destroy(motion);
    cubism_motion_free(&motion_data);
    cubism_ref_model_destroy(ref);
    cubism_model3_free(&m3);
    model_free(&m);
    return w.hash;
}

/* ---- pose ---- */

static uint64_t run_pose_case(const char *name, json_t *c, crowd_simd simd) {
    model m = {0};
    crowd_engine *e = NULL;
    cubism_pose data = {0};
    crowd_pose_group_desc *groups = NULL;
    crowd_pose_part_desc *parts = NULL;
    int32_t *col_part = NULL;
    crowd_instance h[INSTANCES];
    float values[INSTANCES];
    worst w = {0, "", 0, 0xcbf29ce484222325ull};
    char path[1024];
    json_t *schedule = json_object_get(c, "schedule"), *frames = json_object_get(c, "frames");
    json_t *dts = json_object_get(c, "dt"), *columns = json_object_get(c, "columns");
    CHECK(model_read(&m, c), "%s: model", name);
    input_path(path, sizeof path, json_string_value(json_array_get(json_object_get(c, "sources"), 0)));
    CHECK(cubism_pose_read(path, &data) == 0, "%s: %s", name, path);
    groups = calloc(data.group_count + 1, sizeof *groups);
    parts = calloc(data.part_count + 1, sizeof *parts);
    CHECK(groups && parts, "%s: memory", name);
    for (uint32_t g = 0; g < data.group_count; g++) {
        groups[g].parts = &parts[data.group_first[g]];
        groups[g].part_count = data.group_first[g + 1] - data.group_first[g];
    }
    for (uint32_t k = 0; k < data.part_count; k++)
        parts[k] = (crowd_pose_part_desc){data.part_ids[k], (const char *const *)&data.link_ids[data.link_first[k]],
                                          data.link_first[k + 1] - data.link_first[k]};
    crowd_pose_desc pd = crowd_pose_defaults();
    pd.groups = groups;
    pd.group_count = data.group_count;
    pd.fade_in = (float)data.fade_in;
    crowd_rig_desc rd = crowd_rig_defaults();
    rd.name = name;
    rd.parameters = m.params;
    rd.parameter_count = m.count;
    rd.pose = &pd;
    crowd_rig rig;
    CHECK((e = make_engine(simd)) != NULL, "%s: engine", name);
    CHECK(crowd_rig_create(e, &rd, &rig) == CROWD_OK, "%s: rig: %s", name, crowd_last_error(e));
    crowd_add_desc ad = crowd_add_defaults(rig, INSTANCES);
    CHECK(crowd_instances_add(e, &ad, h) == CROWD_OK, "%s: add: %s", name, crowd_last_error(e));
    /* columns: partOpacity:<id> and pseudoParam:<id> of the pose's parts (crowd.h numbering) */
    const size_t n_cols = json_array_size(columns);
    CHECK((col_part = calloc(n_cols, sizeof *col_part)) != NULL, "%s: memory", name);
    long compared = 0, checked_columns = 0;
    for (size_t k = 0; k < n_cols; k++) {
        const char *col = json_string_value(json_array_get(columns, k)), *colon = strchr(col, ':');
        col_part[k] = -1;
        for (uint32_t p = 0; colon && p < data.part_count; p++)
            if (strcmp(data.part_ids[p], colon + 1) == 0) col_part[k] = (int32_t)p;
        checked_columns += col_part[k] >= 0;
    }
    CHECK(checked_columns == 2 * (long)data.part_count, "%s: %ld columns name pose parts", name, checked_columns);
    for (size_t f = 0; f < json_array_size(frames); f++) {
        size_t k;
        json_t *step;
        json_array_foreach(schedule, k, step) {
            if (json_integer_value(json_object_get(step, "beforeUpdateOfFrame")) != (json_int_t)f) continue;
            const char *id;
            json_t *v;
            json_object_foreach(json_object_get(step, "setPseudoParameterValues"), id, v) {
                int32_t p = -1;
                for (uint32_t q = 0; q < data.part_count; q++)
                    if (strcmp(data.part_ids[q], id) == 0) p = (int32_t)q;
                CHECK(p >= 0, "%s: schedule names %s, no pose part", name, id);
                for (int q = 0; q < INSTANCES; q++) values[q] = (float)json_number_value(v);
                CHECK(crowd_instances_set(e, CROWD_FIELD_PART_PARAMETER, (uint32_t)p, h, INSTANCES, values) == CROWD_OK,
                      "%s: %s", name, crowd_last_error(e));
            }
        }
        CHECK(crowd_tick(e, (float)json_number_value(json_array_get(dts, f))) == CROWD_OK, "%s: tick: %s", name,
              crowd_last_error(e));
        json_t *row = json_array_get(frames, f);
        for (k = 0; k < n_cols; k++) {
            if (col_part[k] < 0) continue;
            const char *col = json_string_value(json_array_get(columns, k));
            crowd_field field = strncmp(col, "partOpacity:", 12) == 0 ? CROWD_FIELD_PART_OPACITY : CROWD_FIELD_PART_PARAMETER;
            crowd_instances_get(e, field, (uint32_t)col_part[k], h, INSTANCES, values);
            note(&w, fabs(values[0] - json_number_value(json_array_get(row, k))), col, (long)f);
            hash_value(&w, values[0]);
            for (int q = 1; q < INSTANCES; q++) w.lane_mismatches += memcmp(&values[q], &values[0], sizeof(float)) != 0;
            compared++;
        }
    }
    printf("%-8s %-46s pose: worst %.3g (%s), %ld values, lanes off %ld\n", crowd_simd_name(simd), name, w.err,
           w.where[0] ? w.where : "-", compared, w.lane_mismatches);
    CHECK(compared > 0 && w.err <= 1e-5 && w.lane_mismatches == 0, "%s (%s): outside the tolerance (see above)", name,
          crowd_simd_name(simd));
done:
    free(col_part);
    crowd_engine_destroy(e);
    free(groups);
    free(parts);
    cubism_pose_free(&data);
    model_free(&m);
    return w.hash;
}

/* ---- driver ---- */

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

static void run_folder(const char *kind, uint64_t (*run)(const char *, json_t *, crowd_simd), const char *only) {
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
            uint64_t first = 0;
            for (int s = 0; s < CROWD_SIMD_COUNT; s++) {
                if (s == CROWD_SIMD_AUTO || !crowd_simd_supported((crowd_simd)s)) continue;
                uint64_t hash = run(json_string_value(json_object_get(c, "case")), c, (crowd_simd)s);
                if (!first) first = hash;
                if (hash != first) {
                    fprintf(stderr, "FAIL: %s: %s gives other bits than the first target\n", names[i],
                            crowd_simd_name((crowd_simd)s));
                    g_failures++;
                }
            }
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
    run_folder("expression", run_expression_case, only);
    run_folder("pose", run_pose_case, only);
    printf("%d failure(s)\n", g_failures);
    return g_failures ? 1 : 0;
}
