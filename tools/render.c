/* crowd render [SCENE]: runs the scene (or the default crowd) to one frame and draws the first
 * N avatars in a grid: faces whose eyes open and close with the blink value, pupils and head
 * turned by gaze, a body that breathes, and stick-figure limbs from the bone world rotations
 * (each bone's rest direction rotated by its world rotation, chained from the hips). */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "args.h"
#include "commands.h"
#include "diag.h"
#include "files.h"
#include "draw.h"
#include "png_out.h"
#include "simulate.h"
#include "world.h"

static const char render_usage[] =
    "usage: crowd render [SCENE] [--out FILE] [--frame K] [--size WxH] [--count N]\n"
    "                    [--seed N] [--dt S] [--threads N] [--simd T] [--quiet]\n"
    "                    [--max-file-bytes N] [--max-memory-bytes N] (as crowd run has them)\n"
    "Runs SCENE (or the default crowd) to frame K (default: the scene's last frame) and draws its\n"
    "first N avatars (default 24) into a PNG (default crowd.png, 1280x720): eyes follow the blink,\n"
    "pupils and head the gaze, the body breathes, and the limbs are the engine's bone rotations.\n";

/* ---- the avatar's numbers ---- */
enum { P_ANGLE_X, P_ANGLE_Y, P_ANGLE_Z, P_EYE_X, P_EYE_Y, P_BODY_X, P_BODY_Z, P_BREATH, P_EYE_L, P_EYE_R, P_MOUTH, P_COUNT };
static const char *const param_ids[P_COUNT] = {
    "ParamAngleX", "ParamAngleY", "ParamAngleZ", "ParamEyeBallX", "ParamEyeBallY", "ParamBodyAngleX",
    "ParamBodyAngleZ", "ParamBreath", "ParamEyeLOpen", "ParamEyeROpen", "ParamMouthOpenY"};
static const float param_rest[P_COUNT] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0};

typedef struct avatar {
    float p[P_COUNT];
    bool bones;
    bool y_along_bone;
    float q[CROWD_BONE_COUNT][4];
} avatar;

static void read_avatar(const world *w, uint32_t i, avatar *a) {
    const scene_rig *sr = &w->scene->rigs[w->rig_of[i]];
    const world_rig *wr = &w->rigs[w->rig_of[i]];
    uint32_t row = w->row[i];
    for (int k = 0; k < P_COUNT; k++) {
        int p = scene_parameter_index(sr, param_ids[k]);
        a->p[k] = p >= 0 ? wr->out[p][row] : param_rest[k];
    }
    a->bones = wr->limbs;
    a->y_along_bone = sr->rig_desc.limbs && sr->limbs.axis_fix == CROWD_AXIS_FIX_Y_ALONG_BONE;
    if (a->bones)
        for (int b = 0; b < CROWD_BONE_COUNT; b++)
            for (int c = 0; c < 4; c++) a->q[b][c] = wr->bone_world[b][c][row];
}

/* ---- the skeleton in model space (metres, +y up, facing +z, right at +x) ---- */
typedef struct v3f {
    float x, y, z;
} v3f;

static v3f v3(float x, float y, float z) { return (v3f){x, y, z}; }
static v3f vadd(v3f a, v3f b) { return v3(a.x + b.x, a.y + b.y, a.z + b.z); }
static v3f vscale(v3f a, float s) { return v3(a.x * s, a.y * s, a.z * s); }

/* q * v * conj(q) */
static v3f qrot(const float q[4], v3f v) {
    v3f u = v3(q[0], q[1], q[2]);
    v3f t = v3(2 * (u.y * v.z - u.z * v.y), 2 * (u.z * v.x - u.x * v.z), 2 * (u.x * v.y - u.y * v.x));
    return v3(v.x + q[3] * t.x + (u.y * t.z - u.z * t.y), v.y + q[3] * t.y + (u.z * t.x - u.x * t.z),
              v.z + q[3] * t.z + (u.x * t.y - u.y * t.x));
}

/* The bone's rest vector (local) turned into model space; without limbs, a standing rest pose. */
static v3f along(const avatar *a, crowd_bone b, v3f local, v3f rest) {
    return a->bones ? qrot(a->q[b], local) : rest;
}

enum { J_PELVIS, J_HIP_L, J_HIP_R, J_CHEST, J_NECK, J_HEAD, J_SH_L, J_SH_R, J_EL_L, J_EL_R, J_WR_L, J_WR_R,
       J_HAND_L, J_HAND_R, J_KN_L, J_KN_R, J_AN_L, J_AN_R, J_TOE_L, J_TOE_R, J_COUNT };

