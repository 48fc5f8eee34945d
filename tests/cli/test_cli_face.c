/* test_cli_face.c — face tracks and face tracking in the crowd command, on synthetic tracks this
 * program writes from the documented MediaPipe face landmarker result format (made-up scores and
 * head turns; no real recording):
 * - reader: every frame's scores, rotation (the matrix's, by the engine's helper) and presence as
 *   written; a frame without a face keeps the last scores and rotation; the Python API's names
 * - bad tracks: each field refused with the file, line and JSON path named (crowd run, exit 2)
 * - scene: a group playing a track drives the standard parameters, eased in by the hand-off
 *   half-life, against values computed here in double
 * - live2d: the three shared Live2D models bind the standard mapping to exactly the standard ids
 *   their .cdi3.json names, and a rig of their parameters takes the binding
 * - stream: face lines through crowd stream: --params output, a bad line skipped and named,
 *   the parameters over VMC as blend shapes (a loopback OSC receiver) */
#define _POSIX_C_SOURCE 200809L
#include <jansson.h>
#include <lo/lo.h>
#include <sys/wait.h>
#include <math.h>
#include <stdlib.h>

#include "cli_support.h"
#include "face_track.h"

#define N_SCORES CROWD_FACE_SCORE_COUNT
static const double PI = 3.14159265358979323846;

/* A made-up face at frame k: scores and a head turn (yaw, pitch, roll in degrees) */
static void synthetic_face(int k, float scores[N_SCORES], double angles[3]) {
    for (int s = 0; s < N_SCORES; s++) scores[s] = (float)(0.5 + 0.45 * sin(0.3 * k + 0.7 * s));
    angles[0] = 20 * sin(0.2 * k), angles[1] = 10 * cos(0.15 * k), angles[2] = 5 * sin(0.1 * k);
}

/* column-major 4x4 of R = Ry Rx Rz times scale, translated */
static void face_matrix(const double angles[3], double scale, double m[16]) {
    double y = angles[0] * PI / 180, p = angles[1] * PI / 180, r = angles[2] * PI / 180;
    double cy = cos(y), sy = sin(y), cp = cos(p), sp = sin(p), cr = cos(r), sr = sin(r);
    double R[3][3] = {{cy * cr + sy * sp * sr, -cy * sr + sy * sp * cr, sy * cp},
                      {cp * sr, cp * cr, -sp},
                      {-sy * cr + cy * sp * sr, sy * sr + cy * sp * cr, cy * cp}};
    for (int c = 0; c < 3; c++) {
        for (int row = 0; row < 3; row++) m[4 * c + row] = scale * R[row][c];
        m[4 * c + 3] = 0;
    }
    m[12] = 0.5, m[13] = -1.0, m[14] = -35.0, m[15] = 1.0;
}

/* One result line; face = false: no face detected */
static void result_line(cli_buf *b, double t_ms, bool face, const float scores[N_SCORES], const double m[16]) {
    cli_buf_printf(b, "{\"timestamp_ms\": %.17g, \"faceBlendshapes\": [", t_ms);
    if (face) {
        cli_buf_printf(b, "{\"categories\": [");
        for (int s = 0; s < N_SCORES; s++)
            cli_buf_printf(b, "%s{\"index\": %d, \"score\": %.9g, \"categoryName\": \"%s\", \"displayName\": \"\"}",
                           s ? ", " : "", s, (double)scores[s], crowd_face_source_name((crowd_face_source)s));
        cli_buf_printf(b, "], \"headIndex\": -1, \"headName\": \"\"}");
    }
    cli_buf_printf(b, "], \"facialTransformationMatrixes\": [");
    if (face) {
        cli_buf_printf(b, "{\"rows\": 4, \"columns\": 4, \"data\": [");
        for (int k = 0; k < 16; k++) cli_buf_printf(b, "%s%.17g", k ? ", " : "", m[k]);
        cli_buf_printf(b, "]}");
    }
    cli_buf_printf(b, "], \"faceLandmarks\": []}\n");
}

