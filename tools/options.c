/* The flags more than one command takes (options.h). */
#include "options.h"

#include <stdlib.h>
#include <string.h>

#include "default_crowd.h"
#include "diag.h"
#include "files.h"
#include "world.h"

#define MAX_THREADS 256u /* crowd_engine_desc.threads */

/* --motion GROUP[:INDEX|:random] onto every group whose rig has motions (its other motion
 * fields kept when it had a motion). */
static int apply_motion(const char *spec, scene *s) {
    char name[256];
    size_t n = strcspn(spec, ":");
    if (n == 0 || n >= sizeof name)
        return tool_error(TOOL_BAD_INPUT, "--motion \"%s\": expected GROUP, GROUP:INDEX or GROUP:random", spec);
    memcpy(name, spec, n);
    name[n] = 0;
    const char *index = spec[n] ? spec + n + 1 : NULL;
    bool random = index && strcmp(index, "random") == 0;
    unsigned long k = 0;
    if (index && !random) {
        char *end;
        k = strtoul(index, &end, 10);
        if (!*index || *end || index[0] == '-' || index[0] == '+')
            return tool_error(TOOL_BAD_INPUT, "--motion \"%s\": \"%s\" is not a clip index or random", spec, index);
    }
    uint32_t applied = 0;
    for (uint32_t g = 0; g < s->group_count; g++) {
        scene_group *sg = &s->groups[g];
        const scene_rig *r = &s->rigs[sg->rig];
        if (!r->has_motion) continue;
        int found = -1;
        for (uint32_t m = 0; m < r->motion_group_count; m++)
            if (strcmp(r->motion_group_names[m], name) == 0) found = (int)m;
        if (found < 0)
            return tool_error(TOOL_BAD_INPUT, "--motion: rig \"%s\" (%s) has no Motions group \"%s\"", r->name,
                              r->model3, name);
        uint32_t first = r->motion_group_first[found], count = r->motion_group_first[found + 1] - first;
        if (count == 0 || k >= count)
            return tool_error(TOOL_BAD_INPUT, "--motion: Motions group \"%s\" of %s has %u clips: no index %lu", name,
                              r->model3, count, k);
        if (!sg->has_motion) {
            sg->motion_priority = CROWD_MOTION_PRIORITY_NORMAL, sg->motion_loop = false;
            sg->motion_stagger = 0, sg->motion_speed = 1, sg->motion_speed_jitter = 0;
        }
        sg->has_motion = true, sg->motion_random = random;
        sg->motion_first = random ? first : first + (uint32_t)k, sg->motion_count = random ? count : 1;
        applied++;
    }
    if (!applied) return tool_error(TOOL_BAD_INPUT, "--motion: no group of %s has a rig with \"motions\"", s->path);
    return TOOL_OK;
}

/* --expression NAME onto every group whose rig has expressions. */
static int apply_expression(const char *name, scene *s) {
    uint32_t applied = 0;
    for (uint32_t g = 0; g < s->group_count; g++) {
        scene_group *sg = &s->groups[g];
        const scene_rig *r = &s->rigs[sg->rig];
        if (!r->has_expression) continue;
        uint32_t k = 0;
        while (k < r->expression.expression_count && strcmp(r->expression_names[k], name) != 0) k++;
        if (k == r->expression.expression_count)
            return tool_error(TOOL_BAD_INPUT, "--expression: rig \"%s\" (%s) has no expression \"%s\"", r->name,
                              r->model3, name);
        sg->has_expression = true, sg->expression = k;
        applied++;
    }
    if (!applied) return tool_error(TOOL_BAD_INPUT, "--expression: no group of %s has a rig with \"expressions\"", s->path);
    return TOOL_OK;
}

int scene_options_load(const scene_options *o, scene *s) {
    int st = o->scene_path ? scene_load(o->scene_path, s) : default_crowd_scene(s);
    if (st != TOOL_OK) return st;
    if (o->has_frames) s->frames = o->frames;
    if (o->has_dt) s->dt = o->dt;
    if (o->has_seed) s->seed = o->seed;
    if (o->motion && (st = apply_motion(o->motion, s)) != TOOL_OK) return st;
    if (o->expression && (st = apply_expression(o->expression, s)) != TOOL_OK) return st;
    return TOOL_OK;
}

int scene_option(tool_args *a, scene_options *o) {
    const char *v;
    int m;
#define VALUE(name, parse)                                           \
    if ((m = args_value(a, name, &v)) != 0) {                        \
        if (m < 0) return -1;                                        \
        return (parse) == TOOL_OK ? 1 : -1;                          \
    }
    VALUE("--frames", (o->has_frames = true, parse_u32(a, "--frames", v, 0, 2147483647u, &o->frames)));
    VALUE("--dt", (o->has_dt = true, parse_float(a, "--dt", v, 0.0f, 1.0f, &o->dt)));
    VALUE("--seed", (o->has_seed = true, parse_u64(a, "--seed", v, &o->seed)));
    VALUE("--threads", parse_u32(a, "--threads", v, 1, MAX_THREADS, &o->threads));
    VALUE("--simd", parse_simd(a, "--simd", v, &o->simd));
    VALUE("--max-file-bytes", parse_u64(a, "--max-file-bytes", v, &tool_max_file_bytes));
    VALUE("--max-memory-bytes", parse_u64(a, "--max-memory-bytes", v, &world_memory_limit));
    VALUE("--motion", (o->motion = v, TOOL_OK));
    VALUE("--expression", (o->expression = v, TOOL_OK));
#undef VALUE
    if ((m = args_flag(a, "--quiet")) != 0) {
        if (m > 0) o->quiet = true;
        return m;
    }
    return 0;
}

int vmc_option(tool_args *a, vmc_settings *s) {
    const char *v;
    int m;
    if ((m = args_value(a, "--vmc-send", &v)) != 0) {
        if (m < 0) return -1;
        static const char *const names[] = {"bones", "fingers", "face", "eyes"};
        unsigned send = 0;
        for (const char *p = v; ; ) {
            size_t n = strcspn(p, ",");
            unsigned bit = 0;
            for (unsigned k = 0; k < 4; k++)
                if (strlen(names[k]) == n && strncmp(p, names[k], n) == 0) bit = 1u << k;
            if (!bit) {
                tool_error(TOOL_BAD_INPUT, "%s: --vmc-send: \"%.*s\" is not one of bones, fingers, face, eyes (a comma-separated "
                           "list, e.g. --vmc-send fingers,face)", a->command, (int)n, p);
                return -1;
            }
            send |= bit;
            if (!p[n]) break;
            p += n + 1;
        }
        s->send = send;
        s->chosen = "--vmc-send";
        return 1;
    }
    if ((m = args_value(a, "--vmc-blend", &v)) != 0) {
        if (m < 0) return -1;
        if (strcmp(v, "vrm0") == 0) s->blend = VMC_BLEND_VRM0;
        else if (strcmp(v, "arkit") == 0) s->blend = VMC_BLEND_ARKIT;
        else {
            tool_error(TOOL_BAD_INPUT, "%s: --vmc-blend: \"%s\" is not vrm0 or arkit", a->command, v);
            return -1;
        }
        s->chosen = "--vmc-blend";
        return 1;
    }
    return 0;
}
