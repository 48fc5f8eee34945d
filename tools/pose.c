/* crowd pose CLIP: one instance (root identity) through a pose clip, one tick per row with dt
 * the difference of t_s (computed in double, rounded to float32 once; 0 on the first row), and
 * its 15 bone rotations (world, or local with --local) as a bones trace; frame k is the clip's
 * k-th row, counted from 1; the instance column is 0. With hands (--hands FILE, or a Holistic
 * recording as the clip) the rig also solves fingers (crowd.h section 9a): row k takes the last
 * hand frame whose time is at or before its t_s, the hand rows carry the fingers' refined hands
 * and the 30 finger bones follow the body's. */
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "args.h"
#include "bvh.h"
#include "clip.h"
#include "commands.h"
#include "diag.h"
#include "files.h"
#include "hand_track.h"
#include "landmark_json.h"
#include "trace.h"
#include "vmc.h"
#include "vrma.h"

static const char pose_usage[] =
    "usage: crowd pose CLIP [--frame mediapipe_world|engine] [--axis-fix y_along_bone|z_along_bone]\n"
    "                  [--fallback stable|root|previous] [--visibility-threshold V] [--smoothing off|one_euro]\n"
    "                  [--min-cutoff HZ] [--beta X] [--d-cutoff HZ] [--hold-half-life S]\n"
    "                  [--reacquire-half-life S] [--bend-min DEG] [--bend-full DEG] [--arm-image-bend DEG]\n"
    "                  [--outputs both|world|local]\n"
    "                  [--local] [--bones FILE] [--max-file-bytes N] [--bvh FILE] [--vmc HOST:PORT] [--realtime]\n"
    "                  [--vmc-send bones,fingers,face,eyes] [--vmc-blend vrm0|arkit] [--vrma FILE]\n"
    "                  [--hands FILE] [--mirrored] [--hand-threshold V]\n"
    "Solves one instance (root identity) through the pose clip CLIP (CSV, or landmark JSON from MediaPipe\n"
    "Tasks or TF.js; formats in README.md), one tick per row with dt the difference of t_s (0 on the\n"
    "first row), and writes its bone rotations\n"
    "(world, or local with --local) as frame,instance,bone,qx,qy,qz,qw to FILE or standard output.\n"
    "The clip must be a regular file of at most N bytes (--max-file-bytes, default 1 GiB).\n"
    "  --bvh FILE   also the motion as BVH (local rotations; format in README.md); then the bones\n"
    "               trace is written only when --bones names a file\n"
    "  --vmc HOST:PORT  also send each solved frame over VMC (OSC/UDP) to a receiver such as VSeeFace\n"
    "               (port 39539; README.md); then too the trace is written only when --bones names a file\n"
    "  --vmc-send LIST  the VMC groups sent (default all; README.md); --vmc-blend: blend shape names\n"
    "  --vrma FILE  also the motion as VRM Animation (glTF binary with VRMC_vrm_animation; README.md)\n"
    "  --hands FILE MediaPipe Hand Landmarker or Holistic results (NDJSON; README.md): also solve the 30\n"
    "               finger bones (a Holistic recording given as CLIP brings its own hands); a pose row\n"
    "               takes the last hand frame at or before its t_s\n"
    "  --mirrored   the hands come from a mirrored (selfie) image (which hand is which: README.md)\n"
    "  --hand-threshold V  a hand is trusted when its presence score is >= V (default 0.5; 0: always);\n"
    "               --smoothing and its settings filter the hands' landmarks too\n"
    "  --realtime   pace the frames at their t_s (from the first row) instead of as fast as possible\n"
    "  --outputs    the rotations the rig stores (default both): world only suits the world trace and\n"
    "               --vmc, local only --local and --bvh; asking for the other kind is refused\n"
    "Exit status: 0 success, 2 bad usage or bad input, 1 any other failure.\n";

