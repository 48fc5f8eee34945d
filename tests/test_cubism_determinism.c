/* The pose and expression controllers (crowd.h section 14) as engine state: the same bytes on
 * every target, thread count and split into ranges for thousands of instances with their own
 * base values, weights, part switches and expression starts at random ticks (queues
 * overflowing included); a snapshot taken mid-fade continues bit for bit; bad descs, starts,
 * field values and snapshots are refused by name with nothing changed. (Their numbers against
 * the real Cubism Framework: tests/test_cubism_engine.c.) */
#include <math.h>
#include <stdlib.h>

#include "test_support.h"

enum { P = 6, N = 2000, TICKS = 240 };

static const crowd_parameter_desc params[P] = {
    {"ParamAngleX", -30, 30, 0, false}, {"ParamEyeLOpen", 0, 1, 1, false}, {"ParamEyeROpen", 0, 1, 1, false},
    {"ParamMouthForm", -1, 1, 0, false}, {"ParamBrowLY", -1, 1, 0, false}, {"ParamTurn", -180, 180, 0, true},
};

/* Three expressions: every blend, a zero fade, an id the rig lacks, a repeat parameter. */
static const crowd_expression_parameter_desc smile[] = {
    {"ParamMouthForm", 1, CROWD_EXPRESSION_ADD}, {"ParamEyeLOpen", 0.8f, CROWD_EXPRESSION_MULTIPLY},
    {"ParamEyeROpen", 0.8f, CROWD_EXPRESSION_MULTIPLY}, {"NotInTheRig", 3, CROWD_EXPRESSION_OVERWRITE},
};
static const crowd_expression_parameter_desc angry[] = {
    {"ParamBrowLY", -0.7f, CROWD_EXPRESSION_OVERWRITE}, {"ParamAngleX", 12, CROWD_EXPRESSION_OVERWRITE},
    {"ParamTurn", 170, CROWD_EXPRESSION_ADD}, {"ParamEyeLOpen", 2, CROWD_EXPRESSION_MULTIPLY},
};
static const crowd_expression_parameter_desc blank[] = {{"ParamMouthForm", -0.5f, CROWD_EXPRESSION_ADD}};
static const crowd_expression_item_desc items[] = {
    {smile, 4, 0.4f, 0.6f}, {angry, 4, -1, 0}, {blank, 1, 0, -1}, {NULL, 0, 0.25f, 0.25f}};

static const char *const links_a[] = {"LinkA1", "LinkA2"};
static const char *const links_c[] = {"LinkC"};
static const crowd_pose_part_desc group0[] = {{"PartA", links_a, 2}, {"PartB", NULL, 0}};
static const crowd_pose_part_desc group1[] = {{"PartC", links_c, 1}, {"PartD", NULL, 0}, {"PartE", NULL, 0}};
static const crowd_pose_group_desc groups[] = {{group0, 2}, {group1, 3}};
enum { POSE_PARTS = 5, POSE_ALL = 8 };

static crowd_rig make_rig(crowd_engine *e) {
    crowd_expression_desc x = crowd_expression_defaults();
    x.expressions = items;
    x.expression_count = 4;
    crowd_pose_desc pose = crowd_pose_defaults();
    pose.groups = groups;
    pose.group_count = 2;
    pose.fade_in = 0.3f;
    crowd_rig_desc d = crowd_rig_defaults();
    d.name = "live2d";
    d.parameters = params;
    d.parameter_count = P;
    d.expression = &x;
    d.pose = &pose;
    crowd_rig rig;
    OK(e, crowd_rig_create(e, &d, &rig));
    return rig;
}

typedef struct world {
    crowd_engine *e;
    crowd_rig rig;
    crowd_instance *h;
    rng r;
    uint64_t hash;
} world;