static void skeleton(const avatar *a, v3f j[J_COUNT]) {
    const v3f up = v3(0, 1, 0), fwd = v3(0, 0, 1), limb = a->y_along_bone ? up : fwd;
    float breath = a->p[P_BREATH];
    j[J_PELVIS] = v3(0, 0, 0);
    j[J_HIP_L] = along(a, CROWD_BONE_HIPS, v3(-0.1f, 0, 0), v3(-0.1f, 0, 0));
    j[J_HIP_R] = along(a, CROWD_BONE_HIPS, v3(0.1f, 0, 0), v3(0.1f, 0, 0));
    j[J_CHEST] = along(a, CROWD_BONE_HIPS, v3(0, 0.25f, 0), v3(0, 0.25f, 0));
    j[J_NECK] = vadd(j[J_CHEST], along(a, CROWD_BONE_CHEST, v3(0, 0.25f, 0), v3(0, 0.25f, 0)));
    float sh_y = 0.22f + 0.015f * breath; /* breathing lifts the shoulders */
    j[J_SH_L] = vadd(j[J_CHEST], along(a, CROWD_BONE_CHEST, v3(-0.17f, sh_y, 0), v3(-0.17f, sh_y, 0)));
    j[J_SH_R] = vadd(j[J_CHEST], along(a, CROWD_BONE_CHEST, v3(0.17f, sh_y, 0), v3(0.17f, sh_y, 0)));
    j[J_HEAD] = vadd(j[J_NECK], along(a, CROWD_BONE_HEAD, v3(0, 0.2f, 0), v3(0, 0.2f, 0)));
    static const struct {
        crowd_bone upper, lower, end;
        int root, mid, tip, last;
        float l1, l2, l3, side;
    } chains[4] = {
        {CROWD_BONE_LEFT_UPPER_ARM, CROWD_BONE_LEFT_LOWER_ARM, CROWD_BONE_LEFT_HAND, J_SH_L, J_EL_L, J_WR_L, J_HAND_L, 0.28f, 0.26f, 0.08f, -1},
        {CROWD_BONE_RIGHT_UPPER_ARM, CROWD_BONE_RIGHT_LOWER_ARM, CROWD_BONE_RIGHT_HAND, J_SH_R, J_EL_R, J_WR_R, J_HAND_R, 0.28f, 0.26f, 0.08f, 1},
        {CROWD_BONE_LEFT_UPPER_LEG, CROWD_BONE_LEFT_LOWER_LEG, CROWD_BONE_LEFT_FOOT, J_HIP_L, J_KN_L, J_AN_L, J_TOE_L, 0.42f, 0.42f, 0.14f, -1},
        {CROWD_BONE_RIGHT_UPPER_LEG, CROWD_BONE_RIGHT_LOWER_LEG, CROWD_BONE_RIGHT_FOOT, J_HIP_R, J_KN_R, J_AN_R, J_TOE_R, 0.42f, 0.42f, 0.14f, 1},
    };
    for (int k = 0; k < 4; k++) {
        bool is_arm = k < 2;
        v3f rest1 = is_arm ? v3(0.15f * chains[k].side, -0.99f, 0) : v3(0, -1, 0);
        v3f rest2 = is_arm ? v3(0.05f * chains[k].side, -0.95f, 0.3f) : v3(0, -1, 0);
        v3f rest3 = is_arm ? v3(0, -1, 0) : v3(0, 0, 1);
        j[chains[k].mid] = vadd(j[chains[k].root], vscale(along(a, chains[k].upper, limb, rest1), chains[k].l1));
        j[chains[k].tip] = vadd(j[chains[k].mid], vscale(along(a, chains[k].lower, limb, rest2), chains[k].l2));
        j[chains[k].last] = vadd(j[chains[k].tip], vscale(along(a, chains[k].end, fwd, rest3), chains[k].l3));
    }
}

/* ---- drawing one avatar in a cell ---- */
typedef struct view {
    float cx, cy, scale; /* screen position of the model origin, pixels per metre */
    float yaw;           /* the camera sees the model turned by this (radians) */
} view;

typedef struct pt {
    float x, y;
} pt;

