/* test_cli_render.c — `crowd render`: the picture has the requested size, is an RGB PNG, is not
 * blank (many colours, much drawn on the background) and changes with the frame; scenes
 * without limbs draw too; an unwritable path fails (exit 1) without leaving FILE.tmp.
 * The crowd: the layout is drawn back to front (depth never increases, nearer is lower and
 * larger on screen; placed groups stand where the scene says), a nearer avatar covers the one
 * behind it, and 2,000 avatars make a picture that is not blank and has the size asked for.
 * GIF (decoded with giflib): frame count, delays, the loop, the first frame against the PNG of
 * the same frame (the palette holds the avatars' colours exactly), frames that differ exactly
 * where the engine's outputs differ, and bad usage.
 *
 * argv: TARGET CROWD_EXE */
#define _POSIX_C_SOURCE 200809L
#include <gif_lib.h>
#include <math.h>
#include <png.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli_support.h"
#include "diag.h"
#include "render.h"
#include "scene.h"
#include "world.h"

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

static void test_default_crowd_picture(void **state) {
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

static void test_faces_without_limbs(void **state) {
    (void)state;
    const char *scene_path = cli_write(
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
    cli_result r = cli_run("render", scene_path, "--out", out, "--frame", "8", "--size", "400x300", "--simd", cli_target);
    cli_expect_ok(&r);
    cli_result_free(&r);
    picture p = read_png(out);
    assert_int_equal(p.width, 400);
    assert_int_equal(p.height, 300);
    expect_drawn(&p);
    free(p.rgb);
}

static void test_unwritable(void **state) {
    (void)state;
    const char *out = cli_path("no/such/dir/p.png");
    cli_result r = cli_run("render", "--out", out, "--frame", "1", "--size", "64x64", "--count", "1", "--simd", cli_target);
    cli_expect_fail(&r, 1, "no/such/dir/p.png");
    cli_result_free(&r);
    assert_false(cli_exists(out));
}

/* ---- the crowd ---- */
static const char placed_scene[] =
    "{\"frames\": 3, \"rigs\": [{\"name\": \"f\", \"parameters\": [{\"id\": \"ParamBreath\", \"min\": 0, \"max\": 1}],\n"
    "  \"harmonic\": {\"parameters\": [{\"id\": \"ParamBreath\"}]}}],\n"
    " \"groups\": [{\"rig\": \"f\", \"count\": %u, \"place\": {\"at\": [0, %s], \"columns\": %u, \"spacing\": [0.8, 1.0]}},\n"
    "            {\"rig\": \"f\", \"count\": %u, \"place\": {\"at\": [0, 0], \"columns\": %u}},\n"
    "            {\"rig\": \"f\", \"count\": %u}]}\n";

static void test_layout_back_to_front(void **state) {
    (void)state;
    char text[2048];
    snprintf(text, sizeof text, placed_scene, 30u, "12", 6u, 20u, 5u, 50u);
    scene s;
    assert_int_equal(scene_parse("placed.json", text, strlen(text), &s), TOOL_OK);
    assert_true(s.groups[0].place.set);
    assert_false(s.groups[2].place.set);
    world w;
    assert_int_equal(world_create(&w, &s, CROWD_SIMD_SCALAR, 1), TOOL_OK);
    render_spot *spot = NULL;
    float horizon;
    assert_int_equal(render_layout(&w, 1000, 640, 360, 4, &spot, &horizon), TOOL_OK);
    for (uint32_t k = 0; k < 100; k++) {
        const render_spot *p = &spot[k];
        assert_true(p->depth > 0);
        if (k) {
            const render_spot *q = &spot[k - 1];
            if (q->depth < p->depth) fail_msg("spot %u (depth %g) after a nearer one (%g)", k, p->depth, q->depth);
            if (!(p->scale >= q->scale)) fail_msg("spot %u: nearer but smaller", k);
            if (!(p->screen_y >= q->screen_y)) fail_msg("spot %u: nearer but higher on screen", k);
        }
        /* the placed group 0 stands 12 m behind group 1 (placed at 0): every one of it is drawn first */
        if (p->instance < 30) {
            assert_true(k < 30);
            assert_true(fabsf(p->z - 12.0f - 1.0f * (float)(p->instance / 6)) < 1e-4f);
        }
        if (p->instance >= 30 && p->instance < 50) assert_true(p->z >= 0 && p->z < 4.01f);
    }
    /* every instance once */
    bool seen[100] = {0};
    for (uint32_t k = 0; k < 100; k++) {
        assert_false(seen[spot[k].instance]);
        seen[spot[k].instance] = true;
    }
    /* the far group looks smaller: its avatars' scale is below every one of the near block's */
    free(spot);
    world_destroy(&w);
    scene_free(&s);
    /* a bad place is refused with its path */
    const char *bad = cli_write("bad_place.json", "{\"rigs\": [{\"name\": \"f\"}], \"groups\": [{\"rig\": \"f\", \"place\": "
                                                  "{\"at\": [0, 1], \"spacing\": [0, 1]}}]}");
    cli_result r = cli_run("render", bad, "--out", cli_path("never.png"));
    cli_expect_fail(&r, 2, "groups[0].place.spacing[0]");
    cli_result_free(&r);
    bad = cli_write("bad_place2.json", "{\"rigs\": [{\"name\": \"f\"}], \"groups\": [{\"rig\": \"f\", \"place\": {\"row\": 2}}]}");
    r = cli_run("render", bad, "--out", cli_path("never.png"));
    cli_expect_fail(&r, 2, "groups[0].place.row", "unknown field");
    cli_result_free(&r);
    assert_false(cli_exists(cli_path("never.png")));
}

static rgb shirt_of(uint32_t instance) {
    rgb all[64];
    render_colours(all, 64);
    return all[9 + render_look(instance) % 12];
}

static bool same_rgb(const uint8_t *px, rgb c) { return px[0] == c.r && px[1] == c.g && px[2] == c.b; }

/* One avatar right behind another: the nearer one's chest shows its own shirt where the one
 * behind overlaps it. */
static void test_nearer_covers(void **state) {
    (void)state;
    /* two instances whose shirts differ: the first of group 0 (behind) and of group 1 (in front) */
    uint32_t behind = 0, front = 1;
    assert_true(render_look(behind) % 12 != render_look(front) % 12);
    char text[2048];
    snprintf(text, sizeof text, placed_scene, 1u, "0.35", 1u, 1u, 1u, 0u);
    const char *path = cli_write("covers.json", text);
    scene s;
    assert_int_equal(scene_parse(path, text, strlen(text), &s), TOOL_OK);
    world w;
    assert_int_equal(world_create(&w, &s, CROWD_SIMD_SCALAR, 1), TOOL_OK);
    render_spot *spot = NULL;
    float horizon;
    assert_int_equal(render_layout(&w, 10, 400, 400, 22, &spot, &horizon), TOOL_OK);
    assert_int_equal(spot[0].instance, behind);
    assert_int_equal(spot[1].instance, front);
    /* the front chest, and it lies inside the back avatar's outline on screen (else the test shows nothing) */
    int x = (int)lroundf(spot[1].screen_x), y = (int)lroundf(spot[1].screen_y - 1.15f * spot[1].scale);
    assert_true(y > spot[0].screen_y - 1.9f * spot[0].scale && y < spot[0].screen_y);
    free(spot);
    world_destroy(&w);
    scene_free(&s);
    const char *out = cli_path("covers.png");
    cli_result r = cli_run("render", path, "--out", out, "--size", "400x400", "--frame", "1", "--simd", cli_target);
    cli_expect_ok(&r);
    cli_result_free(&r);
    picture p = read_png(out);
    const uint8_t *px = p.rgb + 3 * ((size_t)y * p.width + (size_t)x);
    rgb want = shirt_of(front);
    if (!same_rgb(px, want))
        fail_msg("the front avatar's chest at (%d, %d) is %u,%u,%u, not its shirt %u,%u,%u", x, y, px[0], px[1], px[2],
                 want.r, want.g, want.b);
    free(p.rgb);
}

static void test_two_thousand(void **state) {
    (void)state;
    const char *out = cli_path("crowd2000.png");
    cli_result r = cli_run("render", "--out", out, "--frame", "12", "--size", "640x360", "--count", "2000", "--simd",
                           cli_target, "--quiet");
    cli_expect_ok(&r);
    cli_result_free(&r);
    picture p = read_png(out);
    assert_int_equal(p.width, 640);
    assert_int_equal(p.height, 360);
    expect_drawn(&p);
    /* many avatars: every shirt colour shows */
    rgb all[64];
    render_colours(all, 64);
    for (int k = 0; k < 12; k++) {
        size_t hits = 0;
        for (size_t i = 0; i < (size_t)p.width * p.height; i++) hits += same_rgb(p.rgb + 3 * i, all[9 + k]);
        if (hits < 50) fail_msg("shirt colour %d shows on %zu pixels only", k, hits);
    }
    free(p.rgb);
}

/* ---- GIF ---- */
typedef struct movie {
    uint32_t width, height, frames;
    uint8_t *rgb;   /* [frames][height][width][3], each frame as shown (transparency applied) */
    int *delay;     /* [frames] hundredths of a second */
    bool loops;
    ColorMapObject palette;
    GifColorType colours[256];
} movie;

static movie read_gif(const char *path) {
    int err = 0;
    GifFileType *g = DGifOpenFileName(path, &err);
    if (!g) fail_msg("%s: %s", path, GifErrorString(err));
    if (DGifSlurp(g) != GIF_OK) fail_msg("%s: %s", path, GifErrorString(g->Error));
    movie m = {.width = (uint32_t)g->SWidth, .height = (uint32_t)g->SHeight, .frames = (uint32_t)g->ImageCount};
    assert_non_null(g->SColorMap);
    m.palette.ColorCount = g->SColorMap->ColorCount;
    memcpy(m.colours, g->SColorMap->Colors, sizeof(GifColorType) * (size_t)g->SColorMap->ColorCount);
    size_t n = (size_t)m.width * m.height * 3;
    m.rgb = calloc(m.frames ? m.frames : 1, n);
    m.delay = calloc(m.frames ? m.frames : 1, sizeof *m.delay);
    uint8_t *shown = calloc(1, n);
    for (uint32_t f = 0; f < m.frames; f++) {
        const SavedImage *im = &g->SavedImages[f];
        assert_null(im->ImageDesc.ColorMap); /* one palette for the whole clip */
        GraphicsControlBlock gcb;
        assert_int_equal(DGifSavedExtensionToGCB(g, (int)f, &gcb), GIF_OK);
        m.delay[f] = gcb.DelayTime;
        for (int k = 0; k < im->ExtensionBlockCount; k++)
            if (im->ExtensionBlocks[k].ByteCount == 11 && memcmp(im->ExtensionBlocks[k].Bytes, "NETSCAPE2.0", 11) == 0)
                m.loops = true;
        for (int y = 0; y < im->ImageDesc.Height; y++)
            for (int x = 0; x < im->ImageDesc.Width; x++) {
                int idx = im->RasterBits[y * im->ImageDesc.Width + x];
                if (idx == gcb.TransparentColor) continue;
                uint8_t *px = shown + 3 * ((size_t)(y + im->ImageDesc.Top) * m.width + (size_t)(x + im->ImageDesc.Left));
                px[0] = m.colours[idx].Red, px[1] = m.colours[idx].Green, px[2] = m.colours[idx].Blue;
            }
        memcpy(m.rgb + n * f, shown, n);
    }
    free(shown);
    DGifCloseFile(g, &err);
    return m;
}

static bool frames_equal(const movie *m, uint32_t a, uint32_t b) {
    size_t n = (size_t)m->width * m->height * 3;
    return memcmp(m->rgb + n * a, m->rgb + n * b, n) == 0;
}

static void test_gif_default_crowd(void **state) {
    (void)state;
    const char *gif = cli_path("crowd.gif"), *png = cli_path("frame10.png");
    cli_result r = cli_run("render", "--gif", gif, "--frames", "10:21", "--fps", "30", "--count", "300", "--size",
                           "320x180", "--simd", cli_target);
    cli_expect_ok(&r);
    assert_non_null(strstr(r.out, "12 frames"));
    cli_result_free(&r);
    assert_false(cli_exists(cli_path("crowd.gif.tmp")));
    movie m = read_gif(gif);
    assert_int_equal(m.width, 320);
    assert_int_equal(m.height, 180);
    assert_int_equal(m.frames, 12);
    assert_true(m.loops);
    int total = 0;
    for (uint32_t f = 0; f < m.frames; f++) {
        if (m.delay[f] != 3 && m.delay[f] != 4) fail_msg("frame %u: delay %d cs at 30 fps", f, m.delay[f]);
        total += m.delay[f];
    }
    assert_int_equal(total, 40); /* 12 frames at 30 fps: 0.4 s */
    /* the walk and the gaze move every frame */
    for (uint32_t f = 1; f < m.frames; f++)
        if (frames_equal(&m, f - 1, f)) fail_msg("frames %u and %u of the default crowd are the same", f + 9, f + 10);
    /* the palette holds every colour the avatars are drawn with, and frame 1 is frame 10's PNG */
    rgb all[64];
    uint32_t nc = render_colours(all, 64);
    for (uint32_t k = 0; k < nc; k++) {
        bool found = false;
        for (int e = 0; e < m.palette.ColorCount && !found; e++)
            found = m.colours[e].Red == all[k].r && m.colours[e].Green == all[k].g && m.colours[e].Blue == all[k].b;
        if (!found) fail_msg("the palette lacks the avatars' colour %u (%u,%u,%u)", k, all[k].r, all[k].g, all[k].b);
    }
    r = cli_run("render", "--out", png, "--frame", "10", "--count", "300", "--size", "320x180", "--simd", cli_target);
    cli_expect_ok(&r);
    cli_result_free(&r);
    picture p = read_png(png);
    size_t exact = 0, kept = 0;
    double diff = 0;
    for (size_t i = 0; i < (size_t)320 * 180; i++) {
        const uint8_t *a = p.rgb + 3 * i, *b = m.rgb + 3 * i;
        if (i >= 320 * 12) /* (below the PNG's caption) */
            for (int c = 0; c < 3; c++) diff += fabs((double)a[c] - b[c]);
        for (uint32_t k = 0; k < nc; k++)
            if (same_rgb(a, all[k])) {
                exact++;
                kept += a[0] == b[0] && a[1] == b[1] && a[2] == b[2];
                break;
            }
    }
    if (kept != exact) fail_msg("%zu of %zu pixels of the avatars' own colours changed colour in the GIF", exact - kept, exact);
    diff /= 3.0 * 320 * 168;
    if (diff > 4) fail_msg("the GIF's first frame is %.2f levels from the PNG on average", diff);
    free(p.rgb);
    free(m.rgb);
    free(m.delay);
}

/* Faces that only blink: frames are the same exactly where the outputs are. */
static void test_gif_changes_with_outputs(void **state) {
    (void)state;
    const char *scene_path = cli_write(
        "blinks.json",
        "{\"frames\": 60, \"dt\": 0.04, \"rigs\": [{\"name\": \"f\",\n"
        " \"parameters\": [{\"id\": \"ParamEyeLOpen\", \"min\": 0, \"max\": 1, \"default\": 1},\n"
        "   {\"id\": \"ParamEyeROpen\", \"min\": 0, \"max\": 1, \"default\": 1}],\n"
        " \"blink\": {\"parameters\": [\"ParamEyeLOpen\", \"ParamEyeROpen\"], \"mean\": 0.6, \"max_deviation\": 0.3}}],\n"
        " \"groups\": [{\"rig\": \"f\", \"count\": 3, \"blink_start\": \"random\"}]}\n");
    const char *trace = cli_path("blinks.csv"), *gif = cli_path("blinks.gif");
    cli_result r = cli_run("run", scene_path, "--trace", trace, "--quiet", "--simd", cli_target);
    cli_expect_ok(&r);
    cli_result_free(&r);
    r = cli_run("render", scene_path, "--gif", gif, "--frames", "1:60", "--size", "360x240", "--simd", cli_target);
    cli_expect_ok(&r);
    cli_result_free(&r);
    /* outputs per frame: 3 instances x 2 parameters */
    float out[61][6] = {{0}};
    char *text = cli_read(trace, NULL), *save, *line = strtok_r(text, "\n", &save);
    while ((line = strtok_r(NULL, "\n", &save)) != NULL) {
        unsigned frame, inst;
        char id[32];
        float v;
        if (sscanf(line, "%u,%u,%31[^,],%f", &frame, &inst, id, &v) != 4 || frame > 60 || inst > 2) fail_msg("trace: %s", line);
        out[frame][inst * 2 + (strcmp(id, "ParamEyeROpen") == 0)] = v;
    }
    free(text);
    movie m = read_gif(gif);
    assert_int_equal(m.frames, 60);
    for (uint32_t f = 0; f < 60; f++) assert_int_equal(m.delay[f], 4); /* 1/dt = 25 fps */
    int still = 0, moved = 0;
    for (uint32_t k = 2; k <= 60; k++) {
        float most = 0;
        for (int c = 0; c < 6; c++) most = fmaxf(most, fabsf(out[k][c] - out[k - 1][c]));
        bool same = frames_equal(&m, k - 2, k - 1);
        if (most == 0) {
            if (!same) fail_msg("frames %u and %u differ though every output is the same", k - 1, k);
            still++;
        } else if (most > 0.05f) {
            if (same) fail_msg("frames %u and %u are the same though an eye moved by %.3f", k - 1, k, (double)most);
            moved++;
        }
    }
    if (still < 5 || moved < 5) fail_msg("the scene did not blink as meant: %d still and %d moving frames", still, moved);
    free(m.rgb);
    free(m.delay);
}

static void test_gif_bad_usage(void **state) {
    (void)state;
    const char *gif = cli_path("bad.gif"), *png = cli_path("x.png"), *nowhere = cli_path("no/such/dir/a.gif");
    /* exit 2 on usage, and 1 on a FILE that cannot be written; the message on stderr */
    const struct {
        const char *args[11];
        int status;
        const char *say;
    } refused[] = {
        {{"render", "--gif", gif}, 2, "--gif needs --frames A:B"},
        {{"render", "--gif", gif, "--frames", "5:3"}, 2, "B is before A"},
        {{"render", "--gif", gif, "--frames", "0:3"}, 2, "--frames (A of A:B)"},
        {{"render", "--gif", gif, "--frames", "1:3", "--fps", "0"}, 2, "--fps"},
        {{"render", "--out", png, "--fps", "10"}, 2, "go with --gif"},
        {{"render", "--gif", gif, "--frames", "1:100000", "--size", "4000x4000"}, 2, "MiB"},
        {{"render", "--gif", nowhere, "--frames", "1:2", "--size", "64x64", "--count", "3"}, 1, "no/such/dir/a.gif"},
    };
    for (size_t k = 0; k < sizeof refused / sizeof refused[0]; k++) {
        char where[1200];
        snprintf(where, sizeof where, "%s (row %zu)", __FILE__, k);
        cli_result r = cli_run_argv(refused[k].args, NULL);
        cli_expect_fail_(&r, refused[k].status, (const char *const[]){refused[k].say, NULL}, where, __LINE__);
        cli_result_free(&r);
    }
    assert_false(cli_exists(gif));
    assert_false(cli_exists(png));
}

int main(int argc, char **argv) {
    cli_setup(argc, argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_default_crowd_picture),
        cmocka_unit_test(test_faces_without_limbs),
        cmocka_unit_test(test_unwritable),
        cmocka_unit_test(test_layout_back_to_front),
        cmocka_unit_test(test_nearer_covers),
        cmocka_unit_test(test_two_thousand),
        cmocka_unit_test(test_gif_default_crowd),
        cmocka_unit_test(test_gif_changes_with_outputs),
        cmocka_unit_test(test_gif_bad_usage),
    };
    return cmocka_run_group_tests_name("cli_render", tests, NULL, NULL);
}
