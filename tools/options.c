/* The flags more than one command takes (options.h). */
#include "options.h"

#include <string.h>

#include "default_crowd.h"
#include "diag.h"
#include "files.h"
#include "world.h"

#define MAX_THREADS 256u /* crowd_engine_desc.threads */

int scene_options_load(const scene_options *o, scene *s) {
    int st = o->scene_path ? scene_load(o->scene_path, s) : default_crowd_scene(s);
    if (st != TOOL_OK) return st;
    if (o->has_frames) s->frames = o->frames;
    if (o->has_dt) s->dt = o->dt;
    if (o->has_seed) s->seed = o->seed;
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