static void world_init(world *w, crowd_simd simd, uint32_t threads) {
    crowd_engine_desc ed = {.seed = 5, .simd = simd, .threads = threads};
    w->e = NULL;
    if (crowd_engine_create(&ed, &w->e) != CROWD_OK) FAILF("engine");
    w->rig = make_rig(w->e);
    w->h = malloc(sizeof *w->h * N);
    crowd_add_desc ad = crowd_add_defaults(w->rig, N);
    OK(w->e, crowd_instances_add(w->e, &ad, w->h));
    w->r = (rng){99};
    w->hash = 0xcbf29ce484222325ull;
    float *v = malloc(sizeof *v * N);
    for (uint32_t p = 0; p < P; p++) { /* bases, a few outside [min, max] */
        for (uint32_t i = 0; i < N; i++)
            v[i] = rng_rangef(&w->r, params[p].min - 0.1 * (params[p].max - params[p].min), params[p].max);
        OK(w->e, crowd_instances_set(w->e, CROWD_FIELD_BASE, p, w->h, N, v));
    }
    for (uint32_t i = 0; i < N; i++) v[i] = i % 3 ? 1.0f : rng_rangef(&w->r, 0, 1);
    OK(w->e, crowd_instances_set(w->e, CROWD_FIELD_EXPRESSION_WEIGHT, 0, w->h, N, v));
    free(v);
}

static void world_free(world *w) {
    crowd_engine_destroy(w->e);
    free(w->h);
}

/* Tick `step`'s inputs: expression starts and part switches for random subsets, then the tick
 * (whole, or in random ranges); every output and part opacity into the hash. */
static void world_step(world *w, int step, bool ranges) {
    crowd_instance pick[N];
    uint32_t n = 0;
    const uint32_t expression = rng_below(&w->r, 4);
    for (uint32_t i = 0; i < N; i++)
        if (rng_unit(&w->r) < 0.06) pick[n++] = w->h[i];
    OK(w->e, crowd_expressions_start(w->e, pick, n, expression));
    const uint32_t part = rng_below(&w->r, POSE_ALL);
    float value[N];
    n = 0;
    for (uint32_t i = 0; i < N; i++)
        if (rng_unit(&w->r) < 0.04) value[n] = rng_unit(&w->r) < 0.5 ? 0.0f : 1.0f, pick[n++] = w->h[i];
    OK(w->e, crowd_instances_set(w->e, CROWD_FIELD_PART_PARAMETER, part, pick, n, value));
    const float dt = step % 37 == 5 ? 0.0f : step % 53 == 7 ? 0.25f : (float)rng_range(&w->r, 0.005, 0.04);
    if (!ranges) {
        OK(w->e, crowd_tick(w->e, dt));
    } else {
        rng split = {(uint64_t)step + 1000}; /* its own stream: the inputs stay the same */
        uint32_t first = 0;
        while (first < N) {
            uint32_t count = 1 + rng_below(&split, 300);
            if (count > N - first) count = N - first;
            OK(w->e, crowd_tick_range(w->e, dt, w->rig, first, count));
            first += count;
        }
    }
    float *col;
    uint32_t rows;
    for (uint32_t p = 0; p < P + POSE_ALL; p++) {
        if (p < P) OK(w->e, crowd_rig_column(w->e, w->rig, CROWD_FIELD_OUTPUT, p, 0, &col, &rows));
        else OK(w->e, crowd_rig_column(w->e, w->rig, CROWD_FIELD_PART_OPACITY, p - P, 0, &col, &rows));
        for (uint32_t i = 0; i < rows; i++) w->hash = (w->hash ^ fbits(col[i])) * 0x100000001b3ull;
    }
}

typedef struct blob { unsigned char *p; size_t n; } blob;

static blob save(crowd_engine *e) {
    blob b = {0};
    OK(e, crowd_snapshot_size(e, &b.n));
    b.p = malloc(b.n);
    OK(e, crowd_snapshot_save(e, b.p, b.n, NULL));
    return b;
}

/* Every row of every pose and expression field (the state a snapshot carries; snapshots of
 * different engines differ in their handle tag). */
static uint64_t state_hash(const world *w) {
    static const struct { crowd_field f; uint32_t indices, width; } fields[] = {
        {CROWD_FIELD_PART_PARAMETER, POSE_ALL, 1}, {CROWD_FIELD_PART_OPACITY, POSE_ALL, 1},
        {CROWD_FIELD_POSE_RESET, 1, 1}, {CROWD_FIELD_EXPRESSION_WEIGHT, 1, 1},
        {CROWD_FIELD_EXPRESSION_SLOT, CROWD_EXPRESSION_SLOTS, 3}, {CROWD_FIELD_OUTPUT, P, 1}};
    uint64_t h = 0xcbf29ce484222325ull;
    float *v = malloc(sizeof *v * 3 * N);
    for (size_t k = 0; k < sizeof fields / sizeof fields[0]; k++)
        for (uint32_t index = 0; index < fields[k].indices; index++) {
            OK(w->e, crowd_instances_get(w->e, fields[k].f, index, w->h, N, v));
            for (uint32_t i = 0; i < N * fields[k].width; i++) h = (h ^ fbits(v[i])) * 0x100000001b3ull;
        }
    free(v);
    return h;
}