static pt project(const view *v, v3f p) {
    float x = p.x * cosf(v->yaw) + p.z * sinf(v->yaw);
    return (pt){v->cx - x * v->scale, v->cy - p.y * v->scale}; /* seen from the front: the right is on the left */
}

/* Turns p around the pivot by angle (radians, counter-clockwise on screen). */
static pt turn(pt p, pt pivot, float angle) {
    float dx = p.x - pivot.x, dy = p.y - pivot.y, c = cosf(angle), s = sinf(angle);
    return (pt){pivot.x + dx * c + dy * s, pivot.y - dx * s + dy * c};
}

static const rgb ink = {52, 46, 64}, skin = {247, 216, 190}, white = {255, 255, 255}, pupil = {38, 52, 96},
                 mouth_red = {176, 64, 76}, shadow = {214, 216, 226}, trousers = {70, 82, 118};

static void draw_eye(canvas *c, pt at, float r, float open, float look_x, float look_y, float width, float tilt) {
    float rx = 0.2f * r * width, ry = 0.25f * r * open;
    if (open < 0.12f) {
        float dx = rx * cosf(tilt), dy = -rx * sinf(tilt);
        draw_capsule(c, at.x - dx, at.y - dy, at.x + dx, at.y + dy, 0.035f * r + 0.5f, ink);
        return;
    }
    draw_ellipse(c, at.x, at.y, rx + 0.04f * r + 0.6f, ry + 0.04f * r + 0.6f, -tilt, ink);
    draw_ellipse(c, at.x, at.y, rx, ry, -tilt, white);
    float pr = 0.11f * r < ry ? 0.11f * r : ry;
    draw_disc(c, at.x + look_x * 0.09f * r, at.y - look_y * 0.08f * r * open, pr, pupil);
}

static void draw_face(canvas *c, const avatar *a, pt head, float r, rgb hair) {
    float tx = a->p[P_ANGLE_X] / 30.0f * 0.3f, ty = -a->p[P_ANGLE_Y] / 30.0f * 0.22f;
    float tilt = a->p[P_ANGLE_Z] * 0.01745329f;
    draw_disc(c, head.x + tx * 0.15f * r, head.y - 0.12f * r, 1.08f * r, hair);
    draw_disc(c, head.x, head.y, r, skin);
    /* features in head units, shifted by the turn, then tilted */
#define FEATURE(u, v) turn((pt){head.x + ((u) + tx) * r, head.y + ((v) + ty) * r}, head, tilt)
    float far_l = 1.0f - 0.35f * (tx > 0 ? tx / 0.3f : 0), far_r = 1.0f - 0.35f * (tx < 0 ? -tx / 0.3f : 0);
    /* the model's left eye is on the viewer's right */
    draw_eye(c, FEATURE(0.36f, -0.05f), r, a->p[P_EYE_L], a->p[P_EYE_X], a->p[P_EYE_Y], far_l, tilt);
    draw_eye(c, FEATURE(-0.36f, -0.05f), r, a->p[P_EYE_R], a->p[P_EYE_X], a->p[P_EYE_Y], far_r, tilt);
    pt nose = FEATURE(0.1f * tx / 0.3f, 0.2f);
    draw_disc(c, nose.x, nose.y, 0.04f * r + 0.4f, (rgb){214, 170, 150});
    pt m = FEATURE(0.05f * tx / 0.3f, 0.46f);
    float open = a->p[P_MOUTH];
    if (open > 0.05f) draw_ellipse(c, m.x, m.y, 0.16f * r, 0.14f * r * open + 0.02f * r, -tilt, mouth_red);
    else draw_capsule(c, m.x - 0.14f * r * cosf(tilt), m.y + 0.14f * r * sinf(tilt), m.x + 0.14f * r * cosf(tilt),
                      m.y - 0.14f * r * sinf(tilt), 0.03f * r + 0.4f, mouth_red);
#undef FEATURE
}

