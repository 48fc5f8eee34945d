/* crowd run [SCENE]: runs a scene (or the default crowd) and prints the summary. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "commands.h"
#include "default_crowd.h"
#include "diag.h"
#include "files.h"
#include "mpi_run.h"
#include "resume.h"
#include "simulate.h"
#include "world.h"

static const char run_usage[] =
    "usage: crowd run [SCENE] [--frames N] [--dt S] [--seed N] [--threads N]\n"
    "                 [--simd auto|scalar|sse2|avx2|avx512] [--trace FILE] [--bones FILE]\n"
    "                 [--bvh FILE] [--vrma FILE] [--vmc HOST:PORT [--realtime]] [--instance K]\n"
    "                 [--snapshot-at K FILE] [--resume FILE] [--quiet] [--json]\n"
    "Runs SCENE (JSON; format in README.md), or without it the built-in default crowd (10,000 avatars,\n"
    "every controller, a built-in walk), and prints a summary: instances, frames, tick time,\n"
    "instance-updates per second, SIMD target, threads and a 64-bit checksum of the final outputs.\n"
    "  --frames N, --dt S, --seed N   override the scene's values (dt in [0, 1] seconds)\n"
    "  --threads N    the engine ticks on N threads (1 to 256; its own pool); same results\n"
    "  --simd T       force a SIMD target (default: the widest the CPU has)\n"
    "  --trace FILE   every frame's output parameters: frame,instance,id,value\n"
    "  --bones FILE   every frame's bone world rotations: frame,instance,bone,qx,qy,qz,qw\n"
    "  --bvh FILE     instance K's motion as BVH (local rotations, Frame Time dt; README.md)\n"
    "  --vrma FILE    instance K's motion as VRM Animation (glTF binary, VRMC_vrm_animation; README.md)\n"
    "  --vmc HOST:PORT  send instance K's bones and face (blink, ParamMouthOpenY, gaze ParamEyeBallX/Y,\n"
    "                 face tracking's scores) over VMC (OSC/UDP) to a receiver such as\n"
    "                 VSeeFace (port 39539; README.md), a frame per tick; --realtime: at dt intervals;\n"
    "                 --vmc-send bones,fingers,face,eyes picks what goes, --vmc-blend vrm0|arkit the names\n"
    "  --instance K   the instance --bvh and --vrma write and --vmc sends (default 0; its rig needs limbs);\n"
    "                 with it --bones writes that instance alone\n"
    "  --snapshot-at K FILE   after frame K (0: before frame 1) write the run's state to FILE\n"
    "  --resume FILE  continue the run saved in FILE: frames K+1 .. N of the same scene (with the\n"
    "                 same --seed and --dt), ending with the checksum the uninterrupted run has\n"
    "  --quiet        no progress line (it only shows on a terminal, for runs over a second)\n"
    "  --max-file-bytes N    the size limit of every input file (default 1 GiB)\n"
    "  --max-memory-bytes N  refuse a scene whose instances would take more (default: the\n"
    "                 machine's memory, or the container's or process's limit when smaller)\n"
    "  --json         the summary as one JSON object on the last line of standard output\n"
    "  --motion GROUP[:INDEX|:random]  every group whose rig has \"motions\" plays that clip of the\n"
    "                 model3's Motions group (random: a draw per instance); --expression NAME likewise\n"
    "  --mpi          under mpirun: shard the crowd over the job's ranks (crowd run --mpi --help)\n"
    "Exit status: 0 success, 2 bad usage or bad input, 1 any other failure.\n";

typedef struct run_files {
    const char *trace, *bones;
    const char *snapshot; /* --snapshot-at K FILE */
    uint32_t snapshot_at;
    const char *resume;   /* --resume FILE */
    const char *bvh;      /* --bvh FILE */
    const char *vrma;     /* --vrma FILE */
    uint32_t instance;    /* --instance K */
    bool has_instance;
    const char *vmc;      /* --vmc HOST:PORT */
    bool realtime;        /* --realtime */
    vmc_settings vmc_choice; /* --vmc-send, --vmc-blend */
} run_files;

