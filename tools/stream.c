/* crowd stream: landmark frames from standard input, solved as each line arrives (a live tracker
 * pipes into it). One NDJSON line a frame, either shape of the landmark JSON reader
 * (landmark_json.h: a MediaPipe Tasks result or a TF.js frame), decoded by its per-line parser.
 *
 * One instance (root identity) of a rig with the default limb settings and crowd pose's limb
 * flags. dt is the difference of the frames' times (0 on the first frame; a gap over 1 s ticks
 * 1 s, the engine's largest step, and is reported). A line that does not decode is reported with
 * its line number and skipped; a frame whose time is not after the previous frame's (repeated or
 * backwards) is reported and dropped; --strict makes either fatal (exit 2). Standard input is
 * read with read(2), so a line is solved as soon as its newline arrives, and a line longer than
 * --max-line-bytes (default 1 MiB) is reported and skipped without being held. End of input:
 * exit 0. An audio level line ({"timestamp_ms": T, "mouth": L}) sets the face instance's lip sync
 * level and ticks it on the face clock, as a face frame does. */
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "args.h"
#include "clip.h"
#include "commands.h"
#include "diag.h"
#include "face_track.h"
#include "hand_track.h"
#include "files.h"
#include "landmark_json.h"
#include "trace.h"
#include "vmc.h"
#include "vrma.h"

#define STREAM_DEFAULT_MAX_LINE (1u << 20)
#define STREAM_NAME "-" /* standard input, in messages */

static const char stream_usage[] =
    "usage: crowd stream [--vmc HOST:PORT] [--bones FILE] [--params FILE] [--vrma FILE] [--local] [--strict]\n"
    "                    [--max-line-bytes N]\n"
    "                    [--vmc-send bones,fingers,face,eyes] [--vmc-blend vrm0|arkit]\n"
    "                    [--frame mediapipe_world|engine] [--axis-fix y_along_bone|z_along_bone]\n"
    "                    [--fallback stable|root|previous] [--visibility-threshold V] [--smoothing off|one_euro]\n"
    "                    [--min-cutoff HZ] [--beta X] [--d-cutoff HZ] [--hold-half-life S]\n"
    "                    [--reacquire-half-life S] [--bend-min DEG] [--bend-full DEG] [--arm-image-bend DEG]\n"
    "                    [--outputs both|world|local] [--hands] [--mirrored] [--hand-threshold V]\n"
    "Reads landmark frames from standard input, one JSON line a frame (a MediaPipe Tasks pose landmarker\n"
    "result or a TF.js pose-detection frame; README.md), and solves each one instance as soon as its\n"
    "line arrives, with dt from the frames' times. Ends at the end of input. A MediaPipe Tasks face\n"
    "landmarker result (faceBlendshapes, facialTransformationMatrixes) drives a face instance instead: the\n"
    "standard face mapping onto the standard Cubism parameters, with its own clock. An audio level line\n"
    "{\"timestamp_ms\": T, \"mouth\": L} (L in [0, 1], e.g. a frame's RMS) ticks the face instance on the same\n"
    "clock with lip sync: ParamMouthOpenY gets L * 0.8 added (the Cubism samples' lip sync) until the next level.\n"
    "  --vmc HOST:PORT  send each frame over VMC (OSC/UDP) to a receiver such as VSeeFace (port 39539)\n"
    "  --bones FILE     write the bone rotations (world, or local with --local) as\n"
    "                   frame,instance,bone,qx,qy,qz,qw, flushed every frame; \"-\" (the default\n"
    "                   without --vmc) is standard output\n"
    "  --params FILE    write face frames' parameters as frame,instance,id,value (\"-\": standard output)\n"
    "  --vrma FILE      the motion as VRM Animation (glTF binary, VRMC_vrm_animation; README.md), a keyframe a\n"
    "                   pose frame with the latest face frame's expressions and gaze, written when the input\n"
    "                   ends (kept in memory: at most 524288 keyframes, later ones are left out with a warning)\n"
    "  --vmc-send LIST  what --vmc sends: bones,fingers,face,eyes (default all); face frames go as blend\n"
    "                   shapes (--vmc-blend vrm0: Blink_L/R, A, I, U, E, O; arkit: the 52 names) and eyes\n"
    "  --hands          also solve the 30 finger bones from hand lines (MediaPipe Hand Landmarker results, or\n"
    "                   Holistic ones, whose pose goes to the body too): each sets the hands for the pose\n"
    "                   frames after it; the bones trace, --vmc and --vrma then carry the fingers (as crowd pose --hands)\n"
    "  --mirrored, --hand-threshold V  as crowd pose's\n"
    "  --strict         a bad line or an out-of-order time stops the stream (exit 2) instead of being\n"
    "                   reported and skipped\n"
    "  --max-line-bytes N  the longest line read (default 1048576); a longer one is a bad line\n"
    "  the limb flags are crowd pose's (crowd pose --help)\n"
    "Exit status: 0 at the end of input, 2 bad usage (or with --strict bad input), 1 any other failure.\n";

