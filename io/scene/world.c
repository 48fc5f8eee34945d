#include "world.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "checksum.h"
#include "diag.h"

/* The engine refused something the scene asked for: bad input, named by rig or group. */
static int rejected(const world *w, crowd_result res, const char *fmt, const char *name, uint32_t index) {
    char what[512];
    snprintf(what, sizeof what, fmt, index, name);
    int st = res == CROWD_ERR_OUT_OF_MEMORY || res == CROWD_ERR_CAPACITY ? TOOL_FAILED : TOOL_BAD_INPUT;
    char full[640];
    snprintf(full, sizeof full, "%s: %s", w->scene->path, what);
    return tool_engine_error(st, w->engine, res, full);
}

static int engine_failed(const world *w, crowd_result res, const char *what) {
    return tool_engine_error(TOOL_FAILED, w->engine, res, what);
}

static int fetch_columns(world *w, uint32_t r) {
    const scene_rig *sr = &w->scene->rigs[r];
    world_rig *wr = &w->rigs[r];
    crowd_result res;
    uint32_t count;
    wr->rows = crowd_rig_instance_count(w->engine, wr->rig);
    if (wr->rows == 0) return TOOL_OK;
    for (uint32_t p = 0; p < sr->parameter_count; p++)
        if ((res = crowd_rig_column(w->engine, wr->rig, CROWD_FIELD_OUTPUT, p, 0, &wr->out[p], &count)) != CROWD_OK)
            return engine_failed(w, res, "crowd_rig_column (output)");
    if (sr->rig_desc.look) {
        for (uint32_t c = 0; c < 3; c++)
            if ((res = crowd_rig_column(w->engine, wr->rig, CROWD_FIELD_LOOK_TARGET, 0, c, &wr->look_target[c], &count)) !=
                CROWD_OK)
                return engine_failed(w, res, "crowd_rig_column (look_target)");
        if ((res = crowd_rig_column(w->engine, wr->rig, CROWD_FIELD_LOOK_ACTIVE, 0, 0, &wr->look_active, &count)) != CROWD_OK)
            return engine_failed(w, res, "crowd_rig_column (look_active)");
    }
    if (wr->limbs) {
        /* the kind the rig stores: world, or local for outputs local */
        const crowd_field kind = wr->local_only ? CROWD_FIELD_BONE_LOCAL : CROWD_FIELD_BONE_WORLD;
        for (uint32_t b = 0; b < CROWD_BONE_COUNT; b++)
            for (uint32_t c = 0; c < 4; c++)
                if ((res = crowd_rig_column(w->engine, wr->rig, kind, b, c,
                                            wr->local_only ? &wr->bone_local[b][c] : &wr->bone_world[b][c], &count)) !=
                    CROWD_OK)
                    return engine_failed(w, res, "crowd_rig_column (bones)");
        for (uint32_t c = 0; c < CLIP_FLOATS; c++)
            if ((res = crowd_rig_column(w->engine, wr->rig, CROWD_FIELD_POSE, 0, c, &wr->pose[c], &count)) != CROWD_OK)
                return engine_failed(w, res, "crowd_rig_column (pose)");
    }
    if (wr->fingers) {
        for (uint32_t h = 0; h < CROWD_HAND_COUNT; h++)
            for (uint32_t c = 0; c < CROWD_HAND_FLOATS; c++)
                if ((res = crowd_rig_column(w->engine, wr->rig, CROWD_FIELD_HAND_LANDMARKS, h, c, &wr->hands[h][c], &count)) !=
                    CROWD_OK)
                    return engine_failed(w, res, "crowd_rig_column (hand landmarks)");
        for (uint32_t b = 0; b < CROWD_FINGER_BONE_COUNT; b++)
            for (uint32_t c = 0; c < 4; c++)
                if ((res = crowd_rig_column(w->engine, wr->rig, CROWD_FIELD_FINGER_WORLD, b, c, &wr->finger_world[b][c],
                                            &count)) != CROWD_OK)
                    return engine_failed(w, res, "crowd_rig_column (finger bones)");
    }
    return TOOL_OK;
}

/* The hand landmarks of hand frame `at` (frame index + 1; 0: none yet, presence 0) of a track. */
static const float (*hand_frame_at(const hand_track *t, uint32_t at))[CROWD_HAND_FLOATS] {
    static const float none[CROWD_HAND_COUNT][CROWD_HAND_FLOATS];
    return at ? (const float(*)[CROWD_HAND_FLOATS])t->frames[at - 1].hands : none;
}