static void print_summary(const world *w, const run_files *f, uint32_t first, uint32_t frames, double seconds,
                          bool json) {
    uint32_t ticked = frames - first;
    double updates = (double)w->instance_count * ticked;
    double rate = seconds > 0 ? updates / seconds : 0.0;
    const char *simd = crowd_simd_name(crowd_simd_target(w->engine));
    uint32_t threads = crowd_engine_threads(w->engine);
    uint64_t sum = world_checksum(w);
    if (json) {
        printf("{\"instances\": %u, \"frames\": %u, \"tick_seconds\": %.9g, \"updates_per_second\": %.0f, "
               "\"simd\": \"%s\", \"threads\": %u, \"checksum\": \"0x%016" PRIx64 "\"}\n",
               w->instance_count, ticked, seconds, rate, simd, threads, sum);
    } else {
        printf("scene               %s\n", w->scene->path);
        if (f->resume) printf("resumed             %s (after frame %u)\n", f->resume, first);
        printf("instances           %u\n", w->instance_count);
        if (f->resume)
            printf("frames              %u (%u to %u, dt %.9g s)\n", ticked, first + 1, frames, (double)w->scene->dt);
        else
            printf("frames              %u (dt %.9g s)\n", ticked, (double)w->scene->dt);
        printf("tick seconds        %.6f\n", seconds);
        printf("instance-updates/s  %.4g\n", rate);
        printf("simd                %s\n", simd);
        printf("threads             %u\n", threads);
        if (f->snapshot) printf("snapshot            %s (after frame %u)\n", f->snapshot, f->snapshot_at);
        printf("checksum            0x%016" PRIx64 "\n", sum);
    }
    fflush(stdout);
}

/* --snapshot-at K FILE: two values after the option (K also as --snapshot-at=K). */
static int snapshot_option(tool_args *a, run_files *f) {
    const char *v;
    int m = args_value(a, "--snapshot-at", &v);
    if (m <= 0) return m;
    if (parse_u32(a, "--snapshot-at", v, 0, 2147483647u, &f->snapshot_at) != TOOL_OK) return -1;
    if (a->i + 1 >= a->argc || a->argv[a->i + 1][0] == 0) {
        tool_error(TOOL_BAD_INPUT, "run: --snapshot-at needs a frame and a FILE (--snapshot-at K FILE)");
        return -1;
    }
    f->snapshot = a->argv[++a->i];
    return 1;
}

static int check_files(const run_files *f) {
    const char *names[5] = {f->trace, f->bones, f->snapshot, f->bvh, f->vrma};
    const char *flags[5] = {"--trace", "--bones", "--snapshot-at", "--bvh", "--vrma"};
    if (f->has_instance && !f->bvh && !f->vmc && !f->bones && !f->vrma)
        return tool_error(TOOL_BAD_INPUT, "run: --instance goes with --bvh FILE, --vmc HOST:PORT or --bones FILE");
    if (f->realtime && !f->vmc) return tool_error(TOOL_BAD_INPUT, "run: --realtime goes with --vmc HOST:PORT");
    if (vmc_settings_check(&f->vmc_choice, "run", f->vmc) != TOOL_OK) return TOOL_BAD_INPUT;
    for (int i = 0; i < 5; i++)
        for (int j = i + 1; j < 5; j++)
            if (names[i] && names[j] && strcmp(names[i], names[j]) == 0)
                return tool_error(TOOL_BAD_INPUT, "run: %s and %s name the same file %s", flags[i], flags[j], names[i]);
    return TOOL_OK;
}

/* A pose clip read upside down (its rig's limbs "frame" wrong) gets a warning, once per group. */
static void warn_clip_frames(const scene *s) {
    for (uint32_t g = 0; g < s->group_count; g++) {
        const scene_group *sg = &s->groups[g];
        const scene_rig *sr = &s->rigs[sg->rig];
        if (!sg->clip || !sr->rig_desc.limbs) continue;
        char setting[96];
        snprintf(setting, sizeof setting, "rigs[%u].limbs.frame", sg->rig);
        clip_frame_warning(sg->clip, sr->limbs.frame, setting);
    }
}

/* Outputs against each other, the --resume file and every input read so far (the scene and
 * every file its reader read: files.h remembers them), by device and inode. */
static int check_aliases(const run_files *f, const scene_options *o) {
    const tool_named_file files[7] = {
        {"--trace", f->trace, true},        {"--bones", f->bones, true},       {"--snapshot-at", f->snapshot, true},
        {"--bvh", f->bvh, true},            {"--vrma", f->vrma, true},         {"--resume", f->resume, false},
        {"the scene", o->scene_path, false}};
    return tool_check_aliases("run", files, 7);
}

/* `flag` FILE --instance K: K exists and its rig has limbs (the bones the output holds). */
static int check_instance_limbs(const world *w, uint32_t k, const char *flag) {
    if (k >= w->instance_count)
        return tool_error(TOOL_BAD_INPUT, "run: --instance %u: the scene has %u instances (0 to %u)", k, w->instance_count,
                          w->instance_count ? w->instance_count - 1 : 0);
    if (!w->rigs[w->rig_of[k]].limbs)
        return tool_error(TOOL_BAD_INPUT, "run: %s: instance %u's rig \"%s\" has no limbs", flag, k,
                          w->scene->rigs[w->rig_of[k]].name);
    return TOOL_OK;
}

