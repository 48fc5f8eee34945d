/* test_cli_files.c — the file formats of SPEC §7 through the tools library and the command:
 *   float_round_trip  %.9g gives every float32 back bit for bit (strtof, and strtod rounded
 *                     once as the clip reader does), across every exponent
 *   clip_stepping     clip rows held from their t_s, looping period, hold at the end
 *   model3_shared     Live2D EyeBlink groups of ../shared/data/live2d (Haru, Hiyori, Mark, whose
 *                     LipSync group is empty), read directly and through a scene run
 *
 * argv: TARGET CROWD_EXE */
#define _POSIX_C_SOURCE 200809L
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli_support.h"
#include "clip.h"
#include "model3.h"
#include "scene.h"
#include "trace.h"

static void check_round_trip(float v) {
    char buf[32];
    trace_format_float(buf, v);
    float back = strtof(buf, NULL), back_d = (float)strtod(buf, NULL);
    if (cli_bits(back) != cli_bits(v) || cli_bits(back_d) != cli_bits(v))
        fail_msg("%%.9g of %a is \"%s\", which reads back as %a (strtof) / %a (strtod)", (double)v, buf, (double)back,
                 (double)back_d);
}

static void test_float_round_trip(void **state) {
    (void)state;
    const float specials[] = {0.0f, -0.0f, 1.0f, -1.0f, FLT_MIN, -FLT_MIN, FLT_MAX, -FLT_MAX, FLT_TRUE_MIN,
                              0.0166666675f, 1.0f / 3.0f, 0.1f, 1e-45f, 3.4028235e38f, 16777217.0f, 0.999999940f,
                              0.986143231f, 1.03799794e-4f};
    for (size_t k = 0; k < sizeof specials / sizeof specials[0]; k++) check_round_trip(specials[k]);
    /* every exponent, both signs, 4096 mantissas each, plus the neighbours of powers of ten */
    uint32_t x = 0x12345678u;
    for (uint32_t e = 0; e < 255; e++)
        for (uint32_t s = 0; s < 2; s++)
            for (int k = 0; k < 4096; k++) {
                x = x * 1664525u + 1013904223u;
                uint32_t bits = (s << 31) | (e << 23) | (x >> 9);
                float v;
                memcpy(&v, &bits, 4);
                check_round_trip(v);
            }
    for (int p = -45; p <= 38; p++) {
        float v = (float)pow(10.0, p);
        check_round_trip(v);
        check_round_trip(nextafterf(v, INFINITY));
        check_round_trip(nextafterf(v, 0.0f));
    }
}

static void test_clip_stepping(void **state) {
    (void)state;
    float lm[3 * 132];
    for (int r = 0; r < 3; r++) cli_synthetic_pose(r * 0.1, 0, &lm[r * 132]);
    const char *t[3] = {"1.0", "1.1", "1.3"};
    char *text = cli_clip_text(3, t, lm);
    pose_clip c;
    assert_int_equal(clip_parse("mem.csv", text, strlen(text), &c), 0);
    free(text);
    assert_int_equal(c.row_count, 3);
    assert_true(c.t_s[0] == 1.0 && c.t_s[2] == 1.3);
    for (int k = 0; k < 132; k++) assert_int_equal(cli_bits(c.landmarks[132 + k]), cli_bits(lm[132 + k]));
    assert_int_equal(c.line[2], 4);
    /* period: span 0.3 + the last interval 0.2 */
    assert_true(fabs(clip_period(&c) - 0.5) < 1e-12);
    const struct {
        double tau;
        bool loop;
        uint32_t row;
    } cases[] = {
        {0.0, false, 0}, {0.05, false, 0}, {0.1, false, 1}, {0.29, false, 1}, {0.3, false, 2}, {0.49, false, 2},
        {7.0, false, 2}, {0.49, true, 2},  {0.5, true, 0},  {0.62, true, 1},  {1.35, true, 2}, {1.5, true, 0},
    };
    for (size_t k = 0; k < sizeof cases / sizeof cases[0]; k++)
        if (clip_row_at(&c, cases[k].tau, cases[k].loop) != cases[k].row)
            fail_msg("tau %g loop %d: row %u, expected %u", cases[k].tau, cases[k].loop,
                     clip_row_at(&c, cases[k].tau, cases[k].loop), cases[k].row);
    clip_free(&c);
    /* CRLF line ends and a final line without a newline are fine */
    char *crlf = cli_clip_text(3, t, lm);
    cli_buf b = {0};
    for (char *p = crlf; *p; p++) {
        if (*p == '\n' && p[1]) cli_buf_printf(&b, "\r\n");
        else if (*p != '\n') cli_buf_printf(&b, "%c", *p);
    }
    assert_int_equal(clip_parse("crlf.csv", b.text, b.len, &c), 0);
    assert_int_equal(c.row_count, 3);
    clip_free(&c);
    free(b.text);
    free(crlf);
}