/* frames 0..n-1 at 30 fps; frame `gap` (if >= 0) has no face */
static char *track_text(int n, int gap) {
    cli_buf b = {0};
    for (int k = 0; k < n; k++) {
        float sc[N_SCORES];
        double ang[3], m[16];
        synthetic_face(k, sc, ang);
        face_matrix(ang, 1.3, m);
        result_line(&b, k * 1000.0 / 30.0, k != gap, sc, m);
    }
    return b.text;
}

static void test_reader(void **state) {
    (void)state;
    char *text = track_text(12, 5);
    face_track t;
    assert_int_equal(face_track_parse("synthetic.ndjson", text, strlen(text), &t), 0);
    assert_int_equal(t.count, 12);
    for (uint32_t k = 0; k < t.count; k++) {
        const face_frame *f = &t.frames[k];
        uint32_t src = k == 5 ? 4 : k; /* the frame without a face keeps the one before */
        float sc[N_SCORES];
        double ang[3], m[16];
        synthetic_face((int)src, sc, ang);
        face_matrix(ang, 1.3, m);
        float mf[16];
        for (int i = 0; i < 16; i++) mf[i] = (float)m[i];
        crowd_quat q;
        assert_int_equal(crowd_face_rotation_from_matrix(mf, &q), CROWD_OK);
        if (f->t_s != (k * 1000.0 / 30.0) / 1000.0) FAILF("frame %u: t_s %.17g", k, f->t_s);
        if (memcmp(f->scores, sc, sizeof sc) != 0) FAILF("frame %u: scores differ from those written", k);
        const float want[4] = {q.x, q.y, q.z, q.w};
        if (memcmp(f->rotation, want, sizeof want) != 0) FAILF("frame %u: rotation differs from the matrix's", k);
        if (f->presence != (k == 5 ? 0.0f : 1.0f)) FAILF("frame %u: presence %g", k, (double)f->presence);
        if (f->line != k + 1) FAILF("frame %u: line %u", k, f->line);
    }
    assert_int_equal(face_track_row_at(&t, 0.0, false), 0);
    assert_int_equal(face_track_row_at(&t, 0.1, false), 3);  /* 100 ms: frame 3 starts at exactly 100 ms */
    assert_int_equal(face_track_row_at(&t, 99.0, false), 11);
    assert_int_equal(face_track_row_at(&t, 0.4 + 0.05, true), 1); /* period 12 frames = 0.4 s */
    face_track_free(&t);
    free(text);
    /* the Python API's names, a matrix as rows, a face as its list of categories */
    cli_buf b = {0};
    cli_buf_printf(&b, "{\"timestampMs\": 5, \"face_blendshapes\": [[");
    for (int s = 0; s < N_SCORES; s++)
        cli_buf_printf(&b, "%s{\"index\": %d, \"score\": %g, \"category_name\": \"%s\"}", s ? "," : "", s, s == 25 ? 0.75 : 0.0,
                       crowd_face_source_name((crowd_face_source)s));
    cli_buf_printf(&b, "]], \"facial_transformation_matrixes\": [[[0,0,1,0],[0,1,0,0],[-1,0,0,0],[0,0,0,1]]]}\n");
    assert_int_equal(face_track_parse("py.ndjson", b.text, strlen(b.text), &t), 0);
    assert_true(t.frames[0].scores[CROWD_FACE_JAW_OPEN] == 0.75f);
    /* rows [[0,0,1],[0,1,0],[-1,0,0]]: 90 degrees about +y */
    if (fabsf(t.frames[0].rotation[1] - 0.70710678f) > 1e-6f || fabsf(t.frames[0].rotation[3] - 0.70710678f) > 1e-6f)
        FAILF("python matrix: rotation (%g, %g, %g, %g)", (double)t.frames[0].rotation[0], (double)t.frames[0].rotation[1],
              (double)t.frames[0].rotation[2], (double)t.frames[0].rotation[3]);
    face_track_free(&t);
    free(b.text);
}