/* --bones FILE --instance K: K exists and has limbs or fingers (its bones are what the trace holds). */
static int check_bones_instance(const world *w, uint32_t k) {
    if (k < w->instance_count && w->rigs[w->rig_of[k]].fingers) return TOOL_OK;
    return check_instance_limbs(w, k, "--bones");
}

/* --vrma FILE: instance K (limbs with world rotations), a keyframe a frame. */
static int open_vrma(const world *w, const run_files *f, uint32_t first, vrma_writer *v) {
    uint32_t k = f->instance;
    int checked = check_instance_limbs(w, k, "--vrma");
    if (checked != TOOL_OK) return checked;
    const scene_rig *sr = &w->scene->rigs[w->rig_of[k]];
    if (!scene_rig_stores(sr, CROWD_FIELD_BONE_WORLD)) return scene_rig_lacks(sr, CROWD_FIELD_BONE_WORLD, "run: --vrma");
    int st = vrma_open(v, f->vrma, &sr->limbs, w->scene->frames - first);
    if (st == TOOL_OK && sr->has_fingers) st = vrma_set_fingers(v, &sr->fingers); /* the 30 finger bones too */
    return st;
}

/* --bvh FILE: instance K's skeleton (its rig's rest pose, its group's clip for the lengths). */
static int open_bvh(const world *w, const run_files *f, uint32_t first, bvh_file *bvh) {
    const scene *s = w->scene;
    uint32_t k = f->instance;
    int checked = check_instance_limbs(w, k, "--bvh");
    if (checked != TOOL_OK) return checked;
    const scene_rig *sr = &s->rigs[w->rig_of[k]];
    if (!scene_rig_stores(sr, CROWD_FIELD_BONE_LOCAL)) return scene_rig_lacks(sr, CROWD_FIELD_BONE_LOCAL, "run: --bvh");
    const pose_clip *clip = NULL;
    const hand_track *hands = NULL;
    for (uint32_t g = 0; g < s->group_count; g++)
        if (k >= w->group_first[g] && k < w->group_first[g + 1]) clip = s->groups[g].clip, hands = s->groups[g].hands;
    bvh_skeleton sk;
    int st = bvh_skeleton_make(&sk, w->engine, w->rigs[w->rig_of[k]].rig, sr->limbs.frame, clip);
    /* a rig with fingers: finger joints under the hands, lengths from the group's hand track */
    const hand_track none = {0};
    if (st == TOOL_OK && sr->has_fingers) st = bvh_skeleton_hands(&sk, &sr->fingers, hands ? hands : &none);
    double frame_time = s->dt > 0 ? (double)s->dt : 1.0 / 30.0; /* (dt 0: a still run; importers need a time) */
    if (st == TOOL_OK) st = bvh_open(bvh, f->bvh, &sk, sr->limbs.frame, s->frames - first, frame_time);
    return st;
}

/* --vmc HOST:PORT: instance K's rig (limbs needed). */
static int open_vmc(const world *w, const run_files *f, vmc_sender **vmc) {
    uint32_t k = f->instance;
    int checked = check_instance_limbs(w, k, "--vmc");
    if (checked != TOOL_OK) return checked;
    const scene_rig *sr = &w->scene->rigs[w->rig_of[k]];
    if (!scene_rig_stores(sr, CROWD_FIELD_BONE_WORLD)) return scene_rig_lacks(sr, CROWD_FIELD_BONE_WORLD, "run: --vmc");
    int st = vmc_open(vmc, "run: --vmc", f->vmc, &sr->limbs);
    if (st == TOOL_OK && sr->has_fingers) st = vmc_set_fingers(*vmc, &sr->fingers); /* the 30 finger bones too */
    vmc_configure(*vmc, &f->vmc_choice);
    return st;
}