/* The limb settings' flags, shared with crowd stream (commands.h). */
int pose_limb_check(const char *command, const crowd_limbs_desc *limbs) {
    if (!(limbs->bend_min < limbs->bend_full))
        return tool_error(TOOL_BAD_INPUT, "%s: --bend-min (%g) must be below --bend-full (%g)", command,
                          (double)limbs->bend_min, (double)limbs->bend_full);
    return TOOL_OK;
}

int pose_outputs_check(const char *command, const crowd_limbs_desc *limbs, const char *flag, crowd_field kind) {
    const crowd_limb_outputs only = kind == CROWD_FIELD_BONE_WORLD ? CROWD_LIMB_OUTPUTS_WORLD : CROWD_LIMB_OUTPUTS_LOCAL;
    if (limbs->outputs == CROWD_LIMB_OUTPUTS_BOTH || limbs->outputs == only) return TOOL_OK;
    const char *want = crowd_limb_outputs_name(only), *kept = crowd_limb_outputs_name(limbs->outputs);
    return tool_error(TOOL_BAD_INPUT, "%s: %s needs %s rotations, but --outputs %s stores %s rotations only", command, flag,
                      want, kept, kept);
}

int pose_limb_option(tool_args *a, crowd_limbs_desc *limbs) {
    TOOL_ENUM_NAMES(frames, pose_frame, crowd_pose_frame, 0, CROWD_FRAME_COUNT);
    TOOL_ENUM_NAMES(fixes, axis_fix, crowd_axis_fix, 0, 2); /* the presets (custom and calibrated need arrays) */
    TOOL_ENUM_NAMES(fallbacks, limb_fallback, crowd_limb_fallback, 0, CROWD_FALLBACK_COUNT);
    TOOL_ENUM_NAMES(outputs, limb_outputs, crowd_limb_outputs, 0, CROWD_LIMB_OUTPUTS_COUNT);
    static const char *const smoothings[] = {"off", "one_euro"};
    const char *v;
    int m, k = 0, st = TOOL_OK;
    if ((m = args_value(a, "--frame", &v)) != 0) {
        if (m < 0 || (st = parse_choice(a, "--frame", v, frames, CROWD_FRAME_COUNT, &k)) != TOOL_OK) return -1;
        limbs->frame = (crowd_pose_frame)k;
    } else if ((m = args_value(a, "--axis-fix", &v)) != 0) {
        if (m < 0 || (st = parse_choice(a, "--axis-fix", v, fixes, 2, &k)) != TOOL_OK) return -1;
        limbs->axis_fix = (crowd_axis_fix)k;
    } else if ((m = args_value(a, "--fallback", &v)) != 0) {
        if (m < 0 || (st = parse_choice(a, "--fallback", v, fallbacks, CROWD_FALLBACK_COUNT, &k)) != TOOL_OK) return -1;
        limbs->fallback = (crowd_limb_fallback)k;
    } else if ((m = args_value(a, "--visibility-threshold", &v)) != 0) {
        if (m < 0 || parse_float(a, "--visibility-threshold", v, 0.0f, 1.0f, &limbs->visibility_threshold) != TOOL_OK)
            return -1;
    } else if ((m = args_value(a, "--min-cutoff", &v)) != 0) {
        if (m < 0 || parse_float_open(a, "--min-cutoff", v, 0.0f, 1e6f, &limbs->min_cutoff) != TOOL_OK) return -1;
    } else if ((m = args_value(a, "--beta", &v)) != 0) {
        if (m < 0 || parse_float(a, "--beta", v, 0.0f, 1e6f, &limbs->beta) != TOOL_OK) return -1;
    } else if ((m = args_value(a, "--d-cutoff", &v)) != 0) {
        if (m < 0 || parse_float_open(a, "--d-cutoff", v, 0.0f, 1e6f, &limbs->d_cutoff) != TOOL_OK) return -1;
    } else if ((m = args_value(a, "--hold-half-life", &v)) != 0) {
        if (m < 0 || parse_float_open(a, "--hold-half-life", v, 0.0f, 3600.0f, &limbs->hold_half_life) != TOOL_OK)
            return -1;
    } else if ((m = args_value(a, "--reacquire-half-life", &v)) != 0) {
        if (m < 0 || parse_float_open(a, "--reacquire-half-life", v, 0.0f, 3600.0f, &limbs->reacquire_half_life) != TOOL_OK)
            return -1;
    } else if ((m = args_value(a, "--bend-min", &v)) != 0) {
        if (m < 0 || parse_float(a, "--bend-min", v, 0.0f, 90.0f, &limbs->bend_min) != TOOL_OK) return -1;
    } else if ((m = args_value(a, "--bend-full", &v)) != 0) {
        if (m < 0 || parse_float(a, "--bend-full", v, 0.0f, 90.0f, &limbs->bend_full) != TOOL_OK) return -1;
    } else if ((m = args_value(a, "--arm-image-bend", &v)) != 0) {
        if (m < 0 || parse_float(a, "--arm-image-bend", v, 0.0f, 90.0f, &limbs->arm_image_bend) != TOOL_OK) return -1;
    } else if ((m = args_value(a, "--smoothing", &v)) != 0) {
        if (m < 0 || (st = parse_choice(a, "--smoothing", v, smoothings, 2, &k)) != TOOL_OK) return -1;
        limbs->smoothing = k == 1;
    } else if ((m = args_value(a, "--outputs", &v)) != 0) {
        if (m < 0 || (st = parse_choice(a, "--outputs", v, outputs, CROWD_LIMB_OUTPUTS_COUNT, &k)) != TOOL_OK) return -1;
        limbs->outputs = (crowd_limb_outputs)k;
    } else {
        return 0;
    }
    (void)st;
    return 1;
}