typedef struct stream_options {
    const char *vmc, *bones, *params, *vrma;
    vmc_settings vmc_choice;
    bool local, strict;
    uint32_t max_line;
    crowd_limbs_desc limbs;
    bool hands; /* --hands: a fingers rig, hand lines read */
    crowd_fingers_desc fingers;
} stream_options;

static int parse_args(int argc, char **argv, stream_options *o) {
    tool_args a = {argc, argv, 1, "stream"};
    for (; a.i < argc; a.i++) {
        const char *v;
        int m;
        if ((m = pose_limb_option(&a, &o->limbs)) != 0) {
            if (m < 0) return TOOL_BAD_INPUT;
        } else if ((m = vmc_option(&a, &o->vmc_choice)) != 0) {
            if (m < 0) return TOOL_BAD_INPUT;
        } else if ((m = args_value(&a, "--vmc", &v)) != 0) {
            if (m < 0) return TOOL_BAD_INPUT;
            o->vmc = v;
        } else if ((m = args_value(&a, "--bones", &v)) != 0) {
            if (m < 0) return TOOL_BAD_INPUT;
            o->bones = v;
        } else if ((m = args_value(&a, "--vrma", &v)) != 0) {
            if (m < 0) return TOOL_BAD_INPUT;
            o->vrma = v;
        } else if ((m = args_value(&a, "--params", &v)) != 0) {
            if (m < 0) return TOOL_BAD_INPUT;
            o->params = v;
        } else if ((m = args_value(&a, "--max-line-bytes", &v)) != 0) {
            if (m < 0 || parse_u32(&a, "--max-line-bytes", v, 64, 1u << 30, &o->max_line) != TOOL_OK) return TOOL_BAD_INPUT;
        } else if ((m = args_flag(&a, "--local")) != 0) {
            if (m < 0) return TOOL_BAD_INPUT;
            o->local = true;
        } else if ((m = args_flag(&a, "--hands")) != 0) {
            if (m < 0) return TOOL_BAD_INPUT;
            o->hands = true;
        } else if ((m = args_flag(&a, "--mirrored")) != 0) {
            if (m < 0) return TOOL_BAD_INPUT;
            o->fingers.mirrored = true;
        } else if ((m = args_value(&a, "--hand-threshold", &v)) != 0) {
            if (m < 0 || parse_float(&a, "--hand-threshold", v, 0.0f, 1.0f, &o->fingers.presence_threshold) != TOOL_OK)
                return TOOL_BAD_INPUT;
        } else if ((m = args_flag(&a, "--strict")) != 0) {
            if (m < 0) return TOOL_BAD_INPUT;
            o->strict = true;
        } else if (args_flag(&a, "--help") > 0 || args_flag(&a, "-h") > 0) {
            fputs(stream_usage, stdout);
            return -1;
        } else {
            return args_unexpected(&a);
        }
    }
    return pose_limb_check("stream", &o->limbs);
}

/* ---- lines from a file descriptor as they arrive, at most max bytes each ---- */
typedef struct line_reader {
    int fd;
    char *buf;
    size_t cap, start, end; /* unread bytes: buf[start, end) */
    uint32_t max;
    bool eof;
} line_reader;

/* The next line (newline removed, and a '\r' before it): 1 and *line, *len; 0 at the end of
 * input; -1 a read error (printed); 2 a line longer than max (skipped, *len its length so far). */
