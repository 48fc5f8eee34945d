/* The pieces crowd run --mpi is built from, without MPI (io/scene/world.h, io/base/checksum.h):
 *   ranges          the default crowd split into worlds of consecutive ranges (cut inside its
 *                   groups) gives every instance the whole world's bytes, frame after frame, and
 *                   the parts of the checksum combine, in order, to the whole world's checksum
 *                   (in either bracketing)
 *   trim            a whole world ticked, trimmed to a middle range, ticked on: its instances go
 *                   on exactly as in the whole world, with their ids
 *   checksum_parts  the combination rule against the checksum of the concatenated digests
 * Registered once per SIMD target as cli_shard.TARGET. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "checksum.h"
#include "cli_support.h"
#include "default_crowd.h"
#include "diag.h"
#include "ticker.h"
#include "world.h"

static void tick_frame(world *w, uint32_t k, float dt) {
    double seconds = 0;
    world_prepare_frame(w, k, dt);
    assert_int_equal(ticker_tick(w, dt, &seconds), TOOL_OK);
}

static void expect_same_instances(const world *whole, const world *part, uint32_t frame) {
    for (uint32_t i = 0; i < part->instance_count; i++) {
        uint64_t a = world_instance_digest(part, i), b = world_instance_digest(whole, part->first + i);
        if (a != b)
            fail_msg("frame %u: instance %u of the range world from %u differs from the whole world's", frame,
                     part->first + i, part->first);
    }
}

static void test_ranges(void **state) {
    (void)state;
    scene s;
    assert_int_equal(default_crowd_scene(&s), TOOL_OK);
    uint32_t n = world_scene_instances(&s);
    assert_true(s.group_count >= 2 && s.groups[0].count > 100);
    /* cut inside the first group, at its end + 1, and near the end */
    const uint32_t cut[] = {0, 77, s.groups[0].count + 1, n - 3, n};
    world whole, part[4];
    assert_int_equal(world_create(&whole, &s, crowd_test_simd, 1), TOOL_OK);
    for (int p = 0; p < 4; p++)
        assert_int_equal(world_create_range(&part[p], &s, crowd_test_simd, p == 2 ? 2 : 1, cut[p], cut[p + 1] - cut[p]),
                         TOOL_OK);
    for (uint32_t k = 1; k <= 12; k++) {
        tick_frame(&whole, k, s.dt);
        for (int p = 0; p < 4; p++) {
            tick_frame(&part[p], k, s.dt);
            if (k % 4 == 0) expect_same_instances(&whole, &part[p], k);
        }
    }
    checksum_part c[4], all = world_checksum_part(&whole);
    for (int p = 0; p < 4; p++) c[p] = world_checksum_part(&part[p]);
    checksum_part left = checksum_combine(checksum_combine(checksum_combine(c[0], c[1]), c[2]), c[3]);
    checksum_part right = checksum_combine(c[0], checksum_combine(c[1], checksum_combine(c[2], c[3])));
    assert_true(left.sum == all.sum && left.scale == all.scale);
    assert_true(right.sum == all.sum && right.scale == all.scale);
    assert_true(all.sum == world_checksum(&whole));
    /* out of order it is another number: the order of instances counts */
    assert_true(checksum_combine(c[1], c[0]).sum != checksum_combine(c[0], c[1]).sum);
    for (int p = 0; p < 4; p++) world_destroy(&part[p]);
    world_destroy(&whole);
    scene_free(&s);
}

static void test_trim(void **state) {
    (void)state;
    scene s;
    assert_int_equal(default_crowd_scene(&s), TOOL_OK);
    world whole, cut;
    assert_int_equal(world_create(&whole, &s, crowd_test_simd, 1), TOOL_OK);
    assert_int_equal(world_create(&cut, &s, crowd_test_simd, 1), TOOL_OK);
    for (uint32_t k = 1; k <= 6; k++) {
        tick_frame(&whole, k, s.dt);
        tick_frame(&cut, k, s.dt);
    }
    const uint32_t first = s.groups[0].count - 50, count = 333; /* across the groups' border */
    assert_int_equal(world_trim(&cut, first, count), TOOL_OK);
    assert_int_equal(cut.instance_count, count);
    assert_int_equal(cut.first, first);
    uint32_t rows = 0;
    for (uint32_t r = 0; r < s.rig_count; r++) rows += crowd_rig_instance_count(cut.engine, cut.rigs[r].rig);
    assert_int_equal(rows, count);
    for (uint32_t i = 0; i < count; i++) {
        uint64_t id = 0;
        assert_int_equal(crowd_instance_info(cut.engine, cut.handles[i], &id, NULL, NULL), CROWD_OK);
        assert_int_equal(id, first + i);
    }
    expect_same_instances(&whole, &cut, 6);
    for (uint32_t k = 7; k <= 20; k++) {
        tick_frame(&whole, k, s.dt);
        tick_frame(&cut, k, s.dt);
    }
    expect_same_instances(&whole, &cut, 20);
    /* a range outside the world is refused */
    assert_int_equal(world_trim(&cut, first - 1, 10), TOOL_FAILED);
    assert_int_equal(world_trim(&cut, first, count + 1), TOOL_FAILED);
    world_destroy(&cut);
    world_destroy(&whole);
    scene_free(&s);
}

static void test_checksum_parts(void **state) {
    (void)state;
    /* digests of a 2-then-3 split, by Horner's rule over all five, by hand: sum d_i B^(4-i) */
    const uint64_t d[5] = {0x0123456789abcdefull, 0xfedcba9876543210ull, 7, 0x8000000000000000ull, 0xdeadbeefull};
    uint64_t want = 0, power = 1;
    for (int i = 4; i >= 0; i--) {
        want += d[i] * power;
        power *= CHECKSUM_BASE;
    }
    checksum_part a = checksum_empty(), b = checksum_empty(), e = checksum_empty();
    for (int i = 0; i < 2; i++) checksum_add(&a, d[i]);
    for (int i = 2; i < 5; i++) checksum_add(&b, d[i]);
    checksum_part ab = checksum_combine(a, b);
    assert_true(ab.sum == want && ab.scale == power);
    /* the empty part is neutral on both sides (a rank with no instances) */
    assert_true(checksum_combine(e, ab).sum == want && checksum_combine(ab, e).sum == want);
}

int main(int argc, char **argv) {
    cli_setup(argc, argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_ranges),
        cmocka_unit_test(test_trim),
        cmocka_unit_test(test_checksum_parts),
    };
    return cmocka_run_group_tests_name("cli_shard", tests, NULL, NULL);
}
