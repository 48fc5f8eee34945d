/* crowd_io.h sections 6-8 from C (the Python tests play the golden traces through them):
 *  - Haru's model3 read whole: its groups, clips, expressions, EyeBlink/LipSync ids against the
 *    model3 JSON itself, and every desc accepted by crowd_rig_create over Haru's parameters
 *    (the golden expression case's list, the model's cdi3);
 *  - refusals leave *out NULL and free what was read: a missing file, a model3 whose second
 *    expression is missing (motions, the first expression already read), a motion3 that is not
 *    JSON, a dt outside [0, 1e6] for the WAV levels, a bad aspect for a hand track.
 * argv[1]: the Cubism traces folder. Exits 77 (skipped) when it is absent. */
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crowd.h"
#include "crowd_io.h"

static int g_failures;
#define CHECK(cond, ...)                                                                                               \
    do {                                                                                                               \
        if (!(cond)) {                                                                                                 \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                                                       \
            fprintf(stderr, __VA_ARGS__);                                                                              \
            fputc('\n', stderr);                                                                                       \
            g_failures++;                                                                                              \
        }                                                                                                              \
    } while (0)

static void write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "wb");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void test_haru(const char *root) {
    char path[2048], cpath[2048];
    snprintf(path, sizeof path, "%s/inputs/Haru/Haru.model3.json", root);
    crowd_io_live2d *m = NULL;
    CHECK(crowd_io_model3_load(path, &m) == CROWD_IO_OK && m, "%s: not read", path);
    if (!m) return;
    json_t *j = json_load_file(path, 0, NULL);
    json_t *motions = json_object_get(json_object_get(j, "FileReferences"), "Motions");
    json_t *exps = json_object_get(json_object_get(j, "FileReferences"), "Expressions");
    const char *name;
    json_t *grp;
    uint32_t total = 0, g = 0;
    json_object_foreach(motions, name, grp) {
        uint32_t first = 99, count = 99;
        const char *got = crowd_io_live2d_motion_group(m, g++, &first, &count);
        CHECK(got && strcmp(got, name) == 0 && first == total && count == json_array_size(grp), "group %s", name);
        for (uint32_t k = 0; k < count; k++) {
            json_t *e = json_array_get(grp, k), *snd = json_object_get(e, "Sound");
            const char *s = crowd_io_live2d_motion_sound(m, first + k);
            CHECK(snd ? s && strcmp(s, json_string_value(snd)) == 0 : s == NULL, "%s[%u] sound", name, k);
            const crowd_motion_clip *c = &crowd_io_live2d_motion(m)->clips[first + k];
            json_t *fi = json_object_get(e, "FadeInTime");
            CHECK(!fi || c->fade_in == json_number_value(fi), "%s[%u] fade in %g", name, k, c->fade_in);
        }
        total += (uint32_t)json_array_size(grp);
    }
    CHECK(crowd_io_live2d_motion_group_count(m) == g && crowd_io_live2d_motion(m)->clip_count == total, "clips");
    CHECK(crowd_io_live2d_expression(m)->expression_count == json_array_size(exps), "expressions");
    CHECK(strcmp(crowd_io_live2d_expression_name(m, 0), json_string_value(json_object_get(json_array_get(exps, 0), "Name"))) == 0,
          "expression 0's name");
    CHECK(crowd_io_live2d_eye_blink_count(m) == 2 && strcmp(crowd_io_live2d_eye_blink_id(m, 1), "ParamEyeROpen") == 0 &&
              !crowd_io_live2d_eye_blink_id(m, 2),
          "EyeBlink");
    CHECK(crowd_io_live2d_lipsync(m)->parameter_count == 1 && crowd_io_live2d_lipsync(m)->weight == 0.8f, "LipSync");
    CHECK(crowd_io_live2d_pose(m) && crowd_io_live2d_physics(m) && crowd_io_live2d_physics(m)->subrig_count > 0, "pose, physics");
    json_decref(j);
    /* every desc, as crowd_rig_create checks it, over the model's parameters */
    snprintf(cpath, sizeof cpath, "%s/expression/expression_Haru_F04_F05_F02_60fps.json", root);
    json_t *c = json_load_file(cpath, 0, NULL);
    json_t *params = json_object_get(c, "parameters");
    size_t n = json_array_size(params);
    crowd_parameter_desc *pd = calloc(n + 1, sizeof *pd);
    for (size_t k = 0; pd && k < n; k++) {
        json_t *p = json_array_get(params, k);
        pd[k] = crowd_parameter_defaults(json_string_value(json_object_get(p, "id")));
        pd[k].min = (float)json_number_value(json_object_get(p, "min"));
        pd[k].max = (float)json_number_value(json_object_get(p, "max"));
    }
    crowd_rig_desc rd = crowd_rig_defaults();
    rd.parameters = pd, rd.parameter_count = (uint32_t)n;
    rd.motion = crowd_io_live2d_motion(m), rd.expression = crowd_io_live2d_expression(m);
    rd.pose = crowd_io_live2d_pose(m), rd.physics = crowd_io_live2d_physics(m), rd.lipsync = crowd_io_live2d_lipsync(m);
    crowd_engine_desc ed = crowd_engine_defaults();
    crowd_engine *e = NULL;
    crowd_rig rig;
    CHECK(pd && crowd_engine_create(&ed, &e) == CROWD_OK, "engine");
    CHECK(e && crowd_rig_create(e, &rd, &rig) == CROWD_OK, "rig: %s", e ? crowd_last_error(e) : "-");
    crowd_engine_destroy(e);
    free(pd);
    json_decref(c);
    crowd_io_live2d_free(m);
}