static int parse_args(int argc, char **argv, const char **clip_path, crowd_limbs_desc *limbs, bool *local,
                      const char **bones_path, const char **bvh_path, const char **vmc, bool *realtime,
                      vmc_settings *vmc_choice, const char **vrma_path, const char **hands_path,
                      crowd_fingers_desc *fingers) {
    tool_args a = {argc, argv, 1, "pose"};
    for (; a.i < argc; a.i++) {
        const char *v;
        int m;
        if ((m = pose_limb_option(&a, limbs)) != 0) {
            if (m < 0) return TOOL_BAD_INPUT;
        } else if ((m = vmc_option(&a, vmc_choice)) != 0) {
            if (m < 0) return TOOL_BAD_INPUT;
        } else if ((m = args_value(&a, "--bones", &v)) != 0) {
            if (m < 0) return TOOL_BAD_INPUT;
            *bones_path = v;
        } else if ((m = args_value(&a, "--max-file-bytes", &v)) != 0) {
            if (m < 0 || parse_u64(&a, "--max-file-bytes", v, &tool_max_file_bytes) != TOOL_OK) return TOOL_BAD_INPUT;
        } else if ((m = args_value(&a, "--vrma", &v)) != 0) {
            if (m < 0) return TOOL_BAD_INPUT;
            *vrma_path = v;
        } else if ((m = args_value(&a, "--bvh", &v)) != 0) {
            if (m < 0) return TOOL_BAD_INPUT;
            *bvh_path = v;
        } else if ((m = args_value(&a, "--vmc", &v)) != 0) {
            if (m < 0) return TOOL_BAD_INPUT;
            *vmc = v;
        } else if ((m = args_value(&a, "--hands", &v)) != 0) {
            if (m < 0) return TOOL_BAD_INPUT;
            *hands_path = v;
        } else if ((m = args_flag(&a, "--mirrored")) != 0) {
            if (m < 0) return TOOL_BAD_INPUT;
            fingers->mirrored = true;
        } else if ((m = args_value(&a, "--hand-threshold", &v)) != 0) {
            if (m < 0 || parse_float(&a, "--hand-threshold", v, 0.0f, 1.0f, &fingers->presence_threshold) != TOOL_OK)
                return TOOL_BAD_INPUT;
        } else if ((m = args_flag(&a, "--realtime")) != 0) {
            if (m < 0) return TOOL_BAD_INPUT;
            *realtime = true;
        } else if ((m = args_flag(&a, "--local")) != 0) {
            if (m < 0) return TOOL_BAD_INPUT;
            *local = true;
        } else if (args_flag(&a, "--help") > 0 || args_flag(&a, "-h") > 0) {
            fputs(pose_usage, stdout);
            return -1;
        } else if ((argv[a.i][0] == '-' && argv[a.i][1] != 0) || *clip_path) {
            return args_unexpected(&a);
        } else {
            *clip_path = argv[a.i];
        }
    }
    if (pose_limb_check("pose", limbs) != TOOL_OK) return TOOL_BAD_INPUT;
    if (!*clip_path) {
        fputs(pose_usage, stderr);
        return tool_error(TOOL_BAD_INPUT, "pose: a pose clip is required");
    }
    return TOOL_OK;
}

