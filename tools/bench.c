/* crowd bench: tick throughput of the default crowd on every SIMD target the CPU supports. */
#include <inttypes.h>
#include <stdio.h>

#include "args.h"
#include "commands.h"
#include "default_crowd.h"
#include "diag.h"
#include "simulate.h"
#include "world.h"

static const char bench_usage[] =
    "usage: crowd bench [--frames N] [--threads N]\n"
    "Ticks the default crowd (10,000 avatars, every controller and limbs) for N frames (default 120)\n"
    "on each SIMD target this CPU supports and prints the instance-updates per second of the tick\n"
    "alone, with the final checksum (the same on every target).\n";

int cmd_bench(int argc, char **argv) {
    tool_args a = {argc, argv, 1, "bench"};
    uint32_t frames = 120, threads = 1;
    for (; a.i < argc; a.i++) {
        const char *v;
        int m;
        if ((m = args_value(&a, "--frames", &v)) != 0) {
            if (m < 0 || parse_u32(&a, "--frames", v, 1, 1000000, &frames) != TOOL_OK) return TOOL_BAD_INPUT;
        } else if ((m = args_value(&a, "--threads", &v)) != 0) {
            if (m < 0 || parse_u32(&a, "--threads", v, 1, 1024, &threads) != TOOL_OK) return TOOL_BAD_INPUT;
        } else if (args_flag(&a, "--help") > 0 || args_flag(&a, "-h") > 0) {
            fputs(bench_usage, stdout);
            return TOOL_OK;
        } else {
            return args_unexpected(&a);
        }
    }
    scene s;
    int st = default_crowd_scene(&s);
    if (st != TOOL_OK) {
        scene_free(&s);
        return st;
    }
    printf("%-8s %5s %9s %7s %8s %12s %20s  %s\n", "target", "width", "instances", "frames", "threads", "tick s",
           "instance-updates/s", "checksum");
    for (int t = CROWD_SIMD_SCALAR; t < CROWD_SIMD_COUNT && st == TOOL_OK; t++) {
        crowd_simd simd = (crowd_simd)t;
        if (!crowd_simd_supported(simd)) {
            printf("%-8s %5u %9s (not supported by this CPU or build)\n", crowd_simd_name(simd), crowd_simd_width(simd), "-");
            continue;
        }
        world w;
        double seconds = 0;
        st = world_create(&w, &s, simd, threads);
        if (st == TOOL_OK) {
            sim_options so = {.frames = frames, .dt = s.dt, .quiet = true};
            st = simulate(&w, &so, &seconds);
        }
        if (st == TOOL_OK) {
            double rate = seconds > 0 ? (double)w.instance_count * frames / seconds : 0.0;
            printf("%-8s %5u %9u %7u %8u %12.6f %20.4g  0x%016" PRIx64 "\n", crowd_simd_name(simd),
                   crowd_simd_width(simd), w.instance_count, frames, threads, seconds, rate, world_checksum(&w));
            fflush(stdout);
        }
        world_destroy(&w);
    }
    scene_free(&s);
    return st;
}
