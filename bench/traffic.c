/* traffic — the bytes one tick really loads and stores per instance, measured from valgrind
 * lackey's memory trace, against the hand count of workloads.h (bench_workload_parts).
 * bench/traffic.sh runs it for every workload and prints the table.
 *
 *   valgrind --tool=lackey --trace-mem=yes traffic tick WORKLOAD [N [WARMUP]] 2>&1 >/dev/null | traffic count
 *   traffic header
 * WORKLOAD "avatar" is the full avatar of avatar.h: measured only (no hand count).
 *
 * tick: builds the workload's ring (one copy of N instances, default 1024, a multiple of 16) on
 * the AVX2 kernels (valgrind cannot run AVX-512), ticks WARMUP times (default 2), then once
 * between two sentinel loads. Before the warm-up it writes the layout to stderr, which is
 * lackey's log too: the column block's address, the column size, each column's part name (as
 * the hand count names them), and the sentinels' addresses.
 * count: reads that log, keeps the loads and stores between the sentinels that fall in the
 * column block, and prints the workload's row: per instance, the distinct 4-byte words first
 * loaded before any store to them in the tick ("read": they come from memory), the distinct
 * words stored ("write"), the words only loaded after the tick stored them ("reloaded": cache
 * hits, left out as STREAM leaves them out), and every part where this differs from the hand
 * count. Exit 0 when it agrees, 1 when it differs, 2 on a bad trace.
 *
 * Conditions: every instance mid-blink (its blink clock set to 0, so that the first tick
 * starts the blink, which lasts about 19 ticks: keep WARMUP below 17), so the sine blink
 * stores its phase and last value in every block and draws no new wait; gaze targets fresh
 * (every lane moves); the walk clip's landmarks all visible and every bone eased in (the
 * steady limb solve). workloads.h says what other conditions add. */
#define _POSIX_C_SOURCE 200809L
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "avatar.h"
#include "internal.h"
#include "kernels/blink.h"
#include "kernels/harmonic.h"
#include "kernels/limbs.h"
#include "kernels/look.h"
#include "walk.h"
#include "workloads.h"

/* The sentinels: the measured tick lies between a load of begin and a load of end, which
 * nothing else loads. On separate cache lines. */
static volatile uint32_t sentinel[32];
#define SENTINEL_BEGIN 0
#define SENTINEL_END 16

#define MAX_NAME 32

static int usage(void) {
    fputs("usage: traffic tick WORKLOAD [N [WARMUP]] | traffic count | traffic header\n", stderr);
    return 2;
}

static int find_workload(const char *name) {
    for (int k = 0; k < BENCH_WORKLOAD_COUNT; k++)
        if (strcmp(name, bench_workload_name((bench_workload)k)) == 0) return k;
    return -1;
}

/* ---- tick ---- */
static void name_range(const char **names, uint32_t first, uint32_t count, const char *name) {
    for (uint32_t c = first; c < first + count; c++) names[c] = name;
}

/* The column a pointer into the rig's block starts. */
static uint32_t column_of(const crowdi_rig *r, const float *col) {
    uint32_t c = 0;
    while (c < r->column_count && r->columns[c] != col) c++;
    return c;
}

/* Each column's part, by the rig's layout (internal.h and the controllers' views): the names
 * bench_workload_parts uses. */