static int next_line(line_reader *r, const char **line, size_t *len) {
    size_t scanned = 0;
    bool too_long = false;
    for (;;) {
        char *nl = memchr(r->buf + r->start + scanned, '\n', r->end - r->start - scanned);
        if (nl) {
            size_t n = (size_t)(nl - (r->buf + r->start));
            *line = r->buf + r->start;
            r->start += n + 1;
            if (too_long || n > r->max) { /* however the line arrived: one read or many */
                *len = n;
                return 2;
            }
            if (n > 0 && (*line)[n - 1] == '\r') n--;
            *len = n;
            return 1;
        }
        scanned = r->end - r->start;
        if (r->eof) {
            if (scanned == 0 && !too_long) return 0;
            *line = r->buf + r->start; /* the last line without a newline */
            *len = scanned;
            r->start = r->end;
            return too_long || scanned > r->max ? 2 : 1;
        }
        if (scanned > r->max) { /* drop what is held of an over-long line, keep looking for its end */
            too_long = true;
            r->start = r->end = 0;
            scanned = 0;
        }
        if (r->start > 0 && r->end == r->cap) { /* room at the front: move the partial line there */
            memmove(r->buf, r->buf + r->start, r->end - r->start);
            r->end -= r->start;
            r->start = 0;
        }
        if (r->end == r->cap) {
            size_t cap = r->cap * 2;
            char *b = tool_realloc(r->buf, cap, 1);
            if (!b) return -1;
            r->buf = b;
            r->cap = cap;
        }
        ssize_t got = read(r->fd, r->buf + r->end, r->cap - r->end);
        if (got < 0) {
            if (errno == EINTR && !tool_interrupted) continue;
            if (tool_interrupted) return -1;
            tool_error(TOOL_FAILED, "stream: cannot read standard input: %s", strerror(errno));
            return -1;
        }
        if (got == 0) r->eof = true;
        r->end += (size_t)got;
    }
}

static bool blank(const char *p, size_t n) {
    for (size_t k = 0; k < n; k++)
        if (p[k] != ' ' && p[k] != '\t' && p[k] != '\r') return false;
    return true;
}

/* The window of frames the solve needs: the frame being solved, after the previous one (a frame
 * with no detection repeats the previous landmarks, clip.h). Keeps only the last row. */
static void keep_last_row(pose_clip *c) {
    uint32_t n = c->row_count;
    if (n < 2) return;
    c->t_s[0] = c->t_s[n - 1];
    c->line[0] = c->line[n - 1];
    memcpy(c->landmarks, &c->landmarks[(size_t)(n - 1) * CLIP_FLOATS], CLIP_FLOATS * sizeof *c->landmarks);
    c->rest_rows = c->rest_rows >= n ? 1 : 0;
    c->row_count = 1;
}

static void drop_last_row(pose_clip *c) {
    c->row_count--;
    if (c->rest_rows > c->row_count) c->rest_rows = c->row_count;
}

/* The face instance's rig: the standard Cubism parameters the standard mapping drives. */
static const crowd_parameter_desc face_params[] = {
    {"ParamAngleX", -30, 30, 0, false},  {"ParamAngleY", -30, 30, 0, false},  {"ParamAngleZ", -30, 30, 0, false},
    {"ParamEyeLOpen", 0, 1, 1, false},   {"ParamEyeROpen", 0, 1, 1, false},   {"ParamEyeBallX", -1, 1, 0, false},
    {"ParamEyeBallY", -1, 1, 0, false},  {"ParamMouthOpenY", 0, 1, 0, false}, {"ParamMouthForm", -1, 1, 0, false},
    {"ParamBrowLY", -1, 1, 0, false},    {"ParamBrowRY", -1, 1, 0, false}};
#define FACE_PARAMS (sizeof face_params / sizeof face_params[0])

typedef struct face_stream {
    crowd_engine *engine;
    crowd_instance inst;
    trace_file out;
    face_frame last;
    bool have_t;
    double t0, prev_t;
    uint32_t frames;
} face_stream;

typedef struct stream_state {
    crowd_engine *engine;
    crowd_instance inst;
    face_stream face;
    trace_file out;
    vmc_sender *vmc;
    vrma_writer vrma;                          /* --vrma: open when vrma.path */
    vmc_face latest;                           /* the latest face frame's, for --vrma (none yet: all false) */
    float face_scores[CROWD_FACE_SCORE_COUNT]; /* latest.scores points here once a face frame came */
    uint32_t frames, bad_lines, dropped;
    bool have_t, have_face;                    /* have_face: a face frame came (face_scores hold its) */
    double t0, prev_t;
    hand_frame hand_last; /* --hands: the latest hand line's (hand_lines 0: none yet) */
    uint32_t hand_lines;
} stream_state;

static int face_emit(stream_state *s, const stream_options *o, double t_s);

