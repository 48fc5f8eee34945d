/* crowd render [SCENE]: runs the scene (or the default crowd) and draws its avatars as a crowd
 * seen in perspective: rows on a ground plane receding toward a horizon, drawn back to front,
 * each avatar with its own gaze (head and pupils), blink (eyes), breathing (shoulders and chest),
 * mouth (ParamMouthOpenY), hair (ParamHairFront/Side/Back, what Cubism physics swings) and limbs (each bone's rest direction turned by its world rotation, chained from the hips).
 * One frame as a PNG, or frames A..B as an animated GIF (gif_out.h). Where the avatars stand:
 * render.h. */
#include "render.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "args.h"
#include "commands.h"
#include "diag.h"
#include "files.h"
#include "draw.h"
#include "gif_out.h"
#include "png_out.h"
#include "simulate.h"

static const char render_usage[] =
    "usage: crowd render [SCENE] [--out FILE] [--frame K] [--size WxH] [--count N]\n"
    "                    [--gif FILE --frames A:B [--fps F]]\n"
    "                    [--seed N] [--dt S] [--threads N] [--simd T] [--quiet]\n"
    "                    [--max-file-bytes N] [--max-memory-bytes N] [--motion GROUP[:INDEX|:random]]\n"
    "                    [--expression NAME] (as crowd run has them)\n"
    "Runs SCENE (or the default crowd) and draws its first N avatars (default 1000) as a crowd in\n"
    "perspective, back to front: eyes follow the blink, pupils and head the gaze, the body breathes,\n"
    "the mouth opens with ParamMouthOpenY (lip sync, motions), hair swings with ParamHairFront/Side/Back\n"
    "(Cubism physics) on rigs that have them, and the limbs are the engine's bone rotations. A scene's\n"
    "groups may say where they stand (\"place\").\n"
    "  --out FILE      a PNG of frame K (default: the scene's last frame; default crowd.png, 1280x720)\n"
    "  --gif FILE      an animated GIF of frames A to B (--frames A:B, 1 <= A <= B), one palette for the\n"
    "                  whole clip, --fps F frames a second (default 1/dt, at most 50: what viewers show)\n";

/* ---- the avatar's numbers ---- */
enum { P_ANGLE_X, P_ANGLE_Y, P_ANGLE_Z, P_EYE_X, P_EYE_Y, P_BODY_X, P_BODY_Z, P_BREATH, P_EYE_L, P_EYE_R, P_MOUTH,
       P_HAIR_FRONT, P_HAIR_SIDE, P_HAIR_BACK, P_COUNT };
/* The hair parameters are the standard ids a Cubism physics3 swings (the sample models'). */
static const char *const param_ids[P_COUNT] = {
    "ParamAngleX", "ParamAngleY", "ParamAngleZ", "ParamEyeBallX", "ParamEyeBallY", "ParamBodyAngleX",
    "ParamBodyAngleZ", "ParamBreath", "ParamEyeLOpen", "ParamEyeROpen", "ParamMouthOpenY",
    "ParamHairFront", "ParamHairSide", "ParamHairBack"};
static const float param_rest[P_COUNT] = {0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 0, 0, 0, 0};

typedef struct avatar {
    float p[P_COUNT];
    bool hair; /* the rig has a hair parameter: strands drawn (rigs without keep the plain head) */
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
    a->hair = false;
    for (int k = P_HAIR_FRONT; k <= P_HAIR_BACK; k++) a->hair |= scene_parameter_index(sr, param_ids[k]) >= 0;
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
    float cos_yaw, sin_yaw; /* the camera sees the model turned by yaw */
} view;

typedef struct pt {
    float x, y;
} pt;

static pt project(const view *v, v3f p) {
    float x = p.x * v->cos_yaw + p.z * v->sin_yaw;
    return (pt){v->cx - x * v->scale, v->cy - p.y * v->scale}; /* seen from the front: the right is on the left */
}

/* Turns p around the pivot by angle (radians, counter-clockwise on screen). */
static pt turn(pt p, pt pivot, float angle) {
    float dx = p.x - pivot.x, dy = p.y - pivot.y, c = cosf(angle), s = sinf(angle);
    return (pt){pivot.x + dx * c + dy * s, pivot.y - dx * s + dy * c};
}

