/* The full avatar (bench/avatar.h: motion, expression, pose, blink, face tracking, lip sync,
 * harmonic, look, physics, limbs and fingers on one rig): every controller's stage runs in one
 * tick on the same rows, and the rig's outputs, bones and finger bones are the same bytes on
 * this target as on scalar, on one thread or two, ticked whole or in ranges split off the
 * SIMD width. (Each controller's numbers against independent references are in its own suite;
 * this one holds the combination.) */
#include <string.h>

#include "avatar.h"
#include "test_support.h"
#include "walk.h"

enum { N = 100, TICKS = 40 };

static const bench_clip *walk_clip(void) {
    static float rows[BENCH_WALK_ROWS * BENCH_WALK_FLOATS];
    static bench_clip clip;
    bench_walk_rows(rows);
    clip = (bench_clip){rows, BENCH_WALK_ROWS};
    return &clip;
}

static bench_avatar *make(crowd_simd simd, uint32_t threads) {
    bench_avatar *a = NULL;
    char err[512];
    if (bench_avatar_create(&a, (int)simd, N, threads, walk_clip(), err, sizeof err) != 0) FAILF("avatar: %s", err);
    return a;
}

/* Every output column of the avatar's rig, one after another: N floats each. */
static const struct {
    crowd_field field;
    uint32_t indices, components;
} fields[] = {{CROWD_FIELD_OUTPUT, 24, 1},        {CROWD_FIELD_BONE_WORLD, CROWD_BONE_COUNT, 4},
              {CROWD_FIELD_BONE_LOCAL, CROWD_BONE_COUNT, 4}, {CROWD_FIELD_FINGER_WORLD, 32, 4},
              {CROWD_FIELD_FINGER_LOCAL, 32, 4},  {CROWD_FIELD_PART_OPACITY, 2, 1},
              {CROWD_FIELD_MOTION_UPDATED, 1, 1}};
enum { COLUMNS = 24 + 2 * 4 * CROWD_BONE_COUNT + 2 * 4 * 32 + 2 + 1 };

static void outputs(const bench_avatar *a, float *out) {
    crowd_rig rig;
    crowd_engine *e = bench_avatar_engine(a, &rig);
    size_t at = 0;
    for (size_t f = 0; f < sizeof fields / sizeof fields[0]; f++)
        for (uint32_t i = 0; i < fields[f].indices; i++)
            for (uint32_t c = 0; c < fields[f].components; c++) {
                float *col;
                uint32_t rows;
                OK(e, crowd_rig_column(e, rig, fields[f].field, i, c, &col, &rows));
                assert_int_equal(rows, N);
                memcpy(out + at, col, sizeof(float) * N);
                at += N;
            }
    assert_int_equal(at, (size_t)COLUMNS * N);
}

static void expect_same(const float *want, const float *got, const char *what, uint32_t tick) {
    if (memcmp(want, got, sizeof(float) * COLUMNS * N) == 0) return;
    for (size_t k = 0; k < (size_t)COLUMNS * N; k++)
        if (fbits(want[k]) != fbits(got[k]))
            FAILF("%s on %s, tick %u: column %zu row %zu: %.9g, scalar %.9g", what, crowd_simd_name(crowd_test_simd),
                  tick, k / N, k % N, (double)got[k], (double)want[k]);
}

static void test_same_bytes(void **state) {
    (void)state;
    bench_avatar *ref = make(CROWD_SIMD_SCALAR, 1), *one = make(crowd_test_simd, 1), *two = make(crowd_test_simd, 2);
    static float want[COLUMNS * N], got[COLUMNS * N], first[COLUMNS * N];
    const uint32_t w = crowd_simd_width(crowd_test_simd);
    for (uint32_t t = 1; t <= TICKS; t++) {
        bench_avatar_tick(ref, BENCH_DT);
        /* ranges: one off the width, one the rest (the tail's path included) */
        bench_avatar_tick_range(one, BENCH_DT, 0, w + 3);
        bench_avatar_tick_range(one, BENCH_DT, w + 3, N - (w + 3));
        bench_avatar_tick(two, BENCH_DT);
        outputs(ref, want);
        outputs(one, got);
        expect_same(want, got, "ranges", t);
        outputs(two, got);
        expect_same(want, got, "two threads", t);
        if (t == 1) memcpy(first, want, sizeof first);
    }
    /* the stages really ran: the motion moved ParamAngleX (parameter 0) and the hands and
     * limbs are solved (a finger's world rotation is no identity) */
    bool moved = false, solved = false;
    for (uint32_t i = 0; i < N; i++) moved = moved || fbits(first[i]) != fbits(want[i]);
    const size_t finger0_w = (size_t)(24 + 2 * 4 * CROWD_BONE_COUNT + 3) * N; /* finger bone 0's w */
    for (uint32_t i = 0; i < N; i++) solved = solved || want[finger0_w + i] < 0.999f;
    assert_true(moved);
    assert_true(solved);
    bench_avatar_destroy(ref);
    bench_avatar_destroy(one);
    bench_avatar_destroy(two);
}

int main(int argc, char **argv) {
    crowd_test_target(argc, argv);
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_same_bytes)};
    return CROWD_TEST_GROUP("avatar", tests);
}