/* Solves the clip's last row and writes / sends it. */
static int solve_row(stream_state *s, const stream_options *o, const pose_clip *c) {
    uint32_t k = c->row_count - 1;
    double t = c->t_s[k], step = s->have_t ? t - s->prev_t : 0.0;
    if (step > 1.0) {
        tool_error(TOOL_OK, "%s:%u: %.9g s after the previous frame: ticked as 1 s (the longest tick)", STREAM_NAME,
                   c->line[k], step);
        step = 1.0;
    }
    if (!s->have_t) s->t0 = t;
    s->have_t = true;
    s->prev_t = t;
    crowd_result res = crowd_set(s->engine, s->inst, CROWD_FIELD_POSE, 0, clip_landmarks(c, k, o->limbs.frame));
    if (res != CROWD_OK) return tool_engine_error(TOOL_FAILED, s->engine, res, "stream: crowd_set (pose)");
    if ((res = crowd_tick(s->engine, (float)step)) != CROWD_OK)
        return tool_engine_error(TOOL_FAILED, s->engine, res, "crowd_tick");
    s->frames++;
    float world[CROWD_BONE_COUNT][4];
    for (uint32_t b = 0; (s->vmc || s->vrma.path || (s->out.f && !o->local)) && b < CROWD_BONE_COUNT; b++) /* what needs them */
        if ((res = crowd_get(s->engine, s->inst, CROWD_FIELD_BONE_WORLD, b, world[b])) != CROWD_OK)
            return tool_engine_error(TOOL_FAILED, s->engine, res, "crowd_get (bones)");
    /* --hands: the 32 hand bones, world and local; the hand rows become the fingers' hands */
    float fw[CROWD_FINGER_BONE_COUNT][4], fl[CROWD_FINGER_BONE_COUNT][4];
    for (uint32_t b = 0; o->hands && b < CROWD_FINGER_BONE_COUNT; b++)
        if ((res = crowd_get(s->engine, s->inst, CROWD_FIELD_FINGER_WORLD, b, fw[b])) != CROWD_OK ||
            (res = crowd_get(s->engine, s->inst, CROWD_FIELD_FINGER_LOCAL, b, fl[b])) != CROWD_OK)
            return tool_engine_error(TOOL_FAILED, s->engine, res, "crowd_get (fingers)");
    if (o->hands) {
        memcpy(world[CROWD_BONE_LEFT_HAND], fw[CROWD_HAND_LEFT * CROWD_HAND_BONE_COUNT], sizeof world[0]);
        memcpy(world[CROWD_BONE_RIGHT_HAND], fw[CROWD_HAND_RIGHT * CROWD_HAND_BONE_COUNT], sizeof world[0]);
    }
    if (s->vrma.path) { /* with --hands the finger bones too, as crowd pose --hands --vrma writes them */
        bool any = s->latest.has_blink || s->latest.has_mouth || s->latest.has_gaze || s->latest.scores;
        int st = o->hands ? vrma_frame_fingers(&s->vrma, t - s->t0, (const float(*)[4])world, (const float(*)[4])fw,
                                               clip_landmarks(c, k, o->limbs.frame), o->limbs.frame, any ? &s->latest : NULL)
                          : vrma_frame(&s->vrma, t - s->t0, (const float(*)[4])world, clip_landmarks(c, k, o->limbs.frame),
                                       o->limbs.frame, any ? &s->latest : NULL);
        if (st != TOOL_OK) return st;
    }
    if (s->vmc) {
        vmc_frame vf = {.world = (const float(*)[4])world, .landmarks = clip_landmarks(c, k, o->limbs.frame),
                        .frame = o->limbs.frame, .t_s = t - s->t0,
                        .fingers = o->hands ? (const float(*)[4])fw : NULL};
        int st = vmc_send_frame(s->vmc, &vf);
        if (st != TOOL_OK) return st;
    }
    if (s->out.f) {
        for (uint32_t b = 0; b < CROWD_BONE_COUNT; b++) {
            float q[4];
            if (o->local && (res = crowd_get(s->engine, s->inst, CROWD_FIELD_BONE_LOCAL, b, q)) != CROWD_OK)
                return tool_engine_error(TOOL_FAILED, s->engine, res, "crowd_get (bones)");
            if (o->local && o->hands && (b == CROWD_BONE_LEFT_HAND || b == CROWD_BONE_RIGHT_HAND))
                memcpy(q, fl[(b == CROWD_BONE_RIGHT_HAND) * CROWD_HAND_BONE_COUNT], sizeof q);
            trace_bone(&s->out, s->frames, 0, crowd_bone_name((crowd_bone)b), o->local ? q : world[b]);
        }
        for (uint32_t b = 0; o->hands && b < CROWD_FINGER_BONE_COUNT; b++) {
            if (b % CROWD_HAND_BONE_COUNT == CROWD_HAND_BONE_HAND) continue;
            char name[64];
            snprintf(name, sizeof name, "%s_%s", crowd_hand_name((crowd_hand)(b / CROWD_HAND_BONE_COUNT)),
                     crowd_hand_bone_name((crowd_hand_bone)(b % CROWD_HAND_BONE_COUNT)));
            trace_bone(&s->out, s->frames, 0, name, o->local ? fl[b] : fw[b]);
        }
        if (fflush(s->out.f) != 0 || ferror(s->out.f))
            return tool_error(TOOL_FAILED, "stream: cannot write the bones to %s", o->bones);
    }
    return TOOL_OK;
}