static const rgb ink = {52, 46, 64}, skin = {247, 216, 190}, white = {255, 255, 255}, pupil = {38, 52, 96},
                 mouth_red = {176, 64, 76}, shadow = {196, 200, 188}, trousers = {70, 82, 118}, nose_tip = {214, 170, 150},
                 background = {232, 236, 226}, sky = {206, 222, 240}, caption = {120, 120, 140};

/* Shirts and hair come from small fixed sets, so that a GIF's one palette holds every avatar's
 * colours exactly. */
enum { SHIRTS = 12, HAIRS = 6 };
static rgb shirt_colour(uint32_t k) { return color_hue((float)(k % SHIRTS) / SHIRTS, 0.5f, 0.88f); }
static rgb hair_colour(uint32_t k) {
    static const rgb hair[HAIRS] = {{58, 40, 32}, {92, 62, 40}, {30, 28, 34}, {150, 110, 62}, {120, 60, 40}, {80, 80, 88}};
    return hair[k % HAIRS];
}

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
    /* (clamped: a wild value keeps the strands near the head) */
    float side = fmaxf(-1.5f, fminf(1.5f, a->p[P_HAIR_SIDE])), front = fmaxf(-1.5f, fminf(1.5f, a->p[P_HAIR_FRONT]));
    draw_disc(c, head.x + tx * 0.15f * r, head.y - 0.12f * r, 1.08f * r, hair);
    draw_disc(c, head.x, head.y, r, skin);
    if (a->hair) {
        /* side locks beside the cheeks (ParamHairSide) and three front strands (ParamHairFront),
         * each root fixed to the head, each tip swung sideways */
        for (int k = -1; k <= 1; k += 2) {
            pt root = turn((pt){head.x + (k * 0.92f + tx * 0.3f) * r, head.y - 0.3f * r}, head, tilt);
            pt tip = turn((pt){head.x + (k * 1.0f + tx * 0.3f + side * 0.6f) * r, head.y + 0.95f * r}, head, tilt);
            draw_capsule(c, root.x, root.y, tip.x, tip.y, 0.13f * r, hair);
        }
        for (int k = -1; k <= 1; k++) {
            pt root = turn((pt){head.x + (k * 0.35f + tx) * r, head.y - 0.98f * r}, head, tilt);
            pt tip = turn((pt){head.x + (k * 0.35f + tx + front * 0.3f) * r, head.y - 0.5f * r}, head, tilt);
            draw_capsule(c, root.x, root.y, tip.x, tip.y, 0.12f * r, hair);
        }
    }
    /* features in head units, shifted by the turn, then tilted */
#define FEATURE(u, v) turn((pt){head.x + ((u) + tx) * r, head.y + ((v) + ty) * r}, head, tilt)
    float far_l = 1.0f - 0.35f * (tx > 0 ? tx / 0.3f : 0), far_r = 1.0f - 0.35f * (tx < 0 ? -tx / 0.3f : 0);
    /* the model's left eye is on the viewer's right */
    draw_eye(c, FEATURE(0.36f, -0.05f), r, a->p[P_EYE_L], a->p[P_EYE_X], a->p[P_EYE_Y], far_l, tilt);
    draw_eye(c, FEATURE(-0.36f, -0.05f), r, a->p[P_EYE_R], a->p[P_EYE_X], a->p[P_EYE_Y], far_r, tilt);
    pt nose = FEATURE(0.1f * tx / 0.3f, 0.2f);
    draw_disc(c, nose.x, nose.y, 0.04f * r + 0.4f, nose_tip);
    pt m = FEATURE(0.05f * tx / 0.3f, 0.46f);
    float open = a->p[P_MOUTH];
    if (open > 0.05f) draw_ellipse(c, m.x, m.y, 0.16f * r, 0.14f * r * open + 0.02f * r, -tilt, mouth_red);
    else draw_capsule(c, m.x - 0.14f * r * cosf(tilt), m.y + 0.14f * r * sinf(tilt), m.x + 0.14f * r * cosf(tilt),
                      m.y - 0.14f * r * sinf(tilt), 0.03f * r + 0.4f, mouth_red);
#undef FEATURE
}

/* Long back hair behind the head and shoulders (drawn before the body), its tip swung
 * sideways by ParamHairBack. */
static void draw_back_hair(canvas *c, const avatar *a, pt head, float r, rgb hair) {
    float tx = a->p[P_ANGLE_X] / 30.0f * 0.3f, tilt = a->p[P_ANGLE_Z] * 0.01745329f;
    float back = fmaxf(-1.5f, fminf(1.5f, a->p[P_HAIR_BACK]));
    pt root = turn((pt){head.x + tx * 0.15f * r, head.y}, head, tilt);
    pt tip = turn((pt){head.x + (tx * 0.15f + back * 0.8f) * r, head.y + 1.6f * r}, head, tilt);
    draw_capsule(c, root.x, root.y, tip.x, tip.y, 0.9f * r, hair);
}