/* A scene with one standard-parameter rig and a group playing `track` */
static const char *scene_text(const char *track, const char *rig_face) {
    static char buf[4096];
    snprintf(buf, sizeof buf,
             "{\"frames\": 12, \"dt\": 0.0333333351,\n"
             " \"rigs\": [{\"name\": \"f\", \"parameters\": [\n"
             "   {\"id\": \"ParamAngleX\", \"min\": -30, \"max\": 30},\n"
             "   {\"id\": \"ParamAngleY\", \"min\": -30, \"max\": 30},\n"
             "   {\"id\": \"ParamAngleZ\", \"min\": -30, \"max\": 30},\n"
             "   {\"id\": \"ParamMouthOpenY\", \"min\": 0, \"max\": 1},\n"
             "   {\"id\": \"ParamEyeLOpen\", \"min\": 0, \"max\": 1, \"default\": 1}],\n"
             "   \"face\": %s}],\n"
             " \"groups\": [{\"rig\": \"f\", \"count\": 3, \"face\": {\"clip\": \"%s\", \"loop\": false}}]}\n",
             rig_face, track);
    return buf;
}

static void test_bad_tracks(void **state) {
    (void)state;
    char *good = track_text(4, -1);
    struct {
        const char *from, *to, *want;
    } cases[] = {
        {"\"timestamp_ms\": 66.666666666666671", "\"timestamp_ms\": 1", ":3: timestamp_ms: "},
        {"\"timestamp_ms\": 33.333333333333336", "\"t\": 1", ":2: timestamp_ms: missing"},
        {"\"categoryName\": \"jawOpen\"", "\"categoryName\": \"jawClose\"", ":1: faceBlendshapes[0].categories[25]: categoryName \"jawClose\""},
        {"\"index\": 9,", "\"index\": 10,", ":1: faceBlendshapes[0].categories[9]: index is not 9"},
        {"\"score\": 0.5,", "\"score\": 1.5,", "score: 1.5 is outside [0, 1]"},
        {"\"score\": 0.5,", "\"score\": \"x\",", "score: expected a number, got a string"},
        {"\"data\": [", "\"data\": [1, ", ":1: facialTransformationMatrixes[0].data: expected an array of 16 numbers"},
        {"\"rows\": 4, \"columns\": 4, \"data\": [1.3", "\"rows\": 4, \"columns\": 4, \"data\": [2.6",
         ":1: facialTransformationMatrixes[0]: not a rotation"},
        {"{\"index\": 51", "{\"index\": 51, \"score\": 0} , {\"index\": 52", ":1: faceBlendshapes[0].categories: 53 categories"},
        {"\"faceBlendshapes\": [{", "\"faceBlendshapes\": {\"a\": [{", ":1:"},
    };
    cli_write("scene_bad.json", scene_text("bad.ndjson", "{}"));
    for (size_t c = 0; c < sizeof cases / sizeof cases[0]; c++) {
        char *bad = cli_replace(good, cases[c].from, cases[c].to);
        cli_write("bad.ndjson", bad);
        cli_result r = cli_run("run", cli_path("scene_bad.json"));
        cli_expect_fail(&r, 2, "bad.ndjson", cases[c].want, "groups[0].face.clip");
        cli_result_free(&r);
        free(bad);
    }
    cli_write("empty.ndjson", "\n\n");
    cli_write("scene_empty.json", scene_text("empty.ndjson", "{}"));
    cli_result r = cli_run("run", cli_path("scene_empty.json"));
    cli_expect_fail(&r, 2, "empty.ndjson", "no face landmarker results");
    cli_result_free(&r);
    /* scene fields */
    cli_write("good.ndjson", good);
    cli_write("scene_src.json", scene_text("good.ndjson", "{\"mapping\": [{\"source\": \"jawShut\", \"id\": \"ParamMouthOpenY\"}]}"));
    r = cli_run("run", cli_path("scene_src.json"));
    cli_expect_fail(&r, 2, "rigs[0].face.mapping[0].source", "jawShut");
    cli_result_free(&r);
    cli_write("scene_id.json", scene_text("good.ndjson", "{\"mapping\": [{\"source\": \"jawOpen\", \"id\": \"ParamMouth\"}]}"));
    r = cli_run("run", cli_path("scene_id.json"));
    cli_expect_fail(&r, 2, "rigs[0].face.mapping[0].id", "ParamMouth");
    cli_result_free(&r);
    cli_write("scene_hl.json", scene_text("good.ndjson", "{\"handoff_half_life\": 0}"));
    r = cli_run("run", cli_path("scene_hl.json"));
    cli_expect_fail(&r, 2, "rigs[0].face.handoff_half_life");
    cli_result_free(&r);
    free(good);
}