static int face_setup(face_stream *f, const stream_options *o) {
    crowd_engine_desc desc = {0};
    crowd_result res = crowd_engine_create(&desc, &f->engine);
    if (res != CROWD_OK) return tool_error(TOOL_FAILED, "crowd_engine_create: %s", crowd_result_text(res));
    crowd_face_desc face = crowd_face_defaults();
    /* audio level lines feed the mouth as the Cubism samples' lip sync: level * 0.8 added */
    static const char *const lip_ids[] = {"ParamMouthOpenY"};
    crowd_lipsync_desc lip = crowd_lipsync_defaults();
    lip.parameters = lip_ids, lip.parameter_count = 1;
    crowd_rig_desc rd = {.name = "stream_face", .parameters = face_params, .parameter_count = FACE_PARAMS, .face = &face,
                         .lipsync = &lip};
    crowd_rig rig;
    crowd_add_desc add = {.count = 1};
    if ((res = crowd_rig_create(f->engine, &rd, &rig)) != CROWD_OK ||
        (add.rig = rig, res = crowd_instances_add(f->engine, &add, &f->inst)) != CROWD_OK)
        return tool_engine_error(TOOL_FAILED, f->engine, res, "stream: the face rig");
    if (o->params) return trace_open(&f->out, o->params, TRACE_PARAMETER_HEADER);
    return TOOL_OK;
}

/* A face frame: its scores, rotation and presence, one tick, then the parameters out. */
static int face_line(stream_state *s, const stream_options *o, const char *line, size_t len, uint32_t number) {
    face_stream *f = &s->face;
    face_frame fr;
    int st = face_track_line(STREAM_NAME, line, len, number, f->frames ? &f->last : NULL, &fr);
    if (st != TOOL_OK) return st;
    if (f->have_t && !(fr.t_s > f->prev_t)) {
        s->dropped++;
        st = tool_error(TOOL_BAD_INPUT, "%s:%u: time %.9g s %s the previous face frame's %.9g s: frame %s", STREAM_NAME,
                        number, fr.t_s, fr.t_s == f->prev_t ? "repeats" : "comes before", f->prev_t,
                        o->strict ? "refused" : "dropped");
        return o->strict ? st : TOOL_OK;
    }
    double step = f->have_t ? fr.t_s - f->prev_t : 0.0;
    if (step > 1.0) step = 1.0;
    if (!f->have_t) f->t0 = fr.t_s;
    f->have_t = true;
    f->prev_t = fr.t_s;
    f->last = fr;
    crowd_result res;
    if ((res = crowd_set(f->engine, f->inst, CROWD_FIELD_FACE_SCORES, 0, fr.scores)) != CROWD_OK ||
        (res = crowd_set(f->engine, f->inst, CROWD_FIELD_FACE_ROTATION, 0, fr.rotation)) != CROWD_OK ||
        (res = crowd_set(f->engine, f->inst, CROWD_FIELD_FACE_PRESENCE, 0, &fr.presence)) != CROWD_OK ||
        (res = crowd_tick(f->engine, (float)step)) != CROWD_OK)
        return tool_engine_error(TOOL_FAILED, f->engine, res, "stream: the face frame");
    memcpy(s->face_scores, fr.scores, sizeof s->face_scores);
    s->have_face = true;
    return face_emit(s, o, fr.t_s);
}

/* After a tick of the face instance: its parameters out (--params, VMC, the latest for --vrma). */
static int face_emit(stream_state *s, const stream_options *o, double t_s) {
    face_stream *f = &s->face;
    crowd_result res;
    int st;
    f->frames++;
    float values[FACE_PARAMS];
    if ((res = crowd_get_outputs(f->engine, f->inst, values, FACE_PARAMS)) != CROWD_OK)
        return tool_engine_error(TOOL_FAILED, f->engine, res, "crowd_get_outputs");
    /* (face_params' order: EyeLOpen 3, EyeROpen 4, EyeBallX 5, EyeBallY 6, MouthOpenY 7) */
    s->latest = (vmc_face){.scores = s->have_face ? s->face_scores : NULL, .blink = {1.0f - values[3], 1.0f - values[4]}, .mouth = values[7],
                           .gaze = {values[5], values[6]}, .has_blink = true, .has_mouth = true, .has_gaze = true};
    if (s->vmc) {
        vmc_frame vf = {.face = &s->latest, .t_s = t_s - f->t0};
        if ((st = vmc_send_frame(s->vmc, &vf)) != TOOL_OK) return st;
    }
    if (f->out.f) {
        for (size_t k = 0; k < FACE_PARAMS; k++) trace_parameter(&f->out, f->frames, 0, face_params[k].id, values[k]);
        if (fflush(f->out.f) != 0 || ferror(f->out.f))
            return tool_error(TOOL_FAILED, "stream: cannot write the parameters to %s", o->params);
    }
    return TOOL_OK;
}