static void draw_avatar(canvas *c, const avatar *a, const view *v, uint32_t look) {
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
    rgb shirt = shirt_colour(look), hair = hair_colour(look / SHIRTS);
    float ground = s[J_TOE_L].y > s[J_TOE_R].y ? s[J_TOE_L].y : s[J_TOE_R].y;
    draw_ellipse(c, s[J_PELVIS].x, ground + 0.02f * u, 0.3f * u, 0.05f * u, 0, shadow);
    if (a->hair) draw_back_hair(c, a, s[J_HEAD], 0.22f * u, hair);
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


/* ---- where the avatars stand ---- */
static uint32_t mix32(uint32_t x) { /* (a fixed hash: placement and looks are the same on every run) */
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

static float unit(uint32_t instance, uint32_t salt) { /* in [-1, 1) */
    return (float)(mix32(instance * 4u + salt) >> 8) / 8388608.0f - 1.0f;
}

/* Slot j of a block of `columns`: x across (centred), z away (rows), every other row shifted. */
static void block_spot(uint32_t j, uint32_t columns, const float at[2], const float spacing[2], float jitter,
                       uint32_t instance, float *x, float *z) {
    uint32_t row = j / columns, col = j % columns;
    float shift = row % 2 ? 0.5f : 0.0f;
    *x = at[0] + ((float)col - 0.5f * (float)(columns - 1) + shift - 0.25f) * spacing[0] + jitter * unit(instance, 1);
    *z = at[1] + (float)row * spacing[1] + jitter * unit(instance, 2);
}

static int by_depth(const void *a, const void *b) {
    const render_spot *x = a, *y = b;
    if (x->depth != y->depth) return x->depth < y->depth ? 1 : -1; /* far first */
    return (x->instance > y->instance) - (x->instance < y->instance);
}

#define FIGURE_HEIGHT 1.9f /* metres, feet to the top of the (big cartoon) head */
#define PELVIS_HEIGHT 0.98f

int render_layout(const world *w, uint32_t count, uint32_t width, uint32_t height, float top, render_spot **out,
                  float *horizon_out) {
    *out = NULL;
    const scene *s = w->scene;
    uint32_t n = count < w->instance_count ? count : w->instance_count;
    render_spot *spot = tool_calloc(n ? n : 1, sizeof *spot);
    if (!spot) return TOOL_FAILED;
    /* the shared block of the groups without a place */
    uint32_t free_count = 0;
    for (uint32_t g = 0; g < s->group_count; g++)
        if (!s->groups[g].place.set)
            for (uint32_t i = w->group_first[g]; i < w->group_first[g + 1] && i < n; i++) free_count++;
    uint32_t free_columns = (uint32_t)ceil(sqrt((double)free_count * 1.1));
    if (free_columns < 1) free_columns = 1;
    static const float origin[2] = {0, 0}, spacing[2] = {0.9f, 1.1f};
    uint32_t next_free = 0;
    for (uint32_t g = 0; g < s->group_count; g++) {
        const scene_place *p = &s->groups[g].place;
        uint32_t columns = p->columns ? p->columns : (uint32_t)ceil(sqrt((double)s->groups[g].count));
        if (columns < 1) columns = 1;
        for (uint32_t i = w->group_first[g]; i < w->group_first[g + 1] && i < n; i++) {
            render_spot *sp = &spot[i];
            sp->instance = i;
            if (p->set) block_spot(i - w->group_first[g], columns, p->at, p->spacing, p->jitter, i, &sp->x, &sp->z);
            else block_spot(next_free++, free_columns, origin, spacing, 0.3f, i, &sp->x, &sp->z);
            sp->yaw = 0.45f * unit(i, 3);
        }
    }
    /* the camera: a pinhole looking along +z from above and in front of the crowd, its horizon
     * line at screen y `horizon`; the front row fills the width (a little past it: a crowd goes on
     * beyond the picture), its feet near the bottom, and
     * the back row's heads stay below `top` */
    float x0 = INFINITY, x1 = -INFINITY, z0 = INFINITY, z1 = -INFINITY;
    for (uint32_t k = 0; k < n; k++) {
        x0 = fminf(x0, spot[k].x), x1 = fmaxf(x1, spot[k].x), z0 = fminf(z0, spot[k].z), z1 = fmaxf(z1, spot[k].z);
    }
    if (!n) x0 = x1 = z0 = z1 = 0;
    float W = (float)width, H = (float)height, bottom = 0.97f * H, depth = z1 - z0;
    float span = x1 - x0 + 1.2f, d0 = fmaxf(3.0f, 0.6f * depth + 1.5f);
    float f = fminf(1.1f * W * d0 / span, 0.8f * (bottom - top) * d0 / FIGURE_HEIGHT);
    float back = d0 + depth, horizon;
    if (depth > 0.05f) { /* the back heads at `top` at the highest */
        horizon = (top * back - bottom * d0 + FIGURE_HEIGHT * f) / (back - d0); /* (above the picture: seen from high up) */
        if (horizon > bottom - 0.1f * H) horizon = bottom - 0.1f * H;
    } else {
        horizon = top + 0.3f * (bottom - top);
    }
    float cam_h = (bottom - horizon) * d0 / f, cx = 0.5f * (x0 + x1), cam_z = z0 - d0;
    for (uint32_t k = 0; k < n; k++) {
        render_spot *sp = &spot[k];
        sp->depth = sp->z - cam_z;
        sp->scale = f / sp->depth;
        sp->screen_x = 0.5f * W + (sp->x - cx) * sp->scale;
        sp->screen_y = horizon + cam_h * sp->scale; /* the feet */
    }
    qsort(spot, n, sizeof *spot, by_depth);
    *out = spot;
    *horizon_out = horizon;
    return TOOL_OK;
}

uint32_t render_colours(rgb *out, uint32_t size) {
    rgb all[9 + SHIRTS + HAIRS] = {background, sky, ink, skin, white, pupil, mouth_red, trousers, nose_tip};
    uint32_t n = 9;
    for (uint32_t k = 0; k < SHIRTS; k++) all[n++] = shirt_colour(k);
    for (uint32_t k = 0; k < HAIRS; k++) all[n++] = hair_colour(k);
    for (uint32_t k = 0; k < n && k < size; k++) out[k] = all[k];
    return n;
}

uint32_t render_look(uint32_t instance) { return mix32(instance * 4u) % (SHIRTS * HAIRS); }

/* ---- a picture ---- */
typedef struct render_options {
    const char *out, *gif;
    uint32_t frame, width, height, count;
    bool has_frame, has_range, has_fps;
    uint32_t first, last; /* --frames A:B */
    float fps;
} render_options;

/* The band at the top that the back row's heads stay below: the caption's. */
static float caption_room(const render_options *ro) { return ro->height >= 400 ? 22.0f : 11.0f; }

static void draw_crowd(canvas *c, const world *w, const render_spot *spot, uint32_t n, float horizon) {
    if (horizon > 0) draw_rect(c, 0, 0, (float)c->width, horizon, sky);
    for (uint32_t k = 0; k < n; k++) {
        const render_spot *sp = &spot[k];
        avatar a;
        read_avatar(w, sp->instance, &a);
        view v = {.cx = sp->screen_x, .cy = sp->screen_y - PELVIS_HEIGHT * sp->scale, .scale = sp->scale,
                  .cos_yaw = cosf(sp->yaw), .sin_yaw = sinf(sp->yaw)};
        draw_avatar(c, &a, &v, render_look(sp->instance));
    }
}

static int paint(const world *w, const render_options *ro, uint32_t frame, float dt, bool caption_on, canvas *c,
                 const render_spot *spot, uint32_t n, float horizon) {
    if (canvas_init(c, ro->width, ro->height, background) != TOOL_OK) return TOOL_FAILED;
    draw_crowd(c, w, spot, n, horizon);
    if (caption_on) {
        float text = ro->height >= 400 ? 2.0f : 1.0f;
        char line[160];
        snprintf(line, sizeof line, "frame %u  t %.2fs  %u of %u avatars", frame, (double)frame * dt, n, w->instance_count);
        draw_text(c, 4 * text, 2 * text, text, line, caption);
    }
    return TOOL_OK;
}

static int render_png(world *w, const scene *s, const scene_options *o, const render_options *ro) {
    uint32_t frame = ro->has_frame ? ro->frame : (s->frames ? s->frames : 1);
    double seconds = 0;
    sim_options so = {.frames = frame, .dt = s->dt, .quiet = o->quiet};
    int st = simulate(w, &so, &seconds);
    render_spot *spot = NULL;
    float top = caption_room(ro);
    float horizon = 0;
    if (st == TOOL_OK) st = render_layout(w, ro->count, ro->width, ro->height, top, &spot, &horizon);
    uint32_t n = ro->count < w->instance_count ? ro->count : w->instance_count;
    canvas c = {0};
    if (st == TOOL_OK) st = paint(w, ro, frame, s->dt, true, &c, spot, n, horizon);
    if (st == TOOL_OK) st = png_write(ro->out, &c);
    canvas_free(&c);
    free(spot);
    if (st == TOOL_OK && !o->quiet)
        printf("wrote %s: %ux%u, %u avatars of %s at frame %u\n", ro->out, ro->width, ro->height, n, s->path, frame);
    return st;
}

static int render_gif(world *w, const scene *s, const scene_options *o, const render_options *ro) {
    uint32_t frames = ro->last - ro->first + 1;
    double fps = ro->has_fps ? ro->fps : (s->dt > 0 ? 1.0 / s->dt : 50.0);
    if (fps > 50) fps = 50;
    gif_clip g;
    int st = gif_begin(&g, ro->width, ro->height, frames);
    if (st != TOOL_OK) return st;
    render_spot *spot = NULL;
    float horizon = 0;
    /* (the PNG's layout, room for its caption included: a GIF's frame is the PNG of that frame without it) */
    st = render_layout(w, ro->count, ro->width, ro->height, caption_room(ro), &spot, &horizon);
    uint32_t n = ro->count < w->instance_count ? ro->count : w->instance_count;
    double seconds = 0;
    for (uint32_t k = ro->first; st == TOOL_OK && k <= ro->last; k++) {
        sim_options so = {.first = k == ro->first ? 0 : k - 1, .frames = k, .dt = s->dt, .quiet = o->quiet || k > ro->first};
        st = simulate(w, &so, &seconds);
        canvas c = {0};
        if (st == TOOL_OK) st = paint(w, ro, k, s->dt, false, &c, spot, n, horizon);
        if (st == TOOL_OK) gif_add(&g, &c);
        canvas_free(&c);
    }
    rgb exact[64];
    uint32_t ne = render_colours(exact, 64);
    if (st == TOOL_OK) st = gif_write(&g, ro->gif, fps, exact, ne);
    gif_free(&g);
    free(spot);
    if (st == TOOL_OK && !o->quiet)
        printf("wrote %s: %ux%u, %u frames (%u to %u) at %.4g fps, %u avatars of %s\n", ro->gif, ro->width, ro->height,
               frames, ro->first, ro->last, fps, n, s->path);
    return st;
}

/* --frames A:B (a range: the GIF's), or --frames N (the scene's frame count, as for run) */
static int frames_option(tool_args *a, render_options *ro, scene_options *o) {
    const char *v;
    int m = args_value(a, "--frames", &v);
    if (m <= 0) return m;
    const char *colon = strchr(v, ':');
    if (!colon) return (o->has_frames = true, parse_u32(a, "--frames", v, 0, 2147483647u, &o->frames)) == TOOL_OK ? 1 : -1;
    char first[32];
    size_t len = (size_t)(colon - v);
    if (len >= sizeof first) len = sizeof first - 1;
    memcpy(first, v, len);
    first[len] = 0;
    if (parse_u32(a, "--frames (A of A:B)", first, 1, 2147483647u, &ro->first) != TOOL_OK ||
        parse_u32(a, "--frames (B of A:B)", colon + 1, 1, 2147483647u, &ro->last) != TOOL_OK)
        return -1;
    if (ro->last < ro->first) {
        tool_error(TOOL_BAD_INPUT, "render: --frames %s: B is before A", v);
        return -1;
    }
    ro->has_range = true;
    return 1;
}

int cmd_render(int argc, char **argv) {
    tool_args a = {argc, argv, 1, "render"};
    scene_options o = {.threads = 1, .simd = CROWD_SIMD_AUTO};
    render_options ro = {.out = NULL, .width = 1280, .height = 720, .count = 1000};
    for (; a.i < argc; a.i++) {
        const char *v;
        int m;
        if ((m = frames_option(&a, &ro, &o)) != 0) {
            if (m < 0) return TOOL_BAD_INPUT;
        } else if ((m = scene_option(&a, &o)) != 0) {
            if (m < 0) return TOOL_BAD_INPUT;
        } else if ((m = args_value(&a, "--out", &v)) != 0) {
            if (m < 0) return TOOL_BAD_INPUT;
            ro.out = v;
        } else if ((m = args_value(&a, "--gif", &v)) != 0) {
            if (m < 0) return TOOL_BAD_INPUT;
            ro.gif = v;
        } else if ((m = args_value(&a, "--fps", &v)) != 0) {
            if (m < 0 || parse_float(&a, "--fps", v, 0.5f, 50.0f, &ro.fps) != TOOL_OK) return TOOL_BAD_INPUT;
            ro.has_fps = true;
        } else if ((m = args_value(&a, "--frame", &v)) != 0) {
            if (m < 0 || parse_u32(&a, "--frame", v, 1, 2147483647u, &ro.frame) != TOOL_OK) return TOOL_BAD_INPUT;
            ro.has_frame = true;
        } else if ((m = args_value(&a, "--size", &v)) != 0) {
            if (m < 0 || parse_size(&a, "--size", v, 16, 16384, &ro.width, &ro.height) != TOOL_OK) return TOOL_BAD_INPUT;
        } else if ((m = args_value(&a, "--count", &v)) != 0) {
            if (m < 0 || parse_u32(&a, "--count", v, 1, 1000000, &ro.count) != TOOL_OK) return TOOL_BAD_INPUT;
        } else if (args_flag(&a, "--help") > 0 || args_flag(&a, "-h") > 0) {
            fputs(render_usage, stdout);
            return TOOL_OK;
        } else if ((argv[a.i][0] == '-' && argv[a.i][1] != 0) || o.scene_path) {
            return args_unexpected(&a);
        } else {
            o.scene_path = argv[a.i];
        }
    }
    if (ro.gif && !ro.has_range) return tool_error(TOOL_BAD_INPUT, "render: --gif needs --frames A:B");
    if (!ro.gif && (ro.has_range || ro.has_fps))
        return tool_error(TOOL_BAD_INPUT, "render: --frames A:B and --fps go with --gif FILE");
    if (ro.gif && ro.has_frame) return tool_error(TOOL_BAD_INPUT, "render: --frame is for a PNG; a GIF takes --frames A:B");
    if (!ro.gif && !ro.out) ro.out = "crowd.png";
    if (ro.gif && ro.out && strcmp(ro.gif, ro.out) == 0)
        return tool_error(TOOL_BAD_INPUT, "render: --out and --gif name the same file %s", ro.gif);
    scene s;
    int st = scene_options_load(&o, &s);
    /* the drawing turns bones by their world rotations */
    if (st == TOOL_OK && scene_rig_without(&s, CROWD_FIELD_BONE_WORLD) >= 0)
        st = scene_rig_lacks(&s.rigs[scene_rig_without(&s, CROWD_FIELD_BONE_WORLD)], CROWD_FIELD_BONE_WORLD, "render");
    if (st == TOOL_OK) {
        /* and every file the scene's reader read (files.h remembers them) */
        const tool_named_file files[3] = {
            {"--out", ro.out, true}, {"--gif", ro.gif, true}, {"the scene", o.scene_path, false}};
        st = tool_check_aliases("render", files, 3);
    }
    if (st != TOOL_OK) {
        scene_free(&s);
        return st;
    }
    world w;
    st = world_create(&w, &s, o.simd, o.threads);
    if (st == TOOL_OK && w.instance_count == 0) st = tool_error(TOOL_BAD_INPUT, "render: %s has no instances", s.path);
    if (st == TOOL_OK && ro.gif) st = render_gif(&w, &s, &o, &ro);
    if (st == TOOL_OK && ro.out) {
        if (ro.gif) { /* both: the PNG shows the GIF's last frame, the world is there already */
            ro.has_frame = true;
            ro.frame = ro.last;
            render_spot *spot = NULL;
            uint32_t n = ro.count < w.instance_count ? ro.count : w.instance_count;
            canvas c = {0};
            float horizon = 0;
            st = render_layout(&w, ro.count, ro.width, ro.height, caption_room(&ro), &spot, &horizon);
            if (st == TOOL_OK) st = paint(&w, &ro, ro.last, s.dt, true, &c, spot, n, horizon);
            if (st == TOOL_OK) st = png_write(ro.out, &c);
            canvas_free(&c);
            free(spot);
        } else {
            st = render_png(&w, &s, &o, &ro);
        }
    }
    world_destroy(&w);
    scene_free(&s);
    return st;
}