/* the trace value of (frame, instance, id) */
static double trace_value(const char *csv, int frame, int instance, const char *id) {
    char key[128];
    snprintf(key, sizeof key, "\n%d,%d,%s,", frame, instance, id);
    const char *p = strstr(csv, key);
    if (!p) FAILF("trace has no %d,%d,%s", frame, instance, id);
    return strtod(p + strlen(key), NULL);
}

static void test_scene(void **state) {
    (void)state;
    const int n = 12;
    char *text = track_text(n, -1);
    cli_write("track.ndjson", text);
    cli_write("scene.json", scene_text("track.ndjson", "{\"handoff_half_life\": 0.05}"));
    cli_result r = cli_run("run", cli_path("scene.json"), "--trace", cli_path("trace.csv"));
    cli_expect_ok(&r);
    cli_result_free(&r);
    char *csv = cli_read(cli_path("trace.csv"), NULL);
    const double dt = 0.0333333351;
    for (int k = 1; k <= n; k++) {
        /* frame k plays the track row at (k-1)*dt; control after k ticks of presence 1 */
        int row = (int)floor((k - 1) * dt / (1.0 / 30.0) + 1e-9);
        float sc[N_SCORES];
        double ang[3];
        synthetic_face(row, sc, ang);
        double c = 1 - pow(0.5, k * dt / 0.05);
        if (1 - c < 0x1p-10) c = 1;
        double want_mouth = sc[CROWD_FACE_JAW_OPEN] * c, want_eye = 1 * (1 - c) + (1 - sc[CROWD_FACE_EYE_BLINK_LEFT]) * c;
        for (int i = 0; i < 3; i++) {
            double yaw = trace_value(csv, k, i, "ParamAngleX"), pitch = trace_value(csv, k, i, "ParamAngleY"),
                   roll = trace_value(csv, k, i, "ParamAngleZ");
            if (fabs(yaw - ang[0] * c) > 2e-4 || fabs(pitch - ang[1] * c) > 2e-4 || fabs(roll - ang[2] * c) > 2e-4)
                FAILF("frame %d instance %d: angles (%g, %g, %g), want (%g, %g, %g)", k, i, yaw, pitch, roll, ang[0] * c,
                      ang[1] * c, ang[2] * c);
            if (fabs(trace_value(csv, k, i, "ParamMouthOpenY") - want_mouth) > 1e-5) FAILF("frame %d: mouth", k);
            if (fabs(trace_value(csv, k, i, "ParamEyeLOpen") - want_eye) > 1e-5) FAILF("frame %d: eye", k);
        }
    }
    free(csv);
    free(text);
}

/* The standard ids a .cdi3.json names, read here with jansson */
static uint32_t cdi_standard_ids(const char *cdi_path, const char **ids) {
    json_error_t err;
    json_t *root = json_load_file(cdi_path, 0, &err);
    if (!root) FAILF("%s: %s", cdi_path, err.text);
    uint32_t n = 0;
    const crowd_face_mapping_desc *std = crowd_face_standard_mapping();
    size_t i;
    json_t *p;
    json_array_foreach(json_object_get(root, "Parameters"), i, p) {
        const char *id = json_string_value(json_object_get(p, "Id"));
        for (uint32_t k = 0; k < CROWD_FACE_STANDARD_MAPPING_COUNT; k++)
            if (strcmp(std[k].id, id) == 0) {
                ids[n++] = std[k].id;
                break;
            }
    }
    json_decref(root);
    return n;
}