static void name_columns(const crowdi_rig *r, const char **names) {
    for (uint32_t c = 0; c < r->column_count; c++) names[c] = "other";
    names[r->col_rkey] = "rkey";
    names[r->col_draws] = "draws";
    names[r->col_host_draws] = "host_draws";
    name_range(names, r->col_base, r->param_count, "base");
    name_range(names, r->col_out, r->param_count, "out");
    if (r->has[CROWDI_CTL_LOOK]) {
        const uint32_t L = r->col[CROWDI_CTL_LOOK];
        name_range(names, L + CROWDI_LOOK_POS_X, 3, "look.pos");
        name_range(names, L + CROWDI_LOOK_VEL_X, 3, "look.vel");
        name_range(names, L + CROWDI_LOOK_TARGET_X, 3, "look.target");
        name_range(names, L + CROWDI_LOOK_CENTER_X, 3, "look.center");
        names[L + CROWDI_LOOK_ACTIVE] = "look.active";
        names[L + CROWDI_LOOK_DAMPING] = "look.damping";
        names[L + CROWDI_LOOK_WEIGHT] = "look.weight";
    }
    if (r->has[CROWDI_CTL_HARMONIC]) { /* T per entry, NR per entry, the weight (harmonic.c) */
        const uint32_t H = r->col[CROWDI_CTL_HARMONIC], n = CROWDI_PART(r, HARMONIC, crowdi_harmonic_view)->count;
        name_range(names, H, n, "harmonic.T");
        name_range(names, H + n, n, "harmonic.NR");
        names[H + 2 * n] = "harmonic.weight";
    }
    if (r->has[CROWDI_CTL_BLINK]) {
        const uint32_t B = r->col[CROWDI_CTL_BLINK];
        names[B + CROWDI_BLINK_CLOCK] = "blink.clock";
        names[B + CROWDI_BLINK_PHASE] = "blink.phase";
        names[B + CROWDI_BLINK_LAST] = "blink.last";
        names[B + CROWDI_BLINK_OPENING] = "blink.opening";
        names[B + CROWDI_BLINK_MANUAL] = "blink.manual";
        names[B + CROWDI_BLINK_WEIGHT] = "blink.weight";
    }
    if (r->has[CROWDI_CTL_LIMBS]) { /* the groups where the limbs' view points (the root follows the pose) */
        const crowdi_limbs_view *v = CROWDI_PART(r, LIMBS, crowdi_limbs_view);
        const uint32_t pose = column_of(r, v->limb_pose);
        name_range(names, pose, 4 * CROWDI_LANDMARKS, "limbs.pose");
        name_range(names, pose + 4 * CROWDI_LANDMARKS, 4, "limbs.root");
        if (v->limb_world) name_range(names, column_of(r, v->limb_world), 4 * CROWDI_BONES, "limbs.world");
        if (v->limb_local) name_range(names, column_of(r, v->limb_local), 4 * CROWDI_BONES, "limbs.local");
        if (v->limb_side) name_range(names, column_of(r, v->limb_side), 3 * CROWD_LIMB_COUNT, "limbs.side");
        if (v->limb_filter) name_range(names, column_of(r, v->limb_filter), 3 * 3 * CROWDI_LANDMARKS + 1, "limbs.filter");
        if (v->limb_track) name_range(names, column_of(r, v->limb_track), CROWDI_BONES, "limbs.track");
    }
    if (r->has[CROWDI_CTL_FACE]) /* laid out last */
        name_range(names, r->col[CROWDI_CTL_FACE], r->column_count - r->col[CROWDI_CTL_FACE], "face");
}

/* The layout as internal.h reads it against the public column pointers: 0 when they agree.
 * Only fields that are no settings: handing a setting column out makes the tick read it. */
static int check_layout(const bench_ring *ring, const crowdi_rig *r) {
    static const struct { crowd_field field; const char *name; } fields[] = {
        {CROWD_FIELD_OUTPUT, "out"}, {CROWD_FIELD_LOOK_POSITION, "look.pos"},
        {CROWD_FIELD_BLINK_CLOCK, "blink.clock"}, {CROWD_FIELD_HARMONIC_PHASE, "harmonic.T"},
        {CROWD_FIELD_POSE, "limbs.pose"}, {CROWD_FIELD_BONE_WORLD, "limbs.world"}, {CROWD_FIELD_BONE_LOCAL, "limbs.local"}};
    const char **names = malloc(sizeof *names * r->column_count);
    if (!names) return -1;
    name_columns(r, names);
    int status = 0;
    for (size_t f = 0; f < sizeof fields / sizeof fields[0] && status == 0; f++) {
        float *col;
        uint32_t rows;
        if (crowd_rig_column(ring->engine, ring->rig[0], fields[f].field, 0, 0, &col, &rows) != CROWD_OK) continue;
        size_t k = (size_t)((char *)col - (char *)r->block) / ((size_t)r->capacity * 4);
        if ((char *)col < (char *)r->block || k >= r->column_count || strcmp(names[k], fields[f].name) != 0) {
            fprintf(stderr, "traffic: the first %s column is not where internal.h says\n", fields[f].name);
            status = -1;
        }
    }
    free(names);
    return status;
}

static void step(bench_ring *r) {
    if (bench_ring_due(r)) bench_ring_refresh(r);
    bench_ring_tick(r, BENCH_DT, 0, r->n);
    bench_ring_advance(r);
}

/* The full avatar (avatar.h): no hand count; its limbs' and look's parts are named, the rest
 * of the column block is "other". Only the column block is measured (the rig's tables and the
 * motion library, shared by all instances, are not). */