/* Centers, then the draws of world.h's order, for the instances of group g. */
static int setup_group(world *w, uint32_t g) {
    const scene_group *sg = &w->scene->groups[g];
    uint32_t first = w->group_first[g], count = w->group_first[g + 1] - first;
    crowd_result res;
    if (w->scene->rigs[sg->rig].rig_desc.look && sg->count) {
        for (uint32_t k = 0; k < sg->key_count; k++)
            for (uint32_t c = 0; c < 3; c++)
                if (sg->keys[k].active && !isfinite(fabsf(sg->keys[k].target[c]) + sg->jitter))
                    return tool_error(TOOL_BAD_INPUT, "%s: groups[%u].look.keys[%u].target: with the jitter it leaves "
                                      "the float32 range", w->scene->path, g, k);
    }
    if (w->scene->rigs[sg->rig].rig_desc.look && count) {
        float *center = tool_malloc((size_t)count * 3 * sizeof *center);
        if (!center) return TOOL_FAILED;
        for (uint32_t i = 0; i < count; i++) memcpy(&center[i * 3], sg->center, sizeof sg->center);
        res = crowd_instances_set(w->engine, CROWD_FIELD_LOOK_CENTER, 0, &w->handles[first], count, center);
        free(center);
        if (res != CROWD_OK) return rejected(w, res, "groups[%u].look.center (rig \"%s\")", w->scene->rigs[sg->rig].name, g);
    }
    for (uint32_t i = first; i < first + count; i++) {
        if (sg->jitter > 0) {
            float u[3];
            if ((res = crowd_instance_random(w->engine, w->handles[i], 3, u)) != CROWD_OK)
                return engine_failed(w, res, "crowd_instance_random");
            for (uint32_t c = 0; c < 3; c++) w->jitter[i * 3 + c] = (2.0f * u[c] - 1.0f) * sg->jitter;
        }
        if (sg->clip && sg->pose_offset == SCENE_OFFSET_RANDOM) {
            float u;
            if ((res = crowd_instance_random(w->engine, w->handles[i], 1, &u)) != CROWD_OK)
                return engine_failed(w, res, "crowd_instance_random");
            w->pose_offset[i] = (double)u * clip_period(sg->clip);
        } else if (!sg->clip && sg->hands && sg->hand_offset == SCENE_OFFSET_RANDOM) {
            float u;
            if ((res = crowd_instance_random(w->engine, w->handles[i], 1, &u)) != CROWD_OK)
                return engine_failed(w, res, "crowd_instance_random");
            w->pose_offset[i] = (double)u * scene_hand_period(sg->hands);
        }
    }
    return TOOL_OK;
}

/* The frame loop writes look targets (key target plus jitter) and pose rows straight into the
 * engine's columns, unchecked: they must obey crowd_instances_set's rules (crowd.h §6-7), or
 * the run would tick values the engine refuses (and a run snapshot would not load). So each
 * active key's target with the largest jitter offset, and every clip row, goes once through
 * crowd_set on the group's first instance, whose fields are then put back. */