/* The rotations of one kind (world or local) of the body bones, with the hands' replaced by the
 * fingers' refined hands, and of the 32 hand bones (fingers NULL: no hands). */
static int get_bones(crowd_engine *engine, crowd_instance inst, bool local, float q[CROWD_BONE_COUNT][4],
                     float (*fingers)[4]) {
    crowd_result res;
    for (uint32_t b = 0; b < CROWD_BONE_COUNT; b++)
        if ((res = crowd_get(engine, inst, local ? CROWD_FIELD_BONE_LOCAL : CROWD_FIELD_BONE_WORLD, b, q[b])) != CROWD_OK)
            return tool_engine_error(TOOL_FAILED, engine, res, "crowd_get (bones)");
    if (!fingers) return TOOL_OK;
    for (uint32_t b = 0; b < CROWD_FINGER_BONE_COUNT; b++)
        if ((res = crowd_get(engine, inst, local ? CROWD_FIELD_FINGER_LOCAL : CROWD_FIELD_FINGER_WORLD, b, fingers[b])) !=
            CROWD_OK)
            return tool_engine_error(TOOL_FAILED, engine, res, "crowd_get (fingers)");
    memcpy(q[CROWD_BONE_LEFT_HAND], fingers[CROWD_HAND_LEFT * CROWD_HAND_BONE_COUNT], sizeof q[0]);
    memcpy(q[CROWD_BONE_RIGHT_HAND], fingers[CROWD_HAND_RIGHT * CROWD_HAND_BONE_COUNT], sizeof q[0]);
    return TOOL_OK;
}

/* Feeds the hand frame in effect at time t (the last at or before it; none yet: no hand). */
static int feed_hands(crowd_engine *engine, crowd_instance inst, const hand_track *hands, double t, uint32_t *next) {
    while (*next < hands->count && hands->frames[*next].t_s <= t) ++*next;
    static const float none[CROWD_HAND_COUNT][CROWD_HAND_FLOATS];
    const float(*h)[CROWD_HAND_FLOATS] = *next ? (const float(*)[CROWD_HAND_FLOATS])hands->frames[*next - 1].hands : none;
    for (uint32_t k = 0; k < CROWD_HAND_COUNT; k++) {
        crowd_result res = crowd_set(engine, inst, CROWD_FIELD_HAND_LANDMARKS, k, h[k]);
        if (res != CROWD_OK) {
            char what[1300];
            snprintf(what, sizeof what, "%s:%u: crowd_set (hand landmarks)", hands->path, hands->frames[*next - 1].line);
            return tool_engine_error(TOOL_BAD_INPUT, engine, res, what);
        }
    }
    return TOOL_OK;
}