static int run_avatar(uint32_t n, uint32_t warmup, const bench_clip *clip) {
    bench_avatar *a;
    char err[512];
    if (bench_avatar_create(&a, CROWD_SIMD_AVX2, n, 1, clip, err, sizeof err) != 0) {
        fprintf(stderr, "traffic: avatar: %s\n", err);
        return 1;
    }
    crowd_rig rig;
    crowd_engine *engine = bench_avatar_engine(a, &rig);
    const crowdi_rig *r = crowdi_rig_get(engine, rig);
    const char **names = malloc(sizeof *names * r->column_count);
    if (!names) {
        bench_avatar_destroy(a);
        return 1;
    }
    name_columns(r, names);
    fprintf(stderr, "traffic: layout avatar n=%u block=%p column_bytes=%zu columns=%u begin=%p end=%p\n", n, r->block,
            (size_t)r->capacity * 4, r->column_count, (const void *)&sentinel[SENTINEL_BEGIN],
            (const void *)&sentinel[SENTINEL_END]);
    for (uint32_t c = 0; c < r->column_count;) {
        uint32_t e = c + 1;
        while (e < r->column_count && strcmp(names[e], names[c]) == 0) e++;
        fprintf(stderr, "traffic: part %s %u %u\n", names[c], c, e - c);
        c = e;
    }
    free(names);
    for (uint32_t t = 0; t < warmup; t++) bench_avatar_tick(a, BENCH_DT);
    (void)sentinel[SENTINEL_BEGIN];
    bench_avatar_tick(a, BENCH_DT);
    (void)sentinel[SENTINEL_END];
    bench_avatar_destroy(a);
    return 0;
}

static int run_tick(int argc, char **argv) {
    if (argc < 3) return usage();
    const int w = strcmp(argv[2], "avatar") == 0 ? BENCH_WORKLOAD_COUNT : find_workload(argv[2]);
    const uint32_t n = argc > 3 ? (uint32_t)strtoul(argv[3], NULL, 10) : 1024;
    const uint32_t warmup = argc > 4 ? (uint32_t)strtoul(argv[4], NULL, 10) : 2;
    if (w < 0) {
        fprintf(stderr, "traffic: unknown workload '%s'\n", argv[2]);
        return 2;
    }
    /* whole 16-row blocks: no row goes through the width-1 tail */
    if (n == 0 || n % 16 != 0 || n > (1u << 20)) {
        fprintf(stderr, "traffic: N (%s) must be a multiple of 16 in [16, 2^20]\n", argv[3]);
        return 2;
    }
    static float walk[BENCH_WALK_ROWS * BENCH_WALK_FLOATS];
    bench_walk_rows(walk);
    const bench_clip clip = {walk, BENCH_WALK_ROWS};
    const char *skip = bench_impl_skip_reason(CROWD_SIMD_AVX2);
    if (skip) {
        fprintf(stderr, "traffic: skipped: avx2: %s\n", skip);
        return 77;
    }
    if (w == BENCH_WORKLOAD_COUNT) return run_avatar(n, warmup, &clip);
    bench_ring ring;
    char err[512];
    if (bench_ring_create_copies(&ring, (bench_workload)w, CROWD_SIMD_AVX2, n, &clip, 1, err, sizeof err) != 0) {
        fprintf(stderr, "traffic: %s: %s\n", argv[2], err);
        return 1;
    }
    const crowdi_rig *r = crowdi_rig_get(ring.engine, ring.rig[0]);
    if (r->has[CROWDI_CTL_BLINK]) { /* every instance's blink starts on the first warm-up tick */
        float *clock;
        uint32_t rows;
        if (crowd_rig_column(ring.engine, ring.rig[0], CROWD_FIELD_BLINK_CLOCK, 0, 0, &clock, &rows) != CROWD_OK) {
            fprintf(stderr, "traffic: crowd_rig_column: %s\n", crowd_last_error(ring.engine));
            bench_ring_destroy(&ring);
            return 1;
        }
        for (uint32_t i = 0; i < rows; i++) clock[i] = 0.0f;
    }
    const char **names = malloc(sizeof *names * r->column_count);
    if (!names || check_layout(&ring, r) != 0) {
        free(names);
        bench_ring_destroy(&ring);
        return 1;
    }
    name_columns(r, names);
    fprintf(stderr, "traffic: layout %s n=%u block=%p column_bytes=%zu columns=%u begin=%p end=%p\n", argv[2], n,
            r->block, (size_t)r->capacity * 4, r->column_count, (const void *)&sentinel[SENTINEL_BEGIN],
            (const void *)&sentinel[SENTINEL_END]);
    for (uint32_t c = 0; c < r->column_count;) {
        uint32_t e = c + 1;
        while (e < r->column_count && strcmp(names[e], names[c]) == 0) e++;
        fprintf(stderr, "traffic: part %s %u %u\n", names[c], c, e - c);
        c = e;
    }
    free(names);
    for (uint32_t t = 0; t < warmup; t++) step(&ring);
    if (bench_ring_due(&ring)) bench_ring_refresh(&ring);
    (void)sentinel[SENTINEL_BEGIN];
    bench_ring_tick(&ring, BENCH_DT, 0, n);
    (void)sentinel[SENTINEL_END];
    bench_ring_destroy(&ring);
    return 0;
}