static int check_direct_writes(world *w, uint32_t g) {
    const scene_group *sg = &w->scene->groups[g];
    if (w->group_first[g + 1] == w->group_first[g]) return TOOL_OK; /* none of the group in this world */
    crowd_instance h = w->handles[w->group_first[g]];
    const char *rig_name = w->scene->rigs[sg->rig].name;
    crowd_result res;
    if (w->scene->rigs[sg->rig].rig_desc.look && sg->key_count) {
        float saved[3];
        if ((res = crowd_get(w->engine, h, CROWD_FIELD_LOOK_TARGET, 0, saved)) != CROWD_OK)
            return engine_failed(w, res, "crowd_get (look_target)");
        for (uint32_t k = 0; k < sg->key_count; k++) {
            if (!sg->keys[k].active) continue;
            float t[3];
            for (uint32_t c = 0; c < 3; c++)
                t[c] = sg->keys[k].target[c] + (sg->keys[k].target[c] < 0 ? -sg->jitter : sg->jitter);
            if ((res = crowd_set(w->engine, h, CROWD_FIELD_LOOK_TARGET, 0, t)) != CROWD_OK) {
                char what[512];
                snprintf(what, sizeof what, "groups[%%u].look.keys[%u].target, with the jitter (rig \"%%s\")", k);
                return rejected(w, res, what, rig_name, g);
            }
        }
        if ((res = crowd_set(w->engine, h, CROWD_FIELD_LOOK_TARGET, 0, saved)) != CROWD_OK)
            return engine_failed(w, res, "crowd_set (look_target)");
    }
    if (sg->clip) {
        float saved[CLIP_FLOATS];
        if ((res = crowd_get(w->engine, h, CROWD_FIELD_POSE, 0, saved)) != CROWD_OK)
            return engine_failed(w, res, "crowd_get (pose)");
        for (uint32_t k = 0; k < sg->clip->row_count; k++)
            if ((res = crowd_set(w->engine, h, CROWD_FIELD_POSE, 0, clip_landmarks(sg->clip, k, w->scene->rigs[sg->rig].limbs.frame))) !=
                CROWD_OK) {
                char what[2400], where[1200];
                snprintf(what, sizeof what, "%s: groups[%u].pose.clip: %s: a row the engine refuses", w->scene->path,
                         g, clip_row_where(sg->clip, k, where, sizeof where));
                return tool_engine_error(TOOL_BAD_INPUT, w->engine, res, what);
            }
        if ((res = crowd_set(w->engine, h, CROWD_FIELD_POSE, 0, saved)) != CROWD_OK)
            return engine_failed(w, res, "crowd_set (pose)");
    }
    if (sg->hands) {
        float saved[CROWD_HAND_COUNT][CROWD_HAND_FLOATS];
        for (uint32_t k = 0; k < CROWD_HAND_COUNT; k++)
            if ((res = crowd_get(w->engine, h, CROWD_FIELD_HAND_LANDMARKS, k, saved[k])) != CROWD_OK)
                return engine_failed(w, res, "crowd_get (hand landmarks)");
        for (uint32_t f = 0; f < sg->hands->count; f++)
            for (uint32_t k = 0; k < CROWD_HAND_COUNT; k++)
                if ((res = crowd_set(w->engine, h, CROWD_FIELD_HAND_LANDMARKS, k, sg->hands->frames[f].hands[k])) != CROWD_OK) {
                    char what[2400];
                    snprintf(what, sizeof what, "%s: groups[%u].hands.clip: %s:%u: the %s hand, which the engine refuses",
                             w->scene->path, g, sg->hands->path, sg->hands->frames[f].line, crowd_hand_name((crowd_hand)k));
                    return tool_engine_error(TOOL_BAD_INPUT, w->engine, res, what);
                }
        for (uint32_t k = 0; k < CROWD_HAND_COUNT; k++)
            if ((res = crowd_set(w->engine, h, CROWD_FIELD_HAND_LANDMARKS, k, saved[k])) != CROWD_OK)
                return engine_failed(w, res, "crowd_set (hand landmarks)");
    }
    return TOOL_OK;
}

/* ---- the memory a scene takes ---- */
uint64_t world_memory_limit = 0;

/* a byte count from a text file ("max" or unreadable: none) */
static uint64_t read_limit_file(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) return UINT64_MAX;
    unsigned long long v = 0;
    int got = fscanf(f, "%llu", &v);
    fclose(f);
    return got == 1 && v > 0 ? (uint64_t)v : UINT64_MAX;
}

uint64_t world_memory_budget(void) {
    if (world_memory_limit) return world_memory_limit;
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    uint64_t budget = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : UINT64_MAX;
    uint64_t cg2 = read_limit_file("/sys/fs/cgroup/memory.max"), cg1 = read_limit_file("/sys/fs/cgroup/memory/memory.limit_in_bytes");
    if (cg2 < budget) budget = cg2;
    if (cg1 < budget) budget = cg1;
    const int limits[2] = {RLIMIT_AS, RLIMIT_DATA};
    for (int k = 0; k < 2; k++) {
        struct rlimit rl;
        if (getrlimit(limits[k], &rl) == 0 && rl.rlim_cur != RLIM_INFINITY && (uint64_t)rl.rlim_cur < budget)
            budget = (uint64_t)rl.rlim_cur;
    }
    return budget;
}

/* Bytes per instance this program keeps besides the engine's: handle, row, rig, jitter, pose
 * offset, clip row, hand row, scratch, and the look centres setup_group passes. */
#define WORLD_BYTES_PER_INSTANCE (8 + 4 + 4 + 12 + 8 + 4 + 4 + 4 + 12)

/* The instances of group g that fall in [first, first + count): [*lo, *hi) in scene numbers. */
static void group_overlap(const scene *s, uint32_t g, uint32_t first, uint32_t count, uint64_t *lo, uint64_t *hi) {
    uint64_t start = 0;
    for (uint32_t k = 0; k < g; k++) start += s->groups[k].count;
    uint64_t end = start + s->groups[g].count;
    *lo = start > first ? start : first;
    *hi = end < (uint64_t)first + count ? end : (uint64_t)first + count;
    if (*hi < *lo) *hi = *lo;
}

/* The world's instances (the scene's, or a range's) against the budget, group by group, before
 * any is allocated. */
