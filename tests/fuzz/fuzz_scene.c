/* libFuzzer target: the scene JSON reader (io/scene/scene_json.c), then the engine on what it
 * accepts: a world is built and ticked for up to 4 frames (look keys, pose clips, draws).
 *
 * The scene lives in a scratch folder holding clip.csv and model.model3.json, which scenes may
 * name. Reads of anything but regular files are refused (fopen and json_load_file are wrapped
 * at link time), so that a scene naming /dev/zero or a pipe cannot hang the fuzzer.
 *
 * Oracles (abort: a finding): the reader returns TOOL_OK, TOOL_BAD_INPUT or TOOL_FAILED; an
 * accepted scene with at most 256 instances builds (or is refused by the engine with
 * TOOL_BAD_INPUT) and ticks to finite outputs and bones (CROWD_FUZZ_SKIP_FINITE=1 in the
 * environment leaves that check out). Run with -close_fd_mask=2: every rejected scene prints
 * its message. */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "checksum.h"
#include "clip.h"
#include "diag.h"
#include "scene.h"
#include "ticker.h"
#include "world.h"

char *mkdtemp(char *template);

/* ---- reads of regular files only ---- */
FILE *__real_fopen(const char *path, const char *mode);
FILE *__real_fopen64(const char *path, const char *mode);
json_t *__real_json_load_file(const char *path, size_t flags, json_error_t *error);

static int refused(const char *path, const char *mode) {
    struct stat st;
    return mode[0] == 'r' && stat(path, &st) == 0 && !S_ISREG(st.st_mode);
}
FILE *__wrap_fopen(const char *path, const char *mode) {
    if (refused(path, mode)) {
        errno = EACCES;
        return NULL;
    }
    return __real_fopen(path, mode);
}
FILE *__wrap_fopen64(const char *path, const char *mode) {
    if (refused(path, mode)) {
        errno = EACCES;
        return NULL;
    }
    return __real_fopen64(path, mode);
}
json_t *__wrap_json_load_file(const char *path, size_t flags, json_error_t *error) {
    if (refused(path, "r")) {
        if (error) {
            memset(error, 0, sizeof *error);
            error->line = -1;
            snprintf(error->text, sizeof error->text, "not a regular file (refused by the fuzzer)");
        }
        return NULL;
    }
    return __real_json_load_file(path, flags, error);
}

static char dir[256], scene_path[300];
static int skip_finite;

static void write_text(const char *name, const char *text) {
    char path[400];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f) abort();
    fputs(text, f);
    fclose(f);
}

static void setup(void) {
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%s/crowd-fuzz-scene-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    if (!mkdtemp(dir)) abort();
    snprintf(scene_path, sizeof scene_path, "%s/scene.json", dir);
    /* a three-row clip */
    static char clip[32768];
    size_t n = 0;
    for (uint32_t c = 0; c < 2 + CLIP_FLOATS; c++) {
        char name[32];
        clip_column_name(c, name, sizeof name);
        n += (size_t)snprintf(clip + n, sizeof clip - n, "%s%s", c ? "," : "", name);
    }
    for (int r = 0; r < 3; r++) {
        n += (size_t)snprintf(clip + n, sizeof clip - n, "\n%d,%g", r, 0.1 * r);
        for (int k = 0; k < CROWD_LANDMARK_COUNT; k++)
            n += (size_t)snprintf(clip + n, sizeof clip - n, ",%g,%g,%g,%g", 0.01 * k * (k % 2 ? 1 : -1) + 0.02 * r,
                                  1.0 - 0.05 * k, 0.003 * k * r, k % 5 ? 0.9 : 0.4);
    }
    n += (size_t)snprintf(clip + n, sizeof clip - n, "\n");
    write_text("clip.csv", clip);
    write_text("model.model3.json",
               "{\"Version\": 3, \"Groups\": [{\"Target\": \"Parameter\", \"Name\": \"EyeBlink\", \"Ids\": "
               "[\"ParamEyeLOpen\", \"ParamEyeROpen\"]}, {\"Target\": \"Parameter\", \"Name\": \"LipSync\", \"Ids\": []}]}");
    skip_finite = getenv("CROWD_FUZZ_SKIP_FINITE") != NULL;
}

static void check_finite(const world *w) {
    for (uint32_t i = 0; i < w->instance_count; i++) {
        const world_rig *wr = &w->rigs[w->rig_of[i]];
        uint32_t row = w->row[i], P = w->scene->rigs[w->rig_of[i]].parameter_count;
        for (uint32_t p = 0; p < P; p++)
            if (!isfinite(wr->out[p][row])) {
                fprintf(stderr, "fuzz_scene: instance %u parameter %u is %g\n", i, p, (double)wr->out[p][row]);
                abort();
            }
        if (wr->limbs)
            for (uint32_t b = 0; b < CROWD_BONE_COUNT; b++)
                for (uint32_t c = 0; c < 4; c++)
                    if (!isfinite(wr->bone_world[b][c][row])) {
                        fprintf(stderr, "fuzz_scene: instance %u bone %u is not finite\n", i, b);
                        abort();
                    }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!dir[0]) setup();
    scene s;
    int st = scene_parse(scene_path, (const char *)data, size, &s);
    if (st != TOOL_OK && st != TOOL_BAD_INPUT && st != TOOL_FAILED) abort();
    if (st != TOOL_OK) return 0; /* scene_parse frees what it read */
    uint64_t instances = 0, columns = 0;
    for (uint32_t g = 0; g < s.group_count; g++) instances += s.groups[g].count;
    for (uint32_t r = 0; r < s.rig_count; r++) columns += s.rigs[r].parameter_count;
    if (instances <= 256 && columns <= 4096) {
        world w;
        st = world_create(&w, &s, CROWD_SIMD_AUTO, 1 + (uint32_t)(size % 3));
        if (st != TOOL_OK && st != TOOL_BAD_INPUT) abort();
        uint32_t frames = s.frames < 4 ? s.frames : 4;
        double seconds = 0;
        for (uint32_t k = 1; st == TOOL_OK && k <= frames; k++) {
            world_prepare_frame(&w, k, s.dt);
            if (ticker_tick(&w, s.dt, &seconds) != TOOL_OK) abort(); /* the scene reader checked dt */
            if (!skip_finite) check_finite(&w);
        }
        if (st == TOOL_OK) (void)world_checksum(&w);
        world_destroy(&w);
    }
    scene_free(&s);
    return 0;
}