/* ---- count ---- */
enum { LOADED = 1, STORED = 2, READ = 4 }; /* READ: loaded before any store in the tick */

typedef struct part_total {
    char name[MAX_NAME];
    uint64_t read, write, reload; /* words */
} part_total;

typedef struct layout {
    char workload[MAX_NAME];
    uint32_t n, columns;
    uintptr_t block, begin, end;
    size_t column_bytes;
    char (*names)[MAX_NAME]; /* [columns] */
} layout;

static void touch(uint8_t *words, const layout *L, uintptr_t addr, size_t size, int store) {
    const uintptr_t lo = L->block, hi = L->block + L->column_bytes * L->columns;
    if (addr + size <= lo || addr >= hi) return;
    uintptr_t a = addr < lo ? lo : addr, e = addr + size > hi ? hi : addr + size;
    for (uintptr_t wd = (a - lo) / 4; wd < (e - lo + 3) / 4; wd++) {
        if (store)
            words[wd] |= STORED;
        else
            words[wd] |= LOADED | (words[wd] & STORED ? 0 : READ);
    }
}

static part_total *find_part(part_total *parts, uint32_t *count, const char *name) {
    for (uint32_t k = 0; k < *count; k++)
        if (strcmp(parts[k].name, name) == 0) return &parts[k];
    part_total *p = &parts[(*count)++];
    memset(p, 0, sizeof *p);
    snprintf(p->name, sizeof p->name, "%s", name);
    return p;
}

/* Appends to buf (size bytes, *used so far), ", " between items; cut short when full. */
static void append(char *buf, size_t size, size_t *used, const char *fmt, ...) {
    if (*used + 1 >= size) return;
    if (*used) *used += (size_t)snprintf(buf + *used, size - *used, ", ");
    if (*used + 1 >= size) return;
    va_list ap;
    va_start(ap, fmt);
    *used += (size_t)vsnprintf(buf + *used, size - *used, fmt, ap);
    va_end(ap);
}

/* the row's format, shared by header and count */
#define ROW_FMT "%-15s %7s %7s %7s %7s %9s  %s\n"

static void fmt_bytes(char *buf, size_t size, uint64_t words, uint32_t n) {
    if (words % n == 0)
        snprintf(buf, size, "%llu", (unsigned long long)(4 * (words / n)));
    else
        snprintf(buf, size, "%.2f", 4.0 * (double)words / n);
}