static int check_memory(const world *w, uint32_t count) {
    const scene *s = w->scene;
    uint64_t budget = world_memory_budget(), total = 0;
    for (uint32_t g = 0; g < s->group_count; g++) {
        const scene_group *sg = &s->groups[g];
        uint64_t lo, hi;
        group_overlap(s, g, w->first, count, &lo, &hi);
        size_t per = 0;
        crowd_result res = crowd_rig_bytes_per_instance(w->engine, w->rigs[sg->rig].rig, &per);
        if (res != CROWD_OK) return engine_failed(w, res, "crowd_rig_bytes_per_instance");
        uint64_t each = (uint64_t)per + WORLD_BYTES_PER_INSTANCE;
        total += each * (hi - lo);
        if (total > budget)
            return tool_error(TOOL_FAILED,
                              "%s: groups[%u] (%u instances of rig \"%s\", %llu bytes each) takes the scene to %llu bytes, "
                              "more than the memory limit of %llu bytes (--max-memory-bytes)",
                              s->path, g, (uint32_t)(hi - lo), s->rigs[sg->rig].name, (unsigned long long)each,
                              (unsigned long long)total, (unsigned long long)budget);
    }
    return TOOL_OK;
}

uint32_t world_scene_instances(const scene *s) {
    uint64_t n = 0;
    for (uint32_t g = 0; g < s->group_count; g++) n += s->groups[g].count;
    return n > (1u << 30) ? UINT32_MAX : (uint32_t)n;
}

/* The group's Live2D motion and expression (scene.h): each instance's clip (its own draw when
 * random), speed (a draw when jittered) and offset into the clip, started before the first tick. */
static int start_live2d(world *w, uint32_t g) {
    const scene_group *sg = &w->scene->groups[g];
    const scene_rig *sr = &w->scene->rigs[sg->rig];
    uint32_t first = w->group_first[g], count = w->group_first[g + 1] - first;
    crowd_result res;
    if (count == 0) return TOOL_OK;
    if (sg->has_expression && sr->has_expression &&
        (res = crowd_expressions_start(w->engine, &w->handles[first], count, sg->expression)) != CROWD_OK)
        return rejected(w, res, "groups[%u].expression (rig \"%s\")", sr->name, g);
    if (!sg->has_motion || !sr->has_motion) return TOOL_OK;
    uint64_t group_start = 0; /* the group's first instance in the scene's numbering (shards too) */
    for (uint32_t h = 0; h < g; h++) group_start += w->scene->groups[h].count;
    for (uint32_t i = first; i < first + count; i++) {
        uint32_t clip = sg->motion_first;
        float speed = sg->motion_speed;
        if (sg->motion_random) {
            float u;
            if ((res = crowd_instance_random(w->engine, w->handles[i], 1, &u)) != CROWD_OK)
                return engine_failed(w, res, "crowd_instance_random");
            uint32_t k = (uint32_t)((double)u * sg->motion_count);
            clip += k < sg->motion_count ? k : sg->motion_count - 1;
        }
        if (sg->motion_speed_jitter > 0) {
            float u;
            if ((res = crowd_instance_random(w->engine, w->handles[i], 1, &u)) != CROWD_OK)
                return engine_failed(w, res, "crowd_instance_random");
            speed *= 1.0f + (2.0f * u - 1.0f) * sg->motion_speed_jitter;
        }
        crowd_motion_start_desc d = crowd_motion_start_defaults(clip);
        d.priority = sg->motion_priority;
        d.loop = sg->motion_loop;
        double offset = (double)((uint64_t)w->first + i - group_start) * (double)sg->motion_stagger;
        if (sg->motion_loop) offset = fmod(offset, sr->motion_periods[clip]);
        d.offset = offset < CROWD_MAX_MOTION_SECONDS ? offset : CROWD_MAX_MOTION_SECONDS;
        if ((res = crowd_motion_start(w->engine, &w->handles[i], 1, &d, NULL)) != CROWD_OK)
            return rejected(w, res, "groups[%u].motion (rig \"%s\")", sr->name, g);
        if (speed != 1.0f &&
            (res = crowd_set(w->engine, w->handles[i], CROWD_FIELD_MOTION_SPEED, 0, &speed)) != CROWD_OK)
            return rejected(w, res, "groups[%u].motion.speed (rig \"%s\")", sr->name, g);
    }
    return TOOL_OK;
}

int world_create(world *w, const scene *s, crowd_simd simd, uint32_t threads) {
    return world_create_range(w, s, simd, threads, 0, world_scene_instances(s));
}