static void test_live2d(void **state) {
    (void)state;
    const char *models[3] = {"Haru", "Hiyori", "Mark"};
    for (int mi = 0; mi < 3; mi++) {
        char rel[128];
        snprintf(rel, sizeof rel, "live2d/%s.model3.json", models[mi]);
        const char *m3 = crowd_test_data(rel);
        if (!m3) skip();
        char m3_path[4096], cdi_path[4096];
        snprintf(m3_path, sizeof m3_path, "%s", m3);
        snprintf(cdi_path, sizeof cdi_path, "%s/live2d/%s.cdi3.json", CROWD_SHARED_DATA, models[mi]);
        crowd_face_mapping_desc bound[CROWD_FACE_STANDARD_MAPPING_COUNT];
        uint32_t n;
        assert_int_equal(face_bind_model3(m3_path, bound, &n), 0);
        const char *ids[64];
        uint32_t nid = cdi_standard_ids(cdi_path, ids);
        /* expected: every standard entry whose id the model names, in the standard order */
        const crowd_face_mapping_desc *std = crowd_face_standard_mapping();
        uint32_t want = 0;
        for (uint32_t k = 0; k < CROWD_FACE_STANDARD_MAPPING_COUNT; k++) {
            bool named = false;
            for (uint32_t j = 0; j < nid; j++) named |= strcmp(ids[j], std[k].id) == 0;
            if (!named) continue;
            if (want >= n || memcmp(&bound[want], &std[k], sizeof std[k]) != 0)
                FAILF("%s: bound entry %u is not standard entry %u (%s)", models[mi], want, k, std[k].id);
            want++;
        }
        if (want != n) FAILF("%s: %u entries bound, %u expected", models[mi], n, want);
        printf("%s: %u of %u standard entries bind (%u standard ids named)\n", models[mi], n,
               CROWD_FACE_STANDARD_MAPPING_COUNT, nid);
        if (n < 15) FAILF("%s: only %u entries bind", models[mi], n);
        /* the engine takes it on a rig of the model's standard parameters */
        crowd_engine *e = crowd_test_engine(1);
        crowd_parameter_desc params[64];
        for (uint32_t j = 0; j < nid; j++) params[j] = (crowd_parameter_desc){ids[j], -30, 30, 0, false};
        crowd_face_desc face = crowd_face_defaults();
        face.mapping = bound, face.mapping_count = n;
        crowd_rig_desc rd = {.name = models[mi], .parameters = params, .parameter_count = nid, .face = &face};
        crowd_rig rig;
        OK(e, crowd_rig_create(e, &rd, &rig));
        crowd_engine_destroy(e);
        /* and a scene with the model3 binds it by default */
        char scene[8192];
        snprintf(scene, sizeof scene,
                 "{\"frames\": 3, \"rigs\": [{\"name\": \"m\", \"model3\": \"%s\", \"parameters\": ["
                 "{\"id\": \"ParamAngleX\", \"min\": -30, \"max\": 30}, {\"id\": \"ParamMouthOpenY\", \"min\": 0, \"max\": 1},"
                 "{\"id\": \"ParamMouthForm\", \"min\": -1, \"max\": 1}], \"face\": {}}],"
                 " \"groups\": [{\"rig\": \"m\", \"count\": 2}]}\n",
                 m3_path);
        cli_write("model.json", scene);
        cli_result r = cli_run("run", cli_path("model.json"), "--trace", cli_path("model.csv"));
        cli_expect_ok(&r);
        cli_result_free(&r);
    }
}