static void hand_bone_label(uint32_t b, char *buf, size_t size) {
    snprintf(buf, size, "%s_%s", crowd_hand_name((crowd_hand)(b / CROWD_HAND_BONE_COUNT)),
             crowd_hand_bone_name((crowd_hand_bone)(b % CROWD_HAND_BONE_COUNT)));
}

/* Ticks through the clip and writes the trace. */
static int solve(crowd_engine *engine, crowd_instance inst, const pose_clip *clip, crowd_pose_frame frame, bool local,
                 trace_file *out, bvh_file *bvh, vmc_sender *vmc, vmc_pacer *pacer, vrma_writer *vrma,
                 const hand_track *hands) {
    crowd_result res;
    uint32_t next_hand = 0;
    float fq[CROWD_FINGER_BONE_COUNT][4];
    float(*fingers)[4] = hands ? fq : NULL;
    for (uint32_t k = 0; k < clip->row_count; k++) {
        if (tool_interrupted) return tool_error(TOOL_FAILED, "interrupted");
        double step = k ? clip->t_s[k] - clip->t_s[k - 1] : 0.0;
        float dt = (float)step;
        char where[1200];
        if (!(dt <= 1.0f))
            return tool_error(TOOL_BAD_INPUT, "%s: t_s: steps %.9g s from the previous row; a tick takes at most 1 s",
                              clip_row_where(clip, k, where, sizeof where), step);
        if (pacer) vmc_pace(pacer, clip->t_s[k]);
        res = crowd_set(engine, inst, CROWD_FIELD_POSE, 0, clip_landmarks(clip, k, frame));
        if (res != CROWD_OK) {
            char what[1300];
            snprintf(what, sizeof what, "%s: crowd_set (pose)", clip_row_where(clip, k, where, sizeof where));
            return tool_engine_error(TOOL_BAD_INPUT, engine, res, what);
        }
        int st;
        if (hands && (st = feed_hands(engine, inst, hands, clip->t_s[k], &next_hand)) != TOOL_OK) return st;
        if ((res = crowd_tick(engine, dt)) != CROWD_OK) return tool_engine_error(TOOL_FAILED, engine, res, "crowd_tick");
        float q[CROWD_BONE_COUNT][4];
        if (out->f) {
            if ((st = get_bones(engine, inst, local, q, fingers)) != TOOL_OK) return st;
            for (uint32_t b = 0; b < CROWD_BONE_COUNT; b++) trace_bone(out, k + 1, 0, crowd_bone_name((crowd_bone)b), q[b]);
            for (uint32_t b = 0; fingers && b < CROWD_FINGER_BONE_COUNT; b++) {
                if (b % CROWD_HAND_BONE_COUNT == CROWD_HAND_BONE_HAND) continue; /* the hand rows above */
                char name[64];
                hand_bone_label(b, name, sizeof name);
                trace_bone(out, k + 1, 0, name, fingers[b]);
            }
        }
        if (bvh) {
            if ((st = get_bones(engine, inst, true, q, fingers)) != TOOL_OK) return st;
            bvh_frame_hands(bvh, clip_landmarks(clip, k, frame), (const float(*)[4])q, (const float(*)[4])fingers);
        }
        if (vrma) {
            if ((st = get_bones(engine, inst, false, q, fingers)) != TOOL_OK) return st;
            st = fingers ? vrma_frame_fingers(vrma, clip->t_s[k] - clip->t_s[0], (const float(*)[4])q,
                                              (const float(*)[4])fingers, clip_landmarks(clip, k, frame), frame, NULL)
                         : vrma_frame(vrma, clip->t_s[k] - clip->t_s[0], (const float(*)[4])q,
                                      clip_landmarks(clip, k, frame), frame, NULL);
            if (st != TOOL_OK) return st;
        }
        if (vmc) {
            if ((st = get_bones(engine, inst, false, q, fingers)) != TOOL_OK) return st;
            vmc_frame vf = {.world = (const float(*)[4])q, .landmarks = clip_landmarks(clip, k, frame), .frame = frame,
                            .t_s = clip->t_s[k] - clip->t_s[0], .fingers = (const float(*)[4])fingers};
            if ((st = vmc_send_frame(vmc, &vf)) != TOOL_OK) return st;
        }
    }
    return TOOL_OK;
}

