/* libFuzzer target: crowd_snapshot_load on any bytes.
 *
 * Built twice: fuzz_snapshot loads the input as it is (most inputs meet the header checks and
 * the checksum); fuzz_snapshot_sum (CROWD_FUZZ_FIX_CHECKSUM) first writes the header's payload
 * size and the FNV-1a 64 of the mutated payload, so that the structural validation behind the
 * checksum is what gets fuzzed.
 *
 * Oracles (abort: a finding):
 * - the result is CROWD_OK or CROWD_ERR_BAD_SNAPSHOT (or out of memory), with a message;
 * - rejected: the target engine's own snapshot is byte for byte what it was;
 * - accepted: the engine saves again, that snapshot loads into another engine which saves the
 *   same bytes; three ticks (dt 1, 1/60, 0, on a pool of 2 threads) give finite outputs and
 *   bones, and the state after them saves and loads again. CROWD_FUZZ_SKIP_FINITE=1 in the
 *   environment leaves out the checks after ticking (to look past a known finding).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "crowd.h"
#include "internal.h" /* to walk the loaded rigs: crowdi_rig_handle */

static crowd_engine *target, *other;
static unsigned char *before;
static size_t before_n;
static int skip_finite;

#define CHECK(cond, ...)                                   \
    do {                                                   \
        if (!(cond)) {                                     \
            fprintf(stderr, "fuzz_snapshot: " __VA_ARGS__); \
            fprintf(stderr, "\n");                         \
            abort();                                       \
        }                                                  \
    } while (0)

static unsigned char *save(crowd_engine *e, size_t *n) {
    CHECK(crowd_snapshot_size(e, n) == CROWD_OK, "crowd_snapshot_size failed: %s", crowd_last_error(e));
    unsigned char *b = malloc(*n);
    CHECK(b, "out of memory");
    CHECK(crowd_snapshot_save(e, b, *n, NULL) == CROWD_OK, "crowd_snapshot_save failed: %s", crowd_last_error(e));
    return b;
}

/* The target: a small engine with a state of its own. */
static void make_target(void) {
    crowd_engine_desc desc = {.seed = 5, .simd = CROWD_SIMD_SCALAR, .threads = 2};
    CHECK(crowd_engine_create(&desc, &target) == CROWD_OK, "engine");
    desc.threads = 1;
    CHECK(crowd_engine_create(&desc, &other) == CROWD_OK, "engine");
    static const crowd_parameter_desc params[] = {{"A", -30, 30, 0, false}, {"E", 0, 1, 1, false}};
    static const crowd_look_parameter_desc lp[] = {{"A", CROWD_AXIS_X, 30}};
    static const char *const eyes[] = {"E"};
    crowd_look_desc look = crowd_look_defaults();
    look.parameters = lp;
    look.parameter_count = 1;
    crowd_blink_desc blink = crowd_blink_defaults();
    blink.parameters = eyes;
    blink.parameter_count = 1;
    crowd_rig_desc rd = {.name = "t", .parameters = params, .parameter_count = 2, .look = &look, .blink = &blink};
    crowd_rig rig;
    CHECK(crowd_rig_create(target, &rd, &rig) == CROWD_OK, "rig");
    crowd_add_desc add = {.rig = rig, .count = 3};
    crowd_instance h[3];
    CHECK(crowd_instances_add(target, &add, h) == CROWD_OK, "add");
    crowd_set_look_target(target, h[1], 1, 2, 3, true);
    crowd_tick(target, 0.1f);
    crowd_instances_pause(target, h, 1, true);
    crowd_tick(target, 0.1f);
    before = save(target, &before_n);
}

static void check_finite(crowd_engine *e) {
    for (uint32_t k = 0; k < e->rig_count; k++) {
        crowd_rig rig = crowdi_rig_handle(e, k);
        uint32_t P = crowd_rig_parameter_count(e, rig), n;
        float *col;
        for (uint32_t p = 0; p < P; p++) {
            if (crowd_rig_column(e, rig, CROWD_FIELD_OUTPUT, p, 0, &col, &n) != CROWD_OK) break;
            for (uint32_t i = 0; i < n; i++) CHECK(isfinite(col[i]), "rig %u row %u output %u is %g", k, i, p, (double)col[i]);
        }
        for (uint32_t b = 0; b < CROWD_BONE_COUNT; b++)
            for (uint32_t c = 0; c < 4; c++) {
                if (crowd_rig_column(e, rig, CROWD_FIELD_BONE_WORLD, b, c, &col, &n) != CROWD_OK) break;
                for (uint32_t i = 0; i < n; i++) CHECK(isfinite(col[i]), "rig %u row %u bone %u is not finite", k, i, b);
            }
    }
}

#ifdef CROWD_FUZZ_FIX_CHECKSUM
#include "snapshot_checksum.h"
#endif

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (!target) {
        make_target();
        skip_finite = getenv("CROWD_FUZZ_SKIP_FINITE") != NULL;
    }
    const unsigned char *blob = data;
#ifdef CROWD_FUZZ_FIX_CHECKSUM
    unsigned char *fixed = NULL;
    if (size >= 32) {
        fixed = malloc(size);
        CHECK(fixed, "out of memory");
        memcpy(fixed, data, size);
        uint64_t n = size - 32, h = snapshot_checksum(fixed + 32, size - 32);
        for (int k = 0; k < 8; k++) {
            fixed[16 + k] = (unsigned char)(n >> (8 * k));
            fixed[24 + k] = (unsigned char)(h >> (8 * k));
        }
        blob = fixed;
    }
#endif
    crowd_result res = crowd_snapshot_load(target, blob, size);
    if (res != CROWD_OK) {
        CHECK(res == CROWD_ERR_BAD_SNAPSHOT || res == CROWD_ERR_OUT_OF_MEMORY, "crowd_snapshot_load returned %s",
              crowd_result_text(res));
        CHECK(strncmp(crowd_last_error(target), "crowd_snapshot_load: ", 21) == 0, "message \"%s\"",
              crowd_last_error(target));
        size_t n;
        unsigned char *after = save(target, &n);
        CHECK(n == before_n && memcmp(after, before, n) == 0, "a rejected load changed the engine (%s)",
              crowd_last_error(target));
        free(after);
    } else {
        size_t n1, n2;
        unsigned char *once = save(target, &n1);
        res = crowd_snapshot_load(other, once, n1);
        CHECK(res == CROWD_OK, "the loaded engine's snapshot does not load: %s", crowd_last_error(other));
        unsigned char *twice = save(other, &n2);
        CHECK(n1 == n2 && memcmp(once, twice, n1) == 0, "save, load, save differs");
        free(once);
        free(twice);
        const float dts[3] = {1.0f, 1.0f / 60.0f, 0.0f};
        for (int k = 0; k < 3; k++) CHECK(crowd_tick(target, dts[k]) == CROWD_OK, "crowd_tick failed");
        if (!skip_finite) {
            check_finite(target);
            once = save(target, &n1);
            res = crowd_snapshot_load(other, once, n1);
            CHECK(res == CROWD_OK, "after 3 ticks, the engine's snapshot does not load: %s", crowd_last_error(other));
            free(once);
        }
        CHECK(crowd_snapshot_load(target, before, before_n) == CROWD_OK, "cannot restore the target");
    }
#ifdef CROWD_FUZZ_FIX_CHECKSUM
    free(fixed);
#endif
    return 0;
}
