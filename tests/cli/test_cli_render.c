/* test_cli_render.c — `crowd render`: the picture has the requested size, is an RGB PNG, is not
 * blank (many colours, much drawn on the background) and changes with the frame; scenes
 * without limbs draw too; an unwritable path fails (exit 1) without leaving FILE.tmp.
 *
 * argv: TARGET CROWD_EXE */
#define _POSIX_C_SOURCE 200809L
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_support.h"

typedef struct picture {
    uint32_t width, height;
    uint8_t *rgb;
} picture;

static picture read_png(const char *path) {
    picture p = {0};
    png_image image;
    memset(&image, 0, sizeof image);
    image.version = PNG_IMAGE_VERSION;
    if (!png_image_begin_read_from_file(&image, path)) fail_msg("%s: %s", path, image.message);
    image.format = PNG_FORMAT_RGB;
    p.width = image.width;
    p.height = image.height;
    p.rgb = malloc(PNG_IMAGE_SIZE(image));
    if (!png_image_finish_read(&image, NULL, p.rgb, 0, NULL)) fail_msg("%s: %s", path, image.message);
    return p;
}

/* Asserts the picture is not blank: many distinct colours, a good share off the background. */
static void expect_drawn(const picture *p) {
    size_t n = (size_t)p->width * p->height, off = 0, distinct = 0;
    const uint8_t *bg = p->rgb + 3 * (n - 1); /* the bottom-right corner is background */
    static uint8_t seen[1 << 15];
    memset(seen, 0, sizeof seen);
    for (size_t k = 0; k < n; k++) {
        const uint8_t *px = p->rgb + 3 * k;
        if (px[0] != bg[0] || px[1] != bg[1] || px[2] != bg[2]) off++;
        uint32_t key = (uint32_t)(px[0] >> 3) << 10 | (uint32_t)(px[1] >> 3) << 5 | (uint32_t)(px[2] >> 3);
        if (!seen[key]) seen[key] = 1, distinct++;
    }
    if (off < n / 20 || distinct < 30)
        fail_msg("the picture looks blank: %zu of %zu pixels drawn, %zu colours", off, n, distinct);
}

static void default_crowd_picture(void **state) {
    (void)state;
    const char *out = cli_path("crowd.png");
    cli_result r = cli_run("render", "--out", out, "--frame", "30", "--size", "320x200", "--count", "6", "--simd",
                           cli_target, "--quiet");
    cli_expect_ok(&r);
    cli_result_free(&r);
    picture a = read_png(out);
    assert_int_equal(a.width, 320);
    assert_int_equal(a.height, 200);
    expect_drawn(&a);
    assert_false(cli_exists_prefix(cli_path("crowd.png.")));
    /* a later frame: the walk and the gaze moved */
    const char *later = cli_path("later.png");
    r = cli_run("render", "--out", later, "--frame", "45", "--size", "320x200", "--count", "6", "--simd", cli_target);
    cli_expect_ok(&r);
    assert_non_null(strstr(r.out, "wrote"));
    cli_result_free(&r);
    picture b = read_png(later);
    assert_int_equal(b.width, 320);
    assert_true(memcmp(a.rgb, b.rgb, (size_t)320 * 200 * 3) != 0);
    free(a.rgb);
    free(b.rgb);
    /* the default size */
    r = cli_run("render", "--out", out, "--frame", "2", "--simd", cli_target);
    cli_expect_ok(&r);
    cli_result_free(&r);
    picture c = read_png(out);
    assert_int_equal(c.width, 1280);
    assert_int_equal(c.height, 720);
    expect_drawn(&c);
    free(c.rgb);
}

static void faces_without_limbs(void **state) {
    (void)state;
    const char *scene = cli_write(
        "faces.json",
        "{\"frames\": 20, \"rigs\": [{\"name\": \"f\",\n"
        " \"parameters\": [{\"id\": \"ParamAngleX\"}, {\"id\": \"ParamEyeBallX\", \"min\": -1, \"max\": 1},\n"
        "   {\"id\": \"ParamEyeLOpen\", \"min\": 0, \"max\": 1, \"default\": 1},\n"
        "   {\"id\": \"ParamEyeROpen\", \"min\": 0, \"max\": 1, \"default\": 1}, {\"id\": \"ParamBreath\", \"min\": 0, \"max\": 1}],\n"
        " \"look\": {\"parameters\": [{\"id\": \"ParamAngleX\"}, {\"id\": \"ParamEyeBallX\", \"factor\": 1}]},\n"
        " \"harmonic\": {\"parameters\": [{\"id\": \"ParamBreath\"}]},\n"
        " \"blink\": {\"parameters\": [\"ParamEyeLOpen\", \"ParamEyeROpen\"]}}],\n"
        " \"groups\": [{\"rig\": \"f\", \"count\": 7, \"blink_start\": \"cubism\",\n"
        "   \"look\": {\"keys\": [{\"t\": 0, \"target\": [1, 0, 0]}]}}]}\n");
    const char *out = cli_path("faces.png");
    cli_result r = cli_run("render", scene, "--out", out, "--frame", "8", "--size", "400x300", "--simd", cli_target);
    cli_expect_ok(&r);
    cli_result_free(&r);
    picture p = read_png(out);
    assert_int_equal(p.width, 400);
    assert_int_equal(p.height, 300);
    expect_drawn(&p);
    free(p.rgb);
}

static void unwritable(void **state) {
    (void)state;
    const char *out = cli_path("no/such/dir/p.png");
    cli_result r = cli_run("render", "--out", out, "--frame", "1", "--size", "64x64", "--count", "1", "--simd", cli_target);
    cli_expect_fail(&r, 1, "no/such/dir/p.png");
    cli_result_free(&r);
    assert_false(cli_exists(out));
}

int main(int argc, char **argv) {
    cli_setup(argc, argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(default_crowd_picture),
        cmocka_unit_test(faces_without_limbs),
        cmocka_unit_test(unwritable),
    };
    return cmocka_run_group_tests_name("cli_render", tests, NULL, NULL);
}