/* Is the clip a Holistic Landmarker recording (landmark JSON whose first line names hands)? */
static bool holistic(const char *path) {
    struct stat info;
    if (stat(path, &info) != 0 || !S_ISREG(info.st_mode)) return false; /* clip_load tells why (never read a pipe twice) */
    FILE *f = fopen(path, "rb");
    if (!f) return false;
    char head[65536];
    size_t n = fread(head, 1, sizeof head, f);
    fclose(f);
    const char *nl = memchr(head, '\n', n);
    if (nl) n = (size_t)(nl - head);
    return landmark_json_sniff(head, n) && hand_track_sniff(head, n);
}

int cmd_pose(int argc, char **argv) {
    const char *clip_path = NULL, *bones_path = NULL, *bvh_path = NULL, *vmc_target = NULL, *vrma_path = NULL,
               *hands_path = NULL;
    crowd_limbs_desc limbs = crowd_limbs_defaults();
    crowd_fingers_desc fingers = crowd_fingers_defaults();
    bool local = false, realtime = false;
    vmc_settings vmc_choice = vmc_settings_defaults();
    int st = parse_args(argc, argv, &clip_path, &limbs, &local, &bones_path, &bvh_path, &vmc_target, &realtime,
                        &vmc_choice, &vrma_path, &hands_path, &fingers);
    if (st != TOOL_OK) return st < 0 ? TOOL_OK : st;
    if ((st = vmc_settings_check(&vmc_choice, "pose", vmc_target)) != TOOL_OK) return st;
    if (!bones_path && !bvh_path && !vmc_target && !vrma_path) bones_path = "-";
    if (vrma_path && (st = pose_outputs_check("pose", &limbs, "--vrma", CROWD_FIELD_BONE_WORLD)) != TOOL_OK) return st;
    if (bones_path && (st = pose_outputs_check("pose", &limbs, local ? "--local" : "the bones trace without --local",
                                               local ? CROWD_FIELD_BONE_LOCAL : CROWD_FIELD_BONE_WORLD)) != TOOL_OK)
        return st;
    if (bvh_path && (st = pose_outputs_check("pose", &limbs, "--bvh", CROWD_FIELD_BONE_LOCAL)) != TOOL_OK) return st;
    if (vmc_target && (st = pose_outputs_check("pose", &limbs, "--vmc", CROWD_FIELD_BONE_WORLD)) != TOOL_OK) return st;
    if (bones_path && bvh_path && strcmp(bones_path, bvh_path) == 0)
        return tool_error(TOOL_BAD_INPUT, "pose: --bones and --bvh name the same file %s", bvh_path);

    if (!hands_path && holistic(clip_path)) hands_path = clip_path;
    if (!hands_path && (fingers.mirrored || fingers.presence_threshold != crowd_fingers_defaults().presence_threshold))
        return tool_error(TOOL_BAD_INPUT, "pose: --mirrored and --hand-threshold need hands (--hands FILE or a Holistic clip)");

    const tool_named_file files[5] = {{"--bones", bones_path, true}, {"--bvh", bvh_path, true}, {"the pose clip", clip_path, false},
                                      {"--vrma", vrma_path, true}, {"--hands", hands_path, false}};
    if ((st = tool_check_aliases("pose", files, 5)) != TOOL_OK) return st;
    hand_track hands = {0};
    if (hands_path) {
        hand_track_options hopt = {.mirrored = fingers.mirrored, .aspect = 1.0f};
        if ((st = hand_track_load(hands_path, &hopt, &hands)) != TOOL_OK) return st;
        /* the Hand Landmarker's world landmarks are MediaPipe's frame, whatever the pose clip's */
        fingers.frame = CROWD_FRAME_MEDIAPIPE_WORLD;
        fingers.axis_fix = limbs.axis_fix;
        /* --smoothing and its settings filter the hands' landmarks too */
        fingers.smoothing = limbs.smoothing;
        fingers.min_cutoff = limbs.min_cutoff, fingers.beta = limbs.beta, fingers.d_cutoff = limbs.d_cutoff;
    }
    pose_clip clip;
    if ((st = clip_load(clip_path, &clip)) != TOOL_OK) {
        hand_track_free(&hands);
        return st;
    }
    clip_frame_warning(&clip, limbs.frame, "--frame");
    crowd_engine *engine = NULL;
    crowd_engine_desc desc = {0};
    crowd_result res = crowd_engine_create(&desc, &engine);
    if (res != CROWD_OK) {
        clip_free(&clip);
        hand_track_free(&hands);
        return tool_error(TOOL_FAILED, "crowd_engine_create: %s", crowd_result_text(res));
    }
    crowd_rig_desc rd = {.name = "pose", .limbs = &limbs, .fingers = hands_path ? &fingers : NULL};
    crowd_rig rig;
    crowd_instance inst;
    crowd_add_desc add = {.count = 1};
    if ((res = crowd_rig_create(engine, &rd, &rig)) != CROWD_OK) {
        st = tool_engine_error(TOOL_BAD_INPUT, engine, res, "pose: the limbs settings");
    } else {
        add.rig = rig;
        if ((res = crowd_instances_add(engine, &add, &inst)) != CROWD_OK)
            st = tool_engine_error(TOOL_FAILED, engine, res, "crowd_instances_add");
    }
    trace_file out = {0};
    bvh_file bvh = {0};
    if (st == TOOL_OK && bvh_path) {
        bvh_skeleton sk;
        uint32_t n = clip.row_count;
        double frame_time = n > 1 ? (clip.t_s[n - 1] - clip.t_s[0]) / (n - 1) : 0.0;
        if (!(frame_time > 0)) frame_time = 1.0 / 30.0; /* one row, or every row at one time */
        st = bvh_skeleton_make(&sk, engine, rig, limbs.frame, &clip);
        if (st == TOOL_OK && hands_path) st = bvh_skeleton_hands(&sk, &fingers, &hands);
        if (st == TOOL_OK) st = bvh_open(&bvh, bvh_path, &sk, limbs.frame, n, frame_time);
    }
    vmc_sender *vmc = NULL;
    vmc_pacer pacer = {0};
    if (st == TOOL_OK && vmc_target) st = vmc_open(&vmc, "pose: --vmc", vmc_target, &limbs);
    if (st == TOOL_OK && vmc && hands_path) st = vmc_set_fingers(vmc, &fingers);
    vmc_configure(vmc, &vmc_choice);
    if (st == TOOL_OK && bones_path) st = trace_open(&out, bones_path, TRACE_BONE_HEADER);
    vrma_writer vrma = {0};
    if (st == TOOL_OK && vrma_path) st = vrma_open(&vrma, vrma_path, &limbs, clip.row_count);
    if (st == TOOL_OK && vrma_path && hands_path) st = vrma_set_fingers(&vrma, &fingers);
    if (st == TOOL_OK)
        st = solve(engine, inst, &clip, limbs.frame, local, &out, bvh_path ? &bvh : NULL, vmc, realtime ? &pacer : NULL,
                   vrma_path ? &vrma : NULL, hands_path ? &hands : NULL);
    vmc_close(vmc);
    if (st == TOOL_OK) st = trace_finish(&out);
    if (st == TOOL_OK && bvh_path) st = bvh_finish(&bvh);
    if (st == TOOL_OK && vrma_path) st = vrma_finish(&vrma);
    vrma_abort(&vrma);
    trace_abort(&out);
    bvh_abort(&bvh);
    crowd_engine_destroy(engine);
    clip_free(&clip);
    hand_track_free(&hands);
    return st;
}