/* Does the line look like an audio level line (a "mouth" key)? The parser decides. */
static bool audio_sniff(const char *line, size_t len) {
    static const char key[] = "\"mouth\"";
    for (size_t k = 0; k + sizeof key - 1 <= len; k++)
        if (memcmp(line + k, key, sizeof key - 1) == 0) return true;
    return false;
}

/* {"timestamp_ms": T, "mouth": L}: the face instance's lip sync level L, one tick on the face
 * clock (times must increase across face and audio lines), then its parameters out. */
static int audio_line(stream_state *s, const stream_options *o, const char *line, size_t len, uint32_t number) {
    face_stream *f = &s->face;
    json_error_t err;
    json_t *root = json_loadb(line, len, JSON_REJECT_DUPLICATES, &err);
    if (!root) return tool_error(TOOL_BAD_INPUT, "%s:%u:%d: %s", STREAM_NAME, number, err.column, err.text);
    int st = TOOL_OK;
    const char *key;
    json_t *v, *jt = json_object_get(root, "timestamp_ms"), *jm = json_object_get(root, "mouth");
    if (!json_is_object(root)) st = tool_error(TOOL_BAD_INPUT, "%s:%u: expected a JSON object", STREAM_NAME, number);
    json_object_foreach(root, key, v) if (st == TOOL_OK && strcmp(key, "timestamp_ms") != 0 && strcmp(key, "mouth") != 0)
        st = tool_error(TOOL_BAD_INPUT, "%s:%u: %s: unknown field of an audio level line (timestamp_ms, mouth)",
                        STREAM_NAME, number, key);
    double t = 0, level = 0;
    if (st == TOOL_OK && !jt) st = tool_error(TOOL_BAD_INPUT, "%s:%u: timestamp_ms: is required", STREAM_NAME, number);
    else if (st == TOOL_OK && (!json_is_number(jt) || !isfinite(t = json_number_value(jt) / 1000.0) || t < 0))
        st = tool_error(TOOL_BAD_INPUT, "%s:%u: timestamp_ms: expected a finite number >= 0", STREAM_NAME, number);
    if (st == TOOL_OK && (!json_is_number(jm) || !((level = json_number_value(jm)) >= 0 && level <= 1)))
        st = tool_error(TOOL_BAD_INPUT, "%s:%u: mouth: expected a number in [0, 1]", STREAM_NAME, number);
    json_decref(root);
    if (st != TOOL_OK) return st;
    if (f->have_t && !(t > f->prev_t)) {
        s->dropped++;
        st = tool_error(TOOL_BAD_INPUT, "%s:%u: time %.9g s %s the previous face or audio line's %.9g s: line %s",
                        STREAM_NAME, number, t, t == f->prev_t ? "repeats" : "comes before", f->prev_t,
                        o->strict ? "refused" : "dropped");
        return o->strict ? st : TOOL_OK;
    }
    double step = f->have_t ? t - f->prev_t : 0.0;
    if (step > 1.0) step = 1.0;
    if (!f->have_t) f->t0 = t;
    f->have_t = true;
    f->prev_t = t;
    float lv = (float)level;
    crowd_result res;
    if ((res = crowd_set(f->engine, f->inst, CROWD_FIELD_LIPSYNC_LEVEL, 0, &lv)) != CROWD_OK ||
        (res = crowd_tick(f->engine, (float)step)) != CROWD_OK)
        return tool_engine_error(TOOL_FAILED, f->engine, res, "stream: the audio level");
    return face_emit(s, o, t);
}

/* --hands: a hand line sets the hands for the pose frames after it. TOOL_OK, TOOL_BAD_INPUT. */
static int hand_line(stream_state *s, const stream_options *o, const char *line, size_t len, uint32_t number) {
    hand_track_options hopt = {.mirrored = o->fingers.mirrored, .aspect = 1.0f};
    hand_frame fr;
    int st = hand_track_line(STREAM_NAME, line, len, number, &hopt, s->hand_lines ? &s->hand_last : NULL, &fr);
    if (st != TOOL_OK) return st;
    for (uint32_t k = 0; k < CROWD_HAND_COUNT; k++) {
        crowd_result res = crowd_set(s->engine, s->inst, CROWD_FIELD_HAND_LANDMARKS, k, fr.hands[k]);
        if (res != CROWD_OK) {
            char what[96];
            snprintf(what, sizeof what, "%s:%u: crowd_set (hand landmarks)", STREAM_NAME, number);
            return tool_engine_error(TOOL_BAD_INPUT, s->engine, res, what);
        }
    }
    s->hand_last = fr;
    s->hand_lines++;
    return TOOL_OK;
}