int world_create_range(world *w, const scene *s, crowd_simd simd, uint32_t threads, uint32_t first, uint32_t count) {
    memset(w, 0, sizeof *w);
    w->scene = s;
    w->first = first;
    /* ids are instance numbers: a shard's instances draw what they draw in the whole scene */
    crowd_engine_desc desc = {.seed = s->seed, .simd = simd, .threads = threads, .first_instance_id = first};
    crowd_result res = crowd_engine_create(&desc, &w->engine);
    if (res != CROWD_OK) {
        w->engine = NULL;
        int st = res == CROWD_ERR_UNSUPPORTED || res == CROWD_ERR_RANGE ? TOOL_BAD_INPUT : TOOL_FAILED;
        return tool_error(st, "crowd_engine_create (simd %s, %u threads): %s",
                          crowd_simd_name(simd) ? crowd_simd_name(simd) : "?", threads ? threads : 1,
                          crowd_result_text(res));
    }
    uint32_t total = world_scene_instances(s); /* at most 2^30: the scene reader's limit */
    if (total == UINT32_MAX) return tool_error(TOOL_BAD_INPUT, "%s: more than %u instances", s->path, 1u << 30);
    if (first > total || count > total - first)
        return tool_error(TOOL_FAILED, "%s: instances %u to %u are not in the scene (%u instances)", s->path, first,
                          first + count, total);
    uint64_t n = count;
    w->rigs = tool_calloc(s->rig_count, sizeof *w->rigs);
    if (!w->rigs) return TOOL_FAILED;
    for (uint32_t r = 0; r < s->rig_count; r++) {
        const scene_rig *sr = &s->rigs[r];
        res = crowd_rig_create(w->engine, &sr->rig_desc, &w->rigs[r].rig);
        if (res != CROWD_OK) return rejected(w, res, "rigs[%u] (\"%s\")", sr->name, r);
        w->rigs[r].limbs = sr->rig_desc.limbs != NULL;
        w->rigs[r].local_only = w->rigs[r].limbs && !scene_rig_stores(sr, CROWD_FIELD_BONE_WORLD);
        w->rigs[r].fingers = sr->has_fingers; /* (a host may set rig_desc.fingers itself: web/src/demo_rig.c) */
        if (!(w->rigs[r].out = tool_calloc(sr->parameter_count, sizeof *w->rigs[r].out))) return TOOL_FAILED;
    }
    int st = check_memory(w, count);
    if (st != TOOL_OK) return st;
    w->instance_count = (uint32_t)n;
    w->handles = tool_calloc(n, sizeof *w->handles);
    w->row = tool_calloc(n, sizeof *w->row);
    w->rig_of = tool_calloc(n, sizeof *w->rig_of);
    w->group_first = tool_calloc(s->group_count + 1, sizeof *w->group_first);
    w->jitter = tool_calloc(n * 3, sizeof *w->jitter);
    w->pose_offset = tool_calloc(n, sizeof *w->pose_offset);
    w->key = tool_calloc(s->group_count, sizeof *w->key);
    w->clip_row = tool_calloc(n, sizeof *w->clip_row);
    w->hand_row = tool_calloc(n, sizeof *w->hand_row);
    w->changed = tool_calloc(n, sizeof *w->changed);
    if (!w->handles || !w->row || !w->rig_of || !w->group_first || !w->jitter || !w->pose_offset || !w->key ||
        !w->clip_row || !w->hand_row || !w->changed)
        return TOOL_FAILED;
    /* reserve each rig's total first: one allocation per rig */
    for (uint32_t r = 0; r < s->rig_count; r++) {
        uint64_t rows = 0, lo, hi;
        for (uint32_t g = 0; g < s->group_count; g++)
            if (s->groups[g].rig == r) {
                group_overlap(s, g, first, count, &lo, &hi);
                rows += hi - lo;
            }
        if (rows && (res = crowd_reserve(w->engine, w->rigs[r].rig, (uint32_t)rows)) != CROWD_OK)
            return rejected(w, res, "rigs[%u] (\"%s\"): reserving instances", s->rigs[r].name, r);
    }
    uint32_t next = 0;
    for (uint32_t g = 0; g < s->group_count; g++) {
        const scene_group *sg = &s->groups[g];
        uint64_t lo, hi;
        group_overlap(s, g, first, count, &lo, &hi);
        uint32_t local = (uint32_t)(hi - lo);
        w->group_first[g] = next;
        w->group_first[g + 1] = next + local; /* setup_group reads it */
        w->key[g] = -1;
        crowd_add_desc add = {.rig = w->rigs[sg->rig].rig, .count = local, .blink_start = sg->blink_start,
                              .harmonic_phase = sg->harmonic_phase};
        if ((res = crowd_instances_add(w->engine, &add, &w->handles[next])) != CROWD_OK)
            return rejected(w, res, "groups[%u] (rig \"%s\")", s->rigs[sg->rig].name, g);
        for (uint32_t i = next; i < next + local; i++) {
            w->rig_of[i] = sg->rig;
            w->clip_row[i] = w->hand_row[i] = UINT32_MAX;
            if ((res = crowd_instance_info(w->engine, w->handles[i], NULL, NULL, &w->row[i])) != CROWD_OK)
                return engine_failed(w, res, "crowd_instance_info");
        }
        next += local;
        st = setup_group(w, g);
        if (st == TOOL_OK) st = check_direct_writes(w, g);
        if (st == TOOL_OK) st = start_live2d(w, g);
        if (st != TOOL_OK) return st;
    }
    w->group_first[s->group_count] = next;
    for (uint32_t r = 0; r < s->rig_count; r++) {
        st = fetch_columns(w, r);
        if (st != TOOL_OK) return st;
    }
    return TOOL_OK;
}