static void run(crowd_simd simd, uint32_t threads, bool ranges, uint64_t *state, uint64_t *hash, uint32_t *playing) {
    world w;
    world_init(&w, simd, threads);
    for (int step = 0; step < TICKS; step++) world_step(&w, step, ranges);
    *state = state_hash(&w);
    *hash = w.hash;
    /* instances with a full queue and with an expression fading: the runs did exercise them */
    float slot[3];
    playing[0] = playing[1] = 0;
    for (uint32_t i = 0; i < N; i++) {
        OK(w.e, crowd_get(w.e, w.h[i], CROWD_FIELD_EXPRESSION_SLOT, CROWD_EXPRESSION_SLOTS - 1, slot));
        playing[0] += slot[0] >= 0;
        OK(w.e, crowd_get(w.e, w.h[i], CROWD_FIELD_EXPRESSION_SLOT, 0, slot));
        playing[1] += slot[0] >= 0 && slot[2] > 0;
    }
    world_free(&w);
}

static void test_determinism(void **state) {
    (void)state;
    uint64_t sa, sb, sc, sd, ha, hb, hc, hd;
    uint32_t pa[2], pb[2], pc[2], pd[2];
    run(crowd_test_simd, 1, false, &sa, &ha, pa);
    run(CROWD_SIMD_SCALAR, 1, false, &sb, &hb, pb);
    run(crowd_test_simd, 1, true, &sc, &hc, pc);
    run(crowd_test_simd, 3, false, &sd, &hd, pd);
    if (ha != hb || sa != sb) FAILF("target and scalar differ");
    if (ha != hc || sa != sc) FAILF("crowd_tick and range splits differ");
    if (ha != hd || sa != sd) FAILF("1 and 3 threads differ");
    if (pa[0] == 0 || pa[1] == 0) FAILF("no full queue (%u) or no fading expression (%u)", pa[0], pa[1]);
}

/* Mid-fade (an expression cross-fading, a part fading in), saved, loaded into a fresh engine:
 * both continue with the same bits. */
static void test_snapshot_mid_fade(void **state) {
    (void)state;
    world w;
    world_init(&w, crowd_test_simd, 1);
    for (int step = 0; step < 40; step++) world_step(&w, step, false);
    crowd_instance one = w.h[7];
    OK(w.e, crowd_expressions_start(w.e, &one, 1, 1));
    const float on = 1.0f, off = 0.0f;
    OK(w.e, crowd_set(w.e, one, CROWD_FIELD_PART_PARAMETER, 0, &off));
    OK(w.e, crowd_set(w.e, one, CROWD_FIELD_PART_PARAMETER, 1, &on));
    OK(w.e, crowd_tick(w.e, 0.1f));
    float slot[3], opacity;
    uint32_t fading = 0;
    for (uint32_t s = 0; s < CROWD_EXPRESSION_SLOTS; s++) {
        OK(w.e, crowd_get(w.e, one, CROWD_FIELD_EXPRESSION_SLOT, s, slot));
        fading += slot[0] >= 0 && slot[2] > 0;
    }
    OK(w.e, crowd_get(w.e, one, CROWD_FIELD_PART_OPACITY, 1, &opacity));
    if (fading == 0 || !(opacity > 0 && opacity < 1))
        FAILF("not mid-fade: %u fading slots, part opacity %g", fading, (double)opacity);
    blob s = save(w.e);
    world v = w; /* the same inputs stream from here */
    v.e = NULL;
    crowd_engine_desc ed = {.seed = 5, .simd = crowd_test_simd};
    if (crowd_engine_create(&ed, &v.e) != CROWD_OK) FAILF("engine");
    OK(v.e, crowd_snapshot_load(v.e, s.p, s.n));
    for (int step = 40; step < 140; step++) {
        world_step(&w, step, false);
        world_step(&v, step, false);
    }
    blob sw = save(w.e), sv = save(v.e);
    if (w.hash != v.hash || sw.n != sv.n || memcmp(sw.p, sv.p, sw.n) != 0) FAILF("the restored engine differs");
    crowd_engine_destroy(v.e);
    world_free(&w);
    free(s.p), free(sw.p), free(sv.p);
}