/* Does a line hold a pose too (a Holistic result)? */
static bool has_pose(const char *line, size_t len) {
    static const char *const keys[] = {"\"poseWorldLandmarks\"", "\"pose_world_landmarks\"", "\"worldLandmarks\""};
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++) {
        size_t n = strlen(keys[k]);
        for (size_t i = 0; i + n <= len; i++)
            if (memcmp(line + i, keys[k], n) == 0) return k < 2 || !hand_track_sniff(line, len);
    }
    return false;
}

static int run_stream(stream_state *s, const stream_options *o) {
    line_reader r = {.fd = STDIN_FILENO, .cap = 64 * 1024, .max = o->max_line};
    if (!(r.buf = tool_malloc(r.cap))) return TOOL_FAILED;
    landmark_json_stream js;
    landmark_json_stream_init(&js, STREAM_NAME);
    pose_clip window = {0}; /* rows are pushed by the parser */
    int st = (window.path = tool_strdup(STREAM_NAME)) != NULL ? TOOL_OK : TOOL_FAILED;
    uint32_t line_number = 0;
    while (st == TOOL_OK) {
        const char *line;
        size_t len;
        int got = next_line(&r, &line, &len);
        if (got == 0) break;
        if (got < 0) {
            st = TOOL_FAILED;
            if (tool_interrupted) tool_error(TOOL_FAILED, "interrupted");
            break;
        }
        line_number++;
        if (got == 2) {
            s->bad_lines++;
            st = tool_error(TOOL_BAD_INPUT, "%s:%u: the line is longer than %u bytes (--max-line-bytes)%s", STREAM_NAME,
                            line_number, o->max_line, o->strict ? "" : ": skipped");
            if (!o->strict) st = TOOL_OK;
            continue;
        }
        if (blank(line, len)) continue;
        if (o->hands && hand_track_sniff(line, len)) {
            st = hand_line(s, o, line, len, line_number);
            if (st == TOOL_BAD_INPUT && !o->strict) {
                s->bad_lines++;
                tool_error(TOOL_OK, "%s:%u: line skipped", STREAM_NAME, line_number);
                st = TOOL_OK;
                continue;
            }
            if (st != TOOL_OK || !has_pose(line, len)) continue; /* a Holistic line's pose follows */
        }
        bool audio = !face_track_sniff(line, len) && audio_sniff(line, len);
        if (audio || face_track_sniff(line, len)) {
            st = audio ? audio_line(s, o, line, len, line_number) : face_line(s, o, line, len, line_number);
            if (st == TOOL_BAD_INPUT && !o->strict) {
                s->bad_lines++;
                tool_error(TOOL_OK, "%s:%u: line skipped", STREAM_NAME, line_number);
                st = TOOL_OK;
            }
            continue;
        }
        st = landmark_json_line(&js, line, len, line_number, &window);
        if (st == TOOL_BAD_INPUT) {
            s->bad_lines++;
            if (!o->strict) {
                tool_error(TOOL_OK, "%s:%u: line skipped", STREAM_NAME, line_number);
                st = TOOL_OK;
            }
            continue;
        }
        if (st != TOOL_OK) break;
        double t = window.t_s[window.row_count - 1];
        if (s->have_t && !(t > s->prev_t)) {
            s->dropped++;
            drop_last_row(&window);
            st = tool_error(TOOL_BAD_INPUT, "%s:%u: time %.9g s %s the previous frame's %.9g s: frame %s", STREAM_NAME,
                            line_number, t, t == s->prev_t ? "repeats" : "comes before", s->prev_t,
                            o->strict ? "refused" : "dropped");
            if (!o->strict) st = TOOL_OK;
            continue;
        }
        st = solve_row(s, o, &window);
        keep_last_row(&window);
    }
    clip_free(&window);
    free(r.buf);
    return st;
}