static void test_refusals(const char *root) {
    char dir[] = "/tmp/crowd_io_live2d_XXXXXX", path[2048], motion[2048];
    if (!mkdtemp(dir)) return;
    crowd_io_live2d *m = (crowd_io_live2d *)&g_failures; /* not NULL: must come back NULL */
    snprintf(path, sizeof path, "%s/missing.model3.json", dir);
    CHECK(crowd_io_model3_load(path, &m) != CROWD_IO_OK && !m, "a missing model3");
    /* motions and the first expression read, the second missing: all freed (ASan) */
    snprintf(motion, sizeof motion, "%s/inputs/Haru/motions/haru_g_idle.motion3.json", root);
    snprintf(path, sizeof path, "%s/inputs/Haru/expressions/F01.exp3.json", root);
    char text[8192];
    snprintf(text, sizeof text,
             "{\"Version\": 3, \"FileReferences\": {\"Moc\": \"x.moc3\", \"Textures\": [], \"Motions\": {\"Idle\": "
             "[{\"File\": \"%s\"}, {\"File\": \"%s\"}]}, \"Expressions\": [{\"Name\": \"a\", \"File\": \"%s\"}, "
             "{\"Name\": \"b\", \"File\": \"nothing.exp3.json\"}]}}",
             motion, motion, path);
    snprintf(path, sizeof path, "%s/half.model3.json", dir);
    write_text(path, text);
    m = (crowd_io_live2d *)&g_failures;
    CHECK(crowd_io_model3_load(path, &m) == CROWD_IO_BAD_INPUT && !m, "a model3 naming a missing exp3");
    snprintf(path, sizeof path, "%s/bad.motion3.json", dir);
    write_text(path, "{\"Version\": 3, ");
    m = (crowd_io_live2d *)&g_failures;
    CHECK(crowd_io_motion3_load(path, -1, -1, &m) == CROWD_IO_BAD_INPUT && !m, "a motion3 that is not JSON");
    CHECK(crowd_io_exp3_load(path, &m) == CROWD_IO_BAD_INPUT && !m, "an exp3 that is not JSON");
    CHECK(crowd_io_pose3_load(path, &m) == CROWD_IO_BAD_INPUT && !m, "a pose3 that is not JSON");
    CHECK(crowd_io_physics3_load(path, &m) == CROWD_IO_BAD_INPUT && !m, "a physics3 that is not JSON");
    remove(path);
    snprintf(path, sizeof path, "%s/half.model3.json", dir);
    remove(path);
    /* WAV levels: a dt outside [0, 1e6] refused, nothing written */
    snprintf(path, sizeof path, "%s/inputs/Haru/sounds/haru_talk_13.wav", root);
    crowd_io_wav *w = NULL;
    CHECK(crowd_io_wav_load(path, &w) == CROWD_IO_OK && w && crowd_io_wav_rate(w) == 44100, "%s", path);
    const double dts[3] = {1.0 / 60, NAN, 1.0 / 60};
    float levels[3] = {-1, -1, -1};
    CHECK(crowd_io_wav_levels(w, dts, 3, levels) == CROWD_IO_BAD_INPUT && levels[0] == -1, "a NaN dt");
    CHECK(crowd_io_wav_levels(w, dts, 1, levels) == CROWD_IO_OK && levels[0] > 0 && levels[1] == -1, "one frame");
    crowd_io_wav_free(w);
    crowd_io_hands *h = (crowd_io_hands *)&g_failures;
    CHECK(crowd_io_hands_load(path, false, -1, &h) == CROWD_IO_BAD_INPUT && !h, "a negative aspect");
    CHECK(crowd_io_hands_load(path, false, 1, &h) == CROWD_IO_BAD_INPUT && !h, "a WAV as a hand track");
    remove(dir);
}

int main(int argc, char **argv) {
    char probe[2048];
    snprintf(probe, sizeof probe, "%s/inputs/Haru/Haru.model3.json", argc > 1 ? argv[1] : ".");
    FILE *f = argc > 1 ? fopen(probe, "rb") : NULL;
    if (!f) {
        printf("skipped: the Cubism traces (%s) are absent\n", argc > 1 ? argv[1] : "no folder given");
        return 77;
    }
    fclose(f);
    /* absolute: the test's model3 in a scratch folder names the samples' motions by path */
    char *root = realpath(argv[1], NULL);
    if (!root) return 1;
    test_haru(root);
    test_refusals(root);
    free(root);
    printf("%s\n", g_failures ? "FAILED" : "ok");
    return g_failures ? 1 : 0;
}