/* crowd_rig_create refuses with this code and a message naming the field; no rig is made. */
static void expect_rig_refused(crowd_engine *e, const crowd_rig_desc *d, crowd_result code, const char *field) {
    crowd_rig rig;
    crowd_result res = crowd_rig_create(e, d, &rig);
    if (res != code) FAILF("%s: %s, wanted %s (%s)", field, rname(res), rname(code), crowd_last_error(e));
    if (!strstr(crowd_last_error(e), field)) FAILF("the message \"%s\" does not name %s", crowd_last_error(e), field);
}

static void test_bad_input(void **state) {
    (void)state;
    crowd_engine *e = crowd_test_engine(1);
    crowd_rig_desc d = crowd_rig_defaults();
    d.parameters = params;
    d.parameter_count = P;
    crowd_expression_desc x = crowd_expression_defaults();
    crowd_expression_item_desc bad_items[2] = {items[0], items[1]};
    crowd_expression_parameter_desc bad_params[2] = {smile[0], smile[1]};
    bad_items[1].parameters = bad_params;
    bad_items[1].parameter_count = 2;
    x.expressions = bad_items;
    x.expression_count = 2;
    d.expression = &x;
    bad_params[1].value = NAN;
    expect_rig_refused(e, &d, CROWD_ERR_NOT_FINITE, "desc->expression->expressions[1].parameters[1].value");
    bad_params[1].value = 1, bad_params[1].blend = (crowd_expression_blend)7;
    expect_rig_refused(e, &d, CROWD_ERR_BAD_ENUM, "desc->expression->expressions[1].parameters[1].blend");
    bad_params[1].blend = CROWD_EXPRESSION_ADD, bad_params[0].id = NULL;
    expect_rig_refused(e, &d, CROWD_ERR_NULL, "desc->expression->expressions[1].parameters[0].id");
    bad_params[0].id = "ParamAngleX", bad_items[1].fade_in = 2e6f;
    expect_rig_refused(e, &d, CROWD_ERR_RANGE, "desc->expression->expressions[1]");
    bad_items[1].fade_in = 0, x.fade_out = -1;
    expect_rig_refused(e, &d, CROWD_ERR_RANGE, "desc->expression->fade_out");
    x.fade_out = 1, bad_items[0].parameters = NULL;
    expect_rig_refused(e, &d, CROWD_ERR_NULL, "desc->expression->expressions[0].parameters");
    bad_items[0] = items[0];
    d.expression = NULL;
    crowd_pose_desc pose = crowd_pose_defaults();
    crowd_pose_part_desc parts[2] = {group0[0], group0[1]};
    crowd_pose_group_desc gr[1] = {{parts, 2}};
    pose.groups = gr;
    pose.group_count = 1;
    d.pose = &pose;
    parts[1].id = "LinkA2";
    expect_rig_refused(e, &d, CROWD_ERR_DUPLICATE_ID, "\"LinkA2\"");
    parts[1].id = "";
    expect_rig_refused(e, &d, CROWD_ERR_RANGE, "desc->pose->groups[0].parts[1].id");
    parts[1].id = "PartB", pose.fade_in = 0;
    expect_rig_refused(e, &d, CROWD_ERR_RANGE, "desc->pose->fade_in");
    pose.fade_in = 0.5f, gr[0].part_count = 0;
    expect_rig_refused(e, &d, CROWD_ERR_RANGE, "desc->pose->groups[0]");
    gr[0].part_count = 2, parts[0].links = NULL;
    expect_rig_refused(e, &d, CROWD_ERR_NULL, "desc->pose->groups[0].parts[0].links");

    /* starts and fields: refused whole, nothing written */
    crowd_rig rig = make_rig(e);
    if ((rig.id & 0xffffu) != 1) FAILF("a refused desc made a rig (the first good one is rig %u)", rig.id & 0xffffu);
    crowd_instance h[3];
    crowd_add_desc ad = crowd_add_defaults(rig, 3);
    OK(e, crowd_instances_add(e, &ad, h));
    OK(e, crowd_expressions_start(e, h, 1, 2));
    float before[3], after[3];
    OK(e, crowd_get(e, h[0], CROWD_FIELD_EXPRESSION_SLOT, 0, before));
    crowd_result res = crowd_expressions_start(e, h, 3, 4);
    if (res != CROWD_ERR_RANGE || !strstr(crowd_last_error(e), "expression (4)")) FAILF("start 4: %s", crowd_last_error(e));
    crowd_instance stale = {h[2].id ^ (1ull << 40)};
    crowd_instance mixed[2] = {h[0], stale};
    if (crowd_expressions_start(e, mixed, 2, 0) != CROWD_ERR_HANDLE) FAILF("a stale handle was taken");
    OK(e, crowd_get(e, h[0], CROWD_FIELD_EXPRESSION_SLOT, 0, after));
    if (memcmp(before, after, sizeof before) != 0 || before[0] != 2) FAILF("a refused start changed slot 0");
    for (int k = 0; k < 3; k++) {
        OK(e, crowd_get(e, h[k], CROWD_FIELD_EXPRESSION_SLOT, k == 0 ? 1 : 0, after));
        if (after[0] != -1.0f) FAILF("a refused start filled a slot of instance %d", k);
    }
    const float bad_slots[][3] = {{4, 0, -1}, {0.5f, 0, -1}, {-2, 0, -1}, {0, -3, -1}, {0, 0, -3}, {0, 0, 2e6f}};
    for (size_t k = 0; k < sizeof bad_slots / sizeof bad_slots[0]; k++) {
        res = crowd_set(e, h[1], CROWD_FIELD_EXPRESSION_SLOT, 0, bad_slots[k]);
        if (res != CROWD_ERR_RANGE || !strstr(crowd_last_error(e), "expression_slot"))
            FAILF("slot value %zu: %s (%s)", k, rname(res), crowd_last_error(e));
    }
    const float two = 2;
    if (crowd_set(e, h[1], CROWD_FIELD_POSE_RESET, 0, &two) != CROWD_ERR_RANGE) FAILF("pose_reset 2 taken");
    if (crowd_set(e, h[1], CROWD_FIELD_PART_OPACITY, POSE_ALL, &two) != CROWD_ERR_RANGE) FAILF("part index 8 taken");

    /* a snapshot holding a slot beyond the library is refused and the engine keeps its state */
    float *col;
    uint32_t rows;
    OK(e, crowd_rig_column(e, rig, CROWD_FIELD_EXPRESSION_SLOT, 0, 0, &col, &rows));
    blob good = save(e);
    col[0] = 9; /* zero-copy writes are not checked; the snapshot load is */
    blob bad = save(e);
    col[0] = 2;
    crowd_engine *f = crowd_test_engine(1);
    OK(f, crowd_snapshot_load(f, good.p, good.n));
    blob kept = save(f);
    res = crowd_snapshot_load(f, bad.p, bad.n);
    if (res != CROWD_ERR_BAD_SNAPSHOT || !strstr(crowd_last_error(f), "expression_slot"))
        FAILF("a corrupt slot loaded: %s (%s)", rname(res), crowd_last_error(f));
    blob again = save(f);
    if (kept.n != again.n || memcmp(kept.p, again.p, kept.n) != 0) FAILF("a refused snapshot changed the engine");
    free(good.p), free(bad.p), free(kept.p), free(again.p);
    crowd_engine_destroy(f);
    crowd_engine_destroy(e);
}

