/* Lip sync against the Cubism samples' WAV handler (../shared/data/cubism/lipsync, issue 26):
 * haru_talk_13.wav at 60 and 30 fps and haru_Info_14.wav at 60 fps. Each frame repeats the
 * handler's update(dt): the time grows by dt (double), the block is [offset, floor(t * rate)),
 * its RMS by crowd_lipsync_rms over the samples the WAV reader (io/media/wav.c, libsndfile) made;
 * at the end of the file the level is 0. Held: the offsets exactly, the RMS exactly as float32
 * (the handler's double rounded to float; the largest double difference is printed), and
 * ParamMouthOpenY after addParameterValueById(id, rms, 0.8) on 0 within 1e-6. Bad WAV files are
 * refused by name. Skipped without the data (the bad-file part needs none). */
#define _POSIX_C_SOURCE 200809L /* mkdtemp */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "crowd.h"
#include "files.h"
#include "test_support.h"
#include "wav.h"

static void run_case(const char *name) {
    char rel[160];
    snprintf(rel, sizeof rel, "cubism/lipsync/lipsync_%s.json", name);
    const char *gpath = crowd_test_data(rel);
    if (!gpath) {
        skip();
        return;
    }
    json_error_t err;
    json_t *g = json_load_file(gpath, 0, &err);
    assert_non_null(g);
    json_t *info = json_object_get(g, "wav"), *frames = json_object_get(g, "frames"), *dts = json_object_get(g, "dt");
    snprintf(rel, sizeof rel, "cubism/inputs/%s", json_string_value(json_object_get(info, "file")));
    const char *wpath = crowd_test_data(rel);
    assert_non_null(wpath);
    wav_audio w;
    assert_int_equal(wav_read(wpath, &w), 0);
    assert_int_equal(w.channels, json_integer_value(json_object_get(info, "numberOfChannels")));
    assert_int_equal(w.rate, json_integer_value(json_object_get(info, "samplingRate")));
    assert_int_equal(w.bits, json_integer_value(json_object_get(info, "bitsPerSample")));
    assert_int_equal(w.frames, json_integer_value(json_object_get(info, "samplesPerChannel")));
    double t = 0, worst_rms = 0, worst_mouth = 0;
    size_t offset = 0, n = json_array_size(frames), mismatched = 0;
    for (size_t k = 0; k < n; k++) {
        json_t *row = json_array_get(frames, k);
        size_t before = offset;
        assert_int_equal(before, (size_t)json_number_value(json_array_get(row, 3)));
        float rms = 0;
        if (offset < w.frames) {
            t += json_number_value(json_array_get(dts, k));
            size_t count = wav_block(&w, t, &offset);
            rms = crowd_lipsync_rms(w.samples + before * w.channels, count, w.channels);
        }
        assert_int_equal(offset, (size_t)json_number_value(json_array_get(row, 4)));
        double want = json_number_value(json_array_get(row, 5));
        if (rms != (float)want) mismatched++;
        worst_rms = fmax(worst_rms, fabs((double)rms - want));
        /* addParameterValueById(id, rms, 0.8) on 0: clamped to [0, 1], stored as float32 */
        double mouth = 0.0 + (double)rms * 0.8;
        float stored = (float)(mouth < 0 ? 0 : mouth > 1 ? 1 : mouth);
        worst_mouth = fmax(worst_mouth, fabs((double)stored - json_number_value(json_array_get(row, 6))));
    }
    printf("lip sync %s: %zu frames, RMS as float32 differs on %zu, largest |rms - handler's double| %.3g, "
           "mouth within %.3g\n", name, n, mismatched, worst_rms, worst_mouth);
    assert_int_equal(mismatched, 0);
    assert_true(worst_mouth <= 1e-6);
    wav_free(&w);
    json_decref(g);
}

static void test_talk_13_60fps(void **state) { (void)state; run_case("haru_talk_13_60fps"); }
static void test_talk_13_30fps(void **state) { (void)state; run_case("haru_talk_13_30fps"); }
static void test_info_14_60fps(void **state) { (void)state; run_case("haru_Info_14_60fps"); }

/* The RMS on its own, against the formula in double over generated samples: every block size
 * and channel count, and the empty and non-finite cases. */