int cmd_run(int argc, char **argv) {
    for (int i = 1; i < argc; i++)
        if (strcmp(argv[i], "--mpi") == 0) return cmd_run_mpi(argc, argv);
    tool_args a = {argc, argv, 1, "run"};
    scene_options o = {.threads = 1, .simd = CROWD_SIMD_AUTO};
    run_files f = {.vmc_choice = vmc_settings_defaults()};
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
            f.trace = v;
            continue;
        }
        if ((m = args_value(&a, "--bones", &v)) != 0) {
            if (m < 0) return TOOL_BAD_INPUT;
            f.bones = v;
            continue;
        }
        if ((m = args_value(&a, "--vrma", &v)) != 0) {
            if (m < 0) return TOOL_BAD_INPUT;
            f.vrma = v;
            continue;
        }
        if ((m = args_value(&a, "--bvh", &v)) != 0) {
            if (m < 0) return TOOL_BAD_INPUT;
            f.bvh = v;
            continue;
        }
        if ((m = args_value(&a, "--vmc", &v)) != 0) {
            if (m < 0) return TOOL_BAD_INPUT;
            f.vmc = v;
            continue;
        }
        if ((m = vmc_option(&a, &f.vmc_choice)) != 0) {
            if (m < 0) return TOOL_BAD_INPUT;
            continue;
        }
        if ((m = args_flag(&a, "--realtime")) != 0) {
            if (m < 0) return TOOL_BAD_INPUT;
            f.realtime = true;
            continue;
        }
        if ((m = args_value(&a, "--instance", &v)) != 0) {
            if (m < 0 || parse_u32(&a, "--instance", v, 0, 1u << 30, &f.instance) != TOOL_OK) return TOOL_BAD_INPUT;
            f.has_instance = true;
            continue;
        }
        if ((m = snapshot_option(&a, &f)) != 0) {
            if (m < 0) return TOOL_BAD_INPUT;
            continue;
        }
        if ((m = args_value(&a, "--resume", &v)) != 0) {
            if (m < 0) return TOOL_BAD_INPUT;
            f.resume = v;
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
    int st = check_files(&f);
    if (st != TOOL_OK) return st;

    scene s;
    st = scene_options_load(&o, &s);
    if (st == TOOL_OK) st = check_aliases(&f, &o);
    if (st == TOOL_OK) warn_clip_frames(&s);
    if (st == TOOL_OK && f.bones && scene_rig_without(&s, CROWD_FIELD_BONE_WORLD) >= 0)
        st = scene_rig_lacks(&s.rigs[scene_rig_without(&s, CROWD_FIELD_BONE_WORLD)], CROWD_FIELD_BONE_WORLD, "run: --bones");
    if (st != TOOL_OK) {
        scene_free(&s);
        return st;
    }
    world w;
    trace_file params = {0}, bones = {0};
    uint32_t first = 0;
    st = world_create(&w, &s, o.simd, o.threads);
    if (st == TOOL_OK && f.resume) {
        st = resume_load(&w, f.resume, &first);
        if (st == TOOL_OK && first > s.frames)
            st = tool_error(TOOL_BAD_INPUT, "run: %s was saved after frame %u, past this run's last frame %u (--frames)",
                            f.resume, first, s.frames);
    }
    if (st == TOOL_OK && f.snapshot && (f.snapshot_at < first || f.snapshot_at > s.frames))
        st = tool_error(TOOL_BAD_INPUT, "run: --snapshot-at %u is outside the frames of this run (%u to %u)", f.snapshot_at,
                        first, s.frames);
    if (st == TOOL_OK && f.trace) st = trace_open(&params, f.trace, TRACE_PARAMETER_HEADER);
    if (st == TOOL_OK && f.bones && f.has_instance) st = check_bones_instance(&w, f.instance);
    if (st == TOOL_OK && f.bones) st = trace_open(&bones, f.bones, TRACE_BONE_HEADER);
    bvh_file bvh = {0};
    if (st == TOOL_OK && f.bvh) st = open_bvh(&w, &f, first, &bvh);
    vrma_writer vrma = {0};
    if (st == TOOL_OK && f.vrma) st = open_vrma(&w, &f, first, &vrma);
    vmc_sender *vmc = NULL;
    vmc_pacer pacer = {0};
    if (st == TOOL_OK && f.vmc) st = open_vmc(&w, &f, &vmc);
    double seconds = 0;
    if (st == TOOL_OK) {
        sim_options so = {.first = first, .frames = s.frames, .dt = s.dt, .parameters = f.trace ? &params : NULL,
                          .bones = f.bones ? &bones : NULL, .bvh = f.bvh ? &bvh : NULL, .vrma = f.vrma ? &vrma : NULL,
                          .bvh_instance = f.instance, .bones_one = f.has_instance, .quiet = o.quiet, .snapshot_path = f.snapshot,
                          .snapshot_at = f.snapshot_at, .vmc = vmc, .vmc_instance = f.instance,
                          .pacer = f.realtime ? &pacer : NULL};
        st = simulate(&w, &so, &seconds);
    }
    vmc_close(vmc);
    if (st == TOOL_OK) st = trace_finish(&params);
    if (st == TOOL_OK) st = trace_finish(&bones);
    if (st == TOOL_OK && f.bvh) st = bvh_finish(&bvh);
    bvh_abort(&bvh);
    if (st == TOOL_OK && f.vrma) st = vrma_finish(&vrma);
    vrma_abort(&vrma);
    trace_abort(&params);
    trace_abort(&bones);
    if (st == TOOL_OK) print_summary(&w, &f, first, s.frames, seconds, json);
    world_destroy(&w);
    scene_free(&s);
    return st;
}