static void draw_avatar(canvas *c, const avatar *a, const view *v, uint32_t number) {
    v3f j[J_COUNT];
    skeleton(a, j);
    pt s[J_COUNT];
    for (int k = 0; k < J_COUNT; k++) s[k] = project(v, j[k]);
    /* the body's own turn and tilt (ParamBodyAngleX/Z) move everything above the pelvis */
    float lean = a->p[P_BODY_Z] * 0.012f;
    float shift = -a->p[P_BODY_X] * 0.006f * v->scale;
    static const int upper[] = {J_NECK, J_HEAD, J_SH_L, J_SH_R, J_EL_L, J_EL_R, J_WR_L, J_WR_R, J_HAND_L, J_HAND_R};
    for (size_t k = 0; k < sizeof upper / sizeof upper[0]; k++) {
        s[upper[k]] = turn(s[upper[k]], s[J_PELVIS], lean);
        s[upper[k]].x += shift;
    }
    float u = v->scale;
    rgb shirt = color_hue((float)number * 0.618034f, 0.5f, 0.88f), hair = color_hue((float)number * 0.377f + 0.05f, 0.45f, 0.32f);
    float ground = s[J_TOE_L].y > s[J_TOE_R].y ? s[J_TOE_L].y : s[J_TOE_R].y;
    draw_ellipse(c, s[J_PELVIS].x, ground + 0.02f * u, 0.3f * u, 0.05f * u, 0, shadow);
    /* legs, torso (wider with the breath), arms, neck, head */
    for (int side = 0; side < 2; side++) {
        int hip = side ? J_HIP_R : J_HIP_L, kn = side ? J_KN_R : J_KN_L, an = side ? J_AN_R : J_AN_L, toe = side ? J_TOE_R : J_TOE_L;
        draw_capsule(c, s[hip].x, s[hip].y, s[kn].x, s[kn].y, 0.05f * u, trousers);
        draw_capsule(c, s[kn].x, s[kn].y, s[an].x, s[an].y, 0.045f * u, trousers);
        draw_capsule(c, s[an].x, s[an].y, s[toe].x, s[toe].y, 0.03f * u, ink);
    }
    float chest_r = (0.12f + 0.02f * a->p[P_BREATH]) * u;
    pt mid = {(s[J_SH_L].x + s[J_SH_R].x) * 0.5f, (s[J_SH_L].y + s[J_SH_R].y) * 0.5f + 0.06f * u};
    draw_capsule(c, s[J_PELVIS].x, s[J_PELVIS].y, mid.x, mid.y, chest_r, shirt);
    draw_capsule(c, s[J_SH_L].x, s[J_SH_L].y, s[J_SH_R].x, s[J_SH_R].y, 0.06f * u, shirt);
    for (int side = 0; side < 2; side++) {
        int sh = side ? J_SH_R : J_SH_L, el = side ? J_EL_R : J_EL_L, wr = side ? J_WR_R : J_WR_L, hd = side ? J_HAND_R : J_HAND_L;
        draw_capsule(c, s[sh].x, s[sh].y, s[el].x, s[el].y, 0.04f * u, shirt);
        draw_capsule(c, s[el].x, s[el].y, s[wr].x, s[wr].y, 0.035f * u, skin);
        draw_capsule(c, s[wr].x, s[wr].y, s[hd].x, s[hd].y, 0.03f * u, skin);
    }
    draw_capsule(c, s[J_NECK].x, s[J_NECK].y, s[J_HEAD].x, s[J_HEAD].y, 0.04f * u, skin);
    draw_face(c, a, s[J_HEAD], 0.22f * u, hair); /* a big cartoon head: the face is the point */
}

/* ---- the grid ---- */
typedef struct render_options {
    const char *out;
    uint32_t frame, width, height, count;
    bool has_frame;
} render_options;

static int draw_grid(const world *w, const render_options *ro, uint32_t frame, float dt, const char *path) {
    canvas c;
    if (canvas_init(&c, ro->width, ro->height, (rgb){240, 241, 246}) != TOOL_OK) return TOOL_FAILED;
    uint32_t n = ro->count < w->instance_count ? ro->count : w->instance_count;
    float text = ro->height >= 400 ? 2.0f : 1.0f;
    float top = 9 * text;
    char caption[160];
    snprintf(caption, sizeof caption, "frame %u  t %.2fs  %u of %u avatars", frame, (double)frame * dt, n,
             w->instance_count);
    draw_text(&c, 4 * text, 2 * text, text, caption, ink);
    /* the grid whose cells give each figure the most room (a figure is ~0.55 as wide as tall) */
    uint32_t best_cols = 1;
    float best = 0, H = (float)ro->height - top, W = (float)ro->width;
    for (uint32_t cols = 1; cols <= (n ? n : 1); cols++) {
        uint32_t rows = (n + cols - 1) / cols;
        float cw = W / cols, ch = H / (rows ? rows : 1), s = cw / 0.55f < ch ? cw / 0.55f : ch;
        if (s > best) best = s, best_cols = cols;
    }
    uint32_t cols = best_cols, rows = n ? (n + cols - 1) / cols : 1;
    float cw = W / cols, ch = H / rows;
    for (uint32_t i = 0; i < n; i++) {
        float x0 = (i % cols) * cw, y0 = top + (i / cols) * ch;
        avatar a;
        read_avatar(w, i, &a);
        /* the figure spans y = -0.95 (feet) to 1.2 (top of the head) */
        float scale = ch / 2.35f < cw / 1.05f ? ch / 2.35f : cw / 1.05f;
        view v = {.cx = x0 + cw * 0.5f, .cy = y0 + ch * 0.5f + 0.13f * scale, .scale = scale, .yaw = 0.55f};
        draw_avatar(&c, &a, &v, i);
        char label[16];
        snprintf(label, sizeof label, "#%u", i);
        draw_text(&c, x0 + 3, y0 + 3, text > 1 && cw > 120 ? 2.0f : 1.0f, label, (rgb){120, 120, 140});
    }
    int st = png_write(path, &c);
    canvas_free(&c);
    return st;
}