int world_adopt(world *w, const crowd_rig *rigs, const crowd_instance *handles, const char *what) {
    const scene *s = w->scene;
    crowd_result res;
    /* each instance a different row: seen[first_row[rig] + row] */
    uint32_t *first_row = tool_calloc(s->rig_count + 1, sizeof *first_row);
    unsigned char *seen = tool_calloc(w->instance_count + 1, 1);
    if (!first_row || !seen) {
        free(first_row);
        free(seen);
        return TOOL_FAILED;
    }
    int st = TOOL_OK;
    uint32_t *want = tool_calloc(s->rig_count + 1, sizeof *want); /* the world's instances of each rig */
    if (!want) {
        free(first_row);
        free(seen);
        return TOOL_FAILED;
    }
    for (uint32_t i = 0; i < w->instance_count; i++) want[w->rig_of[i]]++;
    for (uint32_t r = 0; r < s->rig_count && st == TOOL_OK; r++) {
        first_row[r + 1] = first_row[r] + want[r];
        if (crowd_rig_parameter_count(w->engine, rigs[r]) != s->rigs[r].parameter_count ||
            crowd_rig_instance_count(w->engine, rigs[r]) != want[r])
            st = tool_error(TOOL_BAD_INPUT, "%s: rig %u (\"%s\") is not the scene's: another scene, or a corrupt file",
                            what, r, s->rigs[r].name);
        w->rigs[r].rig = rigs[r];
    }
    for (uint32_t i = 0; i < w->instance_count && st == TOOL_OK; i++) {
        crowd_rig rig;
        uint32_t row = 0, r = w->rig_of[i];
        res = crowd_instance_info(w->engine, handles[i], NULL, &rig, &row);
        if (res != CROWD_OK || rig.id != rigs[r].id || row >= first_row[r + 1] - first_row[r] || seen[first_row[r] + row]) {
            st = tool_error(TOOL_BAD_INPUT, "%s: instance %u is not in the engine's state as the scene has it: another "
                            "scene, or a corrupt file", what, w->first + i);
            break;
        }
        seen[first_row[r] + row] = 1;
        w->row[i] = row;
        w->handles[i] = handles[i];
        w->clip_row[i] = w->hand_row[i] = UINT32_MAX; /* the next frame writes every pose and hand again */
    }
    free(first_row);
    free(seen);
    free(want);
    if (st != TOOL_OK) return st;
    for (uint32_t g = 0; g < s->group_count; g++) w->key[g] = -1; /* and every look key */
    for (uint32_t r = 0; r < s->rig_count; r++)
        if ((st = fetch_columns(w, r)) != TOOL_OK) return st;
    return TOOL_OK;
}

void world_destroy(world *w) {
    if (!w) return;
    crowd_engine_destroy(w->engine);
    if (w->rigs)
        for (uint32_t r = 0; r < w->scene->rig_count; r++) free(w->rigs[r].out);
    free(w->rigs);
    free(w->handles);
    free(w->row);
    free(w->rig_of);
    free(w->group_first);
    free(w->jitter);
    free(w->pose_offset);
    free(w->key);
    free(w->clip_row);
    free(w->hand_row);
    free(w->changed);
    memset(w, 0, sizeof *w);
}

static void apply_key(world *w, uint32_t g, const scene_key *key) {
    const scene_group *sg = &w->scene->groups[g];
    world_rig *wr = &w->rigs[sg->rig];
    for (uint32_t i = w->group_first[g]; i < w->group_first[g + 1]; i++) {
        uint32_t row = w->row[i];
        if (key && key->active) {
            for (uint32_t c = 0; c < 3; c++) wr->look_target[c][row] = key->target[c] + w->jitter[i * 3 + c];
            wr->look_active[row] = 1.0f;
        } else {
            wr->look_active[row] = 0.0f;
        }
    }
}

static void feed_pose(world *w, uint32_t g, double tau) {
    const scene_group *sg = &w->scene->groups[g];
    const pose_clip *clip = sg->clip;
    world_rig *wr = &w->rigs[sg->rig];
    uint32_t changed = 0;
    for (uint32_t i = w->group_first[g]; i < w->group_first[g + 1]; i++) {
        uint32_t r = clip_row_at(clip, tau + w->pose_offset[i], sg->pose_loop);
        if (r != w->clip_row[i]) {
            w->clip_row[i] = r;
            w->changed[changed++] = i;
        }
    }
    if (!changed) return;
    crowd_pose_frame frame = w->scene->rigs[sg->rig].limbs.frame;
    /* column by column: each column's writes are near each other */
    for (uint32_t c = 0; c < CLIP_FLOATS; c++) {
        float *col = wr->pose[c];
        for (uint32_t k = 0; k < changed; k++) {
            uint32_t i = w->changed[k];
            col[w->row[i]] = clip_landmarks(clip, w->clip_row[i], frame)[c];
        }
    }
}