static int run_count(void) {
    layout L = {0};
    uint8_t *words = NULL;
    int state = 0; /* 0: before the tick, 1: in it, 2: after */
    char line[512];
    size_t lines = 0;
    while (fgets(line, sizeof line, stdin)) {
        lines++;
        if (line[0] == ' ' && (line[1] == 'L' || line[1] == 'S' || line[1] == 'M') && line[2] == ' ') {
            if (!words || state == 2) continue;
            char *p = line + 3, *comma;
            uintptr_t addr = (uintptr_t)strtoull(p, &comma, 16);
            size_t size = *comma == ',' ? (size_t)strtoul(comma + 1, NULL, 10) : 0;
            if (state == 0) {
                if (line[1] == 'L' && addr == L.begin) state = 1;
                continue;
            }
            if (line[1] == 'L' && addr == L.end) {
                state = 2;
                continue;
            }
            if (line[1] != 'S') touch(words, &L, addr, size, 0);
            if (line[1] != 'L') touch(words, &L, addr, size, 1);
        } else if (strncmp(line, "traffic: layout ", 16) == 0) {
            void *block, *begin, *end;
            if (sscanf(line + 16, "%31s n=%u block=%p column_bytes=%zu columns=%u begin=%p end=%p", L.workload, &L.n,
                       &block, &L.column_bytes, &L.columns, &begin, &end) != 7 ||
                !L.n || !L.columns || !L.column_bytes || L.column_bytes % 4) {
                fprintf(stderr, "traffic count: bad layout line: %s", line);
                return 2;
            }
            L.block = (uintptr_t)block, L.begin = (uintptr_t)begin, L.end = (uintptr_t)end;
            L.names = calloc(L.columns, sizeof *L.names);
            words = calloc(L.column_bytes / 4 * L.columns, 1);
            if (!L.names || !words) {
                fputs("traffic count: out of memory\n", stderr);
                return 2;
            }
        } else if (strncmp(line, "traffic: part ", 14) == 0 && L.names) {
            char name[MAX_NAME];
            uint32_t first, count;
            if (sscanf(line + 14, "%31s %u %u", name, &first, &count) != 3 || first > L.columns ||
                count > L.columns - first) {
                fprintf(stderr, "traffic count: bad part line: %s", line);
                return 2;
            }
            for (uint32_t c = first; c < first + count; c++) snprintf(L.names[c], MAX_NAME, "%s", name);
        } else if (strncmp(line, "traffic: ", 9) == 0) {
            fputs(line, stderr); /* the tick's own message: skipped or failed */
        }
    }
    if (!words || state != 2) {
        fprintf(stderr, "traffic count: %s in %zu lines of trace\n",
                !words ? "no layout" : state == 0 ? "no tick (begin sentinel)" : "no end sentinel", lines);
        return 2;
    }
    const bool avatar = strcmp(L.workload, "avatar") == 0; /* no hand count */
    const int w = avatar ? 0 : find_workload(L.workload);
    if (w < 0) {
        fprintf(stderr, "traffic count: unknown workload '%s'\n", L.workload);
        return 2;
    }
    /* measured, per part */
    part_total parts[64];
    uint32_t nparts = 0;
    uint64_t read = 0, write = 0, reload = 0;
    const size_t per_column = L.column_bytes / 4;
    for (uint32_t c = 0; c < L.columns; c++) {
        part_total *p = find_part(parts, &nparts, L.names[c][0] ? L.names[c] : "other");
        for (size_t k = 0; k < per_column; k++) {
            uint8_t b = words[c * per_column + k];
            p->read += (b & READ) != 0;
            p->write += (b & STORED) != 0;
            p->reload += (b & LOADED) && !(b & READ);
        }
        if (nparts == 64) {
            fputs("traffic count: too many parts\n", stderr);
            return 2;
        }
    }
    /* against the hand count */
    bench_traffic_part hand[BENCH_TRAFFIC_MAX_PARTS];
    const uint32_t nhand = avatar ? 0 : bench_workload_parts((bench_workload)w, hand);
    char diff[2048] = "";
    size_t used = 0;
    for (uint32_t k = 0; k < nparts; k++) {
        const part_total *p = &parts[k];
        uint64_t hr = 0, hw = 0;
        for (uint32_t h = 0; h < nhand; h++)
            if (strcmp(hand[h].name, p->name) == 0) {
                hr += hand[h].read ? hand[h].count : 0;
                hw += hand[h].write ? hand[h].count : 0;
            }
        read += p->read, write += p->write, reload += p->reload;
        if (avatar || (p->read == hr * L.n && p->write == hw * L.n)) continue;
        append(diff, sizeof diff, &used, "%s r %.6g/%llu w %.6g/%llu", p->name, (double)p->read / L.n,
               (unsigned long long)hr, (double)p->write / L.n, (unsigned long long)hw);
    }
    for (uint32_t h = 0; h < nhand; h++) { /* a part the hand count has and the rig has not */
        bool found = false;
        for (uint32_t k = 0; k < nparts; k++) found = found || strcmp(hand[h].name, parts[k].name) == 0;
        if (!found) append(diff, sizeof diff, &used, "%s: no such column", hand[h].name);
    }
    char rb[32], wb[32], tb[32], hb[32], lb[32];
    fmt_bytes(rb, sizeof rb, read, L.n);
    fmt_bytes(wb, sizeof wb, write, L.n);
    fmt_bytes(tb, sizeof tb, read + write, L.n);
    fmt_bytes(lb, sizeof lb, reload, L.n);
    if (avatar)
        snprintf(hb, sizeof hb, "-");
    else
        snprintf(hb, sizeof hb, "%.0f", bench_bytes_per_instance((bench_workload)w));
    printf(ROW_FMT, L.workload, rb, wb, tb, hb, lb, used ? diff : "-");
    free(words);
    free(L.names);
    return used ? 1 : 0;
}

int main(int argc, char **argv) {
    if (argc < 2) return usage();
    if (strcmp(argv[1], "tick") == 0) return run_tick(argc, argv);
    if (strcmp(argv[1], "count") == 0) return run_count();
    if (strcmp(argv[1], "header") == 0) {
        printf(ROW_FMT, "workload", "read", "write", "total", "hand", "reloaded",
               "parts that differ (measured/hand floats per instance)");
        return 0;
    }
    return usage();
}