static void test_model3_shared(void **state) {
    (void)state;
    const char *names[] = {"Haru", "Hiyori", "Mark"};
    for (int k = 0; k < 3; k++) {
        char rel[64];
        snprintf(rel, sizeof rel, "live2d/%s.model3.json", names[k]);
        const char *found_path = crowd_test_data(rel);
        if (!found_path) skip();
        char path[4096];
        snprintf(path, sizeof path, "%s", found_path);
        scene s;
        scene_init(&s, "test");
        bool found;
        const char **ids;
        uint32_t n;
        assert_int_equal(model3_group(&s, path, "EyeBlink", &found, &ids, &n), 0);
        assert_true(found);
        assert_int_equal(n, 2);
        assert_string_equal(ids[0], "ParamEyeLOpen");
        assert_string_equal(ids[1], "ParamEyeROpen");
        assert_int_equal(model3_group(&s, path, "LipSync", &found, &ids, &n), 0);
        assert_true(found);
        if (k == 2) assert_int_equal(n, 0); /* Mark's LipSync group is empty */
        else {
            assert_int_equal(n, 1);
            assert_string_equal(ids[0], "ParamMouthOpenY");
        }
        assert_int_equal(model3_group(&s, path, "NoSuchGroup", &found, &ids, &n), 0);
        assert_false(found);
        scene_free(&s);

        /* through a scene, the model3 path relative to the scene's folder (a link to the data) */
        char link[1400], data_dir[4096];
        snprintf(link, sizeof link, "%s/live2d", cli_dir);
        snprintf(data_dir, sizeof data_dir, "%s", path);
        *strrchr(data_dir, '/') = 0;
        if (access(link, F_OK) != 0) assert_int_equal(symlink(data_dir, link), 0);
        char scene_text[2048];
        snprintf(scene_text, sizeof scene_text,
                 "{\"frames\": 10, \"rigs\": [{\"name\": \"m\", \"model3\": \"live2d/%s.model3.json\",\n"
                 " \"parameters\": [{\"id\": \"ParamEyeLOpen\", \"min\": 0, \"max\": 1, \"default\": 1},\n"
                 "                {\"id\": \"ParamEyeROpen\", \"min\": 0, \"max\": 1, \"default\": 1},\n"
                 "                {\"id\": \"ParamMouthOpenY\", \"min\": 0, \"max\": 1}],\n"
                 " \"blink\": {}}],\n"
                 " \"groups\": [{\"rig\": \"m\", \"count\": 2, \"blink_start\": \"cubism\"}]}\n",
                 names[k]);
        const char *scene_path = cli_write("model3_scene.json", scene_text);
        const char *trace = cli_path("model3_trace.csv");
        cli_result r = cli_run("run", scene_path, "--simd", cli_target, "--trace", trace);
        cli_expect_ok(&r);
        cli_result_free(&r);
        char *text = cli_read(trace, NULL);
        assert_non_null(text);
        /* Cubism's sine blink from T = 0 (SPEC §4 reference, within the engine's sin error of
         * 2^-22): frame 1 0.986143231 and frame 9 0.0707372725 on both eyes of every instance */
        const struct {
            const char *head;
            double value;
        } want[] = {{"1,0,ParamEyeLOpen,", 0.986143231}, {"1,0,ParamEyeROpen,", 0.986143231},
                    {"9,1,ParamEyeLOpen,", 0.0707372725}, {"9,1,ParamEyeROpen,", 0.0707372725},
                    {"1,0,ParamMouthOpenY,", 0.0}};
        for (size_t w = 0; w < sizeof want / sizeof want[0]; w++) {
            const char *at = strstr(text, want[w].head);
            if (!at) fail_msg("the trace has no line %s...", want[w].head);
            double v = strtod(at + strlen(want[w].head), NULL);
            if (fabs(v - want[w].value) > 2.4e-7) fail_msg("%s%.9g, expected %.9g", want[w].head, v, want[w].value);
        }
        free(text);
    }
}

int main(int argc, char **argv) {
    cli_setup(argc, argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_float_round_trip),
        cmocka_unit_test(test_clip_stepping),
        cmocka_unit_test(test_model3_shared),
    };
    return cmocka_run_group_tests_name("cli_files", tests, NULL, NULL);
}