/* The settings digest and a save/load/save round trip of the library and the pose. */
static void test_settings_round_trip(void **state) {
    (void)state;
    crowd_engine *e = crowd_test_engine(3), *f = crowd_test_engine(3);
    crowd_rig rig = make_rig(e);
    blob a = save(e);
    OK(f, crowd_snapshot_load(f, a.p, a.n));
    blob b = save(f);
    if (a.n != b.n || memcmp(a.p, b.p, a.n) != 0) FAILF("save, load, save differ");
    uint64_t da, db;
    OK(e, crowd_rig_settings_digest(e, rig, &da));
    OK(f, crowd_rig_settings_digest(f, rig, &db));
    if (da != db) FAILF("digests differ after a load");
    free(a.p), free(b.p);
    crowd_engine_destroy(e);
    crowd_engine_destroy(f);
}

/* The documented edges: links copy their part and reset their pseudo-parameter to 1; a fifth
 * start drops the oldest slot; an instance that never started an expression keeps its base
 * (even outside [min, max]); once the newest has faded in, it alone is left, in slot 0. */
static void test_edges(void **state) {
    (void)state;
    crowd_engine *e = crowd_test_engine(4);
    crowd_rig rig = make_rig(e);
    crowd_instance h[2];
    crowd_add_desc ad = crowd_add_defaults(rig, 2);
    OK(e, crowd_instances_add(e, &ad, h));
    const float wide = 2.5f, off = 0.0f, on = 1.0f;
    OK(e, crowd_set(e, h[0], CROWD_FIELD_BASE, 3, &wide)); /* ParamMouthForm is [-1, 1] */
    OK(e, crowd_set(e, h[1], CROWD_FIELD_BASE, 3, &wide));
    OK(e, crowd_set(e, h[0], CROWD_FIELD_PART_PARAMETER, 5, &off)); /* LinkA1: the reset sets 1 */
    OK(e, crowd_tick(e, 0.1f));
    float v, link;
    OK(e, crowd_get(e, h[0], CROWD_FIELD_PART_PARAMETER, 5, &v));
    if (v != 1.0f) FAILF("the first tick left link LinkA1's pseudo-parameter at %g", (double)v);
    OK(e, crowd_get(e, h[0], CROWD_FIELD_OUTPUT, 3, &v));
    if (v != wide) FAILF("no expression playing, yet the base 2.5 came out as %g", (double)v);
    /* switch group 0 to PartB: PartA fades out, its links LinkA1, LinkA2 (5, 6) follow it */
    OK(e, crowd_set(e, h[0], CROWD_FIELD_PART_PARAMETER, 0, &off));
    OK(e, crowd_set(e, h[0], CROWD_FIELD_PART_PARAMETER, 1, &on));
    for (int k = 0; k < 4; k++) {
        OK(e, crowd_tick(e, 0.05f));
        float part;
        OK(e, crowd_get(e, h[0], CROWD_FIELD_PART_OPACITY, 0, &part));
        for (uint32_t l = 5; l <= 6; l++) {
            OK(e, crowd_get(e, h[0], CROWD_FIELD_PART_OPACITY, l, &link));
            if (fbits(link) != fbits(part)) FAILF("tick %d: link %u has %g, its part %g", k, l, (double)link, (double)part);
        }
        OK(e, crowd_get(e, h[0], CROWD_FIELD_PART_OPACITY, 7, &link)); /* LinkC follows PartC, shown */
        if (link != 1.0f) FAILF("LinkC: %g", (double)link);
    }
    /* five starts without a tick: slots hold 1, 2, 3, 0, the oldest (0) dropped */
    for (uint32_t x = 0; x < 5; x++) OK(e, crowd_expressions_start(e, &h[0], 1, x % 4));
    const float want[4] = {1, 2, 3, 0};
    for (uint32_t s = 0; s < CROWD_EXPRESSION_SLOTS; s++) {
        float slot[3];
        OK(e, crowd_get(e, h[0], CROWD_FIELD_EXPRESSION_SLOT, s, slot));
        const float fade = s + 1 < CROWD_EXPRESSION_SLOTS ? -2.0f : -1.0f;
        if (slot[0] != want[s] || slot[1] != -1.0f || slot[2] != fade)
            FAILF("slot %u: %g %g %g", s, (double)slot[0], (double)slot[1], (double)slot[2]);
    }
    /* the newest (smile, 0.4 s fade-in) reaches weight 1: the older slots empty, it moves to 0 */
    for (int k = 0; k < 60; k++) OK(e, crowd_tick(e, 0.01f));
    for (uint32_t s = 0; s < CROWD_EXPRESSION_SLOTS; s++) {
        float slot[3];
        OK(e, crowd_get(e, h[0], CROWD_FIELD_EXPRESSION_SLOT, s, slot));
        if (slot[0] != (s == 0 ? 0.0f : -1.0f)) FAILF("after the fade-in, slot %u holds %g", s, (double)slot[0]);
    }
    OK(e, crowd_get(e, h[1], CROWD_FIELD_OUTPUT, 3, &v));
    if (v != wide) FAILF("the other instance's base 2.5 came out as %g", (double)v);
    crowd_engine_destroy(e);
}

int main(int argc, char **argv) {
    crowd_test_target(argc, argv);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_determinism),
        cmocka_unit_test(test_snapshot_mid_fade),
        cmocka_unit_test(test_bad_input),
        cmocka_unit_test(test_settings_round_trip),
        cmocka_unit_test(test_edges),
    };
    return CROWD_TEST_GROUP("cubism_determinism", tests);
}