/* The group's hand frames (scene.h: its clip row's, after feed_pose, or on the track's clock at
 * tau + the instance's offset) into the hand landmark columns of the instances whose frame
 * changed (zero-copy: check_direct_writes put every frame through crowd_set once). */
static void feed_hands(world *w, uint32_t g, double tau) {
    const scene_group *sg = &w->scene->groups[g];
    world_rig *wr = &w->rigs[sg->rig];
    uint32_t changed = 0;
    for (uint32_t i = w->group_first[g]; i < w->group_first[g + 1]; i++) {
        uint32_t at = sg->clip ? sg->hand_of_row[w->clip_row[i]]
                               : scene_hand_row_at(sg->hands, tau + w->pose_offset[i], sg->hand_loop) + 1;
        if (at != w->hand_row[i]) {
            w->hand_row[i] = at;
            w->changed[changed++] = i;
        }
    }
    /* instance by instance: a frame's 128 floats are read in one run, and the 128 columns'
     * cache lines at neighbouring rows stay in cache for the next instances */
    float *const *cols = &wr->hands[0][0]; /* [CROWD_HAND_COUNT * CROWD_HAND_FLOATS] */
    for (uint32_t k = 0; k < changed; k++) {
        uint32_t i = w->changed[k], row = w->row[i];
        const float *src = (const float *)hand_frame_at(sg->hands, w->hand_row[i]); /* both hands, in a row */
        for (uint32_t c = 0; c < CROWD_HAND_COUNT * CROWD_HAND_FLOATS; c++) cols[c][row] = src[c];
    }
}

/* The group's face track frame in effect at tau, into every instance's face columns (zero-copy:
 * the track reader has checked the rules the engine's fields state). */
static void feed_face(world *w, uint32_t g, double tau) {
    const scene_group *sg = &w->scene->groups[g];
    const face_frame *f = &sg->face->frames[face_track_row_at(sg->face, tau, sg->face_loop)];
    crowd_rig rig = w->rigs[sg->rig].rig;
    float *scores[CROWD_FACE_SCORE_COUNT], *rot[4], *presence;
    uint32_t count;
    if (crowd_rig_columns(w->engine, rig, CROWD_FIELD_FACE_SCORES, 0, scores, &count) != CROWD_OK ||
        crowd_rig_columns(w->engine, rig, CROWD_FIELD_FACE_ROTATION, 0, rot, &count) != CROWD_OK ||
        crowd_rig_column(w->engine, rig, CROWD_FIELD_FACE_PRESENCE, 0, 0, &presence, &count) != CROWD_OK)
        return; /* scene_json only lets rigs with face tracking play a track */
    for (uint32_t i = w->group_first[g]; i < w->group_first[g + 1]; i++) {
        uint32_t row = w->row[i];
        for (uint32_t k = 0; k < CROWD_FACE_SCORE_COUNT; k++) scores[k][row] = f->scores[k];
        for (uint32_t k = 0; k < 4; k++) rot[k][row] = f->rotation[k];
        presence[row] = f->presence;
    }
}

/* The group's mouth levels for the frame [tau, tau + dt): each instance's block of the sound
 * (scene.h), into the lipsync_level column (zero-copy: an RMS of the reader's samples is in
 * [0, 1]). */
static void feed_audio(world *w, uint32_t g, double tau, float dt) {
    const scene_group *sg = &w->scene->groups[g];
    float *level;
    uint32_t count;
    if (crowd_rig_column(w->engine, w->rigs[sg->rig].rig, CROWD_FIELD_LIPSYNC_LEVEL, 0, 0, &level, &count) != CROWD_OK)
        return; /* scene_json only lets rigs with lip sync play a sound */
    const double rate = sg->audio_rate, length = (double)sg->audio_frames;
    uint64_t group_start = 0; /* the group's first instance in the scene's numbering (shards too) */
    for (uint32_t h = 0; h < g; h++) group_start += w->scene->groups[h].count;
    for (uint32_t i = w->group_first[g]; i < w->group_first[g + 1]; i++) {
        double t = tau + (double)((uint64_t)w->first + i - group_start) * (double)sg->audio_stagger;
        double a = floor(t * rate), b = floor((t + (double)dt) * rate);
        if (sg->audio_loop && length > 0) {
            double wraps = floor(a / length);
            a -= wraps * length, b -= wraps * length;
        }
        if (b > length) b = length;
        float v = 0;
        if (a < b) v = crowd_lipsync_rms(sg->audio + (size_t)a * sg->audio_channels, (size_t)(b - a), sg->audio_channels);
        level[w->row[i]] = v < 0 ? 0 : v > 1 ? 1 : v;
    }
}

