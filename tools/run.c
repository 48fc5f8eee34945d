/* crowd run [SCENE]: runs a scene (or the default crowd) and prints the summary. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "commands.h"
#include "default_crowd.h"
#include "diag.h"
#include "simulate.h"
#include "world.h"

#define MAX_THREADS 1024u

static const char run_usage[] =
    "usage: crowd run [SCENE] [--frames N] [--dt S] [--seed N] [--threads N]\n"
    "                 [--simd auto|scalar|sse2|avx2|avx512] [--trace FILE] [--bones FILE]\n"
    "                 [--quiet] [--json]\n"
    "Runs SCENE (JSON, SPEC section 7), or without it the built-in default crowd (10,000 avatars,\n"
    "every controller, a built-in walk), and prints a summary: instances, frames, tick time,\n"
    "instance-updates per second, SIMD target, threads and a 64-bit checksum of the final outputs.\n"
    "  --frames N, --dt S, --seed N   override the scene's values (dt in [0, 1] seconds)\n"
    "  --threads N    tick on N threads (contiguous 16-row slices of each rig); same results\n"
    "  --simd T       force a SIMD target (default: the widest the CPU has)\n"
    "  --trace FILE   every frame's output parameters: frame,instance,id,value\n"
    "  --bones FILE   every frame's bone world rotations: frame,instance,bone,qx,qy,qz,qw\n"
    "  --quiet        no progress line (it only shows on a terminal, for runs over a second)\n"
    "  --json         the summary as one JSON object on the last line of standard output\n"
    "Exit status: 0 success, 2 bad usage or bad input, 1 any other failure.\n";

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
#undef VALUE
    if ((m = args_flag(a, "--quiet")) != 0) {
        if (m > 0) o->quiet = true;
        return m;
    }
    return 0;
}

static void print_summary(const world *w, const scene_options *o, uint32_t frames, double seconds, bool json) {
    double updates = (double)w->instance_count * frames;
    double rate = seconds > 0 ? updates / seconds : 0.0;
    const char *simd = crowd_simd_name(crowd_simd_target(w->engine));
    uint64_t sum = world_checksum(w);
    if (json) {
        printf("{\"instances\": %u, \"frames\": %u, \"tick_seconds\": %.9g, \"updates_per_second\": %.0f, "
               "\"simd\": \"%s\", \"threads\": %u, \"checksum\": \"0x%016" PRIx64 "\"}\n",
               w->instance_count, frames, seconds, rate, simd, o->threads, sum);
    } else {
        printf("scene               %s\n", w->scene->path);
        printf("instances           %u\n", w->instance_count);
        printf("frames              %u (dt %.9g s)\n", frames, (double)w->scene->dt);
        printf("tick seconds        %.6f\n", seconds);
        printf("instance-updates/s  %.4g\n", rate);
        printf("simd                %s\n", simd);
        printf("threads             %u\n", o->threads);
        printf("checksum            0x%016" PRIx64 "\n", sum);
    }
    fflush(stdout);
}

int cmd_run(int argc, char **argv) {
    tool_args a = {argc, argv, 1, "run"};
    scene_options o = {.threads = 1, .simd = CROWD_SIMD_AUTO};
    const char *trace_path = NULL, *bones_path = NULL;
    bool json = false;
    for (; a.i < argc; a.i++) {
        const char *v;
        int m;
        if ((m = scene_option(&a, &o)) != 0) {
            if (m < 0) return TOOL_BAD_INPUT;
            continue;
        }
        if ((m = args_value(&a, "--trace", &v)) != 0) {
            if (m < 0) return TOOL_BAD_INPUT;
            trace_path = v;
            continue;
        }
        if ((m = args_value(&a, "--bones", &v)) != 0) {
            if (m < 0) return TOOL_BAD_INPUT;
            bones_path = v;
            continue;
        }
        if ((m = args_flag(&a, "--json")) != 0) {
            if (m < 0) return TOOL_BAD_INPUT;
            json = true;
            continue;
        }
        if ((m = args_flag(&a, "--help")) > 0 || args_flag(&a, "-h") > 0) {
            fputs(run_usage, stdout);
            return TOOL_OK;
        }
        if (argv[a.i][0] == '-' && argv[a.i][1] != 0) return args_unexpected(&a);
        if (o.scene_path) return args_unexpected(&a);
        o.scene_path = argv[a.i];
    }
    if (trace_path && bones_path && strcmp(trace_path, bones_path) == 0)
        return tool_error(TOOL_BAD_INPUT, "run: --trace and --bones name the same file %s", trace_path);

    scene s;
    int st = scene_options_load(&o, &s);
    if (st != TOOL_OK) {
        scene_free(&s);
        return st;
    }
    world w;
    trace_file params = {0}, bones = {0};
    st = world_create(&w, &s, o.simd);
    if (st == TOOL_OK && trace_path) st = trace_open(&params, trace_path, TRACE_PARAMETER_HEADER);
    if (st == TOOL_OK && bones_path) st = trace_open(&bones, bones_path, TRACE_BONE_HEADER);
    double seconds = 0;
    if (st == TOOL_OK) {
        sim_options so = {.frames = s.frames, .dt = s.dt, .threads = o.threads,
                          .parameters = trace_path ? &params : NULL, .bones = bones_path ? &bones : NULL,
                          .quiet = o.quiet};
        st = simulate(&w, &so, &seconds);
    }
    if (st == TOOL_OK) st = trace_finish(&params);
    if (st == TOOL_OK) st = trace_finish(&bones);
    trace_abort(&params);
    trace_abort(&bones);
    if (st == TOOL_OK) print_summary(&w, &o, s.frames, seconds, json);
    world_destroy(&w);
    scene_free(&s);
    return st;
}