int cmd_stream(int argc, char **argv) {
    stream_options o = {.max_line = STREAM_DEFAULT_MAX_LINE, .limbs = crowd_limbs_defaults(),
                        .vmc_choice = vmc_settings_defaults(), .fingers = crowd_fingers_defaults()};
    int st = parse_args(argc, argv, &o);
    if (st != TOOL_OK) return st < 0 ? TOOL_OK : st;
    if ((st = vmc_settings_check(&o.vmc_choice, "stream", o.vmc)) != TOOL_OK) return st;
    if (!o.bones && !o.vmc && !o.params && !o.vrma) o.bones = "-";
    if (o.vrma && (st = pose_outputs_check("stream", &o.limbs, "--vrma", CROWD_FIELD_BONE_WORLD)) != TOOL_OK) return st;
    if (o.bones && o.params && strcmp(o.bones, "-") == 0 && strcmp(o.params, "-") == 0)
        return tool_error(TOOL_BAD_INPUT, "stream: --bones - and --params - would both write to standard output (two CSVs "
                          "interleaved); give one of them a file");
    /* the outputs against each other and against the recording read on standard input */
    const tool_named_file files[4] = {{"--bones", o.bones, true},
                                      {"--params", o.params, true},
                                      {"--vrma", o.vrma, true},
                                      {"standard input", "/dev/stdin", false}};
    if ((st = tool_check_aliases("stream", files, 4)) != TOOL_OK) return st;
    if (o.bones && (st = pose_outputs_check("stream", &o.limbs, o.local ? "--local" : "the bones trace without --local",
                                            o.local ? CROWD_FIELD_BONE_LOCAL : CROWD_FIELD_BONE_WORLD)) != TOOL_OK)
        return st;
    if (o.vmc && (st = pose_outputs_check("stream", &o.limbs, "--vmc", CROWD_FIELD_BONE_WORLD)) != TOOL_OK) return st;

    stream_state s = {0};
    crowd_engine_desc desc = {0};
    crowd_result res = crowd_engine_create(&desc, &s.engine);
    if (res != CROWD_OK) return tool_error(TOOL_FAILED, "crowd_engine_create: %s", crowd_result_text(res));
    if (!o.hands && (o.fingers.mirrored || o.fingers.presence_threshold != crowd_fingers_defaults().presence_threshold))
        return tool_error(TOOL_BAD_INPUT, "stream: --mirrored and --hand-threshold need --hands");
    o.fingers.frame = CROWD_FRAME_MEDIAPIPE_WORLD; /* the Hand Landmarker's frame, whatever the pose's */
    o.fingers.axis_fix = o.limbs.axis_fix;
    o.fingers.smoothing = o.limbs.smoothing; /* --smoothing filters the hands' landmarks too */
    o.fingers.min_cutoff = o.limbs.min_cutoff, o.fingers.beta = o.limbs.beta, o.fingers.d_cutoff = o.limbs.d_cutoff;
    crowd_rig_desc rd = {.name = "stream", .limbs = &o.limbs, .fingers = o.hands ? &o.fingers : NULL};
    crowd_rig rig;
    if ((res = crowd_rig_create(s.engine, &rd, &rig)) != CROWD_OK) {
        st = tool_engine_error(TOOL_BAD_INPUT, s.engine, res, "stream: the limbs settings");
    } else {
        crowd_add_desc add = {.rig = rig, .count = 1};
        if ((res = crowd_instances_add(s.engine, &add, &s.inst)) != CROWD_OK)
            st = tool_engine_error(TOOL_FAILED, s.engine, res, "crowd_instances_add");
    }
    if (st == TOOL_OK) st = face_setup(&s.face, &o);
    if (st == TOOL_OK && o.vmc) st = vmc_open(&s.vmc, "stream: --vmc", o.vmc, &o.limbs);
    if (st == TOOL_OK && s.vmc && o.hands) st = vmc_set_fingers(s.vmc, &o.fingers);
    vmc_configure(s.vmc, &o.vmc_choice);
    if (st == TOOL_OK && o.vrma) st = vrma_open(&s.vrma, o.vrma, &o.limbs, 0);
    if (st == TOOL_OK && o.vrma && o.hands) st = vrma_set_fingers(&s.vrma, &o.fingers);
    if (st == TOOL_OK && o.bones) st = trace_open(&s.out, o.bones, TRACE_BONE_HEADER);
    if (st == TOOL_OK && s.out.f && fflush(s.out.f) != 0) st = tool_error(TOOL_FAILED, "stream: cannot write the bones");
    if (st == TOOL_OK) st = run_stream(&s, &o);
    if (st == TOOL_OK && (s.bad_lines || s.dropped))
        tool_error(TOOL_OK, "stream: %u frames solved, %u bad lines skipped, %u out-of-order frames dropped", s.frames,
                   s.bad_lines, s.dropped);
    if (st == TOOL_OK) st = trace_finish(&s.out);
    if (st == TOOL_OK) st = trace_finish(&s.face.out);
    if (st == TOOL_OK && s.vrma.path) st = vrma_finish(&s.vrma);
    vrma_abort(&s.vrma);
    trace_abort(&s.out);
    trace_abort(&s.face.out);
    crowd_engine_destroy(s.face.engine);
    vmc_close(s.vmc);
    crowd_engine_destroy(s.engine);
    return st;
}