int cmd_render(int argc, char **argv) {
    tool_args a = {argc, argv, 1, "render"};
    scene_options o = {.threads = 1, .simd = CROWD_SIMD_AUTO};
    render_options ro = {.out = "crowd.png", .width = 1280, .height = 720, .count = 24};
    for (; a.i < argc; a.i++) {
        const char *v;
        int m;
        if ((m = scene_option(&a, &o)) != 0) {
            if (m < 0) return TOOL_BAD_INPUT;
        } else if ((m = args_value(&a, "--out", &v)) != 0) {
            if (m < 0) return TOOL_BAD_INPUT;
            ro.out = v;
        } else if ((m = args_value(&a, "--frame", &v)) != 0) {
            if (m < 0 || parse_u32(&a, "--frame", v, 1, 2147483647u, &ro.frame) != TOOL_OK) return TOOL_BAD_INPUT;
            ro.has_frame = true;
        } else if ((m = args_value(&a, "--size", &v)) != 0) {
            if (m < 0 || parse_size(&a, "--size", v, 16, 16384, &ro.width, &ro.height) != TOOL_OK) return TOOL_BAD_INPUT;
        } else if ((m = args_value(&a, "--count", &v)) != 0) {
            if (m < 0 || parse_u32(&a, "--count", v, 1, 10000, &ro.count) != TOOL_OK) return TOOL_BAD_INPUT;
        } else if (args_flag(&a, "--help") > 0 || args_flag(&a, "-h") > 0) {
            fputs(render_usage, stdout);
            return TOOL_OK;
        } else if ((argv[a.i][0] == '-' && argv[a.i][1] != 0) || o.scene_path) {
            return args_unexpected(&a);
        } else {
            o.scene_path = argv[a.i];
        }
    }
    scene s;
    int st = scene_options_load(&o, &s);
    if (st == TOOL_OK) {
        size_t n = 0;
        tool_named_file files[2 + 64];
        files[n++] = (tool_named_file){"--out", ro.out, true};
        files[n++] = (tool_named_file){"the scene", o.scene_path, false};
        for (size_t k = 0; k < s.clip_count && n < 2 + 64; k++)
            files[n++] = (tool_named_file){"the pose clip", s.clips[k]->path, false};
        st = tool_check_aliases("render", files, n);
    }
    if (st != TOOL_OK) {
        scene_free(&s);
        return st;
    }
    uint32_t frame = ro.has_frame ? ro.frame : (s.frames ? s.frames : 1);
    world w;
    double seconds = 0;
    st = world_create(&w, &s, o.simd, o.threads);
    if (st == TOOL_OK && w.instance_count == 0) st = tool_error(TOOL_BAD_INPUT, "render: %s has no instances", s.path);
    if (st == TOOL_OK) {
        sim_options so = {.frames = frame, .dt = s.dt, .quiet = o.quiet};
        st = simulate(&w, &so, &seconds);
    }
    if (st == TOOL_OK) st = draw_grid(&w, &ro, frame, s.dt, ro.out);
    if (st == TOOL_OK && !o.quiet)
        printf("wrote %s: %ux%u, %u avatars of %s at frame %u\n", ro.out, ro.width, ro.height,
               ro.count < w.instance_count ? ro.count : w.instance_count, s.path, frame);
    world_destroy(&w);
    scene_free(&s);
    return st;
}