void world_prepare_frame(world *w, uint32_t k, float dt) {
    const scene *s = w->scene;
    double tau = (double)(k - 1) * (double)dt;
    for (uint32_t g = 0; g < s->group_count; g++) {
        const scene_group *sg = &s->groups[g];
        if (w->group_first[g + 1] == w->group_first[g]) continue; /* none in this world */
        if (s->rigs[sg->rig].rig_desc.look) {
            int key = -1;
            while (key + 1 < (int)sg->key_count && (double)sg->keys[key + 1].t <= tau) key++;
            if (key != w->key[g]) {
                apply_key(w, g, key >= 0 ? &sg->keys[key] : NULL);
                w->key[g] = key;
            }
        }
        if (sg->clip) feed_pose(w, g, tau);
        if (sg->hands) feed_hands(w, g, tau);
        if (sg->face) feed_face(w, g, tau);
        if (sg->audio) feed_audio(w, g, tau, dt);
    }
}

uint64_t world_instance_digest(const world *w, uint32_t i) {
    uint64_t h = FNV1A64_INIT;
    const world_rig *wr = &w->rigs[w->rig_of[i]];
    uint32_t row = w->row[i], P = w->scene->rigs[w->rig_of[i]].parameter_count;
    for (uint32_t p = 0; p < P; p++) h = fnv1a64_float(h, wr->out[p][row]);
    if (wr->limbs)
        for (uint32_t b = 0; b < CROWD_BONE_COUNT; b++)
            for (uint32_t c = 0; c < 4; c++)
                h = fnv1a64_float(h, (wr->local_only ? wr->bone_local : wr->bone_world)[b][c][row]);
    if (wr->fingers)
        for (uint32_t b = 0; b < CROWD_FINGER_BONE_COUNT; b++)
            for (uint32_t c = 0; c < 4; c++) h = fnv1a64_float(h, wr->finger_world[b][c][row]);
    return h;
}

checksum_part world_checksum_part(const world *w) {
    checksum_part part = checksum_empty();
    for (uint32_t i = 0; i < w->instance_count; i++) checksum_add(&part, world_instance_digest(w, i));
    return part;
}

uint64_t world_checksum(const world *w) { return world_checksum_part(w).sum; }

int world_trim(world *w, uint32_t first, uint32_t count) {
    if (first < w->first || count > w->instance_count || first - w->first > w->instance_count - count)
        return tool_error(TOOL_FAILED, "world_trim: instances %u to %u are not in this world", first, first + count);
    uint32_t keep = first - w->first, n = w->instance_count;
    crowd_instance *drop = tool_calloc((size_t)(n - count) + 1, sizeof *drop);
    crowd_rig *rigs = tool_calloc(w->scene->rig_count + 1, sizeof *rigs);
    if (!drop || !rigs) {
        free(drop);
        free(rigs);
        return TOOL_FAILED;
    }
    uint32_t d = 0;
    for (uint32_t i = 0; i < n; i++)
        if (i < keep || i >= keep + count) drop[d++] = w->handles[i];
    crowd_result res = crowd_instances_remove(w->engine, drop, d);
    free(drop);
    if (res != CROWD_OK) {
        free(rigs);
        return engine_failed(w, res, "crowd_instances_remove");
    }
    /* instance i of the trimmed world is instance keep + i of this one */
    memmove(w->handles, w->handles + keep, (size_t)count * sizeof *w->handles);
    memmove(w->rig_of, w->rig_of + keep, (size_t)count * sizeof *w->rig_of);
    memmove(w->jitter, w->jitter + (size_t)keep * 3, (size_t)count * 3 * sizeof *w->jitter);
    memmove(w->pose_offset, w->pose_offset + keep, (size_t)count * sizeof *w->pose_offset);
    for (uint32_t g = 0; g <= w->scene->group_count; g++) {
        uint32_t f = w->group_first[g];
        f = f < keep ? 0 : f - keep;
        w->group_first[g] = f > count ? count : f;
    }
    w->first = first;
    w->instance_count = count;
    for (uint32_t r = 0; r < w->scene->rig_count; r++) rigs[r] = w->rigs[r].rig;
    crowd_instance *handles = tool_calloc((size_t)count + 1, sizeof *handles);
    int st = handles ? TOOL_OK : TOOL_FAILED;
    if (st == TOOL_OK) {
        memcpy(handles, w->handles, (size_t)count * sizeof *handles);
        st = world_adopt(w, rigs, handles, "world_trim");
    }
    free(handles);
    free(rigs);
    return st;
}