/* ---- crowd stream ---- */
static int run_shell(const char *cmd) {
    int st = system(cmd);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

typedef struct receiver {
    int values, applies, frames;
    float mouth[16];
} receiver;

static int on_message(const char *path, const char *types, lo_arg **argv, int argc, lo_message m, void *user) {
    (void)m;
    receiver *r = user;
    if (strcmp(path, "/VMC/Ext/Blend/Val") == 0 && argc == 2 && types[0] == 's' && types[1] == 'f') {
        /* liblo packs arguments at 4-byte offsets: a float after a short string is not where an
         * 8-byte aligned lo_arg may be read, so the bytes are copied */
        if (strcmp((const char *)argv[0], "A") == 0 && r->applies < 16)
            memcpy(&r->mouth[r->applies], (const void *)argv[1], sizeof(float));
        r->values++;
    } else if (strcmp(path, "/VMC/Ext/Blend/Apply") == 0) {
        r->applies++;
    } else if (strcmp(path, "/VMC/Ext/T") == 0) {
        r->frames++;
    }
    return 0;
}

static void test_stream(void **state) {
    (void)state;
    char *text = track_text(6, -1);
    /* a bad line in between: skipped and named */
    char *with_bad = cli_replace(text, "\n{\"timestamp_ms\": 100", "\n{\"timestamp_ms\": 90, \"faceBlendshapes\": [{\"categories\": []}]}\n{\"timestamp_ms\": 100");
    cli_write("stream.ndjson", with_bad);
    char cmd[8192];
    snprintf(cmd, sizeof cmd, "CROWD_SIMD=%s '%s' stream --params '%s' < '%s' 2> '%s'", cli_target, cli_exe,
             cli_path("params.csv"), cli_path("stream.ndjson"), cli_path("stream.err"));
    assert_int_equal(run_shell(cmd), 0);
    char *err = cli_read(cli_path("stream.err"), NULL), *csv = cli_read(cli_path("params.csv"), NULL);
    if (!strstr(err, "-:4: faceBlendshapes[0].categories: 0 categories")) FAILF("stderr: %s", err);
    /* 6 frames, each with the 11 standard parameters; frame k's mouth = jawOpen * control */
    double c = 0;
    for (int k = 1; k <= 6; k++) {
        float sc[N_SCORES];
        double ang[3];
        synthetic_face(k - 1, sc, ang);
        double step = k == 1 ? 0 : 1.0 / 30.0;
        c = 1 - (1 - c) * pow(0.5, step / 0.1);
        if (fabs(trace_value(csv, k, 0, "ParamMouthOpenY") - sc[CROWD_FACE_JAW_OPEN] * c) > 1e-5)
            FAILF("stream frame %d: mouth %g, want %g", k, trace_value(csv, k, 0, "ParamMouthOpenY"), sc[CROWD_FACE_JAW_OPEN] * c);
    }
    free(err), free(csv);
    /* --strict: the bad line stops it */
    snprintf(cmd, sizeof cmd, "CROWD_SIMD=%s '%s' stream --strict --params '%s' < '%s' 2> '%s'", cli_target, cli_exe,
             cli_path("params2.csv"), cli_path("stream.ndjson"), cli_path("stream.err"));
    assert_int_equal(run_shell(cmd), 2);
    /* VMC: every frame's VRM 0 blend shapes (Blink_L/R, A, I, U, E, O), then Apply; A the mouth */
    receiver rc = {0};
    lo_server server = lo_server_new_with_proto(NULL, LO_UDP, NULL);
    assert_non_null(server);
    lo_server_add_method(server, NULL, NULL, on_message, &rc);
    cli_write("vmc.ndjson", text);
    snprintf(cmd, sizeof cmd, "CROWD_SIMD=%s '%s' stream --vmc 127.0.0.1:%d < '%s' 2> '%s'", cli_target, cli_exe,
             lo_server_get_port(server), cli_path("vmc.ndjson"), cli_path("stream.err"));
    assert_int_equal(run_shell(cmd), 0);
    while (lo_server_recv_noblock(server, 200) > 0) {
    }
    lo_server_free(server);
    if (rc.applies != 6 || rc.values != 6 * 7 || rc.frames != 6)
        FAILF("VMC: %d applies, %d values, %d frames (want 6, 42, 6)", rc.applies, rc.values, rc.frames);
    if (!(rc.mouth[5] > 0.0f)) FAILF("VMC: the last mouth value is %g", (double)rc.mouth[5]);
    free(with_bad);
    free(text);
}

int main(int argc, char **argv) {
    cli_setup(argc, argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_reader), cmocka_unit_test(test_bad_tracks), cmocka_unit_test(test_scene),
        cmocka_unit_test(test_live2d), cmocka_unit_test(test_stream),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