static void test_rms_formula(void **state) {
    (void)state;
    float x[1000];
    rng r = {7};
    for (int i = 0; i < 1000; i++) x[i] = (float)((double)(int32_t)(uint32_t)(rng_next(&r) >> 32) / 2147483647.0);
    for (uint32_t ch = 1; ch <= 3; ch++)
        for (size_t frames = 1; frames * ch <= 1000; frames += 37) {
            double s = 0;
            for (size_t i = 0; i < frames * ch; i++) s += (double)x[i] * x[i];
            assert_true(crowd_lipsync_rms(x, frames, ch) == (float)sqrt(s / (double)(frames * ch)));
        }
    assert_true(crowd_lipsync_rms(x, 0, 1) == 0.0f);
    assert_true(crowd_lipsync_rms(NULL, 5, 1) == 0.0f);
    assert_true(crowd_lipsync_rms(x, 5, 0) == 0.0f);
    float bad[2] = {INFINITY, 0.5f};
    assert_true(crowd_lipsync_rms(bad, 2, 1) == 0.0f);
}

static void put32(unsigned char *b, uint32_t v) { b[0] = (unsigned char)v; b[1] = (unsigned char)(v >> 8); b[2] = (unsigned char)(v >> 16); b[3] = (unsigned char)(v >> 24); }
/* A 44-byte header + `data_bytes` of data, of which `written` are in the file. */
static void write_wav(const char *path, unsigned tag, unsigned bits, uint32_t data_bytes, uint32_t written) {
    unsigned char h[44] = "RIFF....WAVEfmt ";
    put32(h + 4, 36 + data_bytes);
    put32(h + 16, 16);
    h[20] = (unsigned char)tag; h[21] = 0; h[22] = 1; h[23] = 0; /* tag, 1 channel */
    put32(h + 24, 8000);
    put32(h + 28, 8000 * bits / 8);
    h[32] = (unsigned char)(bits / 8); h[33] = 0; h[34] = (unsigned char)bits; h[35] = 0;
    memcpy(h + 36, "data", 4);
    put32(h + 40, data_bytes);
    FILE *f = fopen(path, "wb");
    assert_non_null(f);
    fwrite(h, 1, 44, f);
    for (uint32_t i = 0; i < written; i++) fputc((int)(i * 37 & 0xff), f);
    fclose(f);
}

static void test_bad_files(void **state) {
    (void)state;
    char dir[] = "/tmp/crowd_wav_XXXXXX", path[64];
    assert_non_null(mkdtemp(dir));
    snprintf(path, sizeof path, "%s/a.wav", dir);
    wav_audio w = {0}, before;
    /* a good one: 16-bit, 100 frames; the samples are the handler's */
    write_wav(path, 1, 16, 200, 200);
    assert_int_equal(wav_read(path, &w), 0);
    assert_int_equal(w.frames, 100);
    int16_t s0 = (int16_t)(0 | 37 << 8);
    assert_true(w.samples[0] == (float)((double)((int32_t)s0 * 65536) / 2147483647.0));
    before = w;
    /* not RIFF */
    FILE *f = fopen(path, "wb");
    fputs("ID3\x03 this is an mp3, not a wav file at all....", f);
    fclose(f);
    assert_int_equal(wav_read(path, &w), 2);
    write_wav(path, 1, 16, 2000, 200); /* truncated data */
    assert_int_equal(wav_read(path, &w), 2);
    write_wav(path, 3, 32, 400, 400); /* IEEE float */
    assert_int_equal(wav_read(path, &w), 2);
    write_wav(path, 1, 32, 400, 400); /* 32-bit PCM: the handler reads 0 */
    assert_int_equal(wav_read(path, &w), 2);
    write_wav(path, 1, 16, 200, 200); /* too large for the limit */
    uint64_t limit = tool_max_file_bytes;
    tool_max_file_bytes = 100;
    assert_int_equal(wav_read(path, &w), 2);
    tool_max_file_bytes = limit;
    assert_int_equal(wav_read(dir, &w), 2); /* a directory */
    assert_memory_equal(&before, &w, sizeof w);
    wav_free(&w);
    unlink(path);
    rmdir(dir);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_rms_formula),   cmocka_unit_test(test_bad_files),
        cmocka_unit_test(test_talk_13_60fps), cmocka_unit_test(test_talk_13_30fps),
        cmocka_unit_test(test_info_14_60fps),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
